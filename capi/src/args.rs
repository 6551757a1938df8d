//! Typed entry arguments from C: arrays of `uint32_t`, `int32_t`, `float`, `bool`, 64-bit
//! integers and `double`s checked against the parameter's type (kind and count), texture
//! descriptions and buffer sizes.

use std::ffi::c_char;

use rpsl::runtime::Format;

use crate::handle;
use crate::program::{leaf_kinds, RpslScalarKind};
use crate::session::RpslSession;
use crate::status::{boundary, fail, Outcome, RpslStatus};
use crate::strings::{in_arg, slice_arg, str_arg};

/// Values of one scalar type, as C passes them.
#[derive(Copy, Clone, Debug)]
pub(crate) enum TypedValues<'a> {
    Bool(&'a [bool]),
    Int(&'a [i32]),
    Uint(&'a [u32]),
    Int64(&'a [i64]),
    Uint64(&'a [u64]),
    Float(&'a [f32]),
    Double(&'a [f64]),
}

impl TypedValues<'_> {
    /// The scalar kind of the values.
    pub fn kind(self) -> RpslScalarKind {
        match self {
            TypedValues::Bool(_) => RpslScalarKind::Bool,
            TypedValues::Int(_) => RpslScalarKind::Int,
            TypedValues::Uint(_) => RpslScalarKind::Uint,
            TypedValues::Int64(_) => RpslScalarKind::Int64,
            TypedValues::Uint64(_) => RpslScalarKind::Uint64,
            TypedValues::Float(_) => RpslScalarKind::Float,
            TypedValues::Double(_) => RpslScalarKind::Double,
        }
    }

    /// How many values there are.
    pub fn len(self) -> usize {
        match self {
            TypedValues::Bool(v) => v.len(),
            TypedValues::Int(v) => v.len(),
            TypedValues::Uint(v) => v.len(),
            TypedValues::Int64(v) => v.len(),
            TypedValues::Uint64(v) => v.len(),
            TypedValues::Float(v) => v.len(),
            TypedValues::Double(v) => v.len(),
        }
    }

    /// The values in the CLI's text form, comma separated, exactly (floats as bit patterns).
    fn text(self) -> String {
        let parts: Vec<String> = match self {
            TypedValues::Bool(v) => v.iter().map(|b| b.to_string()).collect(),
            TypedValues::Int(v) => v.iter().map(|x| x.to_string()).collect(),
            TypedValues::Uint(v) => v.iter().map(|x| x.to_string()).collect(),
            TypedValues::Int64(v) => v.iter().map(|x| x.to_string()).collect(),
            TypedValues::Uint64(v) => v.iter().map(|x| x.to_string()).collect(),
            TypedValues::Float(v) => v.iter().map(|x| format!("0x{:08x}", x.to_bits())).collect(),
            // Rust prints the shortest text that reads back as the same double (`NaN`, `inf`
            // and `-inf` included, which the argument parser accepts).
            TypedValues::Double(v) => v.iter().map(|x| x.to_string()).collect(),
        };
        parts.join(",")
    }
}

/// The C name of a scalar kind, for messages.
pub(crate) fn scalar_name(kind: RpslScalarKind) -> &'static str {
    match kind {
        RpslScalarKind::Bool => "bool",
        RpslScalarKind::Int => "int",
        RpslScalarKind::Uint => "uint",
        RpslScalarKind::Int64 => "int64_t",
        RpslScalarKind::Uint64 => "uint64_t",
        RpslScalarKind::Float => "float",
        RpslScalarKind::Double => "double",
        RpslScalarKind::Mixed => "mixed",
    }
}

/// Checks that values of `given` kinds fit leaves of `expected` kinds (same count, same kind
/// each); `what` names the parameter or argument.
pub(crate) fn check_kinds(
    what: &str,
    type_name: &str,
    expected: &[RpslScalarKind],
    given: TypedValues<'_>,
) -> Outcome {
    if expected.len() != given.len() {
        return fail(
            RpslStatus::InvalidArgument,
            format!(
                "{what} ({type_name}) takes {} value{}, got {}",
                expected.len(),
                if expected.len() == 1 { "" } else { "s" },
                given.len()
            ),
        );
    }
    if let Some((index, kind)) = expected
        .iter()
        .enumerate()
        .find(|(_, kind)| **kind != given.kind())
    {
        let holds = if expected.iter().all(|k| k == kind) {
            format!("{} values", scalar_name(*kind))
        } else {
            format!("a {} at value {index}", scalar_name(*kind))
        };
        return fail(
            RpslStatus::InvalidArgument,
            format!(
                "{what} ({type_name}) holds {holds}, not {}",
                scalar_name(given.kind())
            ),
        );
    }
    Ok(())
}

/// Sets entry argument `name` to `values`, checked against its type.
fn set_typed(session: *mut RpslSession, name: &str, values: TypedValues<'_>) -> Outcome {
    handle::with(session, "session", |object| {
        let Some(param) = object.entry().params.iter().find(|p| p.name == name) else {
            if name.contains(['.', '[']) {
                return fail(
                    RpslStatus::Argument,
                    format!(
                        "`{name}` is a part of a parameter: the typed setters take whole \
                         parameters; set parts with rpsl_session_set_arg"
                    ),
                );
            }
            // The text path words the unknown-parameter error (it lists the parameters).
            return object.set_arg_text(name, "");
        };
        let expected = leaf_kinds(object.program(), &param.ty);
        let type_name = param.ty.display(&object.program().hir().types).to_string();
        check_kinds(
            &format!("parameter `{name}`"),
            &type_name,
            &expected,
            values,
        )
        .map_err(|failure| crate::status::Failure::new(RpslStatus::Argument, failure.message))?;
        object.set_arg_text(name, &values.text())
    })
}

/// The body of the typed setters: checks the C arguments, then sets the values.
///
/// # Safety
/// `name` is a NUL-terminated string; `values` is valid for `count` reads (null when `count`
/// is 0).
unsafe fn set_from_c<T>(
    session: *mut RpslSession,
    name: *const c_char,
    values: *const T,
    count: usize,
    typed: fn(&[T]) -> TypedValues<'_>,
) -> RpslStatus {
    boundary(|| {
        // SAFETY: the caller's contract.
        let name = unsafe { str_arg(name, "name") }?;
        // SAFETY: the caller's contract.
        let values = unsafe { slice_arg(values, count, "values") }?;
        set_typed(session, name, typed(values))
    })
}

/// Sets entry argument `name` (a whole parameter: parts such as `light.color` are set with
/// `rpsl_session_set_arg`) from `uint32_t`s: one per value of its type (a `uint` takes
/// 1, a `uint3` 3; `node` handles are `uint`s). Another scalar type or count is `RPSL_STATUS_ARGUMENT`.
///
/// # Safety
/// `name` is a NUL-terminated string; `values` is valid for `count` reads (null when `count`
/// is 0).
#[no_mangle]
pub unsafe extern "C" fn rpsl_session_set_arg_uints(
    session: *mut RpslSession,
    name: *const c_char,
    values: *const u32,
    count: usize,
) -> RpslStatus {
    // SAFETY: the caller's contract, passed on.
    unsafe { set_from_c(session, name, values, count, |v| TypedValues::Uint(v)) }
}

/// Sets entry argument `name` from `int32_t`s (`int`, `int2`, ..., and enums).
///
/// # Safety
/// `name` is a NUL-terminated string; `values` is valid for `count` reads (null when `count`
/// is 0).
#[no_mangle]
pub unsafe extern "C" fn rpsl_session_set_arg_ints(
    session: *mut RpslSession,
    name: *const c_char,
    values: *const i32,
    count: usize,
) -> RpslStatus {
    // SAFETY: the caller's contract, passed on.
    unsafe { set_from_c(session, name, values, count, |v| TypedValues::Int(v)) }
}

/// Sets entry argument `name` from `float`s (`float`, `float4`, `float4x4` row by row, ...).
///
/// # Safety
/// `name` is a NUL-terminated string; `values` is valid for `count` reads (null when `count`
/// is 0).
#[no_mangle]
pub unsafe extern "C" fn rpsl_session_set_arg_floats(
    session: *mut RpslSession,
    name: *const c_char,
    values: *const f32,
    count: usize,
) -> RpslStatus {
    // SAFETY: the caller's contract, passed on.
    unsafe { set_from_c(session, name, values, count, |v| TypedValues::Float(v)) }
}

/// Sets entry argument `name` from `bool`s.
///
/// # Safety
/// `name` is a NUL-terminated string; `values` is valid for `count` reads (null when `count`
/// is 0).
#[no_mangle]
pub unsafe extern "C" fn rpsl_session_set_arg_bools(
    session: *mut RpslSession,
    name: *const c_char,
    values: *const bool,
    count: usize,
) -> RpslStatus {
    // SAFETY: the caller's contract, passed on.
    unsafe { set_from_c(session, name, values, count, |v| TypedValues::Bool(v)) }
}

/// Sets entry argument `name` from `uint64_t`s.
///
/// # Safety
/// `name` is a NUL-terminated string; `values` is valid for `count` reads (null when `count`
/// is 0).
#[no_mangle]
pub unsafe extern "C" fn rpsl_session_set_arg_uint64s(
    session: *mut RpslSession,
    name: *const c_char,
    values: *const u64,
    count: usize,
) -> RpslStatus {
    // SAFETY: the caller's contract, passed on.
    unsafe { set_from_c(session, name, values, count, |v| TypedValues::Uint64(v)) }
}

/// Sets entry argument `name` from `int64_t`s.
///
/// # Safety
/// `name` is a NUL-terminated string; `values` is valid for `count` reads (null when `count`
/// is 0).
#[no_mangle]
pub unsafe extern "C" fn rpsl_session_set_arg_int64s(
    session: *mut RpslSession,
    name: *const c_char,
    values: *const i64,
    count: usize,
) -> RpslStatus {
    // SAFETY: the caller's contract, passed on.
    unsafe { set_from_c(session, name, values, count, |v| TypedValues::Int64(v)) }
}

/// Sets entry argument `name` from `double`s.
///
/// # Safety
/// `name` is a NUL-terminated string; `values` is valid for `count` reads (null when `count`
/// is 0).
#[no_mangle]
pub unsafe extern "C" fn rpsl_session_set_arg_doubles(
    session: *mut RpslSession,
    name: *const c_char,
    values: *const f64,
    count: usize,
) -> RpslStatus {
    // SAFETY: the caller's contract, passed on.
    unsafe { set_from_c(session, name, values, count, |v| TypedValues::Double(v)) }
}

/// An external 2D texture an entry argument describes.
#[repr(C)]
#[derive(Copy, Clone, Debug)]
pub struct RpslTextureDesc {
    /// An `RPS_FORMAT` value of rpsl.h (`RPS_FORMAT_R8G8B8A8_UNORM` is 28).
    pub format: u32,
    /// Width in texels.
    pub width: u32,
    /// Height in texels.
    pub height: u32,
}

/// Sets `texture` entry argument `name` to an external 2D texture of `desc`.
///
/// # Safety
/// `name` is a NUL-terminated string; `desc` is valid for a read.
#[no_mangle]
pub unsafe extern "C" fn rpsl_session_set_arg_texture(
    session: *mut RpslSession,
    name: *const c_char,
    desc: *const RpslTextureDesc,
) -> RpslStatus {
    boundary(|| {
        // SAFETY: the caller's contract.
        let name = unsafe { str_arg(name, "name") }?;
        // SAFETY: the caller's contract.
        let desc = *unsafe { in_arg(desc, "desc") }?;
        let Some(format) = Format(desc.format).name() else {
            return fail(
                RpslStatus::InvalidArgument,
                format!("`desc->format` is {}, not an RPS_FORMAT", desc.format),
            );
        };
        let text = format!("{}x{}:{format}", desc.width, desc.height);
        handle::with(session, "session", |object| {
            if !is_resource_param(object, name, true) {
                return argument_kind_error(object, name, "texture");
            }
            object.set_arg_text(name, &text)
        })
    })
}

/// Sets `buffer` entry argument `name` to an external buffer of `size` bytes.
///
/// # Safety
/// `name` is a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn rpsl_session_set_arg_buffer(
    session: *mut RpslSession,
    name: *const c_char,
    size: u64,
) -> RpslStatus {
    boundary(|| {
        // SAFETY: the caller's contract.
        let name = unsafe { str_arg(name, "name") }?;
        handle::with(session, "session", |object| {
            if !is_resource_param(object, name, false) {
                return argument_kind_error(object, name, "buffer");
            }
            object.set_arg_text(name, &size.to_string())
        })
    })
}

fn is_resource_param(object: &crate::session::SessionObject, name: &str, texture: bool) -> bool {
    use rpsl::frontend::hir::Type;
    object.entry().params.iter().any(|p| {
        p.name == name
            && matches!(
                (&p.ty, texture),
                (Type::Texture, true) | (Type::Buffer, false)
            )
    })
}

fn argument_kind_error(
    object: &mut crate::session::SessionObject,
    name: &str,
    kind: &str,
) -> Outcome {
    match object.entry().params.iter().find(|p| p.name == name) {
        Some(param) => fail(
            RpslStatus::Argument,
            format!(
                "parameter `{name}` is a {}, not a {kind}",
                param.ty.display(&object.program().hir().types)
            ),
        ),
        // The text path words the unknown-parameter error.
        None => object.set_arg_text(name, ""),
    }
}
