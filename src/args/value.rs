//! [`EntryValue`]: Rust values that entry arguments take, with the script types each fits.

use rpsl_frontend::hir::{ScalarKind, Type, TypeTable};
use rpsl_vm::Value;

/// A Rust value an entry argument (or a part of one: `light.color`) can be set from with
/// [`crate::EntryArgs::set_value`]. Scalars fit the script scalar of the same kind (`bool`;
/// `i32`: `int` and enums; `u32`: `uint` and node handles; `i64`: `int64_t`; `u64`:
/// `uint64_t`; `f32`: `float` and `half`; `f64`: `double`); `[T; N]` fits a vector of `N`
/// components, a matrix of `N` rows (`[[f32; 4]; 4]`: `float4x4`) or an array of `N` elements.
/// Structs are set field by field, by path.
pub trait EntryValue {
    /// The Rust type's name in error messages (`f32`, `[u32; 2]`).
    fn type_name() -> String
    where
        Self: Sized;

    /// Whether a value of this type fits a script value of type `ty`.
    fn fits(types: &TypeTable, ty: &Type) -> bool
    where
        Self: Sized;

    /// Appends the value's scalars in the order of the script value's leaves (components,
    /// rows, elements), each as the VM holds it.
    fn push_scalars(&self, out: &mut Vec<Value>);
}

macro_rules! scalar_values {
    ($($rust:ty => $variant:ident if $fits:pat,)*) => {$(
        impl EntryValue for $rust {
            fn type_name() -> String {
                stringify!($rust).to_string()
            }

            fn fits(_: &TypeTable, ty: &Type) -> bool {
                matches!(ty.concrete(), $fits)
            }

            fn push_scalars(&self, out: &mut Vec<Value>) {
                out.push(Value::$variant(*self));
            }
        }
    )*};
}

// Enums are held as `int`s, node handles as `uint`s.
scalar_values! {
    bool => Bool if Type::Scalar(ScalarKind::Bool),
    i32 => I32 if Type::Scalar(ScalarKind::Int) | Type::Enum(_),
    u32 => U32 if Type::Scalar(ScalarKind::Uint) | Type::Node,
    i64 => I64 if Type::Scalar(ScalarKind::Int64),
    u64 => U64 if Type::Scalar(ScalarKind::Uint64),
    f32 => F32 if Type::Scalar(ScalarKind::Float | ScalarKind::Half),
    f64 => F64 if Type::Scalar(ScalarKind::Double),
}

impl<T: EntryValue, const N: usize> EntryValue for [T; N] {
    fn type_name() -> String {
        format!("[{}; {N}]", T::type_name())
    }

    fn fits(types: &TypeTable, ty: &Type) -> bool {
        match ty {
            Type::Vector(kind, count) => {
                *count as usize == N && T::fits(types, &Type::Scalar(*kind))
            }
            Type::Matrix(kind, rows, cols) => {
                *rows as usize == N && T::fits(types, &Type::Vector(*kind, *cols))
            }
            Type::Array(elem, Some(count)) => *count as usize == N && T::fits(types, elem),
            _ => false,
        }
    }

    fn push_scalars(&self, out: &mut Vec<Value>) {
        for item in self {
            item.push_scalars(out);
        }
    }
}
