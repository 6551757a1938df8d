//! The headless Vulkan context: instance (with the validation layer and synchronization
//! validation when asked), the physical device, queue families for graphics, async compute and
//! transfer, the logical device with the features the backend uses, debug names, and the
//! mapping of `VkResult` failures to typed [`BackendError`]s.

use ash::vk;
use ash::vk::Handle;
use rpsl_runtime::BackendError;
use std::ffi::{c_void, CStr, CString};
use std::sync::{Arc, Mutex};

/// Maps a failed Vulkan call to a typed error; `what` names the call.
pub(crate) fn vk_error(what: &str, result: vk::Result) -> BackendError {
    let message = format!("{what} failed with {result:?}");
    match result {
        vk::Result::ERROR_DEVICE_LOST => BackendError::DeviceLost(message),
        vk::Result::ERROR_OUT_OF_HOST_MEMORY
        | vk::Result::ERROR_OUT_OF_DEVICE_MEMORY
        | vk::Result::ERROR_OUT_OF_POOL_MEMORY => BackendError::OutOfMemory(message),
        vk::Result::TIMEOUT => BackendError::Timeout(message),
        vk::Result::ERROR_FEATURE_NOT_PRESENT
        | vk::Result::ERROR_EXTENSION_NOT_PRESENT
        | vk::Result::ERROR_LAYER_NOT_PRESENT
        | vk::Result::ERROR_FORMAT_NOT_SUPPORTED => BackendError::MissingFeature(message),
        vk::Result::ERROR_INCOMPATIBLE_DRIVER | vk::Result::ERROR_INITIALIZATION_FAILED => {
            BackendError::NoDevice(message)
        }
        _ => BackendError::Api(message),
    }
}

/// Validation messages (warnings and errors) collected by a debug messenger: the one rpsl
/// makes with `--validate`, or one an application (an engine, the CLI's window) makes on its own
/// instance with [`MessageLog::messenger_info`].
///
/// ```no_run
/// # use std::sync::Arc;
/// # use rpsl_vulkan::{ash, MessageLog};
/// # fn make(debug: &ash::ext::debug_utils::Instance) -> Result<(), ash::vk::Result> {
/// let log = Arc::new(MessageLog::default());
/// let info = MessageLog::messenger_info(&log);
/// // SAFETY: `log` outlives the messenger (destroyed before `log` is dropped).
/// let messenger = unsafe { debug.create_debug_utils_messenger(&info, None) }?;
/// // ... run frames, then:
/// assert!(log.take().is_empty(), "validation messages");
/// # unsafe { debug.destroy_debug_utils_messenger(messenger, None) };
/// # Ok(())
/// # }
/// ```
#[derive(Default, Debug)]
pub struct MessageLog {
    messages: Mutex<Vec<String>>,
}

impl MessageLog {
    /// A messenger create info (warnings and errors of every type) whose callback appends to
    /// `log`. It holds a pointer to `log`: keep a clone of the `Arc` alive until the messenger
    /// made from it is destroyed.
    pub fn messenger_info(log: &Arc<MessageLog>) -> vk::DebugUtilsMessengerCreateInfoEXT<'static> {
        vk::DebugUtilsMessengerCreateInfoEXT::default()
            .message_severity(
                vk::DebugUtilsMessageSeverityFlagsEXT::WARNING
                    | vk::DebugUtilsMessageSeverityFlagsEXT::ERROR,
            )
            .message_type(
                vk::DebugUtilsMessageTypeFlagsEXT::GENERAL
                    | vk::DebugUtilsMessageTypeFlagsEXT::VALIDATION
                    | vk::DebugUtilsMessageTypeFlagsEXT::PERFORMANCE,
            )
            .pfn_user_callback(Some(on_message))
            .user_data(Arc::as_ptr(log) as *mut c_void)
    }

    /// Takes the messages collected so far (`SEVERITY ID: TEXT` each).
    pub fn take(&self) -> Vec<String> {
        self.messages
            .lock()
            .map(|mut messages| std::mem::take(&mut *messages))
            .unwrap_or_default()
    }
}

