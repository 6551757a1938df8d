//! The table of `extern "C"` helpers generated code calls: their Cranelift signatures and
//! addresses (calls go through `call_indirect` on the address, so no symbols are declared).

use super::context::{self as c, RunContext};
use cranelift_codegen::ir::{self, types};

/// A helper generated code calls.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub(crate) enum Helper {
    /// [`c::jit_fault`].
    Fault,
    /// [`c::jit_enter_frame`].
    EnterFrame,
    /// [`c::jit_mem_copy`].
    MemCopy,
    /// [`c::jit_mem_zero`].
    MemZero,
    /// [`c::jit_mem_eq`].
    MemEq,
    /// [`c::jit_create_resource`].
    CreateResource,
    /// [`c::jit_describe_resource`].
    DescribeResource,
    /// [`c::jit_call_node`].
    CallNode,
    /// [`c::jit_marker`].
    Marker,
    /// [`c::jit_unary`].
    Unary,
    /// [`c::jit_binary`].
    Binary,
    /// [`c::jit_ternary`].
    Ternary,
    /// [`c::jit_vector`].
    Vector,
    /// [`c::jit_unary_f32`].
    UnaryF32,
    /// [`c::jit_unary_f64`].
    UnaryF64,
    /// [`c::jit_binary_f32`].
    BinaryF32,
    /// [`c::jit_binary_f64`].
    BinaryF64,
    /// [`c::jit_ternary_f32`].
    TernaryF32,
    /// [`c::jit_ternary_f64`].
    TernaryF64,
}

const P: ir::Type = types::INVALID;
const I32: ir::Type = types::I32;
const I64: ir::Type = types::I64;
const F32: ir::Type = types::F32;
const F64: ir::Type = types::F64;

impl Helper {
    /// Parameter types; `P` (invalid) stands for the pointer type.
    fn raw_params(self) -> &'static [ir::Type] {
        match self {
            Helper::Fault => &[P, I64, I64, I64],
            Helper::EnterFrame => &[P, I64, I64, I64],
            Helper::MemCopy | Helper::MemEq => &[P, I64, I64, I64, I64, I64],
            Helper::MemZero | Helper::CreateResource | Helper::DescribeResource => {
                &[P, I64, I64, I64, I64]
            }
            Helper::CallNode => &[P, I64, I64, I64, I64, I64, I64],
            Helper::Marker => &[P, I64, I64, I64],
            Helper::Unary => &[I32, I64],
            Helper::Binary => &[I32, I64, I64],
            Helper::Ternary => &[I32, I64, I64, I64],
            Helper::Vector => &[I32, I32, I32, I32, P, P],
            Helper::UnaryF32 => &[I32, F32],
            Helper::UnaryF64 => &[I32, F64],
            Helper::BinaryF32 => &[I32, F32, F32],
            Helper::BinaryF64 => &[I32, F64, F64],
            Helper::TernaryF32 => &[I32, F32, F32, F32],
            Helper::TernaryF64 => &[I32, F64, F64, F64],
        }
    }

    /// Parameter types with the pointer type filled in.
    pub fn params(self, ptr: ir::Type) -> Vec<ir::Type> {
        self.raw_params()
            .iter()
            .map(|&ty| if ty == P { ptr } else { ty })
            .collect()
    }

    /// The result type, if any.
    pub fn ret(self, ptr: ir::Type) -> Option<ir::Type> {
        match self {
            Helper::Fault | Helper::Vector => None,
            Helper::EnterFrame => Some(ptr),
            Helper::CallNode | Helper::Unary | Helper::Binary | Helper::Ternary => Some(I64),
            Helper::UnaryF32 | Helper::BinaryF32 | Helper::TernaryF32 => Some(F32),
            Helper::UnaryF64 | Helper::BinaryF64 | Helper::TernaryF64 => Some(F64),
            _ => Some(I32),
        }
    }

    /// The offset in [`RunContext`] of the helper's address, for the host-call helpers (which
    /// are instantiated per host type, see [`c::HostFns`]); `None` for the others, which are at
    /// [`Self::address`].
    pub fn context_slot(self) -> Option<i32> {
        let fns = std::mem::offset_of!(RunContext<'static>, host_fns);
        let field = match self {
            Helper::CreateResource => std::mem::offset_of!(c::HostFns, create_resource),
            Helper::DescribeResource => std::mem::offset_of!(c::HostFns, describe_resource),
            Helper::CallNode => std::mem::offset_of!(c::HostFns, call_node),
            Helper::Marker => std::mem::offset_of!(c::HostFns, marker),
            _ => return None,
        };
        Some((fns + field) as i32)
    }

    /// The helper's code address (0 for the helpers with a [`Self::context_slot`]).
    pub fn address(self) -> usize {
        type Ctx = *mut RunContext<'static>;
        match self {
            Helper::Fault => c::jit_fault as extern "C" fn(Ctx, i64, i64, i64) as usize,
            Helper::EnterFrame => {
                c::jit_enter_frame as extern "C" fn(Ctx, i64, i64, i64) -> *mut u8 as usize
            }
            Helper::MemCopy => {
                c::jit_mem_copy as extern "C" fn(Ctx, i64, i64, i64, i64, i64) -> i32 as usize
            }
            Helper::MemEq => {
                c::jit_mem_eq as extern "C" fn(Ctx, i64, i64, i64, i64, i64) -> i32 as usize
            }
            Helper::MemZero => {
                c::jit_mem_zero as extern "C" fn(Ctx, i64, i64, i64, i64) -> i32 as usize
            }
            // Instantiated per host type: generated code reads their addresses from the run
            // context ([`Helper::context_slot`]).
            Helper::CreateResource
            | Helper::DescribeResource
            | Helper::CallNode
            | Helper::Marker => 0,
            Helper::Unary => c::jit_unary as extern "C" fn(i32, i64) -> i64 as usize,
            Helper::Binary => c::jit_binary as extern "C" fn(i32, i64, i64) -> i64 as usize,
            Helper::Ternary => c::jit_ternary as extern "C" fn(i32, i64, i64, i64) -> i64 as usize,
            Helper::Vector => {
                c::jit_vector as extern "C" fn(i32, i32, i32, i32, *const u64, *mut u64) as usize
            }
            Helper::UnaryF32 => c::jit_unary_f32 as extern "C" fn(i32, f32) -> f32 as usize,
            Helper::UnaryF64 => c::jit_unary_f64 as extern "C" fn(i32, f64) -> f64 as usize,
            Helper::BinaryF32 => c::jit_binary_f32 as extern "C" fn(i32, f32, f32) -> f32 as usize,
            Helper::BinaryF64 => c::jit_binary_f64 as extern "C" fn(i32, f64, f64) -> f64 as usize,
            Helper::TernaryF32 => {
                c::jit_ternary_f32 as extern "C" fn(i32, f32, f32, f32) -> f32 as usize
            }
            Helper::TernaryF64 => {
                c::jit_ternary_f64 as extern "C" fn(i32, f64, f64, f64) -> f64 as usize
            }
        }
    }
}
