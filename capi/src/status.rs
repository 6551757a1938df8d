//! Status codes, the thread's last error message, and the boundary every entry point goes
//! through: panics are caught there and become [`RpslStatus::Panic`].

use std::cell::RefCell;
use std::ffi::{c_char, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// What an rpsl C function returns. `RPSL_STATUS_OK` is success; on any other value the thread's last
/// error message ([`rpsl_last_error`]) says what went wrong.
#[repr(i32)]
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RpslStatus {
    /// Success.
    Ok = 0,
    /// A required pointer argument was null.
    NullPointer = 1,
    /// A string argument is not valid UTF-8.
    InvalidUtf8 = 2,
    /// A handle is not a live object of the expected type (destroyed, of another type, or
    /// never made by rpsl).
    InvalidHandle = 3,
    /// The object is being used by another call right now (another thread, or a node callback
    /// calling back into the object that runs it).
    Busy = 4,
    /// An argument is out of range or does not fit (a bad enum value, a count that does not
    /// match, an unknown name).
    InvalidArgument = 5,
    /// The script has errors: the last error message holds its rendered diagnostics.
    Program = 6,
    /// The entry point does not exist, or the choice is ambiguous.
    Entry = 7,
    /// An entry argument was rejected (unknown parameter, bad value, wrong type).
    Argument = 8,
    /// A frame failed: a script fault, a build or compile error (located diagnostic in the last
    /// error message). The session stays usable.
    Frame = 9,
    /// The Vulkan backend failed (no device, validation messages, device loss, ...).
    Backend = 10,
    /// A node callback returned a status other than `RPSL_STATUS_OK`.
    Callback = 11,
    /// A caller's buffer is too small: the needed size was written where the function says.
    BufferTooSmall = 12,
    /// Nothing of that name or index (a resource, a parameter, an entry point, a frame).
    NotFound = 13,
    /// Reading or writing a file failed.
    Io = 14,
    /// An internal error (a panic inside rpsl, caught at the C boundary).
    Panic = 15,
}

impl RpslStatus {
    /// The enumerator's name as the header spells it.
    pub fn name(self) -> &'static str {
        self.c_name().to_str().unwrap_or("RPSL_STATUS_UNKNOWN")
    }

    /// [`RpslStatus::name`] as a static C string.
    pub fn c_name(self) -> &'static CStr {
        match self {
            RpslStatus::Ok => c"RPSL_STATUS_OK",
            RpslStatus::NullPointer => c"RPSL_STATUS_NULL_POINTER",
            RpslStatus::InvalidUtf8 => c"RPSL_STATUS_INVALID_UTF8",
            RpslStatus::InvalidHandle => c"RPSL_STATUS_INVALID_HANDLE",
            RpslStatus::Busy => c"RPSL_STATUS_BUSY",
            RpslStatus::InvalidArgument => c"RPSL_STATUS_INVALID_ARGUMENT",
            RpslStatus::Program => c"RPSL_STATUS_PROGRAM",
            RpslStatus::Entry => c"RPSL_STATUS_ENTRY",
            RpslStatus::Argument => c"RPSL_STATUS_ARGUMENT",
            RpslStatus::Frame => c"RPSL_STATUS_FRAME",
            RpslStatus::Backend => c"RPSL_STATUS_BACKEND",
            RpslStatus::Callback => c"RPSL_STATUS_CALLBACK",
            RpslStatus::BufferTooSmall => c"RPSL_STATUS_BUFFER_TOO_SMALL",
            RpslStatus::NotFound => c"RPSL_STATUS_NOT_FOUND",
            RpslStatus::Io => c"RPSL_STATUS_IO",
            RpslStatus::Panic => c"RPSL_STATUS_PANIC",
        }
    }

    /// Every status, in value order.
    pub const ALL: [RpslStatus; 16] = [
        RpslStatus::Ok,
        RpslStatus::NullPointer,
        RpslStatus::InvalidUtf8,
        RpslStatus::InvalidHandle,
        RpslStatus::Busy,
        RpslStatus::InvalidArgument,
        RpslStatus::Program,
        RpslStatus::Entry,
        RpslStatus::Argument,
        RpslStatus::Frame,
        RpslStatus::Backend,
        RpslStatus::Callback,
        RpslStatus::BufferTooSmall,
        RpslStatus::NotFound,
        RpslStatus::Io,
        RpslStatus::Panic,
    ];
}

/// A failed call: its status and message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Failure {
    pub status: RpslStatus,
    pub message: String,
}

