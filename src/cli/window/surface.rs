//! The window's Vulkan surface: the instance extensions a platform's surfaces need, and the
//! surface of a winit window (X11 through Xlib or XCB; winit is built for X11 only, so Wayland
//! desktops run the window through XWayland).

use std::ffi::CStr;

use rpsl_vulkan::ash::{self, vk};
use winit::raw_window_handle::{RawDisplayHandle, RawWindowHandle};

/// The instance extensions surfaces of `display` need, or why there are none.
pub fn surface_extensions(display: RawDisplayHandle) -> Result<Vec<&'static CStr>, String> {
    let platform = match display {
        RawDisplayHandle::Xlib(_) => ash::khr::xlib_surface::NAME,
        RawDisplayHandle::Xcb(_) => ash::khr::xcb_surface::NAME,
        other => {
            return Err(format!(
                "windows of this display ({other:?}) are not supported"
            ))
        }
    };
    Ok(vec![ash::khr::surface::NAME, platform])
}

/// Creates the surface of a window.
///
/// # Safety
/// `display` and `window` are the handles of a live window (and its display connection) that
/// outlives the surface; the surface is destroyed before `instance`, which has the
/// extensions of [`surface_extensions`].
pub unsafe fn create_surface(
    entry: &ash::Entry,
    instance: &ash::Instance,
    display: RawDisplayHandle,
    window: RawWindowHandle,
) -> Result<vk::SurfaceKHR, String> {
    let failed = |result: vk::Result| format!("cannot create the window's surface: {result:?}");
    match (display, window) {
        (RawDisplayHandle::Xlib(display), RawWindowHandle::Xlib(window)) => {
            let loader = ash::khr::xlib_surface::Instance::new(entry, instance);
            let dpy = display
                .display
                .map_or(std::ptr::null_mut(), |dpy| dpy.as_ptr());
            let info = vk::XlibSurfaceCreateInfoKHR::default()
                .dpy(dpy.cast())
                .window(window.window);
            // SAFETY: the caller guarantees a live display connection and window.
            unsafe { loader.create_xlib_surface(&info, None) }.map_err(failed)
        }
        (RawDisplayHandle::Xcb(display), RawWindowHandle::Xcb(window)) => {
            let loader = ash::khr::xcb_surface::Instance::new(entry, instance);
            let connection = display
                .connection
                .map_or(std::ptr::null_mut(), |connection| connection.as_ptr());
            let info = vk::XcbSurfaceCreateInfoKHR::default()
                .connection(connection)
                .window(window.window.get());
            // SAFETY: as above.
            unsafe { loader.create_xcb_surface(&info, None) }.map_err(failed)
        }
        _ => Err("windows of this platform are not supported".to_string()),
    }
}
