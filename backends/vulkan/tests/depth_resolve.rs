//! Resolves of multisampled depth and depth-stencil images (`resolve()` on D32_FLOAT,
//! D32_FLOAT_S8X24_UINT and D24_UNORM_S8_UINT) in all three modes, under validation with
//! synchronization validation and read back exactly. A bound node draws four times with
//! `gl_SampleMask` selecting one sample each, so every sample of a pixel holds its own depth
//! (`base[sample] + x / 128`) and stencil value (`STENCIL[sample] + 3 x`, drawn column by column)
//! and MIN, MAX, AVERAGE and sample zero all differ, as do the columns (so a resolve read from
//! the wrong offset shows). Shifted resolves run through a scratch image where the device has
//! the mode as a render-pass resolve (also with VK_EXT_shader_stencil_export turned off through
//! the backend's test hook), else through the shader.

mod common;
use ash::vk;
use common::*;
use rpsl_runtime::*;
use rpsl_vulkan::VulkanBackend;
use std::sync::{Arc, Mutex};

const SIZE: u32 = 8;
/// Depth of each sample at x = 0 (sample zero is not the minimum, the maximum or the average). Every
/// depth stays below 0.5, where `f * (2^24 - 1)` rounds to `f * 2^24` however a driver rounds
/// (lavapipe converts 0.765625 to 12845056, not the nearest 12845055), so D24 values are exact.
const DEPTH_BASE: [f32; 4] = [0.25, 0.0625, 0.375, 0.125];
/// Depth step per pixel column.
const DEPTH_STEP: f32 = 1.0 / 128.0;
/// Stencil value of each sample at x = 0.
const STENCIL: [u32; 4] = [20, 5, 40, 10];
/// Stencil step per pixel column (never lands on `CLEAR_STENCIL`).
const STENCIL_STEP: u32 = 3;
/// Clear values of the destination (outside resolved regions).
const CLEAR_DEPTH: f32 = 1.0;
const CLEAR_STENCIL: u32 = 7;
/// rpsl.h's stencil-plane view formats.
const X32_TYPELESS_G8X24_UINT: Format = Format(22);
const X24_TYPELESS_G8_UINT: Format = Format(47);

/// Two triangles covering pixel column `column` of `columns` (geometry rather than per-column
/// scissors: with those, lavapipe left the next column's stencil value in samples 1 to 3).
const VERTEX: &str = r#"#version 450
layout(push_constant) uniform Params {
    float depth;
    float step;
    uint mask;
    uint column;
    uint columns;
} params;
const vec2 CORNERS[6] = vec2[](
    vec2(0.0, 0.0), vec2(1.0, 0.0), vec2(0.0, 1.0),
    vec2(1.0, 0.0), vec2(1.0, 1.0), vec2(0.0, 1.0));
void main() {
    vec2 corner = CORNERS[gl_VertexIndex];
    float x = (float(params.column) + corner.x) / float(params.columns);
    gl_Position = vec4(x * 2.0 - 1.0, corner.y * 2.0 - 1.0, 0.0, 1.0);
}
"#;

const FRAGMENT: &str = r#"#version 450
layout(push_constant) uniform Params {
    float depth;
    float step;
    uint mask;
    uint column;
    uint columns;
} params;
void main() {
    gl_SampleMask[0] = int(params.mask);
    gl_FragDepth = params.depth + floor(gl_FragCoord.x) * params.step;
}
"#;

/// The per-sample writer's Vulkan objects, made on the first call of the node (the callback
/// is the only place with the device) and destroyed by [`SampleWriter::destroy`].
#[derive(Default)]
struct SampleWriter {
    objects: Option<(ash::Device, vk::PipelineLayout, vk::Pipeline)>,
}

