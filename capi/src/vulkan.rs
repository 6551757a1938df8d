//! The Vulkan backend from C: a backend on its own device, node callbacks bound by name, frames
//! executed, and named resources read back (raw bytes, RGBA8 pixels, PNG files).

use std::ffi::{c_char, c_void, CString};
use std::time::Duration;

use rpsl::runtime::{Backend, BackendError};
use rpsl::vulkan::shader_node::{bind_shader_nodes, ShaderNodeOptions};
use rpsl::vulkan::{VulkanBackend, VulkanOptions};

use crate::program::RpslProgram;

use crate::handle::{self, Guarded, Handle};
use crate::node::{run_callback, RpslNodeCallback, UserData};
use crate::session::RpslSession;
use crate::status::{boundary, fail, Failure, Outcome, RpslStatus};
use crate::strings::{copy_out, optional_in_arg, out_arg, str_arg};

/// The Vulkan backend (opaque), on its own instance and device. Made by
/// [`rpsl_vulkan_create`], freed by [`rpsl_vulkan_destroy`] (which waits for the device).
pub struct RpslVulkan {
    guarded: Guarded<VulkanBackend>,
}

impl Handle for RpslVulkan {
    type Inner = VulkanBackend;
    const TYPE_NAME: &'static str = "RpslVulkan";
    fn guarded(&self) -> &Guarded<VulkanBackend> {
        &self.guarded
    }
}

/// Options of the Vulkan backend. Fill with [`rpsl_vulkan_options_default`], then change what
/// you need.
#[repr(C)]
#[derive(Copy, Clone, Debug)]
pub struct RpslVulkanOptions {
    /// VK_LAYER_KHRONOS_validation with synchronization validation: every message fails the
    /// frame.
    pub validate: bool,
    /// Nodes without an implementation run as empty passes instead of failing.
    pub allow_unbound: bool,
    /// Frames recorded ahead of the GPU (1 to 4).
    pub frames_in_flight: u32,
    /// The longest wait for a frame, in milliseconds.
    pub fence_timeout_ms: u64,
}

/// The status of a backend error.
pub(crate) fn backend_failure(error: BackendError) -> Failure {
    let status = match &error {
        BackendError::Node { .. } => RpslStatus::Callback,
        _ => RpslStatus::Backend,
    };
    Failure::new(status, format!("vulkan: {error}"))
}

/// The Rust options of C options (null: the defaults).
pub(crate) fn vulkan_options(options: Option<&RpslVulkanOptions>) -> Outcome<VulkanOptions> {
    let mut rust = VulkanOptions::default();
    if let Some(options) = options {
        if !(1..=4).contains(&options.frames_in_flight) {
            return fail(
                RpslStatus::InvalidArgument,
                format!(
                    "`options->frames_in_flight` is {}; it must be 1 to 4",
                    options.frames_in_flight
                ),
            );
        }
        rust.validate = options.validate;
        rust.allow_unbound = options.allow_unbound;
        rust.frames_in_flight = options.frames_in_flight;
        rust.fence_timeout = Duration::from_millis(options.fence_timeout_ms);
    }
    Ok(rust)
}

/// Hands a backend to C.
pub(crate) fn register_backend(backend: VulkanBackend) -> *mut RpslVulkan {
    handle::register(RpslVulkan {
        guarded: Guarded::new(backend),
    })
}

/// Fills `options` with the defaults (no validation, 1 frame in flight, 20 s timeout).
///
/// # Safety
/// `options` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn rpsl_vulkan_options_default(
    options: *mut RpslVulkanOptions,
) -> RpslStatus {
    boundary(|| {
        // SAFETY: the caller's contract.
        let options = unsafe { out_arg(options, "options") }?;
        let defaults = VulkanOptions::default();
        *options = RpslVulkanOptions {
            validate: defaults.validate,
            allow_unbound: defaults.allow_unbound,
            frames_in_flight: defaults.frames_in_flight,
            fence_timeout_ms: defaults.fence_timeout.as_millis() as u64,
        };
        Ok(())
    })
}

/// Creates the Vulkan backend: instance, device, allocator and command objects (`options` may
/// be null for the defaults). `RPSL_STATUS_BACKEND` when there is no usable device or the validation
/// layer is asked for and missing.
///
/// # Safety
/// `options` is null or valid for a read; `out` is valid for a write (the new handle, or null).
#[no_mangle]
pub unsafe extern "C" fn rpsl_vulkan_create(
    options: *const RpslVulkanOptions,
    out: *mut *mut RpslVulkan,
) -> RpslStatus {
    boundary(|| {
        // SAFETY: the caller's contract.
        let out = unsafe { out_arg(out, "out") }?;
        *out = std::ptr::null_mut();
        // SAFETY: the caller's contract.
        let rust = vulkan_options(unsafe { optional_in_arg(options) })?;
        let backend = VulkanBackend::new(rust).map_err(backend_failure)?;
        *out = register_backend(backend);
        Ok(())
    })
}

