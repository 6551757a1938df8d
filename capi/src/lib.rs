//! The C API of rpsl: `librpsl_capi.so` with the header `capi/include/rpsl.h`, generated from
//! these declarations by cbindgen (`tests/header.rs` fails when the checked-in header differs).
//!
//! Objects are opaque handles (`RpslProgram`, `RpslSession`, `RpslVulkan`, and the
//! `RpslNodeContext` of a node callback); every function returns an [`RpslStatus`], and on a
//! failure [`rpsl_last_error`] says why (rendered diagnostics for scripts and frames). Null
//! pointers, strings that are not UTF-8, destroyed or foreign handles, panics inside rpsl and
//! callbacks that fail all come back as statuses, never as crashes.
//!
//! ```c
//! RpslProgram *program = NULL;
//! if (rpsl_program_from_source("frame.rpsl", text, NULL, &program) != RPSL_STATUS_OK)
//!     fprintf(stderr, "%s", rpsl_last_error()); /* the diagnostics */
//! RpslSession *session = NULL;
//! rpsl_session_create(program, NULL, NULL, &session);
//! rpsl_session_set_arg(session, "bb", "64x64");
//! RpslFrameInfo info;
//! rpsl_session_run_frame(session, &info);
//! ```
//!
//! The functions are callable from Rust too (the crate is also an `rlib`), which its tests use.

mod args;
mod engine;
mod handle;
mod node;
mod program;
mod session;
mod status;
mod strings;
mod vulkan;

pub use args::*;
pub use engine::*;
pub use node::*;
pub use program::*;
pub use session::*;
pub use status::*;
pub use vulkan::*;

/// The major version of the C API: changes that break callers raise it.
pub const RPSL_VERSION_MAJOR: u32 = 0;
/// The minor version of the C API: additions raise it.
pub const RPSL_VERSION_MINOR: u32 = 1;
/// The patch version of the C API.
pub const RPSL_VERSION_PATCH: u32 = 0;
/// The version the header was made for, as [`rpsl_version`] encodes it: compare it with
/// what the library returns to catch a header used with another library.
pub const RPSL_VERSION: u32 =
    (RPSL_VERSION_MAJOR << 22) | (RPSL_VERSION_MINOR << 12) | RPSL_VERSION_PATCH;

/// The library's C API version: `major << 22 | minor << 12 | patch` (the encoding of
/// `RPSL_VERSION`).
///
/// ```
/// assert_eq!(rpsl_capi::rpsl_version(), rpsl_capi::RPSL_VERSION);
/// ```
#[no_mangle]
pub extern "C" fn rpsl_version() -> u32 {
    RPSL_VERSION
}
