//! Programs from C: a script from a file or a string (with include directories and limits),
//! its warnings, and its entry points and their parameters (names, types, value counts).

use std::ffi::{c_char, CString};
use std::path::PathBuf;
use std::sync::Arc;

use rpsl::args::{leaves_of, LeafKind};
use rpsl::frontend::hir::{ParamDirection, ScalarKind, Type};
use rpsl::frontend::preprocess::{FsLoader, IncludePolicy, SourceLimits};
use rpsl::Program;

use crate::handle::{self, Guarded, Handle};
use crate::status::{boundary, fail, Failure, Outcome, RpslStatus};
use crate::strings::{optional_in_arg, optional_str_arg, out_arg, slice_arg, str_arg};

/// A checked, lowered and verified script (opaque). Made by [`rpsl_program_from_file`] or
/// [`rpsl_program_from_source`], freed by [`rpsl_program_destroy`]; sessions keep what they
/// need of it, so it may be destroyed before them.
pub struct RpslProgram {
    guarded: Guarded<ProgramObject>,
}

impl Handle for RpslProgram {
    type Inner = ProgramObject;
    const TYPE_NAME: &'static str = "RpslProgram";
    fn guarded(&self) -> &Guarded<ProgramObject> {
        &self.guarded
    }
}

/// The program and the C strings its introspection hands out (alive as long as the handle).
pub(crate) struct ProgramObject {
    pub program: Arc<Program>,
    warnings: CString,
    entries: Vec<EntryTable>,
}

struct EntryTable {
    name: CString,
    params: Vec<ParamTable>,
}

struct ParamTable {
    name: CString,
    type_name: CString,
    info: RpslParamInfo,
}

/// Where a script's `#include`s may come from and how large it may grow (see SECURITY.md).
/// Zero in a limit keeps its default.
#[repr(C)]
#[derive(Copy, Clone, Debug)]
pub struct RpslIncludeOptions {
    /// Directories searched after the including file's own, in order (each also a root includes
    /// may resolve into): `include_dir_count` NUL-terminated UTF-8 paths.
    pub include_dirs: *const *const c_char,
    /// How many `include_dirs` there are.
    pub include_dir_count: usize,
    /// Largest source file in bytes (default 4 MiB).
    pub max_file_bytes: u64,
    /// Largest preprocessed text of the script in bytes (default 16 MiB).
    pub max_preprocessed_bytes: u64,
    /// Most `#include`s carried out (default 1024).
    pub max_inclusions: u32,
    /// Deepest `#include` nesting (default and most 64).
    pub max_include_depth: u32,
}

/// What a parameter's type is.
#[repr(u32)]
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RpslParamKind {
    /// A scalar (`uint`, `float`, `bool`, ...).
    Scalar = 0,
    /// A vector (`float4`).
    Vector = 1,
    /// A matrix (`float4x4`).
    Matrix = 2,
    /// An array of values.
    Array = 3,
    /// A struct.
    Struct = 4,
    /// An enum (set as `int`, or by enumerator name as text).
    Enum = 5,
    /// A texture: an external texture described by the caller.
    Texture = 6,
    /// A buffer: an external buffer of a size the caller gives.
    Buffer = 7,
    /// A `node` handle (`uint`).
    Node = 8,
}

/// The scalar type of values (a parameter's leaves, a node argument's components).
#[repr(u32)]
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RpslScalarKind {
    /// `bool`.
    Bool = 0,
    /// `int` (and enums).
    Int = 1,
    /// `uint` (and `node` handles).
    Uint = 2,
    /// `int64_t`.
    Int64 = 3,
    /// `uint64_t`.
    Uint64 = 4,
    /// `float` (and `half`, a 32-bit float on the CPU).
    Float = 5,
    /// `double`.
    Double = 6,
    /// The values are of several scalar types (a struct), or none (a texture or buffer).
    Mixed = 7,
}

/// How a parameter passes its value.
#[repr(u32)]
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RpslParamDirection {
    /// `in` (the default).
    In = 0,
    /// `out`.
    Out = 1,
    /// `inout`.
    InOut = 2,
}

