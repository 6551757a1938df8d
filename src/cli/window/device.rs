//! The window's Vulkan objects, made as an engine makes them and lent to rpsl's backend
//! ([`rpsl_vulkan::VulkanBackend::on_device`]): an instance with the surface extensions (and,
//! with `--validate`, the validation layer with synchronization validation and a messenger
//! that collects every warning and error), the window's surface, a Vulkan 1.3 device with a
//! graphics queue that can present to it, VK_KHR_swapchain and the features rpsl needs or uses.

use std::ffi::CStr;
use std::sync::Arc;

use rpsl_vulkan::ash::{self, vk};
use rpsl_vulkan::{EngineDevice, EngineDeviceFeatures, EngineQueue, MessageLog};
use winit::raw_window_handle::{RawDisplayHandle, RawWindowHandle};

use super::surface;

/// Maps a failed Vulkan call to a message.
pub fn failed(what: &'static str) -> impl Fn(vk::Result) -> String {
    move |result| format!("{what} failed with {result:?}")
}

/// The instance with its messenger and the window's surface; destroyed when dropped.
pub struct InstanceObjects {
    entry: ash::Entry,
    pub instance: ash::Instance,
    debug: Option<(ash::ext::debug_utils::Instance, vk::DebugUtilsMessengerEXT)>,
    messages: Arc<MessageLog>,
    pub surface_loader: ash::khr::surface::Instance,
    pub surface: vk::SurfaceKHR,
    debug_utils: bool,
}

impl Drop for InstanceObjects {
    fn drop(&mut self) {
        // SAFETY: the device made from the instance is destroyed before (it is dropped first,
        // see `WindowDevice`); null handles are ignored.
        unsafe {
            self.surface_loader.destroy_surface(self.surface, None);
            if let Some((debug, messenger)) = self.debug.take() {
                debug.destroy_debug_utils_messenger(messenger, None);
            }
            self.instance.destroy_instance(None);
        }
    }
}

/// The window's instance, surface and device; destroyed when dropped, after the backend and
/// the swapchain that use them.
pub struct WindowDevice {
    pub physical: vk::PhysicalDevice,
    pub device: ash::Device,
    pub family: u32,
    pub queue: vk::Queue,
    /// What the device was created with (rpsl checks and uses it).
    enabled: EngineDeviceFeatures,
    /// Dropped after the device (`Drop` destroys the device, then the fields drop).
    pub base: InstanceObjects,
}

impl WindowDevice {
    /// Makes the instance, the surface of the window and the device.
    ///
    /// # Safety
    /// `display` and `window` are the handles of a live window that outlives this value.
    pub unsafe fn new(
        display: RawDisplayHandle,
        window: RawWindowHandle,
        validate: bool,
    ) -> Result<WindowDevice, String> {
        // SAFETY: loading the Vulkan loader has no preconditions beyond it being conforming.
        let entry = unsafe { ash::Entry::load() }
            .map_err(|error| format!("no usable device: no Vulkan loader ({error})"))?;
        let mut extensions: Vec<*const std::ffi::c_char> = surface::surface_extensions(display)?
            .iter()
            .map(|name| name.as_ptr())
            .collect();
        let mut layers = Vec::new();
        // SAFETY: plain enumeration calls on a loaded entry.
        let available = unsafe { entry.enumerate_instance_extension_properties(None) }
            .map_err(failed("vkEnumerateInstanceExtensionProperties"))?;
        let has_debug_utils = available
            .iter()
            .any(|ext| ext.extension_name_as_c_str() == Ok(ash::ext::debug_utils::NAME));
        let layer = c"VK_LAYER_KHRONOS_validation";
        if validate {
            // SAFETY: as above.
            let layers_there = unsafe { entry.enumerate_instance_layer_properties() }
                .map_err(failed("vkEnumerateInstanceLayerProperties"))?;
            if !layers_there
                .iter()
                .any(|found| found.layer_name_as_c_str() == Ok(layer))
            {
                return Err(
                    "validation asked for, but VK_LAYER_KHRONOS_validation is not installed".into(),
                );
            }
            layers.push(layer.as_ptr());
            extensions.push(ash::ext::validation_features::NAME.as_ptr());
        }
        let debug_utils = validate || has_debug_utils;
        if debug_utils {
            extensions.push(ash::ext::debug_utils::NAME.as_ptr());
        }
        let app = vk::ApplicationInfo::default()
            .application_name(c"rpsl window")
            .api_version(vk::API_VERSION_1_3);
        let enables = [vk::ValidationFeatureEnableEXT::SYNCHRONIZATION_VALIDATION];
        let mut features =
            vk::ValidationFeaturesEXT::default().enabled_validation_features(&enables);
        let mut create = vk::InstanceCreateInfo::default()
            .application_info(&app)
            .enabled_layer_names(&layers)
            .enabled_extension_names(&extensions);
        if validate {
            create = create.push_next(&mut features);
        }
        // SAFETY: every pointer in `create` refers to locals that outlive the call.
        let instance =
            unsafe { entry.create_instance(&create, None) }.map_err(failed("vkCreateInstance"))?;
        let surface_loader = ash::khr::surface::Instance::new(&entry, &instance);
        let mut base = InstanceObjects {
            entry,
            instance,
            debug: None,
            messages: Arc::new(MessageLog::default()),
            surface_loader,
            surface: vk::SurfaceKHR::null(),
            debug_utils,
        };
        if validate {
            base.create_messenger()?;
        }
        // SAFETY: the caller guarantees the window outlives this value, which destroys the
        // surface before the instance.
        base.surface =
            unsafe { surface::create_surface(&base.entry, &base.instance, display, window) }?;
        let (physical, family, device, enabled) = create_device(&base)?;
        // SAFETY: one queue of `family` was created.
        let queue = unsafe { device.get_device_queue(family, 0) };
        Ok(WindowDevice {
            physical,
            device,
            family,
            queue,
            enabled,
            base,
        })
    }