impl SampleWriter {
    fn pipeline(
        &mut self,
        device: &ash::Device,
        format: vk::Format,
        stencil: bool,
    ) -> (vk::PipelineLayout, vk::Pipeline) {
        if let Some((_, layout, pipeline)) = &self.objects {
            return (*layout, *pipeline);
        }
        let compiler = rpsl_shaders::ShaderCompiler::new(rpsl_shaders::CompilerOptions::default());
        let compile = |source: &str, stage| {
            let request = rpsl_shaders::ShaderRequest::new(
                source,
                "sample_writer.glsl",
                rpsl_shaders::ShaderLanguage::Glsl,
                stage,
            );
            compiler.compile(&request).unwrap().spirv
        };
        let vertex = compile(VERTEX, rpsl_shaders::ShaderStage::Vertex);
        let fragment = compile(FRAGMENT, rpsl_shaders::ShaderStage::Fragment);
        // SAFETY: valid create infos on the backend's live device (the whole block).
        unsafe {
            let module = |code: &[u32]| {
                device
                    .create_shader_module(&vk::ShaderModuleCreateInfo::default().code(code), None)
                    .unwrap()
            };
            let (vertex, fragment) = (module(&vertex), module(&fragment));
            let ranges = [vk::PushConstantRange::default()
                .stage_flags(vk::ShaderStageFlags::VERTEX | vk::ShaderStageFlags::FRAGMENT)
                .size(20)];
            let layout = device
                .create_pipeline_layout(
                    &vk::PipelineLayoutCreateInfo::default().push_constant_ranges(&ranges),
                    None,
                )
                .unwrap();
            let stages = [
                vk::PipelineShaderStageCreateInfo::default()
                    .stage(vk::ShaderStageFlags::VERTEX)
                    .module(vertex)
                    .name(c"main"),
                vk::PipelineShaderStageCreateInfo::default()
                    .stage(vk::ShaderStageFlags::FRAGMENT)
                    .module(fragment)
                    .name(c"main"),
            ];
            let replace = vk::StencilOpState {
                fail_op: vk::StencilOp::REPLACE,
                pass_op: vk::StencilOp::REPLACE,
                depth_fail_op: vk::StencilOp::REPLACE,
                compare_op: vk::CompareOp::ALWAYS,
                compare_mask: 0xFF,
                write_mask: 0xFF,
                reference: 0,
            };
            let dynamic = [
                vk::DynamicState::VIEWPORT,
                vk::DynamicState::SCISSOR,
                vk::DynamicState::STENCIL_REFERENCE,
            ];
            let mut rendering =
                vk::PipelineRenderingCreateInfo::default().depth_attachment_format(format);
            if stencil {
                rendering = rendering.stencil_attachment_format(format);
            }
            let vertex_input = vk::PipelineVertexInputStateCreateInfo::default();
            let assembly = vk::PipelineInputAssemblyStateCreateInfo::default()
                .topology(vk::PrimitiveTopology::TRIANGLE_LIST);
            let viewport = vk::PipelineViewportStateCreateInfo::default()
                .viewport_count(1)
                .scissor_count(1);
            let raster = vk::PipelineRasterizationStateCreateInfo::default()
                .cull_mode(vk::CullModeFlags::NONE)
                .line_width(1.0);
            let multisample = vk::PipelineMultisampleStateCreateInfo::default()
                .rasterization_samples(vk::SampleCountFlags::TYPE_4);
            let depth_stencil = vk::PipelineDepthStencilStateCreateInfo::default()
                .depth_test_enable(true)
                .depth_write_enable(true)
                .depth_compare_op(vk::CompareOp::ALWAYS)
                .stencil_test_enable(stencil)
                .front(replace)
                .back(replace);
            let blend = vk::PipelineColorBlendStateCreateInfo::default();
            let dynamic = vk::PipelineDynamicStateCreateInfo::default().dynamic_states(&dynamic);
            let info = vk::GraphicsPipelineCreateInfo::default()
                .push_next(&mut rendering)
                .stages(&stages)
                .vertex_input_state(&vertex_input)
                .input_assembly_state(&assembly)
                .viewport_state(&viewport)
                .rasterization_state(&raster)
                .multisample_state(&multisample)
                .depth_stencil_state(&depth_stencil)
                .color_blend_state(&blend)
                .dynamic_state(&dynamic)
                .layout(layout);
            let pipeline = device
                .create_graphics_pipelines(vk::PipelineCache::null(), &[info], None)
                .unwrap()[0];
            device.destroy_shader_module(vertex, None);
            device.destroy_shader_module(fragment, None);
            self.objects = Some((device.clone(), layout, pipeline));
            (layout, pipeline)
        }
    }

    fn destroy(&mut self) {
        if let Some((device, layout, pipeline)) = self.objects.take() {
            // SAFETY: the backend waited for its frames; the objects are ours.
            unsafe {
                device.destroy_pipeline(pipeline, None);
                device.destroy_pipeline_layout(layout, None);
            }
        }
    }
}

