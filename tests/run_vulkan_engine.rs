//! rpsl inside an engine (issue 18): the test plays the engine. It creates its own ash instance
//! (validation layer with synchronization validation, a debug messenger that collects every
//! warning and error), device, queue, an RGBA8 image standing in for a swapchain image, binary
//! and timeline semaphores and fences; hands them to rpsl; renders a frame with a shader node
//! and a Rust node callback into the image; copies the image to a host-visible buffer as an
//! engine would after waiting for rpsl's semaphore; and checks exact pixels and that the
//! layers said nothing. Skips without a Vulkan device or the validation layer unless
//! `RPSL_REQUIRE_VULKAN=1`.
#![cfg(feature = "vulkan")]

use rpsl::ash::vk;
use rpsl::runtime::{Backend, BackendError, Format, ResourceDesc};
use rpsl::vulkan::shader_node::{bind_shader_nodes, ShaderNodeOptions};
use rpsl::vulkan::{
    FrameSync, ImportedBuffer, ImportedImage, ResourceState, SemaphoreOp, VulkanBackend,
    VulkanOptions,
};

mod run_vulkan_engine_support;
use run_vulkan_engine_support::{image_usage, App, SIZE};

/// The frame: a shader node fills the left half red and the right half green at `level`; a
/// Rust callback then clears the top-left 16x16 pixels to blue inside the node's render pass.
const SCRIPT: &str = "\
graphics node Gradient(rtv target : SV_Target0, float level);
graphics node Stamp(rtv target : SV_Target0);
export void main([readonly(present)] texture backbuffer, float level)
{
    Gradient(backbuffer, level);
    Stamp(backbuffer);
}
";

const GRADIENT_FRAG: &str = "\
#version 450
layout(location = 0) out vec4 color;
layout(push_constant) uniform Params { float level; } params;
void main()
{
    color = gl_FragCoord.x < 32.0 ? vec4(1.0, 0.0, 0.0, 1.0) : vec4(0.0, params.level, 0.0, 1.0);
}
";

/// The pixel the frame draws at (`x`, `y`) with the green `level` (as a byte).
fn expected_pixel(x: u32, y: u32, green: u8) -> [u8; 4] {
    if x < 16 && y < 16 {
        [0, 0, 255, 255]
    } else if x < 32 {
        [255, 0, 0, 255]
    } else {
        [0, green, 0, 255]
    }
}

fn expected_image(green: u8) -> Vec<u8> {
    (0..SIZE)
        .flat_map(|y| (0..SIZE).flat_map(move |x| expected_pixel(x, y, green)))
        .collect()
}

fn imported(image: vk::Image, state: ResourceState) -> ImportedImage {
    ImportedImage {
        image,
        desc: ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, SIZE, SIZE),
        usage: image_usage(),
        state,
        final_state: None,
        debug_name: None,
    }
}

/// The frame's program.
fn program() -> rpsl::Program {
    rpsl::Program::from_source("engine.rpsl", SCRIPT).unwrap()
}

