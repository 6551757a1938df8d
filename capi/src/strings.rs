//! Arguments from C and results to C: NUL-terminated UTF-8 strings in, strings copied out into
//! caller buffers (with the size needed), checked pointers and counted arrays.

use std::ffi::{c_char, CStr};

use crate::status::{fail, Outcome, RpslStatus};

/// The string at `pointer`, which must be NUL-terminated UTF-8. `what` names the parameter.
///
/// # Safety
/// `pointer` is null or points to a NUL-terminated string that stays alive and unchanged for
/// `'a`.
pub(crate) unsafe fn str_arg<'a>(pointer: *const c_char, what: &str) -> Outcome<&'a str> {
    if pointer.is_null() {
        return fail(RpslStatus::NullPointer, format!("`{what}` is null"));
    }
    // SAFETY: non-null, and NUL-terminated by the caller's contract.
    let bytes = unsafe { CStr::from_ptr(pointer) };
    bytes.to_str().map_err(|error| {
        crate::status::Failure::new(
            RpslStatus::InvalidUtf8,
            format!("`{what}` is not valid UTF-8 (byte {})", error.valid_up_to()),
        )
    })
}

/// Like [`str_arg`], with null meaning "none".
///
/// # Safety
/// As [`str_arg`].
pub(crate) unsafe fn optional_str_arg<'a>(
    pointer: *const c_char,
    what: &str,
) -> Outcome<Option<&'a str>> {
    if pointer.is_null() {
        Ok(None)
    } else {
        // SAFETY: the caller's contract.
        unsafe { str_arg(pointer, what) }.map(Some)
    }
}

/// The place an out-parameter points at.
///
/// # Safety
/// `pointer` is null or valid for writes of a `T` for `'a`.
pub(crate) unsafe fn out_arg<'a, T>(pointer: *mut T, what: &str) -> Outcome<&'a mut T> {
    // SAFETY: the caller's contract.
    match unsafe { pointer.as_mut() } {
        Some(place) => Ok(place),
        None => fail(RpslStatus::NullPointer, format!("`{what}` is null")),
    }
}

/// The `T` an in-parameter points at.
///
/// # Safety
/// `pointer` is null or valid for reads of a `T` for `'a`.
pub(crate) unsafe fn in_arg<'a, T>(pointer: *const T, what: &str) -> Outcome<&'a T> {
    // SAFETY: the caller's contract.
    match unsafe { pointer.as_ref() } {
        Some(value) => Ok(value),
        None => fail(RpslStatus::NullPointer, format!("`{what}` is null")),
    }
}

/// The `T` an in-parameter points at, or `None` for null.
///
/// # Safety
/// `pointer` is null or valid for reads of a `T` for `'a`.
pub(crate) unsafe fn optional_in_arg<'a, T>(pointer: *const T) -> Option<&'a T> {
    // SAFETY: the caller's contract.
    unsafe { pointer.as_ref() }
}

/// `count` values at `pointer` (null allowed when `count` is 0).
///
/// # Safety
/// When `count > 0`, `pointer` is null or valid for reads of `count` `T`s for `'a`.
pub(crate) unsafe fn slice_arg<'a, T>(
    pointer: *const T,
    count: usize,
    what: &str,
) -> Outcome<&'a [T]> {
    if count == 0 {
        return Ok(&[]);
    }
    if pointer.is_null() {
        return fail(
            RpslStatus::NullPointer,
            format!("`{what}` is null but its count is {count}"),
        );
    }
    // SAFETY: non-null and valid for `count` reads by the caller's contract.
    Ok(unsafe { std::slice::from_raw_parts(pointer, count) })
}

/// Room for `capacity` values at `pointer` (null allowed when `capacity` is 0).
///
/// # Safety
/// When `capacity > 0`, `pointer` is null or valid for writes of `capacity` `T`s for `'a`.
pub(crate) unsafe fn slice_out<'a, T>(
    pointer: *mut T,
    capacity: usize,
    what: &str,
) -> Outcome<&'a mut [T]> {
    if capacity == 0 {
        return Ok(&mut []);
    }
    if pointer.is_null() {
        return fail(
            RpslStatus::NullPointer,
            format!("`{what}` is null but its capacity is {capacity}"),
        );
    }
    // SAFETY: non-null and valid for `capacity` writes by the caller's contract.
    Ok(unsafe { std::slice::from_raw_parts_mut(pointer, capacity) })
}

/// Copies `bytes` into a caller buffer, the sizes protocol of every rpsl function that returns
/// bytes: `*needed` (when `needed` is not null) gets the bytes the result takes (the string's
/// length plus its NUL when `nul` is set); a null `buffer` only asks for that size; a
/// `capacity` below it is `RPSL_STATUS_BUFFER_TOO_SMALL` and copies nothing.
///
/// # Safety
/// `buffer` is null or valid for writes of `capacity` bytes; `needed` is null or valid for a
/// write.
pub(crate) unsafe fn copy_out(
    bytes: &[u8],
    nul: bool,
    buffer: *mut u8,
    capacity: usize,
    needed: *mut usize,
) -> Outcome {
    let size = bytes.len() + usize::from(nul);
    // SAFETY: the caller's contract.
    if let Some(needed) = unsafe { needed.as_mut() } {
        *needed = size;
    }
    if buffer.is_null() {
        if needed.is_null() {
            return fail(
                RpslStatus::NullPointer,
                "`buffer` and `needed` are both null",
            );
        }
        return Ok(());
    }
    if capacity < size {
        return fail(
            RpslStatus::BufferTooSmall,
            format!("the buffer holds {capacity} bytes; the result takes {size}"),
        );
    }
    // SAFETY: `buffer` is valid for `capacity >= size` bytes, and does not overlap `bytes`
    // (rpsl's own memory).
    unsafe {
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), buffer, bytes.len());
        if nul {
            *buffer.add(bytes.len()) = 0;
        }
    }
    Ok(())
}
