//! The engine's side of the `run_vulkan_engine` tests: an ash instance with the validation
//! layer and synchronization validation and a debug messenger that collects every warning and
//! error, a device and queue, images, buffers, semaphores and fences, and the engine's copy of
//! an image to the host. Skips (a note, `None`) without a Vulkan device or the validation
//! layer unless `RPSL_REQUIRE_VULKAN=1`.
#![allow(dead_code, reason = "each test binary uses a subset")]

use rpsl::ash::{self, vk};
use rpsl::vulkan::EngineDeviceFeatures;
use rpsl::vulkan::{EngineDevice, EngineQueue};
use std::ffi::c_void;
use std::sync::Mutex;

/// The side of the engine's images (RGBA8, square).
pub const SIZE: u32 = 64;

/// Validation messages the messenger collected.
#[derive(Default)]
pub struct Messages(Mutex<Vec<String>>);

impl Messages {
    pub fn take(&self) -> Vec<String> {
        std::mem::take(&mut *self.0.lock().unwrap())
    }
}

unsafe extern "system" fn collect(
    _severity: vk::DebugUtilsMessageSeverityFlagsEXT,
    _types: vk::DebugUtilsMessageTypeFlagsEXT,
    data: *const vk::DebugUtilsMessengerCallbackDataEXT<'_>,
    user: *mut c_void,
) -> vk::Bool32 {
    if data.is_null() || user.is_null() {
        return vk::FALSE;
    }
    // SAFETY: the layer passes valid callback data for the call; `user` is the `Messages`
    // boxed in `App`, which outlives the messenger.
    let (data, messages) = unsafe { (&*data, &*(user as *const Messages)) };
    // SAFETY: the message of valid callback data is null-terminated or null.
    let text = unsafe { data.message_as_c_str() }
        .map(|text| text.to_string_lossy().into_owned())
        .unwrap_or_default();
    messages.0.lock().unwrap().push(text);
    vk::FALSE
}

/// Skips (returns `None` after a note) unless Vulkan is required here.
pub fn skip(why: &str) -> Option<App> {
    if std::env::var("RPSL_REQUIRE_VULKAN").is_ok_and(|v| v == "1") {
        panic!("Vulkan is required but {why}");
    }
    eprintln!("skipping: {why}");
    None
}

/// The engine's side: instance, messenger, device, queue.
pub struct App {
    pub _entry: ash::Entry,
    pub instance: ash::Instance,
    pub debug: ash::ext::debug_utils::Instance,
    pub messenger: vk::DebugUtilsMessengerEXT,
    pub messages: Box<Messages>,
    pub physical: vk::PhysicalDevice,
    pub family: u32,
    pub device: ash::Device,
    pub queue: vk::Queue,
    pub enabled: EngineDeviceFeatures,
    pub pool: vk::CommandPool,
}