/// A backend on `app`'s device with `Gradient` bound to its shader (written to a scratch
/// folder) and `Stamp` to a Rust callback.
fn engine_backend(app: &App, frames_in_flight: u32) -> VulkanBackend {
    let dir = std::env::temp_dir().join(format!("rpsl-engine-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("Gradient.frag"), GRADIENT_FRAG).unwrap();
    let options = VulkanOptions {
        frames_in_flight,
        ..VulkanOptions::default()
    };
    let mut backend = VulkanBackend::on_device(app.engine_device(), options).unwrap();
    let bound = bind_shader_nodes(
        &mut backend,
        ShaderNodeOptions::new(&dir),
        ["Gradient".to_string()],
    );
    assert_eq!(bound, ["Gradient"]);
    backend.bind_node("Stamp", |context| {
        let pass = context.render_pass.ok_or("Stamp runs in a render pass")?;
        assert_eq!((pass.width, pass.height), (SIZE, SIZE));
        let clear = [vk::ClearAttachment {
            aspect_mask: vk::ImageAspectFlags::COLOR,
            color_attachment: 0,
            clear_value: vk::ClearValue {
                color: vk::ClearColorValue {
                    float32: [0.0, 0.0, 1.0, 1.0],
                },
            },
        }];
        let rect = [vk::ClearRect {
            rect: vk::Rect2D {
                offset: vk::Offset2D { x: 0, y: 0 },
                extent: vk::Extent2D {
                    width: 16,
                    height: 16,
                },
            },
            base_array_layer: 0,
            layer_count: 1,
        }];
        // SAFETY: inside the node's render pass with one colour attachment; the rectangle lies
        // within the render area.
        unsafe {
            context
                .device
                .cmd_clear_attachments(context.command_buffer, &clear, &rect)
        };
        Ok(())
    });
    backend
}

#[test]
fn a_frame_renders_into_the_engines_image_on_its_device_with_its_semaphores() {
    let Some(app) = App::new(true) else { return };
    let (image, image_memory) = app.create_image();
    let view = app.create_view(image);
    let (readback, readback_memory) = app.create_readback();
    let acquired = app.binary_semaphore();
    let rendered = app.binary_semaphore();
    let timeline = app.timeline_semaphore();
    let frame_done = app.fence();
    let copy_done = app.fence();
    {
        let program = program();
        let mut backend = engine_backend(&app, 1);
        let mut session =
            rpsl::Session::new(&program, None, rpsl::SessionOptions::default()).unwrap();
        let args =
            rpsl::EntryArgs::parse(&program, session.entry(), ["backbuffer=64x64", "level=0.2"])
                .unwrap();
        app.signal(acquired);
        backend
            .import_image("backbuffer", imported(image, ResourceState::UNDEFINED))
            .unwrap();
        // The engine's view of the whole image serves every view the frame needs of it.
        assert!(backend.lend_image_view("backbuffer", view));
        backend.set_frame_sync(FrameSync {
            waits: vec![SemaphoreOp::binary(
                acquired,
                vk::PipelineStageFlags2::COLOR_ATTACHMENT_OUTPUT,
            )],
            signals: vec![
                SemaphoreOp::binary(rendered, vk::PipelineStageFlags2::ALL_COMMANDS),
                SemaphoreOp::timeline(timeline, 7, vk::PipelineStageFlags2::ALL_COMMANDS),
            ],
            fence: frame_done,
        });
        let frame = session.run_frame(&args).unwrap();
        backend.execute_frame(frame.graph, frame.compiled).unwrap();
        assert_eq!(backend.object_counts().image_views_created, 0);
        // `[readonly(present)]`: the image is left in the present layout.
        let after = backend.imported_state("backbuffer").unwrap();
        assert_eq!(after.layout, vk::ImageLayout::PRESENT_SRC_KHR);
        let cb = app.copy_to_buffer(
            image,
            vk::ImageLayout::PRESENT_SRC_KHR,
            readback,
            rendered,
            vk::Semaphore::null(),
            copy_done,
        );
        app.wait(frame_done);
        assert_eq!(app.timeline_after_wait(timeline, 7), 7);
        app.wait(copy_done);
        assert_eq!(app.read(readback_memory), expected_image(51));
        // SAFETY: the copy completed.
        unsafe { app.device.free_command_buffers(app.pool, &[cb]) };
        assert_eq!(app.messages.take(), Vec::<String>::new());
        drop(backend);
    }
    assert_eq!(app.messages.take(), Vec::<String>::new());
    // SAFETY: the backend is gone and the queue idle; these are the test's objects.
    unsafe {
        app.device.device_wait_idle().unwrap();
        for semaphore in [acquired, rendered, timeline] {
            app.device.destroy_semaphore(semaphore, None);
        }
        app.device.destroy_fence(frame_done, None);
        app.device.destroy_fence(copy_done, None);
        app.device.destroy_image_view(view, None);
        app.device.destroy_image(image, None);
        app.device.free_memory(image_memory, None);
        app.device.destroy_buffer(readback, None);
        app.device.free_memory(readback_memory, None);
    }
    assert_eq!(app.messages.take(), Vec::<String>::new());
}

#[test]
fn a_device_without_what_rpsl_needs_is_refused_by_name() {
    let Some(app) = App::new(false) else { return };
    match VulkanBackend::on_device(app.engine_device(), VulkanOptions::default()) {
        Err(BackendError::MissingFeature(message)) => assert_eq!(
            message,
            "the application's device lacks what rpsl needs: timelineSemaphore \
             (VkPhysicalDeviceVulkan12Features), synchronization2 \
             (VkPhysicalDeviceVulkan13Features)"
        ),
        Err(other) => panic!("expected a missing feature, got {other}"),
        Ok(_) => panic!("expected a missing feature, got a backend"),
    }
    assert_eq!(app.messages.take(), Vec::<String>::new());
}

#[test]
fn two_frames_in_flight_render_into_per_frame_images_on_a_render_thread() {
    let Some(app) = App::new(true) else { return };
    let images = [app.create_image(), app.create_image()];
    let readbacks: Vec<_> = (0..4).map(|_| app.create_readback()).collect();
    let ready = [app.binary_semaphore(), app.binary_semaphore()];
    let rendered = [app.binary_semaphore(), app.binary_semaphore()];
    let timeline = app.timeline_semaphore();
    let levels = [("1.0", 255u8), ("0.2", 51), ("0.6", 153), ("0.4", 102)];
    for &semaphore in &ready {
        app.signal(semaphore);
    }
    let backend = engine_backend(&app, 2);
    // The engine owns the backend on its render thread.
    let command_buffers = std::thread::scope(|scope| {
        let app = &app;
        let (images, readbacks) = (&images, &readbacks);
        let render = scope.spawn(move || {
            let mut backend = backend;
            let program = program();
            let mut session =
                rpsl::Session::new(&program, None, rpsl::SessionOptions::default()).unwrap();
            let mut command_buffers = Vec::new();
            for (frame_index, &(level, _)) in levels.iter().enumerate() {
                // Frames 0 and 1 draw into fresh images and leave them for presenting; frames 2
                // and 3 find them where the engine's copy left them and ask for the copy's
                // layout at the end.
                let k = frame_index % 2;
                let copied = ResourceState::image(
                    vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                    vk::PipelineStageFlags2::COPY,
                    vk::AccessFlags2::TRANSFER_READ,
                );
                let mut import = imported(images[k].0, ResourceState::UNDEFINED);
                if frame_index >= 2 {
                    import.state = copied;
                    import.final_state = Some(copied);
                }
                backend.import_image("backbuffer", import).unwrap();
                backend.set_frame_sync(FrameSync {
                    waits: vec![SemaphoreOp::binary(
                        ready[k],
                        vk::PipelineStageFlags2::ALL_COMMANDS,
                    )],
                    signals: vec![
                        SemaphoreOp::binary(rendered[k], vk::PipelineStageFlags2::ALL_COMMANDS),
                        SemaphoreOp::timeline(
                            timeline,
                            frame_index as u64 + 1,
                            vk::PipelineStageFlags2::ALL_COMMANDS,
                        ),
                    ],
                    fence: vk::Fence::null(),
                });
                let args = rpsl::EntryArgs::parse(
                    &program,
                    session.entry(),
                    ["backbuffer=64x64".to_string(), format!("level={level}")],
                )
                .unwrap();
                let frame = session.run_frame(&args).unwrap();
                backend.execute_frame(frame.graph, frame.compiled).unwrap();
                let left = backend.imported_state("backbuffer").unwrap().layout;
                let expected = if frame_index >= 2 {
                    vk::ImageLayout::TRANSFER_SRC_OPTIMAL
                } else {
                    vk::ImageLayout::PRESENT_SRC_KHR
                };
                assert_eq!(left, expected, "frame {frame_index}");
                command_buffers.push(app.copy_to_buffer(
                    images[k].0,
                    left,
                    readbacks[frame_index].0,
                    rendered[k],
                    ready[k],
                    vk::Fence::null(),
                ));
            }
            backend.wait_idle().unwrap();
            // One view of each image, made on its first frame and kept across the rotation.
            assert_eq!(backend.object_counts().image_views_created, 2);
            // Before the engine destroys (or recreates) its images: their views go, and the
            // import of the last one with it.
            backend.release_image(images[0].0).unwrap();
            assert_eq!(backend.object_counts().image_views_destroyed, 1);
            assert!(backend.imported_state("backbuffer").is_some());
            backend.release_image(images[1].0).unwrap();
            assert_eq!(backend.object_counts().image_views_destroyed, 2);
            assert_eq!(backend.imported_state("backbuffer"), None);
            drop(backend);
            command_buffers
        });
        render.join().unwrap()
    });
    // Like a fence, an idle queue does not say the host sees the timeline's last signal yet.
    assert_eq!(app.timeline_after_wait(timeline, 4), 4);
    // SAFETY: the engine's own queue and objects; everything submitted completes first.
    unsafe {
        app.device.queue_wait_idle(app.queue).unwrap();
        app.device.free_command_buffers(app.pool, &command_buffers);
    }
    for (frame_index, &(_, green)) in levels.iter().enumerate() {
        assert!(
            app.read(readbacks[frame_index].1) == expected_image(green),
            "frame {frame_index}: the pixels differ"
        );
    }
    assert_eq!(app.messages.take(), Vec::<String>::new());
    // SAFETY: the backend is gone and the queue idle; these are the test's objects.
    unsafe {
        for semaphore in ready.into_iter().chain(rendered).chain([timeline]) {
            app.device.destroy_semaphore(semaphore, None);
        }
        for (image, memory) in images {
            app.device.destroy_image(image, None);
            app.device.free_memory(memory, None);
        }
        for (buffer, memory) in readbacks {
            app.device.destroy_buffer(buffer, None);
            app.device.free_memory(memory, None);
        }
    }
    assert_eq!(app.messages.take(), Vec::<String>::new());
}

#[test]
fn an_image_that_does_not_fit_its_parameter_is_refused_by_name() {
    let Some(app) = App::new(true) else { return };
    let (image, memory) = app.create_image();
    let program = program();
    let mut backend = engine_backend(&app, 1);
    let mut session = rpsl::Session::new(&program, None, rpsl::SessionOptions::default()).unwrap();
    let args =
        rpsl::EntryArgs::parse(&program, session.entry(), ["backbuffer=32x32", "level=1"]).unwrap();
    backend
        .import_image("backbuffer", imported(image, ResourceState::UNDEFINED))
        .unwrap();
    let frame = session.run_frame(&args).unwrap();
    match backend.execute_frame(frame.graph, frame.compiled) {
        Err(BackendError::Api(message)) => assert_eq!(
            message,
            "entry argument `backbuffer`: the application's image is Tex2d R8G8B8A8_UNORM \
             64x64x1, 1 mip, 1 sample, but the frame describes the parameter as Tex2d \
             R8G8B8A8_UNORM 32x32x1, 1 mip, 1 sample"
        ),
        other => panic!("expected a mismatch, got {other:?}"),
    }
    // An image without the colour-attachment usage the render-target accesses need.
    let args =
        rpsl::EntryArgs::parse(&program, session.entry(), ["backbuffer=64x64", "level=1"]).unwrap();
    let mut transfer_only = imported(image, ResourceState::UNDEFINED);
    transfer_only.usage = vk::ImageUsageFlags::TRANSFER_SRC;
    backend.import_image("backbuffer", transfer_only).unwrap();
    let frame = session.run_frame(&args).unwrap();
    match backend.execute_frame(frame.graph, frame.compiled) {
        Err(BackendError::Api(message)) => assert_eq!(
            message,
            "entry argument `backbuffer`: the application's image lacks usage COLOR_ATTACHMENT, \
             which the frame's accesses need"
        ),
        other => panic!("expected a missing usage, got {other:?}"),
    }
    drop(backend);
    assert_eq!(app.messages.take(), Vec::<String>::new());
    // SAFETY: the backend is gone; no work used the image.
    unsafe {
        app.device.destroy_image(image, None);
        app.device.free_memory(memory, None);
    }
}

fn submit_info(op: &SemaphoreOp) -> vk::SemaphoreSubmitInfo<'static> {
    vk::SemaphoreSubmitInfo::default()
        .semaphore(op.semaphore)
        .value(op.value)
        .stage_mask(op.stages)
}

#[test]
fn the_engine_submits_frames_rpsl_recorded_into_its_command_buffers() {
    let Some(app) = App::new(true) else { return };
    let (image, image_memory) = app.create_image();
    let readbacks: Vec<_> = (0..3).map(|_| app.create_readback()).collect();
    let rendered = app.binary_semaphore();
    let levels = [("1.0", 255u8), ("0.2", 51), ("0.6", 153)];
    let program = program();
    let mut backend = engine_backend(&app, 2);
    let mut session = rpsl::Session::new(&program, None, rpsl::SessionOptions::default()).unwrap();
    let mut given = Vec::new();
    let mut copies = Vec::new();
    // rpsl signals no fence of a frame the engine submits.
    let fence = app.fence();
    backend.set_frame_sync(FrameSync {
        fence,
        ..FrameSync::default()
    });
    let args = rpsl::EntryArgs::parse(&program, session.entry(), ["backbuffer=64x64"]).unwrap();
    let frame = session.run_frame(&args).unwrap();
    match backend.record_frame(frame.graph, frame.compiled, &mut |_| {
        vk::CommandBuffer::null()
    }) {
        Err(BackendError::Api(message)) => assert_eq!(
            message,
            "a frame the application submits signals no fence of rpsl's: pass the fence to \
             your last submission (FrameSync::fence must be null)"
        ),
        other => panic!("expected a refused fence, got {other:?}"),
    }
    for (frame_index, &(level, _)) in levels.iter().enumerate() {
        // The first frame finds a new image; the later ones find it where the copy left it.
        let state = if frame_index == 0 {
            ResourceState::UNDEFINED
        } else {
            ResourceState::image(
                vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                vk::PipelineStageFlags2::COPY,
                vk::AccessFlags2::TRANSFER_READ,
            )
        };
        backend
            .import_image("backbuffer", imported(image, state))
            .unwrap();
        backend.set_frame_sync(FrameSync {
            waits: Vec::new(),
            signals: vec![SemaphoreOp::binary(
                rendered,
                vk::PipelineStageFlags2::ALL_COMMANDS,
            )],
            fence: vk::Fence::null(),
        });
        let args = rpsl::EntryArgs::parse(
            &program,
            session.entry(),
            ["backbuffer=64x64".to_string(), format!("level={level}")],
        )
        .unwrap();
        let frame = session.run_frame(&args).unwrap();
        let mut families = Vec::new();
        let batches = backend
            .record_frame(frame.graph, frame.compiled, &mut |family| {
                families.push(family);
                let info = vk::CommandBufferAllocateInfo::default()
                    .command_pool(app.pool)
                    .level(vk::CommandBufferLevel::PRIMARY)
                    .command_buffer_count(1);
                // SAFETY: a pool of the engine's device.
                let cb = unsafe { app.device.allocate_command_buffers(&info) }.unwrap()[0];
                given.push(cb);
                cb
            })
            .unwrap();
        assert_eq!(families, vec![app.family; batches.len()]);
        // Two batches on the graphics queue: the import's barrier from the declared state to
        // the present layout, then the nodes and the frame's end, which signals the engine's
        // semaphore too. Each signals the next value of rpsl's graphics timeline.
        let timeline = batches[0].signals[0].semaphore;
        let all = vk::PipelineStageFlags2::ALL_COMMANDS;
        let first_value = 2 * frame_index as u64 + 1;
        let shape: Vec<_> = batches
            .iter()
            .map(|b| {
                (
                    b.queue_family,
                    b.queue,
                    b.command_buffer,
                    b.waits.clone(),
                    b.signals.clone(),
                )
            })
            .collect();
        let last_two = &given[given.len() - 2..];
        assert_eq!(
            shape,
            [
                (
                    app.family,
                    app.queue,
                    last_two[0],
                    vec![],
                    vec![SemaphoreOp::timeline(timeline, first_value, all)]
                ),
                (
                    app.family,
                    app.queue,
                    last_two[1],
                    vec![],
                    vec![
                        SemaphoreOp::timeline(timeline, first_value + 1, all),
                        SemaphoreOp::binary(rendered, all)
                    ]
                ),
            ]
        );
        for batch in &batches {
            let waits: Vec<_> = batch.waits.iter().map(submit_info).collect();
            let signals: Vec<_> = batch.signals.iter().map(submit_info).collect();
            let buffers =
                [vk::CommandBufferSubmitInfo::default().command_buffer(batch.command_buffer)];
            let submit = vk::SubmitInfo2::default()
                .wait_semaphore_infos(&waits)
                .command_buffer_infos(&buffers)
                .signal_semaphore_infos(&signals);
            // SAFETY: the recorded batch with live semaphores, in order.
            unsafe {
                app.device
                    .queue_submit2(app.queue, &[submit], vk::Fence::null())
                    .unwrap()
            };
        }
        let left = backend.imported_state("backbuffer").unwrap().layout;
        assert_eq!(left, vk::ImageLayout::PRESENT_SRC_KHR);
        copies.push(app.copy_to_buffer(
            image,
            left,
            readbacks[frame_index].0,
            rendered,
            vk::Semaphore::null(),
            vk::Fence::null(),
        ));
    }
    // Waits for the frames' last batches through their timeline values.
    backend.wait_idle().unwrap();
    drop(backend);
    // SAFETY: the engine's queue and objects.
    unsafe {
        app.device.queue_wait_idle(app.queue).unwrap();
        app.device.free_command_buffers(app.pool, &given);
        app.device.free_command_buffers(app.pool, &copies);
    }
    for (frame_index, &(_, green)) in levels.iter().enumerate() {
        assert!(
            app.read(readbacks[frame_index].1) == expected_image(green),
            "frame {frame_index}: the pixels differ"
        );
    }
    assert_eq!(app.messages.take(), Vec::<String>::new());
    // SAFETY: the backend is gone and the queue idle; these are the test's objects.
    unsafe {
        app.device.destroy_semaphore(rendered, None);
        app.device.destroy_fence(fence, None);
        app.device.destroy_image(image, None);
        app.device.free_memory(image_memory, None);
        for (buffer, memory) in readbacks {
            app.device.destroy_buffer(buffer, None);
            app.device.free_memory(memory, None);
        }
    }
    assert_eq!(app.messages.take(), Vec::<String>::new());
}

#[test]
fn an_engine_buffer_is_written_and_left_ready_for_the_host() {
    let Some(app) = App::new(true) else { return };
    let (buffer, memory) = app.create_readback();
    let bytes = u64::from(SIZE * SIZE * 4);
    let done = app.fence();
    let program = rpsl::Program::from_source(
        "buffer.rpsl",
        "graphics node Fill([writeonly(copy)] buffer target);\n\
         export void main([readonly(cs)] buffer data) { Fill(data); }\n",
    )
    .unwrap();
    let mut backend =
        VulkanBackend::on_device(app.engine_device(), VulkanOptions::default()).unwrap();
    backend.bind_node("Fill", |context| {
        let target = *context.views[0].buffer().ok_or("a buffer")?;
        // SAFETY: outside a render pass; the view's bytes lie inside the live buffer.
        unsafe {
            context.device.cmd_fill_buffer(
                context.command_buffer,
                target.buffer,
                target.offset,
                target.size,
                0xA5C3_5A3C,
            )
        };
        Ok(())
    });
    let host = ResourceState::buffer(vk::PipelineStageFlags2::HOST, vk::AccessFlags2::HOST_READ);
    backend
        .import_buffer(
            "data",
            ImportedBuffer {
                buffer,
                desc: ResourceDesc::buffer(bytes),
                state: ResourceState::buffer(vk::PipelineStageFlags2::NONE, vk::AccessFlags2::NONE),
                final_state: Some(host),
                debug_name: Some("engine data".into()),
            },
        )
        .unwrap();
    backend.set_frame_sync(FrameSync {
        fence: done,
        ..FrameSync::default()
    });
    let mut session = rpsl::Session::new(&program, None, rpsl::SessionOptions::default()).unwrap();
    let args =
        rpsl::EntryArgs::parse(&program, session.entry(), [format!("data={bytes}")]).unwrap();
    let frame = session.run_frame(&args).unwrap();
    backend.execute_frame(frame.graph, frame.compiled).unwrap();
    assert_eq!(backend.imported_state("data"), Some(host));
    app.wait(done);
    let expected: Vec<u8> = (0..bytes / 4)
        .flat_map(|_| 0xA5C3_5A3Cu32.to_le_bytes())
        .collect();
    assert!(app.read(memory) == expected, "the buffer's bytes differ");
    drop(backend);
    assert_eq!(app.messages.take(), Vec::<String>::new());
    // SAFETY: the backend is gone and the fence signalled; these are the test's objects.
    unsafe {
        app.device.destroy_fence(done, None);
        app.device.destroy_buffer(buffer, None);
        app.device.free_memory(memory, None);
    }
}