unsafe extern "system" fn on_message(
    severity: vk::DebugUtilsMessageSeverityFlagsEXT,
    _types: vk::DebugUtilsMessageTypeFlagsEXT,
    data: *const vk::DebugUtilsMessengerCallbackDataEXT<'_>,
    user: *mut c_void,
) -> vk::Bool32 {
    let counted = vk::DebugUtilsMessageSeverityFlagsEXT::WARNING
        | vk::DebugUtilsMessageSeverityFlagsEXT::ERROR;
    if !severity.intersects(counted) || data.is_null() || user.is_null() {
        return vk::FALSE;
    }
    // SAFETY: the layer passes valid callback data for the duration of the call, and `user` is
    // the `MessageLog` the context keeps alive (in an `Arc`) until the messenger is destroyed.
    let (data, log) = unsafe { (&*data, &*(user as *const MessageLog)) };
    // SAFETY: the strings of valid callback data are null-terminated or null.
    let id = unsafe { data.message_id_name_as_c_str() }
        .map(|id| id.to_string_lossy().into_owned())
        .unwrap_or_default();
    // SAFETY: as above.
    let text = unsafe { data.message_as_c_str() }
        .map(|text| text.to_string_lossy().into_owned())
        .unwrap_or_default();
    if let Ok(mut messages) = log.messages.lock() {
        messages.push(format!("{severity:?} {id}: {text}"));
    }
    vk::FALSE
}

/// Optional features that were found and enabled.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub struct EnabledFeatures {
    /// Timeline semaphores.
    pub timeline_semaphore: bool,
    /// `robustImageAccess2` of VK_EXT_robustness2.
    pub robust_image_access2: bool,
    /// Separate depth and stencil layouts.
    pub separate_depth_stencil_layouts: bool,
    /// VK_EXT_debug_utils names and labels.
    pub debug_utils: bool,
    /// Resetting queries from the host (needed by timestamp timings).
    pub host_query_reset: bool,
    /// VK_KHR_push_descriptor (the min/max resolve pass pushes its descriptors).
    pub push_descriptor: bool,
    /// Storage image writes without a format in the shader (min/max resolve).
    pub storage_write_without_format: bool,
    /// Depth resolve modes of render-pass resolves
    /// (`VkPhysicalDeviceDepthStencilResolveProperties::supportedDepthResolveModes`; the spec
    /// guarantees `SAMPLE_ZERO`).
    pub depth_resolve_modes: vk::ResolveModeFlags,
    /// Stencil resolve modes of render-pass resolves (`SAMPLE_ZERO` guaranteed, never `AVERAGE`).
    pub stencil_resolve_modes: vk::ResolveModeFlags,
    /// Depth and stencil may be resolved with different modes in one render pass.
    pub independent_resolve: bool,
    /// Depth and stencil may differ in one render pass when one of them is not resolved.
    pub independent_resolve_none: bool,
    /// VK_EXT_shader_stencil_export (the shader depth/stencil resolve writes stencil with it).
    pub shader_stencil_export: bool,
    /// `geometryShader` (shader nodes with a geometry shader).
    pub geometry_shader: bool,
    /// `tessellationShader` (shader nodes with hull and domain shaders).
    pub tessellation_shader: bool,
    /// `textureCompressionBC` (BC1 to BC7 textures, such as effects' DDS lookup tables).
    pub texture_compression_bc: bool,
}

/// Gives `handle`, an object of the device `debug` was made for, a debug name that validation
/// messages and tools show (no-op when `debug` is `None`: no VK_EXT_debug_utils).
pub(crate) fn name_object<H: Handle>(
    debug: Option<&ash::ext::debug_utils::Device>,
    handle: H,
    name: &str,
) {
    if let Some(debug) = debug {
        let name = CString::new(name.replace('\0', " ")).unwrap_or_default();
        let info = vk::DebugUtilsObjectNameInfoEXT::default()
            .object_handle(handle)
            .object_name(&name);
        // SAFETY: the handle belongs to this device; naming failures are harmless.
        let _ = unsafe { debug.set_debug_utils_object_name(&info) };
    }
}

/// The device's limits on the size of one buffer and one memory allocation.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct SizeLimits {
    /// `VkPhysicalDeviceMaintenance4Properties::maxBufferSize` (Vulkan 1.3).
    pub max_buffer_size: u64,
    /// `VkPhysicalDeviceMaintenance3Properties::maxMemoryAllocationSize` (Vulkan 1.1).
    pub max_memory_allocation_size: u64,
}