/// One parameter of an entry point.
#[repr(C)]
#[derive(Copy, Clone, Debug)]
pub struct RpslParamInfo {
    /// Its name (NUL-terminated; alive as long as the program handle).
    pub name: *const c_char,
    /// Its type as the script spells it (`float4`, `texture`, `MyStruct`; alive as long as the
    /// program handle).
    pub type_name: *const c_char,
    /// What kind of type it is.
    pub kind: RpslParamKind,
    /// The scalar type of its data values, `RPSL_SCALAR_KIND_MIXED` when they differ or it
    /// holds none.
    pub scalar: RpslScalarKind,
    /// How many data values a whole value takes (1 for a scalar, 4 for a `float4`, the
    /// flattened fields of a struct; 0 for a texture or buffer).
    pub value_count: u32,
    /// `in`, `out` or `inout`.
    pub direction: RpslParamDirection,
}

/// The C scalar kind of a script scalar kind.
pub(crate) fn scalar_kind(kind: ScalarKind) -> RpslScalarKind {
    match kind.concrete() {
        ScalarKind::Bool => RpslScalarKind::Bool,
        ScalarKind::Int => RpslScalarKind::Int,
        ScalarKind::Uint => RpslScalarKind::Uint,
        ScalarKind::Int64 => RpslScalarKind::Int64,
        ScalarKind::Uint64 => RpslScalarKind::Uint64,
        ScalarKind::Double => RpslScalarKind::Double,
        _ => RpslScalarKind::Float,
    }
}

/// The scalar kind of each data leaf of a parameter (enums as `int`, node handles as `uint`).
pub(crate) fn leaf_kinds(program: &Program, ty: &Type) -> Vec<RpslScalarKind> {
    let mut leaves = Vec::new();
    leaves_of(&program.hir().types, ty, 0, "", &mut leaves);
    leaves
        .iter()
        .filter_map(|leaf| match &leaf.kind {
            LeafKind::Scalar(kind) => Some(scalar_kind(*kind)),
            LeafKind::Enum(_) => Some(RpslScalarKind::Int),
            LeafKind::Node => Some(RpslScalarKind::Uint),
            LeafKind::Texture | LeafKind::Buffer => None,
        })
        .collect()
}

fn c_string(text: &str) -> CString {
    CString::new(text.replace('\0', " ")).unwrap_or_default()
}

impl ProgramObject {
    fn new(program: Program) -> ProgramObject {
        let types = &program.hir().types;
        let entries = program
            .entries()
            .iter()
            .map(|entry| EntryTable {
                name: c_string(&entry.name),
                params: entry
                    .params
                    .iter()
                    .map(|param| {
                        let leaves = leaf_kinds(&program, &param.ty);
                        let scalar = match leaves.split_first() {
                            Some((first, rest)) if rest.iter().all(|k| k == first) => *first,
                            _ => RpslScalarKind::Mixed,
                        };
                        let kind = match &param.ty {
                            Type::Scalar(_) => RpslParamKind::Scalar,
                            Type::Vector(..) => RpslParamKind::Vector,
                            Type::Matrix(..) => RpslParamKind::Matrix,
                            Type::Array(..) => RpslParamKind::Array,
                            Type::Struct(_) => RpslParamKind::Struct,
                            Type::Enum(_) => RpslParamKind::Enum,
                            Type::Texture => RpslParamKind::Texture,
                            Type::Buffer => RpslParamKind::Buffer,
                            _ => RpslParamKind::Node,
                        };
                        let direction = match param.direction {
                            ParamDirection::In => RpslParamDirection::In,
                            ParamDirection::Out => RpslParamDirection::Out,
                            ParamDirection::InOut => RpslParamDirection::InOut,
                        };
                        let name = c_string(&param.name);
                        let type_name = c_string(&param.ty.display(types).to_string());
                        let info = RpslParamInfo {
                            name: name.as_ptr(),
                            type_name: type_name.as_ptr(),
                            kind,
                            scalar,
                            value_count: leaves.len() as u32,
                            direction,
                        };
                        ParamTable {
                            name,
                            type_name,
                            info,
                        }
                    })
                    .collect(),
            })
            .collect();
        ProgramObject {
            warnings: c_string(program.warnings()),
            program: Arc::new(program),
            entries,
        }
    }

