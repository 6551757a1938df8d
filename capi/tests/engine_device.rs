//! The C API on the application's own Vulkan objects: this test plays the engine. It creates
//! its instance (validation with synchronization validation, its own debug messenger), device,
//! a host-visible image standing in for a swapchain image, a timeline semaphore and a fence
//! with ash, hands their raw handles to rpsl through the C functions, records the frame's node
//! through a C-ABI callback, and reads the exact pixels from the image's memory. Skips without
//! a Vulkan device with the validation layer unless `RPSL_REQUIRE_VULKAN=1`.

use std::ffi::{c_void, CStr};
use std::sync::Mutex;

use rpsl::vulkan::ash::{self, vk, vk::Handle as _};
use rpsl_capi::*;

/// Validation messages (warnings and errors) the debug messenger received.
static MESSAGES: Mutex<Vec<String>> = Mutex::new(Vec::new());

unsafe extern "system" fn on_message(
    severity: vk::DebugUtilsMessageSeverityFlagsEXT,
    _types: vk::DebugUtilsMessageTypeFlagsEXT,
    data: *const vk::DebugUtilsMessengerCallbackDataEXT<'_>,
    _user: *mut c_void,
) -> vk::Bool32 {
    let counted = vk::DebugUtilsMessageSeverityFlagsEXT::WARNING
        | vk::DebugUtilsMessageSeverityFlagsEXT::ERROR;
    // SAFETY: the layer passes valid callback data for the duration of the call.
    if let (true, Some(data)) = (severity.intersects(counted), unsafe { data.as_ref() }) {
        if !data.p_message.is_null() {
            // SAFETY: a NUL-terminated message.
            let text = unsafe { CStr::from_ptr(data.p_message) };
            MESSAGES
                .lock()
                .unwrap()
                .push(text.to_string_lossy().into_owned());
        }
    }
    vk::FALSE
}

/// Skips (or fails with `RPSL_REQUIRE_VULKAN=1`) when Vulkan or its validation layer is missing.
fn skip(why: &str) -> bool {
    if std::env::var("RPSL_REQUIRE_VULKAN").as_deref() == Ok("1") {
        panic!("no Vulkan with validation: {why}");
    }
    eprintln!("skipping: {why}");
    true
}

fn ok(status: RpslStatus) {
    if status != RpslStatus::Ok {
        // SAFETY: the thread's last error is a NUL-terminated string.
        let message = unsafe { CStr::from_ptr(rpsl_last_error()) };
        panic!("{}: {}", status.name(), message.to_string_lossy());
    }
}

/// The node callback: clears the `target` view to `paint.color`, recording with the
/// application's own device functions (its `ash::Device` is the user data).
unsafe extern "C" fn fill(context: *mut RpslNodeContext, user_data: *mut c_void) -> i32 {
    // SAFETY: the test passes its `ash::Device`, alive for the whole test.
    let device = unsafe { &*user_data.cast::<ash::Device>() };
    let mut command_buffer = 0u64;
    let mut view = std::mem::MaybeUninit::<RpslView>::uninit();
    let mut color = [0f32; 4];
    // SAFETY: valid out pointers; `context` is the callback's.
    let statuses = unsafe {
        [
            rpsl_node_command_buffer(context, &mut command_buffer),
            rpsl_node_view(context, c"target".as_ptr(), view.as_mut_ptr()),
            rpsl_node_arg_floats(context, c"paint.color".as_ptr(), color.as_mut_ptr(), 4),
        ]
    };
    if statuses.iter().any(|s| *s != RpslStatus::Ok) {
        return RpslStatus::Callback as i32;
    }
    // SAFETY: filled by rpsl_node_view.
    let view = unsafe { view.assume_init() };
    let range = vk::ImageSubresourceRange {
        aspect_mask: vk::ImageAspectFlags::from_raw(view.range.aspect_mask),
        base_mip_level: view.range.base_mip_level,
        level_count: view.range.level_count,
        base_array_layer: view.range.base_array_layer,
        layer_count: view.range.layer_count,
    };
    // SAFETY: the node's command buffer, outside a render pass (the node has no render
    // target), the image in the layout rpsl reports.
    unsafe {
        device.cmd_clear_color_image(
            vk::CommandBuffer::from_raw(command_buffer),
            vk::Image::from_raw(view.image),
            vk::ImageLayout::from_raw(view.layout as i32),
            &vk::ClearColorValue { float32: color },
            &[range],
        )
    };
    RpslStatus::Ok as i32
}

