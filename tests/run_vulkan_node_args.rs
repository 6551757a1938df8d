//! A Rust node callback on the Vulkan backend (lavapipe here) reads its arguments by name and
//! type: a struct field, an array element, a view by name with its layout and subresources, an
//! array of views with a null element; it clears its target to a colour from the arguments and
//! the pixels are checked, with validation and synchronization validation on.

use std::sync::{Arc, Mutex};

use rpsl::ash::vk;
use rpsl::runtime::{Backend, BackendError};
use rpsl::vulkan::{VulkanBackend, VulkanOptions};
use rpsl::{EntryArgs, Program, Session, SessionOptions};

const SCRIPT: &str = "\
struct Light { float intensity; float4 color; };
graphics node fill(rtv dst : SV_Target0, Light light, float weights[3], srv srcs[2]);
export void main(texture bb, Light light, float weights[3])
{
    texture src = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 4, 4);
    clear(src, float4(0, 0, 0, 1));
    texture srcs[2];
    srcs[0] = null;
    srcs[1] = src;
    fill(bb, light, weights, srcs);
}
";

/// A validating backend, or `None` (with a note) without a Vulkan device, unless
/// `RPSL_REQUIRE_VULKAN=1`.
fn validating_backend() -> Option<VulkanBackend> {
    let options = VulkanOptions {
        validate: true,
        ..VulkanOptions::default()
    };
    match VulkanBackend::new(options) {
        Ok(backend) => Some(backend),
        Err(BackendError::NoDevice(message))
            if std::env::var("RPSL_REQUIRE_VULKAN").as_deref() != Ok("1") =>
        {
            eprintln!("skipping: no Vulkan device here ({message})");
            None
        }
        Err(error) => panic!("the Vulkan backend cannot run: {error}"),
    }
}

/// What the callback saw of its views.
#[derive(Debug, PartialEq)]
struct Seen {
    dst_layout: vk::ImageLayout,
    dst_range: (u32, u32, u32, u32),
    dst_is_buffer: bool,
    srcs: Vec<Option<(u16, vk::ImageLayout)>>,
    errors: Vec<String>,
}

#[test]
fn a_callback_clears_its_named_view_to_a_colour_from_its_arguments() {
    let Some(mut backend) = validating_backend() else {
        return;
    };
    let program = Program::from_source("fill.rpsl", SCRIPT).unwrap();
    let mut session = Session::new(&program, None, SessionOptions::default()).unwrap();
    // 0.2 and 0.6 are exact in UNORM8 (51, 153); intensity * weights[2] = 1.
    let args = EntryArgs::parse(
        &program,
        session.entry(),
        ["bb=4x4", "light=2,1,0.2,0,0.6", "weights=8,8,0.5"],
    )
    .unwrap();
    let seen = Arc::new(Mutex::new(None));
    let seen_in_node = Arc::clone(&seen);
    backend.bind_node("fill", move |context| {
        let color = context.arg::<[f32; 4]>("light.color")?;
        let scale = context.arg::<f32>("light.intensity")? * context.arg::<f32>("weights[2]")?;
        let dst = context.view("dst")?;
        let target = dst.texture().ok_or("`dst` is a texture")?;
        let srcs = context.views_of("srcs")?;
        let errors = vec![
            context.arg::<u32>("light.intensity").unwrap_err().message,
            context.view("srcs").unwrap_err().message,
            context.view("srcs[0]").unwrap_err().message,
            context.view("weights").unwrap_err().message,
            context.views_of("light").unwrap_err().message,
            context.view("gbuffer").unwrap_err().message,
        ];
        *seen_in_node.lock().unwrap() = Some(Seen {
            dst_layout: target.layout,
            dst_range: (
                target.range.base_mip_level,
                target.range.level_count,
                target.range.base_array_layer,
                target.range.layer_count,
            ),
            dst_is_buffer: dst.buffer().is_some(),
            srcs: srcs
                .iter()
                .map(|view| view.and_then(|v| Some((v.slot, v.texture()?.layout))))
                .collect(),
            errors,
        });
        let pass = context.render_pass.ok_or("`fill` runs in a render pass")?;
        let clear = vk::ClearAttachment {
            aspect_mask: vk::ImageAspectFlags::COLOR,
            color_attachment: 0,
            clear_value: vk::ClearValue {
                color: vk::ClearColorValue {
                    float32: color.map(|c| c * scale),
                },
            },
        };
        let rect = vk::ClearRect {
            rect: vk::Rect2D {
                offset: vk::Offset2D { x: 0, y: 0 },
                extent: vk::Extent2D {
                    width: pass.width,
                    height: pass.height,
                },
            },
            base_array_layer: 0,
            layer_count: target.range.layer_count,
        };
        // SAFETY: inside the node's render pass, whose colour attachment 0 is `dst`, over the
        // pass's whole area and the view's layers.
        unsafe {
            context
                .device
                .cmd_clear_attachments(context.command_buffer, &[clear], &[rect]);
        }
        Ok(())
    });
    let frame = session.run_frame(&args).unwrap();
    backend
        .execute_frame(frame.graph, frame.compiled)
        .unwrap_or_else(|error| panic!("{error}"));
    let (width, height, pixels) = backend.read_rgba8("bb").unwrap();
    assert_eq!((width, height), (4, 4));
    assert_eq!(pixels, [255u8, 51, 0, 153].repeat(16));
    let seen = seen.lock().unwrap().take().expect("the callback ran");
    assert_eq!(
        seen,
        Seen {
            dst_layout: vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL,
            dst_range: (0, 1, 0, 1),
            dst_is_buffer: false,
            srcs: vec![None, Some((1, vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL))],
            errors: vec![
                "`light.intensity` of node `fill` is `float`, requested as `u32`".to_string(),
                "`srcs` of node `fill` is `texture[2]`, which holds several views: take them \
                 with `views_of(\"srcs\")` or name one of them"
                    .to_string(),
                "`srcs[0]` of node `fill` is a null texture: no resource is bound to it"
                    .to_string(),
                "`weights` of node `fill` is `float[3]`, not a view".to_string(),
                "`light` of node `fill` is `Light`, which holds no views".to_string(),
                "node `fill` has no parameter `gbuffer` (parameters: `dst`, `light`, \
                 `weights`, `srcs`)"
                    .to_string(),
            ],
        }
    );
}

#[test]
fn a_callback_error_from_a_wrong_argument_fails_the_frame_with_its_message() {
    let Some(mut backend) = validating_backend() else {
        return;
    };
    let program = Program::from_source("fill.rpsl", SCRIPT).unwrap();
    let mut session = Session::new(&program, None, SessionOptions::default()).unwrap();
    let args = EntryArgs::parse(&program, session.entry(), ["bb=4x4"]).unwrap();
    backend.bind_node("fill", |context| {
        let _radius = context.arg::<u32>("radius")?;
        Ok(())
    });
    let frame = session.run_frame(&args).unwrap();
    match backend.execute_frame(frame.graph, frame.compiled) {
        Err(BackendError::Node { name, message, .. }) => assert_eq!(
            (name.as_str(), message.as_str()),
            (
                "fill",
                "node `fill` has no parameter `radius` (parameters: `dst`, `light`, `weights`, \
                 `srcs`)"
            )
        ),
        other => panic!("expected the node's error, got {other:?}"),
    }
}