/// One resolve of a test frame: region (dst offset, src offset, extent) and mode.
#[derive(Copy, Clone, Debug)]
struct Resolve {
    dst_offset: [u32; 2],
    src_offset: [u32; 2],
    extent: [u32; 2],
    mode: u32,
    /// View format of both views (`Format::UNKNOWN`: the resource's, all planes).
    view_format: Format,
}

impl Resolve {
    fn whole(mode: u32) -> Resolve {
        Resolve {
            dst_offset: [0, 0],
            src_offset: [0, 0],
            extent: [u32::MAX, u32::MAX],
            mode,
            view_format: Format::UNKNOWN,
        }
    }
}

/// The depth/stencil values expected in the destination after `resolve`.
fn expected(resolve: &Resolve, x: u32, y: u32) -> (f32, u32) {
    let [dx, dy] = resolve.dst_offset;
    let width = resolve.extent[0].min(SIZE - dx);
    let height = resolve.extent[1].min(SIZE - dy);
    if !(dx..dx + width).contains(&x) || !(dy..dy + height).contains(&y) {
        return (CLEAR_DEPTH, CLEAR_STENCIL);
    }
    let src_x = x - dx + resolve.src_offset[0];
    let depths = DEPTH_BASE.map(|base| base + src_x as f32 * DEPTH_STEP);
    let column = src_x * STENCIL_STEP;
    let stencil_only =
        [X24_TYPELESS_G8_UINT, X32_TYPELESS_G8X24_UINT].contains(&resolve.view_format);
    let (depth, stencil) = match resolve.mode {
        0 => (depths.iter().sum::<f32>() / 4.0, STENCIL[0] + column),
        1 => (
            depths.iter().copied().fold(f32::MAX, f32::min),
            STENCIL.iter().min().unwrap() + column,
        ),
        _ => (
            depths.iter().copied().fold(f32::MIN, f32::max),
            STENCIL.iter().max().unwrap() + column,
        ),
    };
    if stencil_only {
        (CLEAR_DEPTH, stencil)
    } else {
        (depth, stencil)
    }
}

/// `value` as D24 unorm (round to nearest).
fn unorm24(value: f32) -> u32 {
    (value as f64 * 16_777_215.0).round() as u32
}