const SCRIPT: &CStr = c"struct Paint { float4 color; uint scale; };
graphics node Fill([writeonly(clear)] texture target, Paint paint);
export void main(texture backbuffer, float3 tint, uint scale) {
    Paint paint;
    paint.color = float4(tint * (scale * 0.25), 1);
    paint.scale = scale;
    Fill(backbuffer, paint);
}
";

#[test]
fn a_frame_on_the_applications_device_image_semaphore_and_fence() {
    // SAFETY: loading the system's Vulkan loader.
    let entry = match unsafe { ash::Entry::load() } {
        Ok(entry) => entry,
        Err(error) => {
            skip(&format!("no Vulkan loader: {error}"));
            return;
        }
    };
    let layer = c"VK_LAYER_KHRONOS_validation";
    // SAFETY: plain queries and creations on live objects below; each object is destroyed
    // after everything made from it.
    unsafe {
        let layers = entry.enumerate_instance_layer_properties().unwrap();
        if !layers.iter().any(|l| l.layer_name_as_c_str() == Ok(layer)) {
            skip("VK_LAYER_KHRONOS_validation is not installed");
            return;
        }
        let app = vk::ApplicationInfo::default().api_version(vk::API_VERSION_1_3);
        let layer_names = [layer.as_ptr()];
        let extension_names = [
            ash::ext::debug_utils::NAME.as_ptr(),
            ash::ext::validation_features::NAME.as_ptr(),
        ];
        let enables = [vk::ValidationFeatureEnableEXT::SYNCHRONIZATION_VALIDATION];
        let mut validation =
            vk::ValidationFeaturesEXT::default().enabled_validation_features(&enables);
        let mut messenger_info = vk::DebugUtilsMessengerCreateInfoEXT::default()
            .message_severity(
                vk::DebugUtilsMessageSeverityFlagsEXT::WARNING
                    | vk::DebugUtilsMessageSeverityFlagsEXT::ERROR,
            )
            .message_type(
                vk::DebugUtilsMessageTypeFlagsEXT::GENERAL
                    | vk::DebugUtilsMessageTypeFlagsEXT::VALIDATION
                    | vk::DebugUtilsMessageTypeFlagsEXT::PERFORMANCE,
            )
            .pfn_user_callback(Some(on_message));
        let instance_info = vk::InstanceCreateInfo::default()
            .application_info(&app)
            .enabled_layer_names(&layer_names)
            .enabled_extension_names(&extension_names)
            .push_next(&mut validation)
            .push_next(&mut messenger_info);
        let instance = entry.create_instance(&instance_info, None).unwrap();
        let debug_utils = ash::ext::debug_utils::Instance::new(&entry, &instance);
        // The chain above linked the validation features into `messenger_info`; the messenger
        // itself takes none.
        let messenger_info = vk::DebugUtilsMessengerCreateInfoEXT {
            p_next: std::ptr::null(),
            ..messenger_info
        };
        let messenger = debug_utils
            .create_debug_utils_messenger(&messenger_info, None)
            .unwrap();

        let found = instance
            .enumerate_physical_devices()
            .unwrap()
            .into_iter()
            .find_map(|physical| {
                let properties = instance.get_physical_device_properties(physical);
                if properties.api_version < vk::API_VERSION_1_3 {
                    return None;
                }
                instance
                    .get_physical_device_queue_family_properties(physical)
                    .iter()
                    .position(|family| {
                        family
                            .queue_flags
                            .contains(vk::QueueFlags::GRAPHICS | vk::QueueFlags::COMPUTE)
                    })
                    .map(|family| (physical, family as u32))
            });
        let Some((physical, family)) = found else {
            debug_utils.destroy_debug_utils_messenger(messenger, None);
            instance.destroy_instance(None);
            skip("no Vulkan 1.3 device with a graphics queue");
            return;
        };
        let priorities = [1.0f32];
        let queues = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(family)
            .queue_priorities(&priorities)];
        let mut vulkan12 = vk::PhysicalDeviceVulkan12Features::default().timeline_semaphore(true);
        let mut vulkan13 = vk::PhysicalDeviceVulkan13Features::default()
            .synchronization2(true)
            .dynamic_rendering(true);
        let mut features = vk::PhysicalDeviceFeatures2::default()
            .push_next(&mut vulkan12)
            .push_next(&mut vulkan13);
        let device_info = vk::DeviceCreateInfo::default()
            .queue_create_infos(&queues)
            .push_next(&mut features);
        let device = instance
            .create_device(physical, &device_info, None)
            .unwrap();

        // The image rpsl renders into, host-visible so that the test reads it directly. It is
        // sampled too: rpsl makes an image view of every texture a node callback gets, and a
        // view needs a usage beyond transfers.
        let usage = vk::ImageUsageFlags::TRANSFER_DST
            | vk::ImageUsageFlags::TRANSFER_SRC
            | vk::ImageUsageFlags::SAMPLED;
        let image = device
            .create_image(
                &vk::ImageCreateInfo::default()
                    .image_type(vk::ImageType::TYPE_2D)
                    .format(vk::Format::R8G8B8A8_UNORM)
                    .extent(vk::Extent3D {
                        width: 4,
                        height: 4,
                        depth: 1,
                    })
                    .mip_levels(1)
                    .array_layers(1)
                    .samples(vk::SampleCountFlags::TYPE_1)
                    .tiling(vk::ImageTiling::LINEAR)
                    .usage(usage)
                    .initial_layout(vk::ImageLayout::UNDEFINED),
                None,
            )
            .unwrap();
        let requirements = device.get_image_memory_requirements(image);
        let memory_properties = instance.get_physical_device_memory_properties(physical);
        let wanted = vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
        let memory_type = (0..memory_properties.memory_type_count)
            .find(|&i| {
                requirements.memory_type_bits & (1 << i) != 0
                    && memory_properties.memory_types[i as usize]
                        .property_flags
                        .contains(wanted)
            })
            .unwrap();
        let memory = device
            .allocate_memory(
                &vk::MemoryAllocateInfo::default()
                    .allocation_size(requirements.size)
                    .memory_type_index(memory_type),
                None,
            )
            .unwrap();
        device.bind_image_memory(image, memory, 0).unwrap();
        let mut timeline_type = vk::SemaphoreTypeCreateInfo::default()
            .semaphore_type(vk::SemaphoreType::TIMELINE)
            .initial_value(0);
        let timeline = device
            .create_semaphore(
                &vk::SemaphoreCreateInfo::default().push_next(&mut timeline_type),
                None,
            )
            .unwrap();
        let fence = device
            .create_fence(&vk::FenceCreateInfo::default(), None)
            .unwrap();

        // rpsl through the C API, on those objects.
        let engine = RpslEngineDevice {
            // The C function type of the same function (see RpslGetInstanceProcAddr).
            get_instance_proc_addr: Some(std::mem::transmute::<
                vk::PFN_vkGetInstanceProcAddr,
                unsafe extern "C" fn(*mut c_void, *const std::ffi::c_char) -> RpslVoidFunction,
            >(entry.static_fn().get_instance_proc_addr)),
            instance: instance.handle().as_raw(),
            physical_device: physical.as_raw(),
            device: device.handle().as_raw(),
            graphics_queue_family: family,
            graphics_queue_index: 0,
            compute_queue_family: u32::MAX,
            compute_queue_index: 0,
            enabled_features: (&features as *const vk::PhysicalDeviceFeatures2<'_>).cast(),
            enabled_extensions: std::ptr::null(),
            enabled_extension_count: 0,
            debug_utils: true,
        };
        let mut vulkan = std::ptr::null_mut();
        ok(rpsl_vulkan_create_on_device(
            &engine,
            std::ptr::null(),
            &mut vulkan,
        ));
        let mut program = std::ptr::null_mut();
        ok(rpsl_program_from_source(
            c"engine.rpsl".as_ptr(),
            SCRIPT.as_ptr(),
            std::ptr::null(),
            &mut program,
        ));
        let mut session = std::ptr::null_mut();
        ok(rpsl_session_create(
            program,
            std::ptr::null(),
            std::ptr::null(),
            &mut session,
        ));
        let desc = RpslTextureDesc {
            format: 28,
            width: 4,
            height: 4,
        };
        ok(rpsl_session_set_arg_texture(
            session,
            c"backbuffer".as_ptr(),
            &desc,
        ));
        let tint = [1.0f32, 0.2, 0.0];
        ok(rpsl_session_set_arg_floats(
            session,
            c"tint".as_ptr(),
            tint.as_ptr(),
            3,
        ));
        ok(rpsl_session_set_arg_uints(
            session,
            c"scale".as_ptr(),
            &3,
            1,
        ));
        let device_data = (&device as *const ash::Device).cast_mut().cast::<c_void>();
        ok(rpsl_vulkan_bind_node(
            vulkan,
            c"Fill".as_ptr(),
            Some(fill),
            device_data,
        ));

        let host_read = RpslResourceState {
            layout: vk::ImageLayout::GENERAL.as_raw() as u32,
            stages: vk::PipelineStageFlags2::HOST.as_raw(),
            accesses: vk::AccessFlags2::HOST_READ.as_raw(),
            queue_family: vk::QUEUE_FAMILY_IGNORED,
        };
        let imported = RpslImportedImage {
            image: image.as_raw(),
            desc,
            usage: (vk::ImageUsageFlags::TRANSFER_DST | vk::ImageUsageFlags::TRANSFER_SRC).as_raw(),
            state: RpslResourceState {
                layout: 0,
                stages: 0,
                accesses: 0,
                queue_family: vk::QUEUE_FAMILY_IGNORED,
            },
            has_final_state: true,
            final_state: host_read,
            debug_name: c"engine backbuffer".as_ptr(),
        };
        ok(rpsl_vulkan_import_image(
            vulkan,
            c"backbuffer".as_ptr(),
            &imported,
        ));
        let signal = RpslSemaphoreOp {
            semaphore: timeline.as_raw(),
            value: 1,
            stages: vk::PipelineStageFlags2::ALL_COMMANDS.as_raw(),
        };
        ok(rpsl_vulkan_set_frame_sync(
            vulkan,
            std::ptr::null(),
            0,
            &signal,
            1,
            fence.as_raw(),
        ));
        let mut info = RpslFrameInfo::default();
        ok(rpsl_session_run_frame(session, &mut info));
        ok(rpsl_vulkan_execute(vulkan, session));

        // The engine waits for the frame as it would: its fence and its timeline.
        device
            .wait_for_fences(&[fence], true, 20_000_000_000)
            .unwrap();
        // A fence orders the commands, not when the host sees the semaphore's signal.
        let values = [1];
        let semaphores = [timeline];
        let wait = vk::SemaphoreWaitInfo::default()
            .semaphores(&semaphores)
            .values(&values);
        let _ = device.wait_semaphores(&wait, 20_000_000_000);
        assert_eq!(device.get_semaphore_counter_value(timeline).unwrap(), 1);
        let mut left = RpslResourceState::default();
        ok(rpsl_vulkan_imported_state(
            vulkan,
            c"backbuffer".as_ptr(),
            &mut left,
        ));
        assert_eq!(left, host_read);

        let layout = device.get_image_subresource_layout(
            image,
            vk::ImageSubresource {
                aspect_mask: vk::ImageAspectFlags::COLOR,
                mip_level: 0,
                array_layer: 0,
            },
        );
        let mapped = device
            .map_memory(memory, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty())
            .unwrap()
            .cast::<u8>();
        let mut pixels = Vec::new();
        for row in 0..4u64 {
            let start = mapped.add((layout.offset + row * layout.row_pitch) as usize);
            pixels.extend_from_slice(std::slice::from_raw_parts(start, 16));
        }
        device.unmap_memory(memory);
        assert_eq!(pixels, [191, 38, 0, 255].repeat(16));

        ok(rpsl_vulkan_release_image(vulkan, image.as_raw()));
        ok(rpsl_vulkan_destroy(vulkan));
        ok(rpsl_session_destroy(session));
        ok(rpsl_program_destroy(program));
        device.destroy_fence(fence, None);
        device.destroy_semaphore(timeline, None);
        device.destroy_image(image, None);
        device.free_memory(memory, None);
        device.destroy_device(None);
        let messages = std::mem::take(&mut *MESSAGES.lock().unwrap());
        debug_utils.destroy_debug_utils_messenger(messenger, None);
        instance.destroy_instance(None);
        assert_eq!(messages, Vec::<String>::new(), "validation messages");
    }
}