    /// The entry point `name` (null: the default one, see `Program::entry`) by index.
    fn entry_index(&self, name: Option<&str>) -> Outcome<usize> {
        let entry = self
            .program
            .entry(name)
            .map_err(|error| Failure::new(RpslStatus::Entry, error.message))?;
        Ok(self
            .program
            .entries()
            .iter()
            .position(|e| e.name == entry.name)
            .unwrap_or(0))
    }
}

/// The include policy of C options (null: the defaults).
///
/// # Safety
/// `options` is null or valid for reads, its `include_dirs` valid for `include_dir_count`
/// reads of NUL-terminated strings.
unsafe fn include_policy(options: *const RpslIncludeOptions) -> Outcome<IncludePolicy> {
    let mut policy = IncludePolicy::default();
    // SAFETY: the caller's contract.
    let Some(options) = (unsafe { optional_in_arg(options) }) else {
        return Ok(policy);
    };
    // SAFETY: the caller's contract.
    let dirs = unsafe {
        slice_arg(
            options.include_dirs,
            options.include_dir_count,
            "options->include_dirs",
        )
    }?;
    for (index, &dir) in dirs.iter().enumerate() {
        // SAFETY: the caller's contract.
        let dir = unsafe { str_arg(dir, &format!("options->include_dirs[{index}]")) }?;
        policy.include_dirs.push(PathBuf::from(dir));
    }
    let defaults = SourceLimits::default();
    let or_default = |value: u64, default: usize| {
        if value == 0 {
            default
        } else {
            usize::try_from(value).unwrap_or(usize::MAX)
        }
    };
    policy.limits = SourceLimits {
        max_file_bytes: or_default(options.max_file_bytes, defaults.max_file_bytes),
        max_preprocessed_bytes: or_default(
            options.max_preprocessed_bytes,
            defaults.max_preprocessed_bytes,
        ),
        max_inclusions: or_default(options.max_inclusions.into(), defaults.max_inclusions),
        max_include_depth: or_default(options.max_include_depth.into(), defaults.max_include_depth),
    };
    Ok(policy)
}

fn finish(result: Result<Program, rpsl::ProgramError>, out: &mut *mut RpslProgram) -> Outcome {
    let program = result.map_err(|error| Failure::new(RpslStatus::Program, error.rendered))?;
    *out = handle::register(RpslProgram {
        guarded: Guarded::new(ProgramObject::new(program)),
    });
    Ok(())
}

/// Loads, checks, lowers and verifies the script at `path`. Includes come from the disk, from
/// the script's directory and `options`' include directories (`options` may be null for the
/// defaults). On `RPSL_STATUS_PROGRAM` the last error message is the rendered diagnostics
/// (`PATH:LINE:COL: error: MESSAGE` with source excerpts).
///
/// # Safety
/// `path` is a NUL-terminated string; `options` is null or points to valid options; `out` is
/// valid for a write (it gets the new handle, or null on failure).
#[no_mangle]
pub unsafe extern "C" fn rpsl_program_from_file(
    path: *const c_char,
    options: *const RpslIncludeOptions,
    out: *mut *mut RpslProgram,
) -> RpslStatus {
    boundary(|| {
        // SAFETY: the caller's contract.
        let out = unsafe { out_arg(out, "out") }?;
        *out = std::ptr::null_mut();
        // SAFETY: the caller's contract.
        let path = unsafe { str_arg(path, "path") }?;
        // SAFETY: the caller's contract.
        let policy = unsafe { include_policy(options) }?;
        finish(Program::from_file_with(path, &policy), out)
    })
}

/// Checks, lowers and verifies the script `text`; `path` names it in diagnostics and anchors
/// its includes (read from the disk under `options`, which may be null for the defaults). On
/// `RPSL_STATUS_PROGRAM` the last error message is the rendered diagnostics.
///
/// # Safety
/// `path` and `text` are NUL-terminated strings; `options` is null or points to valid options;
/// `out` is valid for a write (it gets the new handle, or null on failure).
#[no_mangle]
pub unsafe extern "C" fn rpsl_program_from_source(
    path: *const c_char,
    text: *const c_char,
    options: *const RpslIncludeOptions,
    out: *mut *mut RpslProgram,
) -> RpslStatus {
    boundary(|| {
        // SAFETY: the caller's contract.
        let out = unsafe { out_arg(out, "out") }?;
        *out = std::ptr::null_mut();
        // SAFETY: the caller's contract.
        let path = unsafe { str_arg(path, "path") }?;
        // SAFETY: the caller's contract.
        let text = unsafe { str_arg(text, "text") }?;
        // SAFETY: the caller's contract.
        let policy = unsafe { include_policy(options) }?;
        finish(
            Program::from_source_with(path, text, &FsLoader, &policy),
            out,
        )
    })
}

