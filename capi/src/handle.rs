//! Opaque handles: every object given to C is registered here by address and type, and every
//! call checks its handle against the registry before touching the object. A destroyed handle,
//! a handle of another type or a pointer rpsl never made is an `RPSL_STATUS_INVALID_HANDLE` error, not
//! a crash. An object is used by one call at a time: a second call on it (from another thread,
//! or from a node callback re-entering the object that runs it) is `RPSL_STATUS_BUSY`.

use std::cell::UnsafeCell;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{LazyLock, Mutex, MutexGuard};

use crate::status::{fail, Outcome, RpslStatus};

/// An object behind a handle, with the flag that keeps it to one call at a time.
pub(crate) struct Guarded<T> {
    busy: AtomicBool,
    value: UnsafeCell<T>,
}

impl<T> Guarded<T> {
    /// Wraps `value`, not in use.
    pub fn new(value: T) -> Guarded<T> {
        Guarded {
            busy: AtomicBool::new(false),
            value: UnsafeCell::new(value),
        }
    }

    /// The object, once no handle reaches it any more.
    pub fn into_inner(self) -> T {
        self.value.into_inner()
    }
}

/// A type handed to C as an opaque pointer.
pub(crate) trait Handle: Sized + 'static {
    /// What the handle holds.
    type Inner;
    /// The C type's name, used in messages (`RpslProgram`).
    const TYPE_NAME: &'static str;
    /// The guarded object.
    fn guarded(&self) -> &Guarded<Self::Inner>;
}

/// Live handles: address -> C type name.
fn registry() -> MutexGuard<'static, HashMap<usize, &'static str>> {
    static HANDLES: LazyLock<Mutex<HashMap<usize, &'static str>>> = LazyLock::new(Default::default);
    HANDLES
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Checks that `address` is a live handle of type `H` (under the registry's lock).
fn check<H: Handle>(handles: &HashMap<usize, &'static str>, address: usize, what: &str) -> Outcome {
    match handles.get(&address) {
        Some(&name) if name == H::TYPE_NAME => Ok(()),
        Some(&name) => fail(
            RpslStatus::InvalidHandle,
            format!("`{what}` is an {name}, not an {}", H::TYPE_NAME),
        ),
        None => fail(
            RpslStatus::InvalidHandle,
            format!(
                "`{what}` is not a live {} (destroyed, or not made by rpsl)",
                H::TYPE_NAME
            ),
        ),
    }
}

/// Moves `handle` to the heap, registers it and returns the pointer C gets.
pub(crate) fn register<H: Handle>(handle: H) -> *mut H {
    let pointer = Box::into_raw(Box::new(handle));
    registry().insert(pointer as usize, H::TYPE_NAME);
    pointer
}

/// Registers a handle that lives elsewhere (on the stack of a callback) until
/// [`unregister_borrowed`].
pub(crate) fn register_borrowed<H: Handle>(handle: &H) {
    registry().insert(handle as *const H as usize, H::TYPE_NAME);
}

/// Removes a handle registered with [`register_borrowed`], waiting for a call still using it
/// (from a thread the callback handed it to) to end.
pub(crate) fn unregister_borrowed<H: Handle>(handle: &H) {
    loop {
        let mut handles = registry();
        if handle
            .guarded()
            .busy
            .compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed)
            .is_ok()
        {
            handles.remove(&(handle as *const H as usize));
            return;
        }
        drop(handles);
        std::thread::yield_now();
    }
}

/// Clears the busy flag when a call ends, panics included.
struct Release<'a>(&'a AtomicBool);

impl Drop for Release<'_> {
    fn drop(&mut self) {
        self.0.store(false, Ordering::Release);
    }
}

/// Runs `body` on the object behind `pointer`, after checking that it is a live `H` that no
/// other call uses. `what` names the parameter in messages.
///
/// Safe for any `pointer`: it is only dereferenced once the registry holds it as a live `H`,
/// and the busy flag gives `body` the only access.
pub(crate) fn with<H: Handle, R>(
    pointer: *const H,
    what: &str,
    body: impl FnOnce(&mut H::Inner) -> Outcome<R>,
) -> Outcome<R> {
    if pointer.is_null() {
        return fail(RpslStatus::NullPointer, format!("`{what}` is null"));
    }
    let guarded = {
        let handles = registry();
        check::<H>(&handles, pointer as usize, what)?;
        // SAFETY: the registry holds `pointer` as a live `H` (registered objects are removed
        // under this lock before they are freed).
        let guarded = unsafe { &*pointer }.guarded();
        if guarded
            .busy
            .compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed)
            .is_err()
        {
            return fail(
                RpslStatus::Busy,
                format!("`{what}` is in use by another call right now"),
            );
        }
        guarded
    };
    let _release = Release(&guarded.busy);
    // SAFETY: the busy flag, set above, gives this call the only access to the value until
    // `_release` clears it; the object cannot be destroyed while busy (`destroy` takes the flag).
    body(unsafe { &mut *guarded.value.get() })
}

/// Destroys the object behind `pointer` (null: nothing to do). Fails on a handle that is not a
/// live `H` or that another call is using.
pub(crate) fn destroy<H: Handle>(pointer: *mut H, what: &str) -> Outcome {
    if pointer.is_null() {
        return Ok(());
    }
    {
        let mut handles = registry();
        check::<H>(&handles, pointer as usize, what)?;
        // SAFETY: registered as a live `H`, as in `with`.
        let guarded = unsafe { &*pointer }.guarded();
        if guarded
            .busy
            .compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed)
            .is_err()
        {
            return fail(
                RpslStatus::Busy,
                format!("`{what}` is in use by another call and cannot be destroyed now"),
            );
        }
        handles.remove(&(pointer as usize));
    }
    // SAFETY: `pointer` came from `register` (Box::into_raw) and was just removed from the
    // registry, so no other call can reach it any more.
    drop(unsafe { Box::from_raw(pointer) });
    Ok(())
}