/// Queue family indices the device was created with.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct QueueFamilies {
    /// Graphics + compute.
    pub graphics: u32,
    /// A compute family without graphics, if any.
    pub async_compute: Option<u32>,
    /// A transfer-only family, if any.
    pub transfer: Option<u32>,
}

/// Who made the instance and device of a [`Context`], and so who destroys them.
pub(crate) enum Ownership {
    /// rpsl created the instance, the debug messenger (when validating) and the device, and
    /// destroys them when the context drops.
    Owned {
        _entry: ash::Entry,
        debug_instance: Option<ash::ext::debug_utils::Instance>,
        messenger: vk::DebugUtilsMessengerEXT,
    },
    /// The application created them ([`crate::EngineDevice`]): rpsl never destroys them, never
    /// waits for the whole device, and never renames the application's queues.
    Borrowed,
}

/// Instance, device and queues.
pub(crate) struct Context {
    pub ownership: Ownership,
    pub instance: ash::Instance,
    pub debug_device: Option<ash::ext::debug_utils::Device>,
    pub physical: vk::PhysicalDevice,
    pub device: ash::Device,
    pub families: QueueFamilies,
    pub queue: vk::Queue,
    /// The queue of `families.async_compute` rpsl submits to.
    pub compute_queue: Option<vk::Queue>,
    pub features: EnabledFeatures,
    pub device_name: String,
    pub log: Arc<MessageLog>,
    /// Nanoseconds per timestamp tick.
    pub timestamp_period: f32,
    /// Mask of the valid timestamp bits of the queue families in use (0: no timestamps).
    pub timestamp_mask: u64,
    /// Queue families resources are shared between (concurrent sharing), when more than one.
    pub concurrent_families: Vec<u32>,
    /// Sample counts every colour and depth attachment format supports.
    pub sample_counts: vk::SampleCountFlags,
    /// The device's size limits of buffers and allocations.
    pub size_limits: SizeLimits,
    /// A wait for the GPU timed out or the device was lost: the device is never waited for
    /// again and is not destroyed (its work may still be pending).
    pub wedged: std::cell::Cell<bool>,
}

/// The device-level parts of a [`Context`], gathered before it is assembled.
pub(crate) struct DeviceParts {
    pub instance: ash::Instance,
    pub physical: vk::PhysicalDevice,
    pub device: ash::Device,
    pub families: QueueFamilies,
    pub queue: vk::Queue,
    pub compute_queue: Option<vk::Queue>,
    pub features: EnabledFeatures,
    pub device_name: String,
}

pub(crate) fn has_extension(list: &[vk::ExtensionProperties], name: &CStr) -> bool {
    list.iter()
        .any(|ext| ext.extension_name_as_c_str().is_ok_and(|n| n == name))
}

