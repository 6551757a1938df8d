//! The application's Vulkan objects from C: the backend on the application's instance, device
//! and queues; its images and buffers as entry arguments, with the state they are in and the
//! state to leave them in; its semaphores and fence around a frame. Handles are raw Vulkan
//! handles as `uint64_t` (`(uint64_t)(uintptr_t)device` for dispatchable ones).

use std::collections::HashSet;
use std::ffi::{c_char, c_void, CStr};
use std::sync::{LazyLock, Mutex};

use rpsl::runtime::{Format, ResourceDesc};
use rpsl::vulkan::ash::{self, vk, vk::Handle as _};
use rpsl::vulkan::{
    EngineDevice, EngineDeviceFeatures, EngineQueue, FrameSync, ImportedBuffer, ImportedImage,
    ResourceState, SemaphoreOp, VulkanBackend,
};

use crate::args::RpslTextureDesc;
use crate::handle;
use crate::status::{boundary, fail, Outcome, RpslStatus};
use crate::strings::{in_arg, optional_in_arg, optional_str_arg, out_arg, slice_arg, str_arg};
use crate::vulkan::{
    backend_failure, register_backend, vulkan_options, RpslVulkan, RpslVulkanOptions,
};

/// Any Vulkan function, as `vkGetInstanceProcAddr` returns it (`PFN_vkVoidFunction`).
pub type RpslVoidFunction = Option<unsafe extern "C" fn()>;

/// `PFN_vkGetInstanceProcAddr` (cast the loader's `vkGetInstanceProcAddr` to it).
pub type RpslGetInstanceProcAddr =
    Option<unsafe extern "C" fn(instance: *mut c_void, name: *const c_char) -> RpslVoidFunction>;

/// The application's device for [`rpsl_vulkan_create_on_device`]. rpsl never destroys these
/// objects; destroy the backend before the device.
#[repr(C)]
#[derive(Copy, Clone, Debug)]
pub struct RpslEngineDevice {
    /// The `vkGetInstanceProcAddr` of the Vulkan loader the application uses.
    pub get_instance_proc_addr: RpslGetInstanceProcAddr,
    /// `VkInstance` (Vulkan 1.3).
    pub instance: u64,
    /// `VkPhysicalDevice` the device was created on.
    pub physical_device: u64,
    /// `VkDevice`.
    pub device: u64,
    /// The family of a queue with graphics and compute: rpsl submits its frames there.
    pub graphics_queue_family: u32,
    /// That queue's index in its family.
    pub graphics_queue_index: u32,
    /// The family of a compute queue for async compute, or `UINT32_MAX` for none.
    pub compute_queue_family: u32,
    /// That queue's index in its family.
    pub compute_queue_index: u32,
    /// What the device was created with: the `VkPhysicalDeviceFeatures2` (or any feature
    /// structure) whose `pNext` chain holds the `VkPhysicalDeviceVulkan12Features` and
    /// `VkPhysicalDeviceVulkan13Features` (and `VkPhysicalDeviceRobustness2FeaturesEXT`) passed
    /// to `vkCreateDevice`. rpsl needs `timelineSemaphore`, `synchronization2` and
    /// `dynamicRendering`.
    pub enabled_features: *const c_void,
    /// The device extensions enabled: `enabled_extension_count` NUL-terminated names.
    pub enabled_extensions: *const *const c_char,
    /// How many `enabled_extensions` there are.
    pub enabled_extension_count: usize,
    /// The instance has VK_EXT_debug_utils: rpsl names its own objects.
    pub debug_utils: bool,
}

/// The state of an application image or buffer (`VkImageLayout`, `VkPipelineStageFlags2`,
/// `VkAccessFlags2` of its last or next use, owning queue family or `VK_QUEUE_FAMILY_IGNORED`).
#[repr(C)]
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct RpslResourceState {
    /// `VkImageLayout` (0, `UNDEFINED`, for buffers).
    pub layout: u32,
    /// `VkPipelineStageFlags2`.
    pub stages: u64,
    /// `VkAccessFlags2`.
    pub accesses: u64,
    /// The owning queue family, or `VK_QUEUE_FAMILY_IGNORED` (`~0u`) for no transfer.
    pub queue_family: u32,
}

