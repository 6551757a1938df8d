//! rpsl on an engine's Vulkan device (docs/embedding.md, "Running on your device"): the example
//! plays the engine. It makes its instance, device and queue with ash, an image standing in for
//! a swapchain image and the semaphores and fence of a frame; hands them to rpsl; runs a script
//! whose frame has a shader node and a Rust node callback; copies the image to a host-visible
//! buffer after waiting for rpsl's semaphore; and prints a few pixels.
//!
//! ```text
//! cargo run --example engine_device
//! ```
//!
//! The validation layer (with synchronization validation) is enabled when it is installed.

use rpsl::ash::{self, vk};
use rpsl::runtime::{Backend, Format, ResourceDesc};
use rpsl::vulkan::shader_node::{bind_shader_nodes, ShaderNodeOptions};
use rpsl::vulkan::{
    EngineDevice, EngineDeviceFeatures, EngineQueue, FrameSync, ImportedImage, ResourceState,
    SemaphoreOp, VulkanBackend, VulkanOptions,
};

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
void main() { color = vec4(gl_FragCoord.x / 64.0, params.level, 0.0, 1.0); }
";

const SIZE: u32 = 64;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // --- The engine's objects -----------------------------------------------------------------
    // SAFETY: loading the system's Vulkan loader.
    let entry = unsafe { ash::Entry::load() }?;
    let layer = c"VK_LAYER_KHRONOS_validation";
    // SAFETY: plain enumeration.
    let validate = unsafe { entry.enumerate_instance_layer_properties() }?
        .iter()
        .any(|l| l.layer_name_as_c_str().is_ok_and(|n| n == layer));
    let app_info = vk::ApplicationInfo::default().api_version(vk::API_VERSION_1_3);
    let layers = if validate {
        vec![layer.as_ptr()]
    } else {
        vec![]
    };
    let extensions = if validate {
        vec![ash::ext::validation_features::NAME.as_ptr()]
    } else {
        vec![]
    };
    let enables = [vk::ValidationFeatureEnableEXT::SYNCHRONIZATION_VALIDATION];
    let mut validation = vk::ValidationFeaturesEXT::default().enabled_validation_features(&enables);
    let mut create = vk::InstanceCreateInfo::default()
        .application_info(&app_info)
        .enabled_layer_names(&layers)
        .enabled_extension_names(&extensions);
    if validate {
        create = create.push_next(&mut validation);
    }
    // SAFETY: the create info refers to live locals.
    let instance = unsafe { entry.create_instance(&create, None) }?;
    // SAFETY: plain queries on the live instance.
    let physical = unsafe { instance.enumerate_physical_devices() }?
        .into_iter()
        .next()
        .ok_or("no Vulkan device")?;
    // SAFETY: as above.
    let family = unsafe { instance.get_physical_device_queue_family_properties(physical) }
        .iter()
        .position(|f| {
            f.queue_flags
                .contains(vk::QueueFlags::GRAPHICS | vk::QueueFlags::COMPUTE)
        })
        .ok_or("no graphics queue")? as u32;
    // What rpsl needs: timeline semaphores, synchronization2, dynamic rendering.
    let enabled = EngineDeviceFeatures {
        vulkan12: vk::PhysicalDeviceVulkan12Features::default().timeline_semaphore(true),
        vulkan13: vk::PhysicalDeviceVulkan13Features::default()
            .synchronization2(true)
            .dynamic_rendering(true)
            .maintenance4(true),
        ..EngineDeviceFeatures::default()
    };
    let (mut enable12, mut enable13) = (enabled.vulkan12, enabled.vulkan13);
    let priorities = [1.0f32];
    let queues = [vk::DeviceQueueCreateInfo::default()
        .queue_family_index(family)
        .queue_priorities(&priorities)];
    let create = vk::DeviceCreateInfo::default()
        .queue_create_infos(&queues)
        .push_next(&mut enable12)
        .push_next(&mut enable13);
    // SAFETY: the create info refers to live locals.
    let device = unsafe { instance.create_device(physical, &create, None) }?;
    // SAFETY: one queue of `family` was created.
    let queue = unsafe { device.get_device_queue(family, 0) };
    let memory_type = |bits: u32, flags: vk::MemoryPropertyFlags| {
        // SAFETY: plain query.
        let memory = unsafe { instance.get_physical_device_memory_properties(physical) };
        (0..memory.memory_type_count)
            .find(|&i| {
                bits & (1 << i) != 0
                    && memory.memory_types[i as usize]
                        .property_flags
                        .contains(flags)
            })
            .unwrap_or(0)
    };
    let usage = vk::ImageUsageFlags::COLOR_ATTACHMENT | vk::ImageUsageFlags::TRANSFER_SRC;
    let image_info = vk::ImageCreateInfo::default()
        .image_type(vk::ImageType::TYPE_2D)
        .format(vk::Format::R8G8B8A8_UNORM)
        .extent(vk::Extent3D {
            width: SIZE,
            height: SIZE,
            depth: 1,
        })
        .mip_levels(1)
        .array_layers(1)
        .samples(vk::SampleCountFlags::TYPE_1)
        .tiling(vk::ImageTiling::OPTIMAL)
        .usage(usage);
    let buffer_info = vk::BufferCreateInfo::default()
        .size(u64::from(SIZE * SIZE * 4))
        .usage(vk::BufferUsageFlags::TRANSFER_DST);
    // SAFETY: valid create infos on the live device; memory types fit the requirements.
    let (image, image_memory, buffer, buffer_memory) = unsafe {
        let image = device.create_image(&image_info, None)?;
        let needs = device.get_image_memory_requirements(image);
        let image_memory = device.allocate_memory(
            &vk::MemoryAllocateInfo::default()
                .allocation_size(needs.size)
                .memory_type_index(memory_type(
                    needs.memory_type_bits,
                    vk::MemoryPropertyFlags::DEVICE_LOCAL,
                )),
            None,
        )?;
        device.bind_image_memory(image, image_memory, 0)?;
        let buffer = device.create_buffer(&buffer_info, None)?;
        let needs = device.get_buffer_memory_requirements(buffer);
        let buffer_memory = device.allocate_memory(
            &vk::MemoryAllocateInfo::default()
                .allocation_size(needs.size)
                .memory_type_index(memory_type(
                    needs.memory_type_bits,
                    vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT,
                )),
            None,
        )?;
        device.bind_buffer_memory(buffer, buffer_memory, 0)?;
        (image, image_memory, buffer, buffer_memory)
    };
    // SAFETY: valid create infos.
    let (rendered, frame_done, pool) = unsafe {
        (
            device.create_semaphore(&vk::SemaphoreCreateInfo::default(), None)?,
            device.create_fence(&vk::FenceCreateInfo::default(), None)?,
            device.create_command_pool(
                &vk::CommandPoolCreateInfo::default().queue_family_index(family),
                None,
            )?,
        )
    };

    // --- rpsl on the engine's device ----------------------------------------------------------
    {
        let engine = EngineDevice {
            instance: instance.clone(),
            physical_device: physical,
            device: device.clone(),
            graphics_queue: EngineQueue { family, index: 0 },
            compute_queue: None,
            enabled,
            debug_utils: false,
        };
        let mut backend = VulkanBackend::on_device(engine, VulkanOptions::default())?;
        let shader_dir = std::env::temp_dir().join("rpsl-engine-device-example");
        std::fs::create_dir_all(&shader_dir)?;
        std::fs::write(shader_dir.join("Gradient.frag"), GRADIENT_FRAG)?;
        bind_shader_nodes(
            &mut backend,
            ShaderNodeOptions::new(&shader_dir),
            ["Gradient".to_string()],
        );
        // A Rust node: clears the top-left 16x16 pixels to blue inside its render pass.
        backend.bind_node("Stamp", |context| {
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
                    offset: vk::Offset2D::default(),
                    extent: vk::Extent2D {
                        width: 16,
                        height: 16,
                    },
                },
                base_array_layer: 0,
                layer_count: 1,
            }];
            // SAFETY: inside the node's render pass, within its render area.
            unsafe {
                context
                    .device
                    .cmd_clear_attachments(context.command_buffer, &clear, &rect)
            };
            Ok(())
        });
        let program = rpsl::Program::from_source("engine.rpsl", SCRIPT)?;
        let mut session = rpsl::Session::new(&program, None, rpsl::SessionOptions::default())?;
        // The script's `backbuffer` parameter must describe the image: 64x64 RGBA8.
        let args =
            rpsl::EntryArgs::parse(&program, session.entry(), ["backbuffer=64x64", "level=0.5"])?;
        // The engine's image is the `backbuffer` argument: new (UNDEFINED), left by the frame in
        // the present layout (its `[readonly(present)]`).
        backend.import_image(
            "backbuffer",
            ImportedImage {
                image,
                desc: ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, SIZE, SIZE),
                usage,
                state: ResourceState::UNDEFINED,
                final_state: None,
                debug_name: None,
            },
        )?;
        backend.set_frame_sync(FrameSync {
            waits: Vec::new(),
            signals: vec![SemaphoreOp::binary(
                rendered,
                vk::PipelineStageFlags2::ALL_COMMANDS,
            )],
            fence: frame_done,
        });
        let frame = session.run_frame(&args)?;
        backend.execute_frame(frame.graph, frame.compiled)?;
        println!(
            "rpsl left the image in {:?}",
            backend.imported_state("backbuffer").map(|s| s.layout)
        );

        // --- The engine's copy, after rpsl's semaphore ---------------------------------------
        let range = vk::ImageSubresourceRange {
            aspect_mask: vk::ImageAspectFlags::COLOR,
            base_mip_level: 0,
            level_count: 1,
            base_array_layer: 0,
            layer_count: 1,
        };
        // SAFETY: valid commands on live objects; every wait has its signal submitted.
        unsafe {
            let cb = device.allocate_command_buffers(
                &vk::CommandBufferAllocateInfo::default()
                    .command_pool(pool)
                    .command_buffer_count(1),
            )?[0];
            device.begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default())?;
            let barrier = [vk::ImageMemoryBarrier2::default()
                .src_stage_mask(vk::PipelineStageFlags2::COPY)
                .dst_stage_mask(vk::PipelineStageFlags2::COPY)
                .dst_access_mask(vk::AccessFlags2::TRANSFER_READ)
                .old_layout(vk::ImageLayout::PRESENT_SRC_KHR)
                .new_layout(vk::ImageLayout::TRANSFER_SRC_OPTIMAL)
                .image(image)
                .subresource_range(range)];
            device.cmd_pipeline_barrier2(
                cb,
                &vk::DependencyInfo::default().image_memory_barriers(&barrier),
            );
            let region = vk::BufferImageCopy::default()
                .image_subresource(vk::ImageSubresourceLayers {
                    aspect_mask: vk::ImageAspectFlags::COLOR,
                    mip_level: 0,
                    base_array_layer: 0,
                    layer_count: 1,
                })
                .image_extent(vk::Extent3D {
                    width: SIZE,
                    height: SIZE,
                    depth: 1,
                });
            device.cmd_copy_image_to_buffer(
                cb,
                image,
                vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                buffer,
                &[region],
            );
            let to_host = [vk::BufferMemoryBarrier2::default()
                .src_stage_mask(vk::PipelineStageFlags2::COPY)
                .src_access_mask(vk::AccessFlags2::TRANSFER_WRITE)
                .dst_stage_mask(vk::PipelineStageFlags2::HOST)
                .dst_access_mask(vk::AccessFlags2::HOST_READ)
                .buffer(buffer)
                .size(vk::WHOLE_SIZE)];
            device.cmd_pipeline_barrier2(
                cb,
                &vk::DependencyInfo::default().buffer_memory_barriers(&to_host),
            );
            device.end_command_buffer(cb)?;
            let waits = [vk::SemaphoreSubmitInfo::default()
                .semaphore(rendered)
                .stage_mask(vk::PipelineStageFlags2::COPY)];
            let buffers = [vk::CommandBufferSubmitInfo::default().command_buffer(cb)];
            let submit = vk::SubmitInfo2::default()
                .wait_semaphore_infos(&waits)
                .command_buffer_infos(&buffers);
            device.queue_submit2(queue, &[submit], vk::Fence::null())?;
            device.wait_for_fences(&[frame_done], true, u64::MAX)?;
            device.queue_wait_idle(queue)?;
            let data = device.map_memory(
                buffer_memory,
                0,
                vk::WHOLE_SIZE,
                vk::MemoryMapFlags::empty(),
            )?;
            let pixels = std::slice::from_raw_parts(data as *const u8, (SIZE * SIZE * 4) as usize);
            for (x, y) in [(0, 0), (20, 20), (63, 63)] {
                let at = ((y * SIZE + x) * 4) as usize;
                println!("pixel ({x}, {y}): {:?}", &pixels[at..at + 4]);
            }
            device.unmap_memory(buffer_memory);
        }
        // The backend goes before the device: it destroys only what it created.
    }
    // SAFETY: the backend is gone and the queue idle; these are the engine's objects.
    unsafe {
        device.destroy_command_pool(pool, None);
        device.destroy_semaphore(rendered, None);
        device.destroy_fence(frame_done, None);
        device.destroy_image(image, None);
        device.free_memory(image_memory, None);
        device.destroy_buffer(buffer, None);
        device.free_memory(buffer_memory, None);
        device.destroy_device(None);
        instance.destroy_instance(None);
    }
    Ok(())
}