impl Context {
    /// Creates the instance and device. `validate`: enable VK_LAYER_KHRONOS_validation with
    /// synchronization validation.
    pub fn new(validate: bool) -> Result<Context, BackendError> {
        // SAFETY: loading the Vulkan loader library has no preconditions beyond it being a
        // conforming loader.
        let entry = unsafe { ash::Entry::load() }
            .map_err(|error| BackendError::NoDevice(format!("no Vulkan loader: {error}")))?;
        let layer_name = c"VK_LAYER_KHRONOS_validation";
        // SAFETY: plain enumeration calls on a loaded entry.
        let instance_extensions = unsafe { entry.enumerate_instance_extension_properties(None) }
            .map_err(|r| vk_error("vkEnumerateInstanceExtensionProperties", r))?;
        let mut debug_utils = has_extension(&instance_extensions, ash::ext::debug_utils::NAME);
        let mut layers = Vec::new();
        let mut extensions = Vec::new();
        if validate {
            // SAFETY: as above.
            let available = unsafe { entry.enumerate_instance_layer_properties() }
                .map_err(|r| vk_error("vkEnumerateInstanceLayerProperties", r))?;
            if !available
                .iter()
                .any(|layer| layer.layer_name_as_c_str().is_ok_and(|n| n == layer_name))
            {
                return Err(BackendError::MissingFeature(
                    "validation asked for, but VK_LAYER_KHRONOS_validation is not installed".into(),
                ));
            }
            layers.push(layer_name.as_ptr());
            extensions.push(ash::ext::validation_features::NAME.as_ptr());
            debug_utils = true;
        }
        if debug_utils {
            extensions.push(ash::ext::debug_utils::NAME.as_ptr());
        }
        let log = Arc::new(MessageLog::default());
        let app = vk::ApplicationInfo::default()
            .application_name(c"rpsl")
            .api_version(vk::API_VERSION_1_3);
        let enables = [vk::ValidationFeatureEnableEXT::SYNCHRONIZATION_VALIDATION];
        let mut validation_features =
            vk::ValidationFeaturesEXT::default().enabled_validation_features(&enables);
        let mut messenger_info = MessageLog::messenger_info(&log);
        let mut create = vk::InstanceCreateInfo::default()
            .application_info(&app)
            .enabled_layer_names(&layers)
            .enabled_extension_names(&extensions);
        if validate {
            create = create
                .push_next(&mut messenger_info)
                .push_next(&mut validation_features);
        }
        // SAFETY: every pointer in `create` refers to locals that outlive the call.
        let instance = unsafe { entry.create_instance(&create, None) }
            .map_err(|r| vk_error("vkCreateInstance", r))?;
        let (debug_instance, messenger) = if validate {
            let debug = ash::ext::debug_utils::Instance::new(&entry, &instance);
            let messenger_info = vk::DebugUtilsMessengerCreateInfoEXT {
                p_next: std::ptr::null(),
                ..messenger_info
            };
            // SAFETY: the instance is live; the callback's user data outlives the messenger.
            match unsafe { debug.create_debug_utils_messenger(&messenger_info, None) } {
                Ok(messenger) => (Some(debug), messenger),
                Err(result) => {
                    // SAFETY: nothing else was created from the instance yet.
                    unsafe { instance.destroy_instance(None) };
                    return Err(vk_error("vkCreateDebugUtilsMessengerEXT", result));
                }
            }
        } else {
            (None, vk::DebugUtilsMessengerEXT::null())
        };
        Context::with_device(entry, instance, debug_instance, messenger, log, debug_utils)
    }

    fn with_device(
        entry: ash::Entry,
        instance: ash::Instance,
        debug_instance: Option<ash::ext::debug_utils::Instance>,
        messenger: vk::DebugUtilsMessengerEXT,
        log: Arc<MessageLog>,
        debug_utils: bool,
    ) -> Result<Context, BackendError> {
        let cleanup = |instance: &ash::Instance| {
            // SAFETY: called only on failure, before any device exists.
            unsafe {
                if let Some(debug) = &debug_instance {
                    debug.destroy_debug_utils_messenger(messenger, None);
                }
                instance.destroy_instance(None);
            }
        };
        let picked = pick_device(&instance);
        let (physical, families, device_name) = match picked {
            Ok(picked) => picked,
            Err(error) => {
                cleanup(&instance);
                return Err(error);
            }
        };
        match create_device(&instance, physical, families) {
            Ok((device, mut features)) => {
                features.debug_utils = debug_utils;
                // SAFETY: family `graphics` was created with one queue.
                let queue = unsafe { device.get_device_queue(families.graphics, 0) };
                let compute_queue = families
                    .async_compute
                    // SAFETY: one queue of each family was created with the device.
                    .map(|family| unsafe { device.get_device_queue(family, 0) });
                let ownership = Ownership::Owned {
                    _entry: entry,
                    debug_instance,
                    messenger,
                };
                let parts = DeviceParts {
                    instance,
                    physical,
                    device,
                    families,
                    queue,
                    compute_queue,
                    features,
                    device_name,
                };
                Ok(Context::assemble(ownership, parts, log))
            }
            Err(error) => {
                cleanup(&instance);
                Err(error)
            }
        }
    }