impl App {
    /// An instance and device; `complete`: with every feature rpsl needs (else without
    /// timeline semaphores and synchronization2).
    pub fn new(complete: bool) -> Option<App> {
        // SAFETY: loading the system's Vulkan loader.
        let Ok(entry) = (unsafe { ash::Entry::load() }) else {
            return skip("no Vulkan loader");
        };
        let layer = c"VK_LAYER_KHRONOS_validation";
        // SAFETY: plain enumeration.
        let layers = unsafe { entry.enumerate_instance_layer_properties() }.unwrap();
        if !layers
            .iter()
            .any(|l| l.layer_name_as_c_str().is_ok_and(|n| n == layer))
        {
            return skip("VK_LAYER_KHRONOS_validation is not installed");
        }
        let app_info = vk::ApplicationInfo::default()
            .application_name(c"engine test")
            .api_version(vk::API_VERSION_1_3);
        let layer_names = [layer.as_ptr()];
        let extensions = [
            ash::ext::debug_utils::NAME.as_ptr(),
            ash::ext::validation_features::NAME.as_ptr(),
        ];
        let enables = [vk::ValidationFeatureEnableEXT::SYNCHRONIZATION_VALIDATION];
        let mut validation =
            vk::ValidationFeaturesEXT::default().enabled_validation_features(&enables);
        let create = vk::InstanceCreateInfo::default()
            .application_info(&app_info)
            .enabled_layer_names(&layer_names)
            .enabled_extension_names(&extensions)
            .push_next(&mut validation);
        // SAFETY: the create info refers to live locals.
        let instance = unsafe { entry.create_instance(&create, None) }.unwrap();
        let messages = Box::<Messages>::default();
        let debug = ash::ext::debug_utils::Instance::new(&entry, &instance);
        let messenger_info = vk::DebugUtilsMessengerCreateInfoEXT::default()
            .message_severity(
                vk::DebugUtilsMessageSeverityFlagsEXT::WARNING
                    | vk::DebugUtilsMessageSeverityFlagsEXT::ERROR,
            )
            .message_type(
                vk::DebugUtilsMessageTypeFlagsEXT::GENERAL
                    | vk::DebugUtilsMessageTypeFlagsEXT::VALIDATION
                    | vk::DebugUtilsMessageTypeFlagsEXT::PERFORMANCE,
            )
            .pfn_user_callback(Some(collect))
            .user_data(&*messages as *const Messages as *mut c_void);
        // SAFETY: the user data (boxed) outlives the messenger, destroyed in `Drop`.
        let messenger =
            unsafe { debug.create_debug_utils_messenger(&messenger_info, None) }.unwrap();
        // SAFETY: plain queries on the live instance.
        let physical = unsafe { instance.enumerate_physical_devices() }
            .unwrap()
            .into_iter()
            .find(|&p| {
                // SAFETY: as above.
                unsafe { instance.get_physical_device_properties(p) }.api_version
                    >= vk::API_VERSION_1_3
            });
        let Some(physical) = physical else {
            // SAFETY: nothing else was made from the instance.
            unsafe {
                debug.destroy_debug_utils_messenger(messenger, None);
                instance.destroy_instance(None);
            }
            return skip("no Vulkan 1.3 device");
        };
        // SAFETY: as above.
        let family = unsafe { instance.get_physical_device_queue_family_properties(physical) }
            .iter()
            .position(|f| {
                f.queue_flags
                    .contains(vk::QueueFlags::GRAPHICS | vk::QueueFlags::COMPUTE)
            })
            .unwrap() as u32;
        let enabled = EngineDeviceFeatures {
            vulkan12: vk::PhysicalDeviceVulkan12Features::default().timeline_semaphore(complete),
            vulkan13: vk::PhysicalDeviceVulkan13Features::default()
                .synchronization2(complete)
                .dynamic_rendering(true)
                // Relaxed interface matching: rpsl's full-screen triangle writes a `uv` that
                // fragment shaders may leave unread.
                .maintenance4(true),
            ..EngineDeviceFeatures::default()
        };
        let mut enable12 = enabled.vulkan12;
        let mut enable13 = enabled.vulkan13;
        let priorities = [1.0f32];
        let queues = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(family)
            .queue_priorities(&priorities)];
        let create = vk::DeviceCreateInfo::default()
            .queue_create_infos(&queues)
            .push_next(&mut enable12)
            .push_next(&mut enable13);
        // SAFETY: the create info refers to live locals.
        let device = unsafe { instance.create_device(physical, &create, None) }.unwrap();
        // SAFETY: one queue of `family` was created.
        let queue = unsafe { device.get_device_queue(family, 0) };
        let pool_info = vk::CommandPoolCreateInfo::default().queue_family_index(family);
        // SAFETY: valid create info.
        let pool = unsafe { device.create_command_pool(&pool_info, None) }.unwrap();
        Some(App {
            _entry: entry,
            instance,
            debug,
            messenger,
            messages,
            physical,
            family,
            device,
            queue,
            enabled,
            pool,
        })
    }

    pub fn engine_device(&self) -> EngineDevice {
        EngineDevice {
            instance: self.instance.clone(),
            physical_device: self.physical,
            device: self.device.clone(),
            graphics_queue: EngineQueue {
                family: self.family,
                index: 0,
            },
            compute_queue: None,
            enabled: self.enabled.clone(),
            debug_utils: true,
        }
    }

    pub fn memory_type(&self, bits: u32, flags: vk::MemoryPropertyFlags) -> u32 {
        // SAFETY: plain query.
        let memory = unsafe {
            self.instance
                .get_physical_device_memory_properties(self.physical)
        };
        (0..memory.memory_type_count)
            .find(|&i| {
                bits & (1 << i) != 0
                    && memory.memory_types[i as usize]
                        .property_flags
                        .contains(flags)
            })
            .unwrap()
    }

    /// The stand-in for a swapchain image: RGBA8 64x64, a colour attachment and copy source.
    pub fn create_image(&self) -> (vk::Image, vk::DeviceMemory) {
        let info = vk::ImageCreateInfo::default()
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
            .usage(image_usage())
            .initial_layout(vk::ImageLayout::UNDEFINED);
        // SAFETY: valid create info; the memory type fits the requirements.
        unsafe {
            let image = self.device.create_image(&info, None).unwrap();
            let needs = self.device.get_image_memory_requirements(image);
            let alloc = vk::MemoryAllocateInfo::default()
                .allocation_size(needs.size)
                .memory_type_index(self.memory_type(
                    needs.memory_type_bits,
                    vk::MemoryPropertyFlags::DEVICE_LOCAL,
                ));
            let memory = self.device.allocate_memory(&alloc, None).unwrap();
            self.device.bind_image_memory(image, memory, 0).unwrap();
            (image, memory)
        }
    }

    /// The engine's view of the whole image.
    pub fn create_view(&self, image: vk::Image) -> vk::ImageView {
        let info = vk::ImageViewCreateInfo::default()
            .image(image)
            .view_type(vk::ImageViewType::TYPE_2D)
            .format(vk::Format::R8G8B8A8_UNORM)
            .subresource_range(vk::ImageSubresourceRange {
                aspect_mask: vk::ImageAspectFlags::COLOR,
                base_mip_level: 0,
                level_count: 1,
                base_array_layer: 0,
                layer_count: 1,
            });
        // SAFETY: valid create info for a live image.
        unsafe { self.device.create_image_view(&info, None).unwrap() }
    }

    /// A host-visible buffer the engine reads the image back through.
    pub fn create_readback(&self) -> (vk::Buffer, vk::DeviceMemory) {
        let info = vk::BufferCreateInfo::default()
            .size(u64::from(SIZE * SIZE * 4))
            .usage(vk::BufferUsageFlags::TRANSFER_DST);
        // SAFETY: valid create info; the memory type fits the requirements.
        unsafe {
            let buffer = self.device.create_buffer(&info, None).unwrap();
            let needs = self.device.get_buffer_memory_requirements(buffer);
            let alloc = vk::MemoryAllocateInfo::default()
                .allocation_size(needs.size)
                .memory_type_index(self.memory_type(
                    needs.memory_type_bits,
                    vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT,
                ));
            let memory = self.device.allocate_memory(&alloc, None).unwrap();
            self.device.bind_buffer_memory(buffer, memory, 0).unwrap();
            (buffer, memory)
        }
    }

    pub fn binary_semaphore(&self) -> vk::Semaphore {
        // SAFETY: valid create info.
        unsafe {
            self.device
                .create_semaphore(&vk::SemaphoreCreateInfo::default(), None)
                .unwrap()
        }
    }

    pub fn timeline_semaphore(&self) -> vk::Semaphore {
        let mut kind = vk::SemaphoreTypeCreateInfo::default()
            .semaphore_type(vk::SemaphoreType::TIMELINE)
            .initial_value(0);
        let info = vk::SemaphoreCreateInfo::default().push_next(&mut kind);
        // SAFETY: valid create info.
        unsafe { self.device.create_semaphore(&info, None).unwrap() }
    }

    pub fn fence(&self) -> vk::Fence {
        // SAFETY: valid create info.
        unsafe {
            self.device
                .create_fence(&vk::FenceCreateInfo::default(), None)
                .unwrap()
        }
    }

    /// Signals `semaphore` from the queue with no work: the stand-in for
    /// `vkAcquireNextImageKHR`'s semaphore.
    pub fn signal(&self, semaphore: vk::Semaphore) {
        let signals = [vk::SemaphoreSubmitInfo::default()
            .semaphore(semaphore)
            .stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS)];
        let submit = vk::SubmitInfo2::default().signal_semaphore_infos(&signals);
        // SAFETY: a binary semaphore with no pending signal.
        unsafe {
            self.device
                .queue_submit2(self.queue, &[submit], vk::Fence::null())
                .unwrap()
        };
    }

    /// Records and submits the engine's copy of `image` (left by rpsl in `layout`)
    /// into `buffer`, after waiting for `rendered`; signals `copied` (if not null) and `fence`.
    /// Returns the command buffer (freed by the caller once the fence signalled).
    pub fn copy_to_buffer(
        &self,
        image: vk::Image,
        layout: vk::ImageLayout,
        buffer: vk::Buffer,
        rendered: vk::Semaphore,
        copied: vk::Semaphore,
        fence: vk::Fence,
    ) -> vk::CommandBuffer {
        let device = &self.device;
        let alloc = vk::CommandBufferAllocateInfo::default()
            .command_pool(self.pool)
            .level(vk::CommandBufferLevel::PRIMARY)
            .command_buffer_count(1);
        let color = vk::ImageSubresourceRange {
            aspect_mask: vk::ImageAspectFlags::COLOR,
            base_mip_level: 0,
            level_count: 1,
            base_array_layer: 0,
            layer_count: 1,
        };
        // SAFETY: a fresh command buffer recording valid commands on live objects.
        unsafe {
            let cb = device.allocate_command_buffers(&alloc).unwrap()[0];
            device
                .begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default())
                .unwrap();
            let to_source = [vk::ImageMemoryBarrier2::default()
                .src_stage_mask(vk::PipelineStageFlags2::COPY)
                .dst_stage_mask(vk::PipelineStageFlags2::COPY)
                .dst_access_mask(vk::AccessFlags2::TRANSFER_READ)
                .old_layout(layout)
                .new_layout(vk::ImageLayout::TRANSFER_SRC_OPTIMAL)
                .image(image)
                .subresource_range(color)];
            device.cmd_pipeline_barrier2(
                cb,
                &vk::DependencyInfo::default().image_memory_barriers(&to_source),
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
            device.end_command_buffer(cb).unwrap();
            let waits = [vk::SemaphoreSubmitInfo::default()
                .semaphore(rendered)
                .stage_mask(vk::PipelineStageFlags2::COPY)];
            let signals: Vec<_> = [copied]
                .into_iter()
                .filter(|&s| s != vk::Semaphore::null())
                .map(|s| {
                    vk::SemaphoreSubmitInfo::default()
                        .semaphore(s)
                        .stage_mask(vk::PipelineStageFlags2::COPY)
                })
                .collect();
            let buffers = [vk::CommandBufferSubmitInfo::default().command_buffer(cb)];
            let submit = vk::SubmitInfo2::default()
                .wait_semaphore_infos(&waits)
                .command_buffer_infos(&buffers)
                .signal_semaphore_infos(&signals);
            device.queue_submit2(self.queue, &[submit], fence).unwrap();
            cb
        }
    }

    /// The bytes of a readback buffer (its copy complete).
    pub fn read(&self, memory: vk::DeviceMemory) -> Vec<u8> {
        let size = (SIZE * SIZE * 4) as usize;
        // SAFETY: host-visible coherent memory of at least `size` bytes, no GPU write pending.
        unsafe {
            let data = self
                .device
                .map_memory(memory, 0, size as u64, vk::MemoryMapFlags::empty())
                .unwrap();
            let bytes = std::slice::from_raw_parts(data as *const u8, size).to_vec();
            self.device.unmap_memory(memory);
            bytes
        }
    }

    /// Waits (at most 20 s) for `timeline` to reach `value` and returns the value it holds.
    /// A fence orders the frame's commands, not when the host sees its semaphore signals,
    /// so an engine reading its timeline waits on the timeline itself.
    pub fn timeline_after_wait(&self, timeline: vk::Semaphore, value: u64) -> u64 {
        let semaphores = [timeline];
        let values = [value];
        let wait = vk::SemaphoreWaitInfo::default()
            .semaphores(&semaphores)
            .values(&values);
        // SAFETY: a timeline semaphore of this device; a timeout leaves the lower value.
        unsafe {
            match self.device.wait_semaphores(&wait, 20_000_000_000) {
                Ok(()) | Err(vk::Result::TIMEOUT) => {}
                Err(error) => panic!("vkWaitSemaphores: {error}"),
            }
            self.device.get_semaphore_counter_value(timeline).unwrap()
        }
    }

    pub fn wait(&self, fence: vk::Fence) {
        // SAFETY: a fence of this device.
        unsafe {
            self.device
                .wait_for_fences(&[fence], true, 20_000_000_000)
                .unwrap()
        };
    }
}

impl Drop for App {
    fn drop(&mut self) {
        // SAFETY: the tests destroyed their objects and dropped the backend before.
        unsafe {
            let _ = self.device.device_wait_idle();
            self.device.destroy_command_pool(self.pool, None);
            self.device.destroy_device(None);
            self.debug
                .destroy_debug_utils_messenger(self.messenger, None);
            self.instance.destroy_instance(None);
        }
    }
}

pub fn image_usage() -> vk::ImageUsageFlags {
    vk::ImageUsageFlags::COLOR_ATTACHMENT | vk::ImageUsageFlags::TRANSFER_SRC
}
