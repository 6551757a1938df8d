//! Running on the application's device: the instance, physical device, device and queues an
//! engine created ([`EngineDevice`]), checked for what rpsl needs. rpsl never destroys them.

use crate::context::{
    depth_stencil_resolve_properties, Context, DeviceParts, EnabledFeatures, MessageLog, Ownership,
    QueueFamilies,
};
use ash::vk;
use rpsl_runtime::BackendError;
use std::ffi::CStr;
use std::sync::Arc;

/// One queue of the application's device: its family and its index within the family (the
/// `queueIndex` of `vkGetDeviceQueue`).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct EngineQueue {
    /// The queue family index.
    pub family: u32,
    /// The queue's index in its family.
    pub index: u32,
}

/// What the application enabled when it created its device: the same feature structures and
/// extension names it passed to `vkCreateDevice` (their `p_next` is not followed).
#[derive(Clone, Debug, Default)]
pub struct EngineDeviceFeatures {
    /// `VkDeviceCreateInfo::pEnabledFeatures` (or `VkPhysicalDeviceFeatures2::features`).
    pub core: vk::PhysicalDeviceFeatures,
    /// The `VkPhysicalDeviceVulkan12Features` of the create info's chain.
    pub vulkan12: vk::PhysicalDeviceVulkan12Features<'static>,
    /// The `VkPhysicalDeviceVulkan13Features` of the create info's chain.
    pub vulkan13: vk::PhysicalDeviceVulkan13Features<'static>,
    /// `robustImageAccess2` of a chained `VkPhysicalDeviceRobustness2FeaturesEXT`.
    pub robust_image_access2: bool,
    /// The device extensions enabled (`ppEnabledExtensionNames`).
    pub extensions: Vec<&'static CStr>,
}

/// The application's Vulkan objects the backend runs on ([`crate::VulkanBackend::on_device`]).
///
/// The instance and the physical device must support Vulkan 1.3 (the instance created with
/// `apiVersion` 1.3 or later). rpsl needs `timelineSemaphore` (Vulkan 1.2 features),
/// `synchronization2` and `dynamicRendering` (Vulkan 1.3 features) enabled, and uses
/// optional features where the application enabled them (see [`EnabledFeatures`]). Submitting
/// to a queue needs external synchronization: call the backend from the thread that submits
/// to these queues, or lock around it.
///
/// ```no_run
/// # use rpsl_vulkan::ash::vk;
/// # use rpsl_vulkan::{EngineDevice, EngineDeviceFeatures, EngineQueue, VulkanBackend, VulkanOptions};
/// # fn make(instance: rpsl_vulkan::ash::Instance, physical: vk::PhysicalDevice,
/// #         device: rpsl_vulkan::ash::Device, family: u32) {
/// let engine = EngineDevice {
///     instance,
///     physical_device: physical,
///     device,
///     graphics_queue: EngineQueue { family, index: 0 },
///     compute_queue: None,
///     enabled: EngineDeviceFeatures {
///         vulkan12: vk::PhysicalDeviceVulkan12Features::default().timeline_semaphore(true),
///         vulkan13: vk::PhysicalDeviceVulkan13Features::default()
///             .synchronization2(true)
///             .dynamic_rendering(true),
///         ..EngineDeviceFeatures::default()
///     },
///     debug_utils: false,
/// };
/// let backend = VulkanBackend::on_device(engine, VulkanOptions::default());
/// # }
/// ```
#[derive(Clone)]
pub struct EngineDevice {
    /// The instance (kept alive and destroyed by the application).
    pub instance: ash::Instance,
    /// The physical device the device was created on.
    pub physical_device: vk::PhysicalDevice,
    /// The device (destroyed by the application, after the backend is dropped).
    pub device: ash::Device,
    /// A queue of a family with graphics and compute: rpsl submits its frames there.
    pub graphics_queue: EngineQueue,
    /// A queue of a compute family without graphics for async-compute nodes, if the
    /// application lends one (else they run on the graphics queue).
    pub compute_queue: Option<EngineQueue>,
    /// What the device was created with.
    pub enabled: EngineDeviceFeatures,
    /// The instance enabled VK_EXT_debug_utils: rpsl names the objects it creates (it names
    /// the application's only where asked, see [`crate::ImportedImage::debug_name`]).
    pub debug_utils: bool,
}

/// `Vulkan 1.3` as `major.minor`.
fn version_text(version: u32) -> String {
    format!(
        "{}.{}",
        vk::api_version_major(version),
        vk::api_version_minor(version)
    )
}