    /// What rpsl's backend runs on.
    pub fn engine(&self) -> EngineDevice {
        EngineDevice {
            instance: self.base.instance.clone(),
            physical_device: self.physical,
            device: self.device.clone(),
            graphics_queue: EngineQueue {
                family: self.family,
                index: 0,
            },
            compute_queue: None,
            enabled: self.enabled.clone(),
            debug_utils: self.base.debug_utils,
        }
    }

    /// The validation messages collected since the last call.
    pub fn take_messages(&self) -> Vec<String> {
        self.base.messages.take()
    }
}

impl InstanceObjects {
    fn create_messenger(&mut self) -> Result<(), String> {
        let debug = ash::ext::debug_utils::Instance::new(&self.entry, &self.instance);
        let info = MessageLog::messenger_info(&self.messages);
        // SAFETY: the instance is live; the user data outlives the messenger (dropped after it).
        let messenger = unsafe { debug.create_debug_utils_messenger(&info, None) }
            .map_err(failed("vkCreateDebugUtilsMessengerEXT"))?;
        self.debug = Some((debug, messenger));
        Ok(())
    }
}

/// Picks the first Vulkan 1.3 device with a graphics + compute family that can present to the
/// surface (discrete GPUs first) and creates it with what rpsl needs and uses.
fn create_device(
    base: &InstanceObjects,
) -> Result<(vk::PhysicalDevice, u32, ash::Device, EngineDeviceFeatures), String> {
    {
        let instance = &base.instance;
        // SAFETY: plain queries on the live instance and surface.
        let devices = unsafe { instance.enumerate_physical_devices() }
            .map_err(failed("vkEnumeratePhysicalDevices"))?;
        let mut candidates = Vec::new();
        for physical in devices {
            // SAFETY: as above.
            let (properties, families) = unsafe {
                (
                    instance.get_physical_device_properties(physical),
                    instance.get_physical_device_queue_family_properties(physical),
                )
            };
            if properties.api_version < vk::API_VERSION_1_3 {
                continue;
            }
            let family = families.iter().enumerate().position(|(index, family)| {
                let flags = vk::QueueFlags::GRAPHICS | vk::QueueFlags::COMPUTE;
                // SAFETY: as above.
                let presents = unsafe {
                    base.surface_loader.get_physical_device_surface_support(
                        physical,
                        index as u32,
                        base.surface,
                    )
                };
                family.queue_flags.contains(flags) && presents == Ok(true)
            });
            if let Some(family) = family {
                let rank = match properties.device_type {
                    vk::PhysicalDeviceType::DISCRETE_GPU => 0,
                    vk::PhysicalDeviceType::INTEGRATED_GPU => 1,
                    _ => 2,
                };
                candidates.push((rank, physical, family as u32));
            }
        }
        candidates.sort_by_key(|&(rank, _, _)| rank);
        let &(_, physical, family) = candidates.first().ok_or(
            "no usable device: no Vulkan 1.3 device has a graphics queue that can present to \
             this window",
        )?;
        // SAFETY: plain queries on the chosen physical device.
        let (extensions, have10, have12, have13) = unsafe {
            let mut have12 = vk::PhysicalDeviceVulkan12Features::default();
            let mut have13 = vk::PhysicalDeviceVulkan13Features::default();
            let mut all = vk::PhysicalDeviceFeatures2::default()
                .push_next(&mut have12)
                .push_next(&mut have13);
            instance.get_physical_device_features2(physical, &mut all);
            let have10 = all.features;
            let have12 = vk::PhysicalDeviceVulkan12Features {
                p_next: std::ptr::null_mut(),
                ..have12
            };
            let have13 = vk::PhysicalDeviceVulkan13Features {
                p_next: std::ptr::null_mut(),
                ..have13
            };
            (
                instance
                    .enumerate_device_extension_properties(physical)
                    .map_err(failed("vkEnumerateDeviceExtensionProperties"))?,
                have10,
                have12,
                have13,
            )
        };
        let has = |name: &CStr| {
            extensions
                .iter()
                .any(|ext| ext.extension_name_as_c_str() == Ok(name))
        };
        if !has(ash::khr::swapchain::NAME) {
            return Err("no usable device: the device has no VK_KHR_swapchain".into());
        }
        let mut enabled_extensions: Vec<&'static CStr> = vec![ash::khr::swapchain::NAME];
        for optional in [
            ash::khr::push_descriptor::NAME,
            ash::ext::shader_stencil_export::NAME,
        ] {
            if has(optional) {
                enabled_extensions.push(optional);
            }
        }
        let on = |flag: vk::Bool32| flag == vk::TRUE;
        let core = vk::PhysicalDeviceFeatures::default()
            .shader_storage_image_write_without_format(on(
                have10.shader_storage_image_write_without_format
            ))
            .vertex_pipeline_stores_and_atomics(on(have10.vertex_pipeline_stores_and_atomics))
            .fragment_stores_and_atomics(on(have10.fragment_stores_and_atomics))
            .geometry_shader(on(have10.geometry_shader))
            .tessellation_shader(on(have10.tessellation_shader))
            .texture_compression_bc(on(have10.texture_compression_bc));
        let mut vulkan12 = vk::PhysicalDeviceVulkan12Features::default()
            .timeline_semaphore(true)
            .host_query_reset(on(have12.host_query_reset))
            .separate_depth_stencil_layouts(on(have12.separate_depth_stencil_layouts));
        let mut vulkan13 = vk::PhysicalDeviceVulkan13Features::default()
            .synchronization2(true)
            .dynamic_rendering(true)
            .maintenance4(on(have13.maintenance4));
        if !on(have12.timeline_semaphore)
            || !on(have13.synchronization2)
            || !on(have13.dynamic_rendering)
        {
            return Err("no usable device: the device lacks timeline semaphores, \
                        synchronization2 or dynamic rendering"
                .into());
        }
        let names: Vec<*const std::ffi::c_char> = enabled_extensions
            .iter()
            .map(|name| name.as_ptr())
            .collect();
        let priorities = [1.0f32];
        let queues = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(family)
            .queue_priorities(&priorities)];
        let create = vk::DeviceCreateInfo::default()
            .queue_create_infos(&queues)
            .enabled_extension_names(&names)
            .enabled_features(&core)
            .push_next(&mut vulkan12)
            .push_next(&mut vulkan13);
        // SAFETY: every pointer in `create` refers to locals that outlive the call; the
        // features were checked to exist.
        let device = unsafe { instance.create_device(physical, &create, None) }
            .map_err(failed("vkCreateDevice"))?;
        let enabled = EngineDeviceFeatures {
            core,
            vulkan12: vk::PhysicalDeviceVulkan12Features {
                p_next: std::ptr::null_mut(),
                ..vulkan12
            },
            vulkan13: vk::PhysicalDeviceVulkan13Features {
                p_next: std::ptr::null_mut(),
                ..vulkan13
            },
            robust_image_access2: false,
            extensions: enabled_extensions,
        };
        Ok((physical, family, device, enabled))
    }
}

impl Drop for WindowDevice {
    fn drop(&mut self) {
        // SAFETY: the backend and the swapchain made from the device were dropped before (the
        // window's state drops them first); after the wait the device is unused. The instance
        // and surface go after, with `base`.
        unsafe {
            let _ = self.device.device_wait_idle();
            self.device.destroy_device(None);
        }
    }
}