/// Destroys the backend (null: nothing happens), after waiting for its frames.
///
/// # Safety
/// `vulkan` is null or a handle from rpsl (stale and foreign pointers are reported).
#[no_mangle]
pub unsafe extern "C" fn rpsl_vulkan_destroy(vulkan: *mut RpslVulkan) -> RpslStatus {
    boundary(|| handle::destroy(vulkan, "vulkan"))
}

/// The device's name, copied into `buffer` with its NUL (`*needed` gets the bytes it takes; a
/// null `buffer` only asks for that).
///
/// # Safety
/// `buffer` is null or valid for `capacity` writes; `needed` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn rpsl_vulkan_device_name(
    vulkan: *const RpslVulkan,
    buffer: *mut c_char,
    capacity: usize,
    needed: *mut usize,
) -> RpslStatus {
    boundary(|| {
        handle::with(vulkan, "vulkan", |backend| {
            let name = backend.device_name().as_bytes();
            // SAFETY: the caller's contract.
            unsafe { copy_out(name, true, buffer.cast(), capacity, needed) }
        })
    })
}

/// Binds `callback` (with `user_data` handed back to it) to the nodes declared `name`,
/// replacing an earlier binding. It is called while each such node's commands are recorded.
///
/// # Safety
/// `name` is a NUL-terminated string; `callback` may be called with `user_data` on the thread
/// that executes frames, for as long as the binding lasts (until rebound or the backend is
/// destroyed).
#[no_mangle]
pub unsafe extern "C" fn rpsl_vulkan_bind_node(
    vulkan: *mut RpslVulkan,
    name: *const c_char,
    callback: RpslNodeCallback,
    user_data: *mut c_void,
) -> RpslStatus {
    boundary(|| {
        // SAFETY: the caller's contract.
        let name = unsafe { str_arg(name, "name") }?;
        let Some(callback) = callback else {
            return fail(RpslStatus::NullPointer, "`callback` is null");
        };
        let c_name = CString::new(name).unwrap_or_default();
        let user_data = UserData(user_data);
        handle::with(vulkan, "vulkan", |backend| {
            backend.bind_node(name, move |context| {
                // SAFETY: the binder vouched for `callback` with `user_data`.
                unsafe { run_callback(context, callback, &user_data, &c_name) }
            });
            Ok(())
        })
    })
}

/// Binds the shader-bound nodes of `program`: each node the script declares (not rpsl.h's
/// built-ins) with shaders named after it in `shader_dir` (`Foo.comp`, `Foo.frag`,
/// `Foo.vert` + `Foo.frag`, their `.hlsl` forms: docs/shaders.md) runs them, with descriptors
/// and push constants from its parameters. `bound` (may be null) gets how many were bound.
/// Shaders compile in this process when a frame first needs them (cached on disk); a compile
/// error fails that frame with `RPSL_STATUS_CALLBACK` naming the file and line.
///
/// # Safety
/// `shader_dir` is a NUL-terminated string; `bound` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn rpsl_vulkan_bind_shader_nodes(
    vulkan: *mut RpslVulkan,
    program: *const RpslProgram,
    shader_dir: *const c_char,
    bound: *mut u32,
) -> RpslStatus {
    boundary(|| {
        // SAFETY: the caller's contract.
        let shader_dir = unsafe { str_arg(shader_dir, "shader_dir") }?;
        let names: Vec<String> = handle::with(program, "program", |object| {
            Ok(object
                .program
                .node_declarations()
                .iter()
                .filter(|decl| decl.builtin.is_none())
                .map(|decl| decl.name.clone())
                .collect())
        })?;
        handle::with(vulkan, "vulkan", |backend| {
            let options = ShaderNodeOptions::new(shader_dir);
            let names = bind_shader_nodes(backend, options, names);
            // SAFETY: the caller's contract.
            if let Some(bound) = unsafe { bound.as_mut() } {
                *bound = names.len() as u32;
            }
            Ok(())
        })
    })
}

