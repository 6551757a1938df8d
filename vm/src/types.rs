//! Register types and run-time values of the bytecode.

use std::fmt;

/// The type of a register. Vectors are not a type: the lowering splits them into one register per
/// lane, which is what the JIT wants (one Cranelift variable per lane). Aggregates live in frame
/// memory and are reached through [`Type::Addr`] registers.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
#[repr(u8)]
pub enum Type {
    /// `true`/`false`; stored in memory as a 4-byte `uint` 0 or 1, like HLSL.
    Bool = 0,
    /// 32-bit signed integer, wrap-around arithmetic.
    I32 = 1,
    /// 32-bit unsigned integer, wrap-around arithmetic.
    U32 = 2,
    /// 64-bit signed integer.
    I64 = 3,
    /// 64-bit unsigned integer.
    U64 = 4,
    /// IEEE-754 binary32.
    F32 = 5,
    /// IEEE-754 binary64.
    F64 = 6,
    /// A byte address in VM memory (the run's stack of frames). Only made by `frame_addr`,
    /// `addr_add`, `index_addr` and parameters; never stored to memory or converted.
    Addr = 7,
}

impl Type {
    /// Every type, in encoding order.
    pub const ALL: [Type; 8] = [
        Type::Bool,
        Type::I32,
        Type::U32,
        Type::I64,
        Type::U64,
        Type::F32,
        Type::F64,
        Type::Addr,
    ];

    /// The type with this encoding byte.
    pub fn from_u8(byte: u8) -> Option<Type> {
        Type::ALL.get(byte as usize).copied()
    }

    /// The text name used by the disassembler (`i32`, `addr`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Type::Bool => "bool",
            Type::I32 => "i32",
            Type::U32 => "u32",
            Type::I64 => "i64",
            Type::U64 => "u64",
            Type::F32 => "f32",
            Type::F64 => "f64",
            Type::Addr => "addr",
        }
    }

    /// Size in bytes when stored in memory; `None` for `addr`, which is never stored.
    pub fn mem_size(self) -> Option<u32> {
        match self {
            Type::Bool | Type::I32 | Type::U32 | Type::F32 => Some(4),
            Type::I64 | Type::U64 | Type::F64 => Some(8),
            Type::Addr => None,
        }
    }

    /// Whether register bits of this type fit in 32 bits (the upper 32 bits are then zero).
    pub fn is_32bit(self) -> bool {
        !matches!(self, Type::I64 | Type::U64 | Type::F64)
    }

    /// Whether this is one of the four integer types.
    pub fn is_int(self) -> bool {
        matches!(self, Type::I32 | Type::U32 | Type::I64 | Type::U64)
    }

    /// Whether this is `f32` or `f64`.
    pub fn is_float(self) -> bool {
        matches!(self, Type::F32 | Type::F64)
    }

    /// Whether values of this type can be converted with `convert` (every type but `addr`).
    pub fn is_scalar(self) -> bool {
        self != Type::Addr
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A typed value crossing the VM boundary (entry arguments, return values, constants).
///
/// Inside the VM every register holds 64 raw bits: 32-bit types are zero-extended, floats are
/// their IEEE bit patterns, `bool` is 0 or 1.
#[derive(Clone, Copy, PartialEq, Debug)]
pub enum Value {
    /// A `bool`.
    Bool(bool),
    /// An `int`.
    I32(i32),
    /// A `uint`.
    U32(u32),
    /// An `int64_t`.
    I64(i64),
    /// A `uint64_t`.
    U64(u64),
    /// A `float`.
    F32(f32),
    /// A `double`.
    F64(f64),
    /// A VM memory address.
    Addr(u32),
}

impl Value {
    /// The register type of this value.
    pub fn ty(self) -> Type {
        match self {
            Value::Bool(_) => Type::Bool,
            Value::I32(_) => Type::I32,
            Value::U32(_) => Type::U32,
            Value::I64(_) => Type::I64,
            Value::U64(_) => Type::U64,
            Value::F32(_) => Type::F32,
            Value::F64(_) => Type::F64,
            Value::Addr(_) => Type::Addr,
        }
    }

    /// The register bits of this value.
    pub fn to_bits(self) -> u64 {
        match self {
            Value::Bool(b) => b as u64,
            Value::I32(x) => x as u32 as u64,
            Value::U32(x) => x as u64,
            Value::I64(x) => x as u64,
            Value::U64(x) => x,
            Value::F32(x) => x.to_bits() as u64,
            Value::F64(x) => x.to_bits(),
            Value::Addr(x) => x as u64,
        }
    }

    /// Reads register bits as a value of type `ty`.
    pub fn from_bits(ty: Type, bits: u64) -> Value {
        match ty {
            Type::Bool => Value::Bool(bits != 0),
            Type::I32 => Value::I32(bits as u32 as i32),
            Type::U32 => Value::U32(bits as u32),
            Type::I64 => Value::I64(bits as i64),
            Type::U64 => Value::U64(bits),
            Type::F32 => Value::F32(f32::from_bits(bits as u32)),
            Type::F64 => Value::F64(f64::from_bits(bits)),
            Type::Addr => Value::Addr(bits as u32),
        }
    }

    /// Whether `bits` is a canonical register value of type `ty` (what `const` accepts).
    pub fn bits_are_canonical(ty: Type, bits: u64) -> bool {
        match ty {
            Type::Bool => bits <= 1,
            Type::Addr => false,
            _ if ty.is_32bit() => bits <= u32::MAX as u64,
            _ => true,
        }
    }
}

impl fmt::Display for Value {
    /// Prints the value the way the disassembler prints constants: integers in decimal, floats in
    /// the shortest form that reads back to the same bits (NaNs with their bit pattern).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Value::Bool(b) => write!(f, "{b}"),
            Value::I32(x) => write!(f, "{x}"),
            Value::U32(x) => write!(f, "{x}"),
            Value::I64(x) => write!(f, "{x}"),
            Value::U64(x) => write!(f, "{x}"),
            Value::F32(x) if x.is_nan() => write!(f, "nan:0x{:08x}", x.to_bits()),
            Value::F64(x) if x.is_nan() => write!(f, "nan:0x{:016x}", x.to_bits()),
            Value::F32(x) => write!(f, "{x:?}"),
            Value::F64(x) => write!(f, "{x:?}"),
            Value::Addr(x) => write!(f, "@{x}"),
        }
    }
}