    /// The context of a created (or borrowed) device: reads the limits the backend needs.
    pub(crate) fn assemble(
        ownership: Ownership,
        parts: DeviceParts,
        log: Arc<MessageLog>,
    ) -> Context {
        let DeviceParts {
            instance,
            physical,
            device,
            families,
            queue,
            compute_queue,
            features,
            device_name,
        } = parts;
        let debug_device = features
            .debug_utils
            .then(|| ash::ext::debug_utils::Device::new(&instance, &device));
        // SAFETY: plain queries on the physical device the device was created from.
        let (properties, family_list) = unsafe {
            (
                instance.get_physical_device_properties(physical),
                instance.get_physical_device_queue_family_properties(physical),
            )
        };
        let mut used = vec![families.graphics];
        used.extend(families.async_compute.filter(|&f| f != families.graphics));
        let valid_bits = used
            .iter()
            .map(|&f| {
                family_list
                    .get(f as usize)
                    .map_or(0, |p| p.timestamp_valid_bits)
            })
            .min()
            .unwrap_or(0);
        let timestamp_mask = match valid_bits {
            0 => 0,
            64.. => u64::MAX,
            bits => (1u64 << bits) - 1,
        };
        let concurrent_families = if used.len() > 1 { used } else { Vec::new() };
        let size_limits = size_limits(&instance, physical);
        Context {
            ownership,
            instance,
            debug_device,
            physical,
            device,
            families,
            queue,
            compute_queue,
            features,
            device_name,
            log,
            timestamp_period: properties.limits.timestamp_period,
            timestamp_mask,
            concurrent_families,
            wedged: std::cell::Cell::new(false),
            sample_counts: properties.limits.framebuffer_color_sample_counts
                & properties.limits.framebuffer_depth_sample_counts
                & properties.limits.sampled_image_color_sample_counts,
            size_limits,
        }
    }

    /// The device is the application's ([`Ownership::Borrowed`]).
    pub fn is_borrowed(&self) -> bool {
        matches!(self.ownership, Ownership::Borrowed)
    }

    /// Gives a Vulkan object a debug name (no-op without VK_EXT_debug_utils).
    pub fn name<H: Handle>(&self, handle: H, name: &str) {
        name_object(self.debug_device.as_ref(), handle, name);
    }

    /// The sample count images asking for `requested` samples get: `requested` when the device
    /// supports it, else the next larger supported count, else the largest (lavapipe, for one,
    /// has no 2x MSAA).
    pub fn sample_count(&self, requested: u32) -> vk::SampleCountFlags {
        let requested = requested.max(1).next_power_of_two();
        let supported = |count: u32| {
            self.sample_counts
                .contains(vk::SampleCountFlags::from_raw(count))
        };
        let larger = (0..7)
            .map(|shift| 1u32 << shift)
            .find(|&count| count >= requested && supported(count));
        let largest = (0..7)
            .map(|shift| 1u32 << shift)
            .filter(|&c| supported(c))
            .max();
        vk::SampleCountFlags::from_raw(larger.or(largest).unwrap_or(1))
    }

    /// Takes the validation messages collected so far.
    pub fn take_messages(&self) -> Vec<String> {
        self.log.take()
    }
}

impl Drop for Context {
    fn drop(&mut self) {
        if self.wedged.get() {
            return;
        }
        let Ownership::Owned {
            debug_instance,
            messenger,
            ..
        } = &self.ownership
        else {
            // The application's instance and device: it destroys them.
            return;
        };
        // SAFETY: the backend destroyed every child object before dropping the context.
        unsafe {
            let _ = self.device.device_wait_idle();
            self.device.destroy_device(None);
            if let Some(debug) = debug_instance {
                debug.destroy_debug_utils_messenger(*messenger, None);
            }
            self.instance.destroy_instance(None);
        }
    }
}