impl RpslResourceState {
    fn to_rust(self) -> ResourceState {
        ResourceState {
            layout: vk::ImageLayout::from_raw(self.layout as i32),
            stages: vk::PipelineStageFlags2::from_raw(self.stages),
            accesses: vk::AccessFlags2::from_raw(self.accesses),
            queue_family: self.queue_family,
        }
    }

    fn from_rust(state: ResourceState) -> RpslResourceState {
        RpslResourceState {
            layout: state.layout.as_raw() as u32,
            stages: state.stages.as_raw(),
            accesses: state.accesses.as_raw(),
            queue_family: state.queue_family,
        }
    }
}

/// An application image passed as a `texture` entry argument.
#[repr(C)]
#[derive(Copy, Clone, Debug)]
pub struct RpslImportedImage {
    /// `VkImage`.
    pub image: u64,
    /// Its description: it must equal the one the frame gives the parameter (set the
    /// session's argument to the same with `rpsl_session_set_arg_texture`).
    pub desc: RpslTextureDesc,
    /// The `VkImageUsageFlags` it was created with.
    pub usage: u32,
    /// The state it is in when the frame starts.
    pub state: RpslResourceState,
    /// Leave it in `final_state` after the frame instead of the parameter's resting state.
    pub has_final_state: bool,
    /// See `has_final_state`.
    pub final_state: RpslResourceState,
    /// A debug name rpsl gives it, or null.
    pub debug_name: *const c_char,
}

/// An application buffer passed as a `buffer` entry argument.
#[repr(C)]
#[derive(Copy, Clone, Debug)]
pub struct RpslImportedBuffer {
    /// `VkBuffer`.
    pub buffer: u64,
    /// Its size in bytes: it must equal the one the frame gives the parameter.
    pub size: u64,
    /// The state it is in when the frame starts (`layout` 0).
    pub state: RpslResourceState,
    /// Leave it in `final_state` after the frame instead of the parameter's resting state.
    pub has_final_state: bool,
    /// See `has_final_state`.
    pub final_state: RpslResourceState,
    /// A debug name rpsl gives it, or null.
    pub debug_name: *const c_char,
}

/// One semaphore operation: a binary semaphore (`value` 0) or a timeline semaphore at
/// `value`, with the stages a wait blocks or a signal follows.
#[repr(C)]
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct RpslSemaphoreOp {
    /// `VkSemaphore`.
    pub semaphore: u64,
    /// The timeline value (0 for a binary semaphore).
    pub value: u64,
    /// `VkPipelineStageFlags2`.
    pub stages: u64,
}

/// Extension names live as long as the process: each distinct name is kept once.
fn interned(name: &CStr) -> &'static CStr {
    static NAMES: LazyLock<Mutex<HashSet<&'static CStr>>> = LazyLock::new(Default::default);
    let mut names = NAMES
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(&known) = names.get(name) {
        return known;
    }
    let leaked: &'static CStr = Box::leak(name.to_owned().into_boxed_c_str());
    names.insert(leaked);
    leaked
}