/// Executes the session's last frame (from [`rpsl_session_run_frame`](crate::session::rpsl_session_run_frame))
/// on the GPU: resources, barriers, node callbacks, submission. With one frame in flight it
/// returns when the GPU is done. `RPSL_STATUS_CALLBACK` when a node callback failed, `RPSL_STATUS_BACKEND`
/// for other failures (validation messages included).
#[no_mangle]
pub extern "C" fn rpsl_vulkan_execute(
    vulkan: *mut RpslVulkan,
    session: *const RpslSession,
) -> RpslStatus {
    boundary(|| {
        handle::with(session, "session", |object| {
            let (graph, compiled) = object.last_frame()?;
            handle::with(vulkan, "vulkan", |backend| {
                backend
                    .execute_frame(graph, compiled)
                    .map_err(backend_failure)
            })
        })
    })
}

/// Waits until the GPU has finished every frame.
#[no_mangle]
pub extern "C" fn rpsl_vulkan_wait_idle(vulkan: *mut RpslVulkan) -> RpslStatus {
    boundary(|| {
        handle::with(vulkan, "vulkan", |backend| {
            backend.wait_idle().map_err(backend_failure)
        })
    })
}

/// Mip 0 / layer 0 of an external (entry parameter or kept) texture `name` as RGBA8 pixels
/// (RGBA8, BGRA8 and RGBA32F formats), rows top to bottom, tightly packed. `width` and `height`
/// (may be null) get its size; `*needed` (may be null) the bytes the pixels take; `pixels` (room
/// for `capacity` bytes) gets them unless it is null (a size query) or too small.
///
/// # Safety
/// `name` is a NUL-terminated string; `width`, `height`, `needed` are null or valid for a write;
/// `pixels` is null or valid for `capacity` writes.
#[no_mangle]
pub unsafe extern "C" fn rpsl_vulkan_read_rgba8(
    vulkan: *mut RpslVulkan,
    name: *const c_char,
    width: *mut u32,
    height: *mut u32,
    pixels: *mut u8,
    capacity: usize,
    needed: *mut usize,
) -> RpslStatus {
    boundary(|| {
        // SAFETY: the caller's contract.
        let name = unsafe { str_arg(name, "name") }?;
        handle::with(vulkan, "vulkan", |backend| {
            let (w, h, bytes) = backend.read_rgba8(name).map_err(readback_failure)?;
            // SAFETY: the caller's contract.
            unsafe {
                if let Some(width) = width.as_mut() {
                    *width = w;
                }
                if let Some(height) = height.as_mut() {
                    *height = h;
                }
                copy_out(&bytes, false, pixels, capacity, needed)
            }
        })
    })
}

/// The raw bytes of an external resource `name`: a whole buffer, or mip 0 / layer 0 of a
/// texture (tightly packed rows). The sizes protocol of [`rpsl_vulkan_read_rgba8`].
///
/// # Safety
/// `name` is a NUL-terminated string; `needed` is null or valid for a write; `bytes` is null or
/// valid for `capacity` writes.
#[no_mangle]
pub unsafe extern "C" fn rpsl_vulkan_read_resource(
    vulkan: *mut RpslVulkan,
    name: *const c_char,
    bytes: *mut u8,
    capacity: usize,
    needed: *mut usize,
) -> RpslStatus {
    boundary(|| {
        // SAFETY: the caller's contract.
        let name = unsafe { str_arg(name, "name") }?;
        handle::with(vulkan, "vulkan", |backend| {
            let data = backend.read_external(name).map_err(readback_failure)?;
            // SAFETY: the caller's contract.
            unsafe { copy_out(&data, false, bytes, capacity, needed) }
        })
    })
}

/// Writes external texture `name` (as [`rpsl_vulkan_read_rgba8`] reads it) to a PNG file at
/// `path`.
///
/// # Safety
/// `name` and `path` are NUL-terminated strings.
#[no_mangle]
pub unsafe extern "C" fn rpsl_vulkan_write_png(
    vulkan: *mut RpslVulkan,
    name: *const c_char,
    path: *const c_char,
) -> RpslStatus {
    boundary(|| {
        // SAFETY: the caller's contract.
        let name = unsafe { str_arg(name, "name") }?;
        // SAFETY: the caller's contract.
        let path = unsafe { str_arg(path, "path") }?;
        handle::with(vulkan, "vulkan", |backend| {
            let (w, h, bytes) = backend.read_rgba8(name).map_err(readback_failure)?;
            rpsl::vulkan::write_png(std::path::Path::new(path), w, h, &bytes)
                .map_err(|error| Failure::new(RpslStatus::Io, format!("{path}: {error}")))
        })
    })
}

/// A readback error: an unknown name is `RPSL_STATUS_NOT_FOUND`.
fn readback_failure(error: BackendError) -> Failure {
    match &error {
        BackendError::Api(message) if message.starts_with("no external resource named") => {
            Failure::new(RpslStatus::NotFound, message.clone())
        }
        _ => backend_failure(error),
    }
}