/// Everything rpsl needs that `engine` lacks, by its Vulkan name (empty: nothing lacks).
fn missing_requirements(engine: &EngineDevice) -> Vec<String> {
    let instance = &engine.instance;
    let physical = engine.physical_device;
    let mut missing = Vec::new();
    // SAFETY: plain queries on the application's physical device.
    let (properties, families) = unsafe {
        (
            instance.get_physical_device_properties(physical),
            instance.get_physical_device_queue_family_properties(physical),
        )
    };
    if properties.api_version < vk::API_VERSION_1_3 {
        missing.push(format!(
            "Vulkan 1.3 (the physical device supports {})",
            version_text(properties.api_version)
        ));
    }
    let enabled = &engine.enabled;
    for (on, name) in [
        (
            enabled.vulkan12.timeline_semaphore,
            "timelineSemaphore (VkPhysicalDeviceVulkan12Features)",
        ),
        (
            enabled.vulkan13.synchronization2,
            "synchronization2 (VkPhysicalDeviceVulkan13Features)",
        ),
        (
            enabled.vulkan13.dynamic_rendering,
            "dynamicRendering (VkPhysicalDeviceVulkan13Features)",
        ),
    ] {
        if on == vk::FALSE {
            missing.push(name.to_string());
        }
    }
    let family_flags = |queue: EngineQueue| {
        families
            .get(queue.family as usize)
            .filter(|family| queue.index < family.queue_count)
            .map(|family| family.queue_flags)
    };
    let graphics = engine.graphics_queue;
    match family_flags(graphics) {
        Some(flags) if flags.contains(vk::QueueFlags::GRAPHICS | vk::QueueFlags::COMPUTE) => {}
        Some(_) => missing.push(format!(
            "graphics and compute on the graphics queue's family {}",
            graphics.family
        )),
        None => missing.push(format!(
            "queue {} of family {} (the graphics queue)",
            graphics.index, graphics.family
        )),
    }
    if let Some(compute) = engine.compute_queue {
        match family_flags(compute) {
            Some(flags) if flags.contains(vk::QueueFlags::COMPUTE) => {}
            Some(_) => missing.push(format!(
                "compute on the compute queue's family {}",
                compute.family
            )),
            None => missing.push(format!(
                "queue {} of family {} (the compute queue)",
                compute.index, compute.family
            )),
        }
    }
    missing
}

/// The optional features rpsl uses that the application enabled (and the device supports).
fn enabled_features(engine: &EngineDevice) -> EnabledFeatures {
    let enabled = &engine.enabled;
    let has = |name: &CStr| enabled.extensions.contains(&name);
    let on = |flag: vk::Bool32| flag == vk::TRUE;
    let resolve = depth_stencil_resolve_properties(&engine.instance, engine.physical_device);
    EnabledFeatures {
        timeline_semaphore: on(enabled.vulkan12.timeline_semaphore),
        robust_image_access2: enabled.robust_image_access2 && has(ash::ext::robustness2::NAME),
        separate_depth_stencil_layouts: on(enabled.vulkan12.separate_depth_stencil_layouts),
        debug_utils: engine.debug_utils,
        host_query_reset: on(enabled.vulkan12.host_query_reset),
        push_descriptor: has(ash::khr::push_descriptor::NAME),
        storage_write_without_format: on(enabled.core.shader_storage_image_write_without_format),
        depth_resolve_modes: resolve.0,
        stencil_resolve_modes: resolve.1,
        independent_resolve: resolve.2,
        independent_resolve_none: resolve.3,
        shader_stencil_export: has(ash::ext::shader_stencil_export::NAME),
        geometry_shader: on(enabled.core.geometry_shader),
        tessellation_shader: on(enabled.core.tessellation_shader),
        texture_compression_bc: on(enabled.core.texture_compression_bc),
    }
}

impl Context {
    /// A context on the application's device, or [`BackendError::MissingFeature`] naming
    /// everything rpsl needs that it lacks, in one message.
    pub(crate) fn on_engine_device(engine: EngineDevice) -> Result<Context, BackendError> {
        let missing = missing_requirements(&engine);
        if !missing.is_empty() {
            return Err(BackendError::MissingFeature(format!(
                "the application's device lacks what rpsl needs: {}",
                missing.join(", ")
            )));
        }
        let features = enabled_features(&engine);
        let device = engine.device;
        // SAFETY: the queues exist (checked above: index below the family's queue count).
        let queue = unsafe {
            device.get_device_queue(engine.graphics_queue.family, engine.graphics_queue.index)
        };
        let compute_queue = engine
            .compute_queue
            // SAFETY: as above.
            .map(|q| unsafe { device.get_device_queue(q.family, q.index) });
        // SAFETY: plain query on the application's physical device.
        let properties = unsafe {
            engine
                .instance
                .get_physical_device_properties(engine.physical_device)
        };
        let device_name = properties
            .device_name_as_c_str()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let parts = DeviceParts {
            instance: engine.instance,
            physical: engine.physical_device,
            device,
            families: QueueFamilies {
                graphics: engine.graphics_queue.family,
                async_compute: engine.compute_queue.map(|q| q.family),
                transfer: None,
            },
            queue,
            compute_queue,
            features,
            device_name,
        };
        Ok(Context::assemble(
            Ownership::Borrowed,
            parts,
            Arc::new(MessageLog::default()),
        ))
    }
}