/// Draws per-sample values into a 4x MSAA image of `format`, resolves it into the external
/// `depth` with `resolves` (in order, onto a cleared destination) and copies the stencil plane
/// into the external buffer `stencil`, for `2 * slots` frames (with `slots` frames in flight;
/// the second half must make no image views). Returns the destination's depth (as raw 32-bit
/// words) and stencil bytes, or the error.
fn run_resolves(
    backend: &mut VulkanBackend,
    format: Format,
    resolves: &[Resolve],
    slots: u32,
) -> Result<(Vec<u32>, Vec<u8>), BackendError> {
    let has_stencil = format.has_stencil();
    let mut frame = Frame::new();
    let draw = frame.builder.declare_node(NodeDeclDesc::new(
        "write_samples",
        QueueClass::Graphics,
        vec![ParamDesc::new("ds", ValueType::Texture)
            .with_access(AccessDesc::readwrite(
                AccessFlags::DEPTH | AccessFlags::STENCIL,
            ))
            .with_semantic(SemanticKind::DepthStencil, 0)],
    ));
    let clear = frame
        .builder
        .declare_node(builtin("clear", 3, AccessFlags::DEPTH));
    let resolve = frame
        .builder
        .declare_node(builtin("resolve", 6, AccessFlags::RESOLVE));
    let copy = frame
        .builder
        .declare_node(builtin("copy_texture_to_buffer", 8, AccessFlags::COPY));
    frame.builder.begin_frame(0);
    let dst = frame.external_texture("depth", ResourceDesc::tex2d(format, SIZE, SIZE));
    let mut msaa_desc = ResourceDesc::tex2d(format, SIZE, SIZE);
    msaa_desc.sample_count = 4;
    let msaa = frame.texture(msaa_desc);
    frame.call(draw, |a| {
        a.write_texture(0, &msaa);
    });
    frame.call(clear, |a| {
        a.write_texture(0, &dst);
        a.write_f32(1, 0, CLEAR_DEPTH);
        write_u32s(a, 2, &[CLEAR_STENCIL]);
    });
    for r in resolves {
        let (mut dst_view, mut src_view) = (dst, msaa);
        dst_view.view_format = r.view_format.0;
        src_view.view_format = r.view_format.0;
        frame.call(resolve, |a| {
            a.write_texture(0, &dst_view);
            write_u32s(a, 1, &r.dst_offset);
            a.write_texture(2, &src_view);
            write_u32s(a, 3, &r.src_offset);
            write_u32s(a, 4, &r.extent);
            write_u32s(a, 5, &[r.mode]);
        });
    }
    if has_stencil {
        let buffer = frame.external_buffer("stencil", (SIZE * SIZE) as u64);
        let mut stencil_view = dst;
        stencil_view.view_format = if format == Format::D24_UNORM_S8_UINT {
            X24_TYPELESS_G8_UINT.0
        } else {
            X32_TYPELESS_G8X24_UINT.0
        };
        frame.call(copy, |a| {
            a.write_buffer(0, &buffer);
            write_u32s(a, 1, &[0, 0]);
            write_u32s(a, 2, &[SIZE]);
            write_u32s(a, 3, &[SIZE, SIZE, 1]);
            write_u32s(a, 4, &[0, 0, 0]);
            a.write_texture(5, &stencil_view);
            write_u32s(a, 6, &[0, 0, 0]);
            write_u32s(a, 7, &[SIZE, SIZE, 1]);
        });
    }
    let graph = frame.builder.finish().unwrap().clone();
    let vk_format = rpsl_vulkan::vk_format(format).unwrap();
    let writer = Arc::new(Mutex::new(SampleWriter::default()));
    let in_node = writer.clone();
    backend.bind_node("write_samples", move |context| {
        let pass = context.render_pass.ok_or("no render pass")?;
        let (layout, pipeline) =
            in_node
                .lock()
                .unwrap()
                .pipeline(context.device, vk_format, has_stencil);
        let device = context.device;
        let cb = context.command_buffer;
        let (width, height) = (pass.width, pass.height);
        // SAFETY: inside the node's render pass; the pipeline matches its attachments.
        unsafe {
            device.cmd_bind_pipeline(cb, vk::PipelineBindPoint::GRAPHICS, pipeline);
            device.cmd_set_viewport(
                cb,
                0,
                &[vk::Viewport {
                    x: 0.0,
                    y: 0.0,
                    width: width as f32,
                    height: height as f32,
                    min_depth: 0.0,
                    max_depth: 1.0,
                }],
            );
            device.cmd_set_scissor(
                cb,
                0,
                &[vk::Rect2D {
                    offset: vk::Offset2D::default(),
                    extent: vk::Extent2D { width, height },
                }],
            );
            for sample in 0..4 {
                // One column at a time: the stencil reference is the column's value.
                for x in 0..width {
                    let mut constants = Vec::new();
                    constants.extend_from_slice(&DEPTH_BASE[sample].to_le_bytes());
                    constants.extend_from_slice(&DEPTH_STEP.to_le_bytes());
                    constants.extend_from_slice(&(1u32 << sample).to_le_bytes());
                    constants.extend_from_slice(&x.to_le_bytes());
                    constants.extend_from_slice(&width.to_le_bytes());
                    device.cmd_push_constants(
                        cb,
                        layout,
                        vk::ShaderStageFlags::VERTEX | vk::ShaderStageFlags::FRAGMENT,
                        0,
                        &constants,
                    );
                    device.cmd_set_stencil_reference(
                        cb,
                        vk::StencilFaceFlags::FRONT_AND_BACK,
                        STENCIL[sample] + x * STENCIL_STEP,
                    );
                    device.cmd_draw(cb, 6, 1, 0, 0);
                }
            }
        }
        Ok(())
    });
    let mut compiler = FrameCompiler::new(CompileOptions::default());
    let compiled = compiler.compile(&graph).unwrap().clone();
    // A frame per slot, then as many steady frames, which make no new views (the resolve's
    // views and scratch images are cached per slot).
    let mut result = Ok(());
    for _ in 0..slots {
        result = result.and_then(|()| backend.execute_frame(&graph, &compiled));
    }
    if result.is_ok() {
        let before = backend.object_counts();
        for _ in 0..slots {
            result = result.and_then(|()| backend.execute_frame(&graph, &compiled));
        }
        let made = backend.object_counts().since(&before);
        if result.is_ok() && made.image_views_created != 0 {
            result = Err(BackendError::Api(format!(
                "the steady frames made {} image views",
                made.image_views_created
            )));
        }
    }
    let result = result.and_then(|()| backend.wait_idle());
    let read = result.and_then(|()| {
        let depth = backend.read_external("depth")?;
        let words = depth[..(SIZE * SIZE * 4) as usize]
            .chunks(4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        let stencil = if has_stencil {
            backend.read_external("stencil")?
        } else {
            Vec::new()
        };
        Ok((words, stencil))
    });
    let _ = backend.wait_idle();
    writer.lock().unwrap().destroy();
    read
}

/// Runs `resolves` on `format` and checks every texel of depth and stencil exactly.
fn check(format: Format, resolves: &[Resolve]) {
    let Some(mut backend) = backend() else { return };
    check_on(&mut backend, format, resolves, 1);
}

/// Runs `resolves` on `format` on `backend` (with `slots` frames in flight) and checks every
/// texel of depth and stencil exactly (D24 averages within one unit of the last place).
fn check_on(backend: &mut VulkanBackend, format: Format, resolves: &[Resolve], slots: u32) {
    let (depth, stencil) = run_resolves(backend, format, resolves, slots)
        .unwrap_or_else(|error| panic!("{format:?} {resolves:?}: {error}"));
    let d24_tolerance = u32::from(resolves.iter().any(|resolve| resolve.mode == 0));
    for y in 0..SIZE {
        for x in 0..SIZE {
            let at = (y * SIZE + x) as usize;
            let (mut want_depth, mut want_stencil) = (CLEAR_DEPTH, CLEAR_STENCIL);
            for resolve in resolves {
                let (d, s) = expected(resolve, x, y);
                if d != CLEAR_DEPTH {
                    want_depth = d;
                }
                if s != CLEAR_STENCIL {
                    want_stencil = s;
                }
            }
            if format == Format::D24_UNORM_S8_UINT {
                let got = depth[at] & 0x00FF_FFFF;
                assert!(
                    got.abs_diff(unorm24(want_depth)) <= d24_tolerance,
                    "{format:?} depth ({x}, {y}) of {resolves:?}: {got} vs {}",
                    unorm24(want_depth)
                );
            } else {
                assert_eq!(
                    f32::from_bits(depth[at]),
                    want_depth,
                    "{format:?} depth ({x}, {y}) of {resolves:?}"
                );
            }
            if format.has_stencil() {
                assert_eq!(
                    stencil[at] as u32, want_stencil,
                    "{format:?} stencil ({x}, {y}) of {resolves:?}"
                );
            }
        }
    }
}

#[test]
fn reports_the_devices_depth_stencil_resolve_support() {
    let Some(backend) = backend() else { return };
    let features = backend.features();
    println!(
        "{}: depth resolve modes {:?}, stencil resolve modes {:?}, independentResolve {}, independentResolveNone {}, VK_EXT_shader_stencil_export {}",
        backend.device_name(),
        features.depth_resolve_modes,
        features.stencil_resolve_modes,
        features.independent_resolve,
        features.independent_resolve_none,
        features.shader_stencil_export
    );
    // The spec guarantees sample zero for both aspects and forbids averaging stencil.
    assert!(features
        .depth_resolve_modes
        .contains(vk::ResolveModeFlags::SAMPLE_ZERO));
    assert!(features
        .stencil_resolve_modes
        .contains(vk::ResolveModeFlags::SAMPLE_ZERO));
    assert!(!features
        .stencil_resolve_modes
        .contains(vk::ResolveModeFlags::AVERAGE));
}

#[test]
fn d32_average_min_and_max_resolve_every_pixel() {
    for mode in 0..3 {
        check(Format::D32_FLOAT, &[Resolve::whole(mode)]);
    }
}

#[test]
fn d32_resolves_write_only_their_regions() {
    // Equal offsets: a render-pass resolve over the region's render area (or the shader where
    // the device lacks the mode); different offsets: the shader resolve.
    for mode in 0..3 {
        let same = Resolve {
            dst_offset: [2, 3],
            src_offset: [2, 3],
            extent: [4, 2],
            mode,
            view_format: Format::UNKNOWN,
        };
        let shifted = Resolve {
            dst_offset: [1, 6],
            src_offset: [4, 0],
            extent: [3, 9],
            mode,
            view_format: Format::UNKNOWN,
        };
        check(Format::D32_FLOAT, &[same, shifted]);
    }
}

#[test]
fn d32s8_resolves_depth_and_stencil_in_every_mode() {
    for mode in 0..3 {
        check(Format::D32_FLOAT_S8X24_UINT, &[Resolve::whole(mode)]);
    }
    let region = Resolve {
        dst_offset: [3, 1],
        src_offset: [0, 2],
        extent: [2, 5],
        mode: 2,
        view_format: Format::UNKNOWN,
    };
    check(Format::D32_FLOAT_S8X24_UINT, &[region]);
}

#[test]
fn stencil_plane_views_resolve_only_stencil() {
    for (format, plane) in [
        (Format::D32_FLOAT_S8X24_UINT, X32_TYPELESS_G8X24_UINT),
        (Format::D24_UNORM_S8_UINT, X24_TYPELESS_G8_UINT),
    ] {
        for mode in 0..3 {
            let resolve = Resolve {
                view_format: plane,
                ..Resolve::whole(mode)
            };
            check(format, &[resolve]);
        }
    }
}

#[test]
fn d24s8_min_and_max_pick_one_sample_exactly() {
    // D24 averages round with implementation-defined precision: only the modes that pick a
    // sample are compared bit for bit (stencil in every mode).
    for mode in 1..3 {
        check(Format::D24_UNORM_S8_UINT, &[Resolve::whole(mode)]);
    }
}

#[test]
fn d24s8_average_keeps_stencil_sample_zero() {
    let Some(mut backend) = backend() else { return };
    let format = Format::D24_UNORM_S8_UINT;
    let (depth, stencil) = run_resolves(&mut backend, format, &[Resolve::whole(0)], 1)
        .unwrap_or_else(|error| panic!("{error}"));
    for x in 0..SIZE {
        let (average, _) = expected(&Resolve::whole(0), x, 0);
        let got = depth[x as usize] & 0x00FF_FFFF;
        // Any rounding of the average of the four quantised samples.
        assert!(
            got.abs_diff(unorm24(average)) <= 1,
            "depth ({x}, 0): {got} vs {}",
            unorm24(average)
        );
    }
    for (at, &value) in stencil.iter().enumerate() {
        let x = at as u32 % SIZE;
        assert_eq!(
            value as u32,
            STENCIL[0] + x * STENCIL_STEP,
            "stencil at {at}"
        );
    }
}

#[test]
fn a_single_sampled_source_is_a_clear_error() {
    // Refused when the call is recorded (before any backend sees it).
    let mut frame = Frame::new();
    let resolve = frame
        .builder
        .declare_node(builtin("resolve", 6, AccessFlags::RESOLVE));
    frame.builder.begin_frame(0);
    let dst = frame.external_texture("depth", ResourceDesc::tex2d(Format::D32_FLOAT, 4, 4));
    let src = frame.texture(ResourceDesc::tex2d(Format::D32_FLOAT, 4, 4));
    let mut args = ArgsWriter::new(frame.builder.decl(resolve).unwrap());
    args.write_texture(0, &dst).write_texture(2, &src);
    write_u32s(&mut args, 4, &[u32::MAX, u32::MAX]);
    match frame
        .builder
        .call_node(resolve, args.bytes(), CallFlags::default(), 1)
    {
        Err(BuildError::InvalidTransfer { node, message }) => {
            assert_eq!(node, "resolve");
            assert_eq!(message, "the source of a resolve must be multisampled");
        }
        other => panic!("expected a transfer error, got {other:?}"),
    }
}

/// Two shifted resolves in `mode` through views of `view_format` (one frame runs both, so the
/// second reuses the first's scratch image).
fn shifted_resolves(mode: u32, view_format: Format) -> [Resolve; 2] {
    [
        Resolve {
            dst_offset: [3, 1],
            src_offset: [0, 2],
            extent: [4, 5],
            mode,
            view_format,
        },
        Resolve {
            dst_offset: [0, 6],
            src_offset: [2, 0],
            extent: [3, 2],
            mode,
            view_format,
        },
    ]
}

/// Runs `resolves`, expecting the node error for a stencil resolve the device cannot do
/// without VK_EXT_shader_stencil_export, whose message contains `why`.
fn expect_unsupported(
    backend: &mut VulkanBackend,
    format: Format,
    resolves: &[Resolve],
    why: &str,
) {
    match run_resolves(backend, format, resolves, 1) {
        Err(BackendError::Node { name, message, .. }) => {
            assert_eq!(name, "resolve");
            assert!(
                message.contains("stencil aspect")
                    && message.contains(why)
                    && message.contains("VK_EXT_shader_stencil_export"),
                "{format:?} {resolves:?}: {message}"
            );
        }
        other => panic!("{format:?} {resolves:?}: expected a node error, got {other:?}"),
    }
}

#[test]
fn shifted_stencil_resolves_need_no_stencil_export_where_the_render_pass_has_the_mode() {
    let Some(mut backend) = backend() else { return };
    // As on a device without VK_EXT_shader_stencil_export (the NVIDIA H200 is one).
    backend.set_resolve_capabilities_for_tests(|features| features.shader_stencil_export = false);
    let features = backend.features();
    assert!(!features.shader_stencil_export);
    // lavapipe copies whole texels of depth-stencil images, so a stencil-only view cannot go
    // through a scratch copy there (the backend says so).
    let whole_texel_copies = backend.device_name().starts_with("llvmpipe");
    for (format, plane) in [
        (Format::D32_FLOAT_S8X24_UINT, X32_TYPELESS_G8X24_UINT),
        (Format::D24_UNORM_S8_UINT, X24_TYPELESS_G8_UINT),
    ] {
        for mode in 0..3 {
            let stencil_mode = [
                vk::ResolveModeFlags::SAMPLE_ZERO,
                vk::ResolveModeFlags::MIN,
                vk::ResolveModeFlags::MAX,
            ][mode as usize];
            let both = shifted_resolves(mode, Format::UNKNOWN);
            let stencil_only = shifted_resolves(mode, plane);
            // D24 depth averages round with implementation-defined precision (checked within
            // one unit); MIN/MAX and every stencil value are exact.
            if !features.stencil_resolve_modes.contains(stencil_mode) {
                expect_unsupported(&mut backend, format, &both, "stencil resolve modes are");
                expect_unsupported(
                    &mut backend,
                    format,
                    &stencil_only,
                    "stencil resolve modes are",
                );
                continue;
            }
            check_on(&mut backend, format, &both, 1);
            if whole_texel_copies {
                expect_unsupported(&mut backend, format, &stencil_only, "overwrites the other");
            } else {
                check_on(&mut backend, format, &stencil_only, 1);
            }
        }
    }
}

#[test]
fn scratch_resolves_keep_their_images_per_frame_slot() {
    // Two frames in flight: each slot makes its scratch image and views once, and the steady
    // frames after them make none (`run_resolves` checks), with exact results.
    let Some(mut backend) = backend_with(2) else {
        return;
    };
    backend.set_resolve_capabilities_for_tests(|features| features.shader_stencil_export = false);
    let format = Format::D32_FLOAT_S8X24_UINT;
    check_on(
        &mut backend,
        format,
        &shifted_resolves(0, Format::UNKNOWN),
        2,
    );
}

#[test]
fn the_capability_hook_only_narrows() {
    let Some(mut backend) = backend() else { return };
    let real = backend.features();
    backend.set_resolve_capabilities_for_tests(|features| {
        features.stencil_resolve_modes = vk::ResolveModeFlags::SAMPLE_ZERO
            | vk::ResolveModeFlags::MIN
            | vk::ResolveModeFlags::MAX;
        features.shader_stencil_export = true;
        features.independent_resolve = false;
        features.push_descriptor = !real.push_descriptor;
    });
    let now = backend.features();
    assert_eq!(now.stencil_resolve_modes, real.stencil_resolve_modes);
    assert_eq!(now.shader_stencil_export, real.shader_stencil_export);
    assert!(!now.independent_resolve);
    assert_eq!(now.push_descriptor, real.push_descriptor);
    assert_eq!(now.depth_resolve_modes, real.depth_resolve_modes);
}