impl Failure {
    /// A failure with `status` and `message`.
    pub fn new(status: RpslStatus, message: impl Into<String>) -> Failure {
        Failure {
            status,
            message: message.into(),
        }
    }
}

/// The result of the Rust side of an entry point.
pub(crate) type Outcome<T = ()> = Result<T, Failure>;

/// Shorthand: an `Err` of a new [`Failure`].
pub(crate) fn fail<T>(status: RpslStatus, message: impl Into<String>) -> Outcome<T> {
    Err(Failure::new(status, message))
}

thread_local! {
    /// The message of the last call on this thread that failed.
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

/// Sets this thread's last error message (interior NUL bytes become spaces).
pub(crate) fn set_last_error(message: &str) {
    let text = CString::new(message.replace('\0', " ")).unwrap_or_default();
    LAST_ERROR.with(|last| *last.borrow_mut() = text);
}

/// The text of a caught panic's payload.
pub(crate) fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(text) = payload.downcast_ref::<&str>() {
        (*text).to_string()
    } else if let Some(text) = payload.downcast_ref::<String>() {
        text.clone()
    } else {
        "a panic without a message".to_string()
    }
}

/// Unwinds out of rpsl code called with a C callback that cannot go on (a command buffer source
/// that gave none): [`boundary`] turns it into `RPSL_STATUS_CALLBACK` with this message. Raised
/// with `std::panic::resume_unwind`, so no panic hook prints it.
pub(crate) struct CallbackAbort(pub String);

/// Runs the Rust side of an entry point: its failure, or a panic inside it, becomes a status and
/// this thread's last error message. Nothing unwinds into C.
pub(crate) fn boundary(body: impl FnOnce() -> Outcome) -> RpslStatus {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => RpslStatus::Ok,
        Ok(Err(failure)) => {
            set_last_error(&failure.message);
            failure.status
        }
        Err(payload) => {
            if let Some(CallbackAbort(message)) = payload.downcast_ref::<CallbackAbort>() {
                set_last_error(message);
                return RpslStatus::Callback;
            }
            set_last_error(&format!(
                "internal error: rpsl panicked: {}",
                panic_message(payload.as_ref())
            ));
            RpslStatus::Panic
        }
    }
}

/// The message of the last rpsl call on this thread that failed (an empty string before any
/// failure). The pointer stays valid until the next failing rpsl call on this thread.
///
/// ```
/// use rpsl_capi::*;
/// let mut program = std::ptr::null_mut();
/// let status = unsafe {
///     rpsl_program_from_source(std::ptr::null(), c"".as_ptr(), std::ptr::null(), &mut program)
/// };
/// assert_eq!(status, RpslStatus::NullPointer);
/// let message = unsafe { std::ffi::CStr::from_ptr(rpsl_last_error()) };
/// assert_eq!(message.to_str().unwrap(), "`path` is null");
/// ```
#[no_mangle]
pub extern "C" fn rpsl_last_error() -> *const c_char {
    LAST_ERROR.with(|last| last.borrow().as_ptr())
}

/// The name of a status (`"RPSL_STATUS_OK"`, `"RPSL_STATUS_FRAME"`, ...), or `"RPSL_STATUS_UNKNOWN"` for a
/// value that is none. The string is static.
#[no_mangle]
pub extern "C" fn rpsl_status_name(status: i32) -> *const c_char {
    RpslStatus::ALL
        .iter()
        .find(|known| **known as i32 == status)
        .map_or(c"RPSL_STATUS_UNKNOWN", |known| known.c_name())
        .as_ptr()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_names_match_the_rust_names() {
        for status in RpslStatus::ALL {
            // SAFETY: rpsl_status_name returns a static NUL-terminated string.
            let name = unsafe { CStr::from_ptr(rpsl_status_name(status as i32)) };
            assert_eq!(name.to_str().unwrap(), status.name());
        }
        // SAFETY: as above.
        let unknown = unsafe { CStr::from_ptr(rpsl_status_name(99)) };
        assert_eq!(unknown.to_str().unwrap(), "RPSL_STATUS_UNKNOWN");
    }

    #[test]
    fn a_panic_becomes_a_status_and_a_message() {
        let status = boundary(|| panic!("boom"));
        assert_eq!(status, RpslStatus::Panic);
        // SAFETY: the last error is a NUL-terminated string owned by this thread.
        let message = unsafe { CStr::from_ptr(rpsl_last_error()) };
        assert_eq!(
            message.to_str().unwrap(),
            "internal error: rpsl panicked: boom"
        );
    }
}