fn pick_device(
    instance: &ash::Instance,
) -> Result<(vk::PhysicalDevice, QueueFamilies, String), BackendError> {
    // SAFETY: plain enumeration on a live instance.
    let devices = unsafe { instance.enumerate_physical_devices() }
        .map_err(|r| vk_error("vkEnumeratePhysicalDevices", r))?;
    let mut best: Option<(u32, vk::PhysicalDevice, QueueFamilies, String)> = None;
    for physical in devices {
        // SAFETY: `physical` came from this instance.
        let properties = unsafe { instance.get_physical_device_properties(physical) };
        if properties.api_version < vk::API_VERSION_1_3 {
            continue;
        }
        // SAFETY: as above.
        let family_list = unsafe { instance.get_physical_device_queue_family_properties(physical) };
        let find = |want: vk::QueueFlags, avoid: vk::QueueFlags| {
            family_list
                .iter()
                .position(|f| f.queue_flags.contains(want) && !f.queue_flags.intersects(avoid))
                .map(|index| index as u32)
        };
        let Some(graphics) = find(
            vk::QueueFlags::GRAPHICS | vk::QueueFlags::COMPUTE,
            vk::QueueFlags::empty(),
        ) else {
            continue;
        };
        let families = QueueFamilies {
            graphics,
            async_compute: find(vk::QueueFlags::COMPUTE, vk::QueueFlags::GRAPHICS),
            transfer: find(
                vk::QueueFlags::TRANSFER,
                vk::QueueFlags::GRAPHICS | vk::QueueFlags::COMPUTE,
            ),
        };
        let score = match properties.device_type {
            vk::PhysicalDeviceType::DISCRETE_GPU => 4,
            vk::PhysicalDeviceType::INTEGRATED_GPU => 3,
            vk::PhysicalDeviceType::VIRTUAL_GPU => 2,
            _ => 1,
        };
        let name = properties
            .device_name_as_c_str()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if best.as_ref().is_none_or(|b| score > b.0) {
            best = Some((score, physical, families, name));
        }
    }
    best.map(|(_, physical, families, name)| (physical, families, name))
        .ok_or_else(|| {
            BackendError::NoDevice(
                "no Vulkan 1.3 device with a graphics and compute queue".to_string(),
            )
        })
}

/// The render-pass depth/stencil resolve support of a device (core in Vulkan 1.2): supported
/// depth modes, stencil modes, `independentResolve`, `independentResolveNone`.
/// The device's buffer and allocation size limits.
fn size_limits(instance: &ash::Instance, physical: vk::PhysicalDevice) -> SizeLimits {
    let mut maintenance3 = vk::PhysicalDeviceMaintenance3Properties::default();
    let mut maintenance4 = vk::PhysicalDeviceMaintenance4Properties::default();
    let mut query = vk::PhysicalDeviceProperties2::default()
        .push_next(&mut maintenance3)
        .push_next(&mut maintenance4);
    // SAFETY: plain query on a live physical device of a Vulkan 1.3 instance; the chained
    // structures are live locals.
    unsafe { instance.get_physical_device_properties2(physical, &mut query) };
    SizeLimits {
        max_buffer_size: maintenance4.max_buffer_size,
        max_memory_allocation_size: maintenance3.max_memory_allocation_size,
    }
}

pub(crate) fn depth_stencil_resolve_properties(
    instance: &ash::Instance,
    physical: vk::PhysicalDevice,
) -> (vk::ResolveModeFlags, vk::ResolveModeFlags, bool, bool) {
    let mut resolve = vk::PhysicalDeviceDepthStencilResolveProperties::default();
    let mut query = vk::PhysicalDeviceProperties2::default().push_next(&mut resolve);
    // SAFETY: the chain refers to a live local; `physical` came from this instance.
    unsafe { instance.get_physical_device_properties2(physical, &mut query) };
    (
        resolve.supported_depth_resolve_modes,
        resolve.supported_stencil_resolve_modes,
        resolve.independent_resolve == vk::TRUE,
        resolve.independent_resolve_none == vk::TRUE,
    )
}