/// The feature structures of a `pNext` chain (at most 64 links, so a cyclic chain ends).
///
/// # Safety
/// `chain` is null or a valid Vulkan structure chain.
unsafe fn enabled_features(chain: *const c_void) -> EngineDeviceFeatures {
    let mut features = EngineDeviceFeatures::default();
    let mut next = chain.cast::<vk::BaseInStructure<'static>>();
    for _ in 0..64 {
        // SAFETY: the caller's contract: every link is a valid structure with its `sType`.
        let Some(link) = (unsafe { next.as_ref() }) else {
            break;
        };
        match link.s_type {
            vk::StructureType::PHYSICAL_DEVICE_FEATURES_2 => {
                // SAFETY: `sType` says the link is this structure (the caller vouches for the chain).
                let full = unsafe { *next.cast::<vk::PhysicalDeviceFeatures2<'static>>() };
                features.core = full.features;
            }
            vk::StructureType::PHYSICAL_DEVICE_VULKAN_1_2_FEATURES => {
                // SAFETY: `sType` says the link is this structure (the caller vouches for the chain).
                let mut copy =
                    unsafe { *next.cast::<vk::PhysicalDeviceVulkan12Features<'static>>() };
                copy.p_next = std::ptr::null_mut();
                features.vulkan12 = copy;
            }
            vk::StructureType::PHYSICAL_DEVICE_VULKAN_1_3_FEATURES => {
                // SAFETY: `sType` says the link is this structure (the caller vouches for the chain).
                let mut copy =
                    unsafe { *next.cast::<vk::PhysicalDeviceVulkan13Features<'static>>() };
                copy.p_next = std::ptr::null_mut();
                features.vulkan13 = copy;
            }
            vk::StructureType::PHYSICAL_DEVICE_ROBUSTNESS_2_FEATURES_EXT => {
                // SAFETY: `sType` says the link is this structure (the caller vouches for the chain).
                let robustness =
                    unsafe { *next.cast::<vk::PhysicalDeviceRobustness2FeaturesEXT<'static>>() };
                features.robust_image_access2 = robustness.robust_image_access2 != 0;
            }
            _ => {}
        }
        next = link.p_next;
    }
    features
}

/// Creates the Vulkan backend on the application's instance, device and queues. rpsl checks
/// the features it needs (`RPSL_STATUS_BACKEND` naming each missing one), creates its own
/// allocator, pools, semaphores and fences there, and never destroys the application's
/// objects. Validation is the application's (`options->validate` does not apply).
///
/// # Safety
/// `device` points to a valid description whose handles are live objects of the loader behind
/// `get_instance_proc_addr` and whose feature chain and extension names are valid; `options` is
/// null or valid for a read; `out` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn rpsl_vulkan_create_on_device(
    device: *const RpslEngineDevice,
    options: *const RpslVulkanOptions,
    out: *mut *mut RpslVulkan,
) -> RpslStatus {
    boundary(|| {
        // SAFETY: the caller's contract.
        let out = unsafe { out_arg(out, "out") }?;
        *out = std::ptr::null_mut();
        // SAFETY: the caller's contract.
        let description = *unsafe { in_arg(device, "device") }?;
        // SAFETY: the caller's contract.
        let options = vulkan_options(unsafe { optional_in_arg(options) })?;
        let Some(get_instance_proc_addr) = description.get_instance_proc_addr else {
            return fail(
                RpslStatus::NullPointer,
                "`device->get_instance_proc_addr` is null",
            );
        };
        for (value, what) in [
            (description.instance, "instance"),
            (description.physical_device, "physical_device"),
            (description.device, "device"),
        ] {
            if value == 0 {
                return fail(RpslStatus::NullPointer, format!("`device->{what}` is null"));
            }
        }
        // SAFETY: the same function type: `VkInstance` is a pointer, `PFN_vkVoidFunction` an
        // optional function pointer, and the "system" ABI is the C ABI on the platforms rpsl
        // builds for.
        let get_instance_proc_addr: vk::PFN_vkGetInstanceProcAddr =
            unsafe { std::mem::transmute(get_instance_proc_addr) };
        let static_fn = ash::StaticFn {
            get_instance_proc_addr,
        };
        // SAFETY: live handles of that loader, by the caller's contract.
        let instance = unsafe {
            ash::Instance::load(&static_fn, vk::Instance::from_raw(description.instance))
        };
        // SAFETY: as above.
        let logical = unsafe {
            ash::Device::load(instance.fp_v1_0(), vk::Device::from_raw(description.device))
        };
        // SAFETY: the caller's contract.
        let names = unsafe {
            slice_arg(
                description.enabled_extensions,
                description.enabled_extension_count,
                "device->enabled_extensions",
            )
        }?;
        let mut extensions = Vec::with_capacity(names.len());
        for (index, &name) in names.iter().enumerate() {
            if name.is_null() {
                return fail(
                    RpslStatus::NullPointer,
                    format!("`device->enabled_extensions[{index}]` is null"),
                );
            }
            // SAFETY: a NUL-terminated name by the caller's contract.
            extensions.push(interned(unsafe { CStr::from_ptr(name) }));
        }
        // SAFETY: a valid feature chain by the caller's contract.
        let mut enabled = unsafe { enabled_features(description.enabled_features) };
        enabled.extensions = extensions;
        let engine = EngineDevice {
            instance,
            physical_device: vk::PhysicalDevice::from_raw(description.physical_device),
            device: logical,
            graphics_queue: EngineQueue {
                family: description.graphics_queue_family,
                index: description.graphics_queue_index,
            },
            compute_queue: (description.compute_queue_family != u32::MAX).then_some(EngineQueue {
                family: description.compute_queue_family,
                index: description.compute_queue_index,
            }),
            enabled,
            debug_utils: description.debug_utils,
        };
        let backend = VulkanBackend::on_device(engine, options).map_err(backend_failure)?;
        *out = register_backend(backend);
        Ok(())
    })
}

/// A debug name from C, or none.
///
/// # Safety
/// `name` is null or a NUL-terminated string.
unsafe fn debug_name(name: *const c_char) -> Outcome<Option<String>> {
    // SAFETY: the caller's contract.
    Ok(unsafe { optional_str_arg(name, "debug_name") }?.map(str::to_string))
}

/// Passes an application image as `texture` entry parameter `parameter` of the following
/// frames (import again with each frame's image, as with a swapchain). The frame moves it from
/// `image->state` to the parameter's resting state (its access attribute) and leaves it there or
/// in `image->final_state`.
///
/// # Safety
/// `parameter` is a NUL-terminated string; `image` is valid for a read, its image a live
/// `VkImage` of the backend's device.
#[no_mangle]
pub unsafe extern "C" fn rpsl_vulkan_import_image(
    vulkan: *mut RpslVulkan,
    parameter: *const c_char,
    image: *const RpslImportedImage,
) -> RpslStatus {
    boundary(|| {
        // SAFETY: the caller's contract.
        let parameter = unsafe { str_arg(parameter, "parameter") }?;
        // SAFETY: the caller's contract.
        let image = *unsafe { in_arg(image, "image") }?;
        // SAFETY: the caller's contract.
        let name = unsafe { debug_name(image.debug_name) }?;
        if Format(image.desc.format).name().is_none() {
            return fail(
                RpslStatus::InvalidArgument,
                format!(
                    "`image->desc.format` is {}, not an RPS_FORMAT",
                    image.desc.format
                ),
            );
        }
        let imported = ImportedImage {
            image: vk::Image::from_raw(image.image),
            desc: ResourceDesc::tex2d(
                Format(image.desc.format),
                image.desc.width,
                image.desc.height,
            ),
            usage: vk::ImageUsageFlags::from_raw(image.usage),
            state: image.state.to_rust(),
            final_state: image.has_final_state.then(|| image.final_state.to_rust()),
            debug_name: name,
        };
        handle::with(vulkan, "vulkan", |backend| {
            backend
                .import_image(parameter, imported)
                .map_err(backend_failure)
        })
    })
}

/// Passes an application buffer as `buffer` entry parameter `parameter` (see
/// [`rpsl_vulkan_import_image`]).
///
/// # Safety
/// `parameter` is a NUL-terminated string; `buffer` is valid for a read, its buffer a live
/// `VkBuffer` of the backend's device.
#[no_mangle]
pub unsafe extern "C" fn rpsl_vulkan_import_buffer(
    vulkan: *mut RpslVulkan,
    parameter: *const c_char,
    buffer: *const RpslImportedBuffer,
) -> RpslStatus {
    boundary(|| {
        // SAFETY: the caller's contract.
        let parameter = unsafe { str_arg(parameter, "parameter") }?;
        // SAFETY: the caller's contract.
        let buffer = *unsafe { in_arg(buffer, "buffer") }?;
        // SAFETY: the caller's contract.
        let name = unsafe { debug_name(buffer.debug_name) }?;
        let imported = ImportedBuffer {
            buffer: vk::Buffer::from_raw(buffer.buffer),
            desc: ResourceDesc::buffer(buffer.size),
            state: buffer.state.to_rust(),
            final_state: buffer.has_final_state.then(|| buffer.final_state.to_rust()),
            debug_name: name,
        };
        handle::with(vulkan, "vulkan", |backend| {
            backend
                .import_buffer(parameter, imported)
                .map_err(backend_failure)
        })
    })
}

/// The state the last frame left the resource imported as `parameter` in.
/// `RPSL_STATUS_NOT_FOUND` when nothing is imported under that name.
///
/// # Safety
/// `parameter` is a NUL-terminated string; `state` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn rpsl_vulkan_imported_state(
    vulkan: *const RpslVulkan,
    parameter: *const c_char,
    state: *mut RpslResourceState,
) -> RpslStatus {
    boundary(|| {
        // SAFETY: the caller's contract.
        let state = unsafe { out_arg(state, "state") }?;
        // SAFETY: the caller's contract.
        let parameter = unsafe { str_arg(parameter, "parameter") }?;
        handle::with(vulkan, "vulkan", |backend| {
            match backend.imported_state(parameter) {
                Some(found) => {
                    *state = RpslResourceState::from_rust(found);
                    Ok(())
                }
                None => fail(
                    RpslStatus::NotFound,
                    format!("nothing is imported as `{parameter}`"),
                ),
            }
        })
    })
}

/// Forgets an application image before the application destroys (or recreates) it: waits for
/// the frames in flight, destroys the views rpsl made of it, removes the imports naming it.
#[no_mangle]
pub extern "C" fn rpsl_vulkan_release_image(vulkan: *mut RpslVulkan, image: u64) -> RpslStatus {
    boundary(|| {
        handle::with(vulkan, "vulkan", |backend| {
            backend
                .release_image(vk::Image::from_raw(image))
                .map_err(backend_failure)
        })
    })
}

/// [`rpsl_vulkan_release_image`] for a buffer.
#[no_mangle]
pub extern "C" fn rpsl_vulkan_release_buffer(vulkan: *mut RpslVulkan, buffer: u64) -> RpslStatus {
    boundary(|| {
        handle::with(vulkan, "vulkan", |backend| {
            backend
                .release_buffer(vk::Buffer::from_raw(buffer))
                .map_err(backend_failure)
        })
    })
}

/// Sets the application's semaphores and fence of the next executed frame only: its first
/// work waits for `waits`, its last submission signals `signals`, and `fence` (0: none)
/// signals once all of its work completed.
///
/// # Safety
/// `waits` and `signals` are valid for their counts of reads (null when 0); the handles are
/// live objects of the backend's device.
#[no_mangle]
pub unsafe extern "C" fn rpsl_vulkan_set_frame_sync(
    vulkan: *mut RpslVulkan,
    waits: *const RpslSemaphoreOp,
    wait_count: usize,
    signals: *const RpslSemaphoreOp,
    signal_count: usize,
    fence: u64,
) -> RpslStatus {
    boundary(|| {
        let convert = |ops: &[RpslSemaphoreOp]| -> Vec<SemaphoreOp> {
            ops.iter()
                .map(|op| SemaphoreOp {
                    semaphore: vk::Semaphore::from_raw(op.semaphore),
                    value: op.value,
                    stages: vk::PipelineStageFlags2::from_raw(op.stages),
                })
                .collect()
        };
        // SAFETY: the caller's contract.
        let waits = convert(unsafe { slice_arg(waits, wait_count, "waits") }?);
        // SAFETY: the caller's contract.
        let signals = convert(unsafe { slice_arg(signals, signal_count, "signals") }?);
        handle::with(vulkan, "vulkan", |backend| {
            backend.set_frame_sync(FrameSync {
                waits,
                signals,
                fence: vk::Fence::from_raw(fence),
            });
            Ok(())
        })
    })
}

/// Gives rpsl a command buffer of `queue_family`, allocated from a pool of that family, in the
/// initial state (rpsl begins and ends it). Returning 0 stops the recording: the call fails with
/// `RPSL_STATUS_CALLBACK`, and the backend should then be destroyed.
pub type RpslCommandBufferFn =
    Option<unsafe extern "C" fn(queue_family: u32, user_data: *mut c_void) -> u64>;

/// One recorded batch for the application to submit, in order: its command buffer, waiting for
/// every `waits` entry and signalling every `signals` entry (timeline values included). The
/// arrays live during the [`RpslBatchFn`] call.
#[repr(C)]
#[derive(Copy, Clone, Debug)]
pub struct RpslBatch {
    /// The batch's position in the frame's submission order.
    pub index: u32,
    /// How many batches the frame has (attach your fence to the last).
    pub count: u32,
    /// The queue family of the command buffer.
    pub queue_family: u32,
    /// The `VkQueue` rpsl would have submitted to (one the application lent it).
    pub queue: u64,
    /// The recorded `VkCommandBuffer`, one the application gave.
    pub command_buffer: u64,
    /// Semaphores to wait for.
    pub waits: *const RpslSemaphoreOp,
    /// How many `waits`.
    pub wait_count: usize,
    /// Semaphores to signal.
    pub signals: *const RpslSemaphoreOp,
    /// How many `signals`.
    pub signal_count: usize,
}

/// Receives a recorded batch (submit it, or keep it for later). Return 0 to go on; anything
/// else stops handing out batches (`RPSL_STATUS_CALLBACK`).
pub type RpslBatchFn =
    Option<unsafe extern "C" fn(batch: *const RpslBatch, user_data: *mut c_void) -> i32>;

fn c_ops(ops: &[SemaphoreOp]) -> Vec<RpslSemaphoreOp> {
    ops.iter()
        .map(|op| RpslSemaphoreOp {
            semaphore: op.semaphore.as_raw(),
            value: op.value,
            stages: op.stages.as_raw(),
        })
        .collect()
}

/// Records the session's last frame into command buffers the application gives
/// (`command_buffer`) instead of submitting it, then hands the batches to `batch`, in
/// submission order, for the application to submit (see "Submitting the frame yourself" in
/// docs/embedding.md). The frame's sync from [`rpsl_vulkan_set_frame_sync`] goes on the first
/// and last batches; its fence must be 0 (attach yours to the last submission). Submit every
/// batch before the frame's slot is reused (`frames_in_flight` frames later), before
/// `rpsl_vulkan_wait_idle` and before destroying the backend.
///
/// # Safety
/// `command_buffer` and `batch` may be called with `user_data`; the command buffers they give
/// are valid ones of the backend's device.
#[no_mangle]
pub unsafe extern "C" fn rpsl_vulkan_record_frame(
    vulkan: *mut RpslVulkan,
    session: *const crate::session::RpslSession,
    command_buffer: RpslCommandBufferFn,
    batch: RpslBatchFn,
    user_data: *mut c_void,
) -> RpslStatus {
    boundary(|| {
        let Some(command_buffer) = command_buffer else {
            return fail(RpslStatus::NullPointer, "`command_buffer` is null");
        };
        let Some(batch) = batch else {
            return fail(RpslStatus::NullPointer, "`batch` is null");
        };
        let batches = handle::with(session, "session", |object| {
            let (graph, compiled) = object.last_frame()?;
            handle::with(vulkan, "vulkan", |backend| {
                let mut source = |family: u32| {
                    // SAFETY: the caller vouched for `command_buffer` with `user_data`.
                    let raw = unsafe { command_buffer(family, user_data) };
                    if raw == 0 {
                        std::panic::resume_unwind(Box::new(crate::status::CallbackAbort(format!(
                            "the command buffer callback gave none for queue family {family}"
                        ))));
                    }
                    vk::CommandBuffer::from_raw(raw)
                };
                backend
                    .record_frame(graph, compiled, &mut source)
                    .map_err(backend_failure)
            })
        })?;
        let count = batches.len() as u32;
        for (index, recorded) in batches.iter().enumerate() {
            let waits = c_ops(&recorded.waits);
            let signals = c_ops(&recorded.signals);
            let view = RpslBatch {
                index: index as u32,
                count,
                queue_family: recorded.queue_family,
                queue: recorded.queue.as_raw(),
                command_buffer: recorded.command_buffer.as_raw(),
                waits: waits.as_ptr(),
                wait_count: waits.len(),
                signals: signals.as_ptr(),
                signal_count: signals.len(),
            };
            // SAFETY: the caller vouched for `batch` with `user_data`; `view` and its arrays
            // live during the call.
            let code = unsafe { batch(&view, user_data) };
            if code != 0 {
                return fail(
                    RpslStatus::Callback,
                    format!("the batch callback returned {code} for batch {index} of {count}"),
                );
            }
        }
        Ok(())
    })
}