/// Destroys a program (null: nothing happens). Sessions made from it keep working.
///
/// # Safety
/// `program` is null or a handle from rpsl (a stale or foreign pointer is reported, not
/// dereferenced).
#[no_mangle]
pub unsafe extern "C" fn rpsl_program_destroy(program: *mut RpslProgram) -> RpslStatus {
    boundary(|| handle::destroy(program, "program"))
}

/// The warnings found while checking, rendered (an empty string when there are none). The
/// string lives as long as the program handle.
///
/// # Safety
/// `out` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn rpsl_program_warnings(
    program: *const RpslProgram,
    out: *mut *const c_char,
) -> RpslStatus {
    boundary(|| {
        // SAFETY: the caller's contract.
        let out = unsafe { out_arg(out, "out") }?;
        handle::with(program, "program", |object| {
            *out = object.warnings.as_ptr();
            Ok(())
        })
    })
}

/// How many entry points the script exports.
///
/// # Safety
/// `count` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn rpsl_program_entry_count(
    program: *const RpslProgram,
    count: *mut usize,
) -> RpslStatus {
    boundary(|| {
        // SAFETY: the caller's contract.
        let count = unsafe { out_arg(count, "count") }?;
        handle::with(program, "program", |object| {
            *count = object.entries.len();
            Ok(())
        })
    })
}

/// The name of exported entry point `index` (source order). The string lives as long as the
/// program handle.
///
/// # Safety
/// `name` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn rpsl_program_entry_name(
    program: *const RpslProgram,
    index: usize,
    name: *mut *const c_char,
) -> RpslStatus {
    boundary(|| {
        // SAFETY: the caller's contract.
        let name = unsafe { out_arg(name, "name") }?;
        handle::with(program, "program", |object| {
            let Some(entry) = object.entries.get(index) else {
                return fail(
                    RpslStatus::NotFound,
                    format!(
                        "entry point {index} does not exist (the script exports {})",
                        object.entries.len()
                    ),
                );
            };
            *name = entry.name.as_ptr();
            Ok(())
        })
    })
}

/// How many parameters entry point `entry` takes (null: the default entry point, `main` or
/// the only export).
///
/// # Safety
/// `entry` is null or a NUL-terminated string; `count` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn rpsl_program_param_count(
    program: *const RpslProgram,
    entry: *const c_char,
    count: *mut usize,
) -> RpslStatus {
    boundary(|| {
        // SAFETY: the caller's contract.
        let count = unsafe { out_arg(count, "count") }?;
        // SAFETY: the caller's contract.
        let entry = unsafe { optional_str_arg(entry, "entry") }?;
        handle::with(program, "program", |object| {
            *count = object.entries[object.entry_index(entry)?].params.len();
            Ok(())
        })
    })
}

/// Parameter `index` of entry point `entry` (null: the default entry point). Its strings live
/// as long as the program handle.
///
/// # Safety
/// `entry` is null or a NUL-terminated string; `info` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn rpsl_program_param_info(
    program: *const RpslProgram,
    entry: *const c_char,
    index: usize,
    info: *mut RpslParamInfo,
) -> RpslStatus {
    boundary(|| {
        // SAFETY: the caller's contract.
        let info = unsafe { out_arg(info, "info") }?;
        // SAFETY: the caller's contract.
        let entry = unsafe { optional_str_arg(entry, "entry") }?;
        handle::with(program, "program", |object| {
            let table = &object.entries[object.entry_index(entry)?];
            let Some(param) = table.params.get(index) else {
                return fail(
                    RpslStatus::NotFound,
                    format!(
                        "parameter {index} does not exist (entry point `{}` takes {})",
                        table.name.to_string_lossy(),
                        table.params.len()
                    ),
                );
            };
            debug_assert_eq!(param.info.name, param.name.as_ptr());
            debug_assert_eq!(param.info.type_name, param.type_name.as_ptr());
            *info = param.info;
            Ok(())
        })
    })
}