fn create_device(
    instance: &ash::Instance,
    physical: vk::PhysicalDevice,
    families: QueueFamilies,
) -> Result<(ash::Device, EnabledFeatures), BackendError> {
    // SAFETY: `physical` came from this instance.
    let extensions = unsafe { instance.enumerate_device_extension_properties(physical) }
        .map_err(|r| vk_error("vkEnumerateDeviceExtensionProperties", r))?;
    let robustness2 = has_extension(&extensions, ash::ext::robustness2::NAME);
    let push_descriptor = has_extension(&extensions, ash::khr::push_descriptor::NAME);
    let stencil_export = has_extension(&extensions, ash::ext::shader_stencil_export::NAME);
    let resolve = depth_stencil_resolve_properties(instance, physical);
    // SAFETY: as above.
    let have10 = unsafe { instance.get_physical_device_features(physical) };
    let mut have12 = vk::PhysicalDeviceVulkan12Features::default();
    let mut have13 = vk::PhysicalDeviceVulkan13Features::default();
    let mut have_robust = vk::PhysicalDeviceRobustness2FeaturesEXT::default();
    {
        let mut query = vk::PhysicalDeviceFeatures2::default()
            .push_next(&mut have12)
            .push_next(&mut have13);
        if robustness2 {
            query = query.push_next(&mut have_robust);
        }
        // SAFETY: the chain refers to live locals.
        unsafe { instance.get_physical_device_features2(physical, &mut query) };
    }
    if have13.synchronization2 == vk::FALSE {
        return Err(BackendError::MissingFeature(
            "the device lacks synchronization2".into(),
        ));
    }
    if have13.dynamic_rendering == vk::FALSE {
        return Err(BackendError::MissingFeature(
            "the device lacks dynamic rendering".into(),
        ));
    }
    let features = EnabledFeatures {
        timeline_semaphore: have12.timeline_semaphore == vk::TRUE,
        robust_image_access2: robustness2 && have_robust.robust_image_access2 == vk::TRUE,
        separate_depth_stencil_layouts: have12.separate_depth_stencil_layouts == vk::TRUE,
        debug_utils: false,
        host_query_reset: have12.host_query_reset == vk::TRUE,
        push_descriptor,
        storage_write_without_format: have10.shader_storage_image_write_without_format == vk::TRUE,
        depth_resolve_modes: resolve.0,
        stencil_resolve_modes: resolve.1,
        independent_resolve: resolve.2,
        independent_resolve_none: resolve.3,
        shader_stencil_export: stencil_export,
        geometry_shader: have10.geometry_shader == vk::TRUE,
        tessellation_shader: have10.tessellation_shader == vk::TRUE,
        texture_compression_bc: have10.texture_compression_bc == vk::TRUE,
    };
    if !features.timeline_semaphore {
        return Err(BackendError::MissingFeature(
            "the device lacks timeline semaphores".into(),
        ));
    }
    let mut enable12 = vk::PhysicalDeviceVulkan12Features::default()
        .timeline_semaphore(features.timeline_semaphore)
        .host_query_reset(features.host_query_reset)
        .separate_depth_stencil_layouts(features.separate_depth_stencil_layouts);
    let mut enable13 = vk::PhysicalDeviceVulkan13Features::default()
        .synchronization2(true)
        .dynamic_rendering(true)
        .maintenance4(have13.maintenance4 == vk::TRUE);
    let mut enable_robust =
        vk::PhysicalDeviceRobustness2FeaturesEXT::default().robust_image_access2(true);
    let mut device_extensions = Vec::new();
    if features.robust_image_access2 {
        device_extensions.push(ash::ext::robustness2::NAME.as_ptr());
    }
    if push_descriptor {
        device_extensions.push(ash::khr::push_descriptor::NAME.as_ptr());
    }
    if stencil_export {
        device_extensions.push(ash::ext::shader_stencil_export::NAME.as_ptr());
    }
    // Shader nodes may write storage buffers and images from vertex and fragment shaders.
    let enable10 = vk::PhysicalDeviceFeatures::default()
        .shader_storage_image_write_without_format(features.storage_write_without_format)
        .vertex_pipeline_stores_and_atomics(have10.vertex_pipeline_stores_and_atomics == vk::TRUE)
        .fragment_stores_and_atomics(have10.fragment_stores_and_atomics == vk::TRUE)
        .geometry_shader(features.geometry_shader)
        .tessellation_shader(features.tessellation_shader)
        .texture_compression_bc(features.texture_compression_bc);
    let mut family_indices = vec![families.graphics];
    family_indices.extend(families.async_compute);
    family_indices.extend(families.transfer);
    let priorities = [1.0f32];
    let queue_infos: Vec<_> = family_indices
        .iter()
        .map(|&family| {
            vk::DeviceQueueCreateInfo::default()
                .queue_family_index(family)
                .queue_priorities(&priorities)
        })
        .collect();
    let mut create = vk::DeviceCreateInfo::default()
        .queue_create_infos(&queue_infos)
        .enabled_extension_names(&device_extensions)
        .enabled_features(&enable10)
        .push_next(&mut enable12)
        .push_next(&mut enable13);
    if features.robust_image_access2 {
        create = create.push_next(&mut enable_robust);
    }
    // SAFETY: the create info refers to live locals; the features were queried as present.
    let device = unsafe { instance.create_device(physical, &create, None) }
        .map_err(|r| vk_error("vkCreateDevice", r))?;
    Ok((device, features))
}
