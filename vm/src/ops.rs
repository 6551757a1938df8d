//! Operation tables of the arithmetic instructions: unary, binary and ternary ops, vector ops and
//! scheduler markers.
//!
//! Each table is one `define_op_enum!` list; every entry documents the op and gives its text name
//! (`add.i32`), its operand type and its result type. Naming rule: `<operation>.<operand type>`;
//! the operand type names the signedness when it matters (`div.u32`, `shr.i32`). The verifier takes
//! operand and result types from these tables; the evaluators live in [`crate::eval`].

use crate::types::Type;

macro_rules! define_op_enum {
    ($(#[$enum_doc:meta])* $enum_name:ident { $( $(#[$doc:meta])* $name:ident = $mnemonic:literal : $arg:ident -> $ret:ident, )* }) => {
        $(#[$enum_doc])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
        #[repr(u8)]
        pub enum $enum_name {
            $( $(#[$doc])* $name, )*
        }

        impl $enum_name {
            /// Every op, in encoding order.
            pub const ALL: &'static [$enum_name] = &[ $( $enum_name::$name, )* ];

            /// The text name (`add.i32`).
            pub fn mnemonic(self) -> &'static str {
                match self { $( $enum_name::$name => $mnemonic, )* }
            }

            /// The type of every operand.
            pub fn operand_type(self) -> Type {
                match self { $( $enum_name::$name => Type::$arg, )* }
            }

            /// The type of the result.
            pub fn result_type(self) -> Type {
                match self { $( $enum_name::$name => Type::$ret, )* }
            }

            /// The op with this encoding byte.
            pub fn from_u8(byte: u8) -> Option<Self> {
                Self::ALL.get(byte as usize).copied()
            }
        }

        impl std::fmt::Display for $enum_name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.mnemonic())
            }
        }
    };
}

define_op_enum! {
    /// A one-operand op: `v2 = floor.f32 v1`.
    UnaryOp {
        /// Negation (wrapping for integers).
        NegI32 = "neg.i32": I32 -> I32,
        /// Negation (wrapping for integers).
        NegU32 = "neg.u32": U32 -> U32,
        /// Negation (wrapping for integers).
        NegI64 = "neg.i64": I64 -> I64,
        /// Negation (wrapping for integers).
        NegU64 = "neg.u64": U64 -> U64,
        /// Negation (wrapping for integers).
        NegF32 = "neg.f32": F32 -> F32,
        /// Negation (wrapping for integers).
        NegF64 = "neg.f64": F64 -> F64,
        /// Bitwise complement `~x`.
        NotI32 = "not.i32": I32 -> I32,
        /// Bitwise complement `~x`.
        NotU32 = "not.u32": U32 -> U32,
        /// Bitwise complement `~x`.
        NotI64 = "not.i64": I64 -> I64,
        /// Bitwise complement `~x`.
        NotU64 = "not.u64": U64 -> U64,
        /// Logical `!x`.
        NotBool = "not.bool": Bool -> Bool,
        /// Absolute value, wrapping (`abs(INT_MIN) == INT_MIN`).
        AbsI32 = "abs.i32": I32 -> I32,
        /// Absolute value, wrapping (`abs(INT_MIN) == INT_MIN`).
        AbsI64 = "abs.i64": I64 -> I64,
        /// `countbits`: number of set bits.
        CountbitsU32 = "countbits.u32": U32 -> U32,
        /// `reversebits`: bit 0 swaps with bit 31.
        ReversebitsU32 = "reversebits.u32": U32 -> U32,
        /// `firstbithigh(uint)`: index from the LSB of the highest set bit, 0xFFFFFFFF when none.
        FirstbithighU32 = "firstbithigh.u32": U32 -> U32,
        /// `firstbithigh(int)`: like the unsigned form on non-negative values; on negative values the highest 0 bit; -1 when none.
        FirstbithighI32 = "firstbithigh.i32": I32 -> I32,
        /// `firstbitlow`: index of the lowest set bit, 0xFFFFFFFF when none.
        FirstbitlowU32 = "firstbitlow.u32": U32 -> U32,
        /// Absolute value (clears the sign bit).
        AbsF32 = "abs.f32": F32 -> F32,
        /// `floor`.
        FloorF32 = "floor.f32": F32 -> F32,
        /// `ceil`.
        CeilF32 = "ceil.f32": F32 -> F32,
        /// `round`: to nearest, ties to even.
        RoundF32 = "round.f32": F32 -> F32,
        /// `trunc`: toward zero.
        TruncF32 = "trunc.f32": F32 -> F32,
        /// `frac(x) = x - floor(x)`.
        FracF32 = "frac.f32": F32 -> F32,
        /// `sqrt`.
        SqrtF32 = "sqrt.f32": F32 -> F32,
        /// `rsqrt(x) = 1 / sqrt(x)`.
        RsqrtF32 = "rsqrt.f32": F32 -> F32,
        /// `rcp(x) = 1 / x`.
        RcpF32 = "rcp.f32": F32 -> F32,
        /// `saturate`: clamp to [0, 1], NaN gives 0.
        SaturateF32 = "saturate.f32": F32 -> F32,
        /// `sin`.
        SinF32 = "sin.f32": F32 -> F32,
        /// `cos`.
        CosF32 = "cos.f32": F32 -> F32,
        /// `tan`.
        TanF32 = "tan.f32": F32 -> F32,
        /// `asin`.
        AsinF32 = "asin.f32": F32 -> F32,
        /// `acos`.
        AcosF32 = "acos.f32": F32 -> F32,
        /// `atan`.
        AtanF32 = "atan.f32": F32 -> F32,
        /// `sinh`.
        SinhF32 = "sinh.f32": F32 -> F32,
        /// `cosh`.
        CoshF32 = "cosh.f32": F32 -> F32,
        /// `tanh`.
        TanhF32 = "tanh.f32": F32 -> F32,
        /// `exp`.
        ExpF32 = "exp.f32": F32 -> F32,
        /// `exp2`.
        Exp2F32 = "exp2.f32": F32 -> F32,
        /// `log` (natural).
        LogF32 = "log.f32": F32 -> F32,
        /// `log2`.
        Log2F32 = "log2.f32": F32 -> F32,
        /// `log10`.
        Log10F32 = "log10.f32": F32 -> F32,
        /// `degrees(x) = x * (180 / pi)`.
        DegreesF32 = "degrees.f32": F32 -> F32,
        /// `radians(x) = x * (pi / 180)`.
        RadiansF32 = "radians.f32": F32 -> F32,
        /// Absolute value (clears the sign bit).
        AbsF64 = "abs.f64": F64 -> F64,
        /// `floor`.
        FloorF64 = "floor.f64": F64 -> F64,
        /// `ceil`.
        CeilF64 = "ceil.f64": F64 -> F64,
        /// `round`: to nearest, ties to even.
        RoundF64 = "round.f64": F64 -> F64,
        /// `trunc`: toward zero.
        TruncF64 = "trunc.f64": F64 -> F64,
        /// `frac(x) = x - floor(x)`.
        FracF64 = "frac.f64": F64 -> F64,
        /// `sqrt`.
        SqrtF64 = "sqrt.f64": F64 -> F64,
        /// `rsqrt(x) = 1 / sqrt(x)`.
        RsqrtF64 = "rsqrt.f64": F64 -> F64,
        /// `rcp(x) = 1 / x`.
        RcpF64 = "rcp.f64": F64 -> F64,
        /// `saturate`: clamp to [0, 1], NaN gives 0.
        SaturateF64 = "saturate.f64": F64 -> F64,
        /// `sin`.
        SinF64 = "sin.f64": F64 -> F64,
        /// `cos`.
        CosF64 = "cos.f64": F64 -> F64,
        /// `tan`.
        TanF64 = "tan.f64": F64 -> F64,
        /// `asin`.
        AsinF64 = "asin.f64": F64 -> F64,
        /// `acos`.
        AcosF64 = "acos.f64": F64 -> F64,
        /// `atan`.
        AtanF64 = "atan.f64": F64 -> F64,
        /// `sinh`.
        SinhF64 = "sinh.f64": F64 -> F64,
        /// `cosh`.
        CoshF64 = "cosh.f64": F64 -> F64,
        /// `tanh`.
        TanhF64 = "tanh.f64": F64 -> F64,
        /// `exp`.
        ExpF64 = "exp.f64": F64 -> F64,
        /// `exp2`.
        Exp2F64 = "exp2.f64": F64 -> F64,
        /// `log` (natural).
        LogF64 = "log.f64": F64 -> F64,
        /// `log2`.
        Log2F64 = "log2.f64": F64 -> F64,
        /// `log10`.
        Log10F64 = "log10.f64": F64 -> F64,
        /// `degrees(x) = x * (180 / pi)`.
        DegreesF64 = "degrees.f64": F64 -> F64,
        /// `radians(x) = x * (pi / 180)`.
        RadiansF64 = "radians.f64": F64 -> F64,
        /// `sign`: -1, 0 or 1 as `int` (0 for NaN).
        SignF32 = "sign.f32": F32 -> I32,
        /// `sign`: -1, 0 or 1 as `int` (0 for NaN).
        SignF64 = "sign.f64": F64 -> I32,
        /// `sign`: -1, 0 or 1 as `int` (0 for NaN).
        SignI32 = "sign.i32": I32 -> I32,
        /// `sign`: -1, 0 or 1 as `int` (0 for NaN).
        SignI64 = "sign.i64": I64 -> I32,
        /// `isnan`.
        IsnanF32 = "isnan.f32": F32 -> Bool,
        /// `isinf`.
        IsinfF32 = "isinf.f32": F32 -> Bool,
        /// `isfinite`.
        IsfiniteF32 = "isfinite.f32": F32 -> Bool,
        /// `isnan`.
        IsnanF64 = "isnan.f64": F64 -> Bool,
        /// `isinf`.
        IsinfF64 = "isinf.f64": F64 -> Bool,
        /// `isfinite`.
        IsfiniteF64 = "isfinite.f64": F64 -> Bool,
        /// `modf(x)`: the fractional part with the sign of x (±0 for infinities).
        ModfF32 = "modf.f32": F32 -> F32,
        /// `modf(x)`: the fractional part with the sign of x (±0 for infinities).
        ModfF64 = "modf.f64": F64 -> F64,
        /// `frexp(x)`: the mantissa in [0.5, 1) with the sign of x (x itself for 0, inf, NaN).
        FrexpMantissaF32 = "frexp_mantissa.f32": F32 -> F32,
        /// `frexp(x)`: the mantissa in [0.5, 1) with the sign of x (x itself for 0, inf, NaN).
        FrexpMantissaF64 = "frexp_mantissa.f64": F64 -> F64,
        /// `frexp(x, e)`'s exponent e as a float (0 for 0, inf, NaN).
        FrexpExponentF32 = "frexp_exponent.f32": F32 -> F32,
        /// `frexp(x, e)`'s exponent e as a float (0 for 0, inf, NaN).
        FrexpExponentF64 = "frexp_exponent.f64": F64 -> F64,
        /// `f16tof32`: the half in the low 16 bits as a float, exactly.
        F16tof32U32 = "f16tof32.u32": U32 -> F32,
        /// `f32tof16`: rounded to half (ties to even), bits in the low 16 bits.
        F32tof16F32 = "f32tof16.f32": F32 -> U32,
    }
}

define_op_enum! {
    /// A two-operand op, both operands of the same type: `v3 = add.i32 v1, v2`.
    BinaryOp {
        /// Addition (wrapping for integers).
        AddI32 = "add.i32": I32 -> I32,
        /// Subtraction (wrapping for integers).
        SubI32 = "sub.i32": I32 -> I32,
        /// Multiplication (wrapping for integers).
        MulI32 = "mul.i32": I32 -> I32,
        /// Division: integers truncate toward zero and fault on a zero divisor (MIN / -1 wraps to MIN); floats are IEEE.
        DivI32 = "div.i32": I32 -> I32,
        /// Remainder with the sign of the dividend: integers fault on a zero divisor (MIN % -1 = 0); floats are `fmod`.
        RemI32 = "rem.i32": I32 -> I32,
        /// Addition (wrapping for integers).
        AddU32 = "add.u32": U32 -> U32,
        /// Subtraction (wrapping for integers).
        SubU32 = "sub.u32": U32 -> U32,
        /// Multiplication (wrapping for integers).
        MulU32 = "mul.u32": U32 -> U32,
        /// Division: integers truncate toward zero and fault on a zero divisor (MIN / -1 wraps to MIN); floats are IEEE.
        DivU32 = "div.u32": U32 -> U32,
        /// Remainder with the sign of the dividend: integers fault on a zero divisor (MIN % -1 = 0); floats are `fmod`.
        RemU32 = "rem.u32": U32 -> U32,
        /// Addition (wrapping for integers).
        AddI64 = "add.i64": I64 -> I64,
        /// Subtraction (wrapping for integers).
        SubI64 = "sub.i64": I64 -> I64,
        /// Multiplication (wrapping for integers).
        MulI64 = "mul.i64": I64 -> I64,
        /// Division: integers truncate toward zero and fault on a zero divisor (MIN / -1 wraps to MIN); floats are IEEE.
        DivI64 = "div.i64": I64 -> I64,
        /// Remainder with the sign of the dividend: integers fault on a zero divisor (MIN % -1 = 0); floats are `fmod`.
        RemI64 = "rem.i64": I64 -> I64,
        /// Addition (wrapping for integers).
        AddU64 = "add.u64": U64 -> U64,
        /// Subtraction (wrapping for integers).
        SubU64 = "sub.u64": U64 -> U64,
        /// Multiplication (wrapping for integers).
        MulU64 = "mul.u64": U64 -> U64,
        /// Division: integers truncate toward zero and fault on a zero divisor (MIN / -1 wraps to MIN); floats are IEEE.
        DivU64 = "div.u64": U64 -> U64,
        /// Remainder with the sign of the dividend: integers fault on a zero divisor (MIN % -1 = 0); floats are `fmod`.
        RemU64 = "rem.u64": U64 -> U64,
        /// Addition (wrapping for integers).
        AddF32 = "add.f32": F32 -> F32,
        /// Subtraction (wrapping for integers).
        SubF32 = "sub.f32": F32 -> F32,
        /// Multiplication (wrapping for integers).
        MulF32 = "mul.f32": F32 -> F32,
        /// Division: integers truncate toward zero and fault on a zero divisor (MIN / -1 wraps to MIN); floats are IEEE.
        DivF32 = "div.f32": F32 -> F32,
        /// Remainder with the sign of the dividend: integers fault on a zero divisor (MIN % -1 = 0); floats are `fmod`.
        RemF32 = "rem.f32": F32 -> F32,
        /// Addition (wrapping for integers).
        AddF64 = "add.f64": F64 -> F64,
        /// Subtraction (wrapping for integers).
        SubF64 = "sub.f64": F64 -> F64,
        /// Multiplication (wrapping for integers).
        MulF64 = "mul.f64": F64 -> F64,
        /// Division: integers truncate toward zero and fault on a zero divisor (MIN / -1 wraps to MIN); floats are IEEE.
        DivF64 = "div.f64": F64 -> F64,
        /// Remainder with the sign of the dividend: integers fault on a zero divisor (MIN % -1 = 0); floats are `fmod`.
        RemF64 = "rem.f64": F64 -> F64,
        /// Bitwise and.
        AndI32 = "and.i32": I32 -> I32,
        /// Bitwise or.
        OrI32 = "or.i32": I32 -> I32,
        /// Bitwise xor.
        XorI32 = "xor.i32": I32 -> I32,
        /// Shift left; the count is masked to the bit width.
        ShlI32 = "shl.i32": I32 -> I32,
        /// Shift right (arithmetic when signed); the count is masked to the bit width.
        ShrI32 = "shr.i32": I32 -> I32,
        /// Bitwise and.
        AndU32 = "and.u32": U32 -> U32,
        /// Bitwise or.
        OrU32 = "or.u32": U32 -> U32,
        /// Bitwise xor.
        XorU32 = "xor.u32": U32 -> U32,
        /// Shift left; the count is masked to the bit width.
        ShlU32 = "shl.u32": U32 -> U32,
        /// Shift right (arithmetic when signed); the count is masked to the bit width.
        ShrU32 = "shr.u32": U32 -> U32,
        /// Bitwise and.
        AndI64 = "and.i64": I64 -> I64,
        /// Bitwise or.
        OrI64 = "or.i64": I64 -> I64,
        /// Bitwise xor.
        XorI64 = "xor.i64": I64 -> I64,
        /// Shift left; the count is masked to the bit width.
        ShlI64 = "shl.i64": I64 -> I64,
        /// Shift right (arithmetic when signed); the count is masked to the bit width.
        ShrI64 = "shr.i64": I64 -> I64,
        /// Bitwise and.
        AndU64 = "and.u64": U64 -> U64,
        /// Bitwise or.
        OrU64 = "or.u64": U64 -> U64,
        /// Bitwise xor.
        XorU64 = "xor.u64": U64 -> U64,
        /// Shift left; the count is masked to the bit width.
        ShlU64 = "shl.u64": U64 -> U64,
        /// Shift right (arithmetic when signed); the count is masked to the bit width.
        ShrU64 = "shr.u64": U64 -> U64,
        /// Logical and (both operands evaluated).
        AndBool = "and.bool": Bool -> Bool,
        /// Logical or (both operands evaluated).
        OrBool = "or.bool": Bool -> Bool,
        /// Logical xor.
        XorBool = "xor.bool": Bool -> Bool,
        /// `==` (IEEE for floats: NaN is unequal to everything).
        EqBool = "eq.bool": Bool -> Bool,
        /// `!=` (true when either float is NaN).
        NeBool = "ne.bool": Bool -> Bool,
        /// `==` (IEEE for floats: NaN is unequal to everything).
        EqI32 = "eq.i32": I32 -> Bool,
        /// `!=` (true when either float is NaN).
        NeI32 = "ne.i32": I32 -> Bool,
        /// `==` (IEEE for floats: NaN is unequal to everything).
        EqU32 = "eq.u32": U32 -> Bool,
        /// `!=` (true when either float is NaN).
        NeU32 = "ne.u32": U32 -> Bool,
        /// `==` (IEEE for floats: NaN is unequal to everything).
        EqI64 = "eq.i64": I64 -> Bool,
        /// `!=` (true when either float is NaN).
        NeI64 = "ne.i64": I64 -> Bool,
        /// `==` (IEEE for floats: NaN is unequal to everything).
        EqU64 = "eq.u64": U64 -> Bool,
        /// `!=` (true when either float is NaN).
        NeU64 = "ne.u64": U64 -> Bool,
        /// `==` (IEEE for floats: NaN is unequal to everything).
        EqF32 = "eq.f32": F32 -> Bool,
        /// `!=` (true when either float is NaN).
        NeF32 = "ne.f32": F32 -> Bool,
        /// `==` (IEEE for floats: NaN is unequal to everything).
        EqF64 = "eq.f64": F64 -> Bool,
        /// `!=` (true when either float is NaN).
        NeF64 = "ne.f64": F64 -> Bool,
        /// `<` (false when either float is NaN).
        LtI32 = "lt.i32": I32 -> Bool,
        /// `<=`.
        LeI32 = "le.i32": I32 -> Bool,
        /// `>`.
        GtI32 = "gt.i32": I32 -> Bool,
        /// `>=`.
        GeI32 = "ge.i32": I32 -> Bool,
        /// `min`; for floats IEEE minNum (a NaN operand yields the other one).
        MinI32 = "min.i32": I32 -> I32,
        /// `max`; for floats IEEE maxNum (a NaN operand yields the other one).
        MaxI32 = "max.i32": I32 -> I32,
        /// `<` (false when either float is NaN).
        LtU32 = "lt.u32": U32 -> Bool,
        /// `<=`.
        LeU32 = "le.u32": U32 -> Bool,
        /// `>`.
        GtU32 = "gt.u32": U32 -> Bool,
        /// `>=`.
        GeU32 = "ge.u32": U32 -> Bool,
        /// `min`; for floats IEEE minNum (a NaN operand yields the other one).
        MinU32 = "min.u32": U32 -> U32,
        /// `max`; for floats IEEE maxNum (a NaN operand yields the other one).
        MaxU32 = "max.u32": U32 -> U32,
        /// `<` (false when either float is NaN).
        LtI64 = "lt.i64": I64 -> Bool,
        /// `<=`.
        LeI64 = "le.i64": I64 -> Bool,
        /// `>`.
        GtI64 = "gt.i64": I64 -> Bool,
        /// `>=`.
        GeI64 = "ge.i64": I64 -> Bool,
        /// `min`; for floats IEEE minNum (a NaN operand yields the other one).
        MinI64 = "min.i64": I64 -> I64,
        /// `max`; for floats IEEE maxNum (a NaN operand yields the other one).
        MaxI64 = "max.i64": I64 -> I64,
        /// `<` (false when either float is NaN).
        LtU64 = "lt.u64": U64 -> Bool,
        /// `<=`.
        LeU64 = "le.u64": U64 -> Bool,
        /// `>`.
        GtU64 = "gt.u64": U64 -> Bool,
        /// `>=`.
        GeU64 = "ge.u64": U64 -> Bool,
        /// `min`; for floats IEEE minNum (a NaN operand yields the other one).
        MinU64 = "min.u64": U64 -> U64,
        /// `max`; for floats IEEE maxNum (a NaN operand yields the other one).
        MaxU64 = "max.u64": U64 -> U64,
        /// `<` (false when either float is NaN).
        LtF32 = "lt.f32": F32 -> Bool,
        /// `<=`.
        LeF32 = "le.f32": F32 -> Bool,
        /// `>`.
        GtF32 = "gt.f32": F32 -> Bool,
        /// `>=`.
        GeF32 = "ge.f32": F32 -> Bool,
        /// `min`; for floats IEEE minNum (a NaN operand yields the other one).
        MinF32 = "min.f32": F32 -> F32,
        /// `max`; for floats IEEE maxNum (a NaN operand yields the other one).
        MaxF32 = "max.f32": F32 -> F32,
        /// `<` (false when either float is NaN).
        LtF64 = "lt.f64": F64 -> Bool,
        /// `<=`.
        LeF64 = "le.f64": F64 -> Bool,
        /// `>`.
        GtF64 = "gt.f64": F64 -> Bool,
        /// `>=`.
        GeF64 = "ge.f64": F64 -> Bool,
        /// `min`; for floats IEEE minNum (a NaN operand yields the other one).
        MinF64 = "min.f64": F64 -> F64,
        /// `max`; for floats IEEE maxNum (a NaN operand yields the other one).
        MaxF64 = "max.f64": F64 -> F64,
        /// `atan2(y, x)`.
        Atan2F32 = "atan2.f32": F32 -> F32,
        /// `pow(x, y)`.
        PowF32 = "pow.f32": F32 -> F32,
        /// `step(y, x)`: 1 when x >= y, else 0.
        StepF32 = "step.f32": F32 -> F32,
        /// `atan2(y, x)`.
        Atan2F64 = "atan2.f64": F64 -> F64,
        /// `pow(x, y)`.
        PowF64 = "pow.f64": F64 -> F64,
        /// `step(y, x)`: 1 when x >= y, else 0.
        StepF64 = "step.f64": F64 -> F64,
    }
}

define_op_enum! {
    /// A three-operand op, all operands of the same type: `v4 = lerp.f32 v1, v2, v3`.
    TernaryOp {
        /// `lerp(x, y, s) = x + s * (y - x)`, no fused multiply-add.
        LerpF32 = "lerp.f32": F32 -> F32,
        /// `smoothstep(min, max, x)`: t = saturate((x - min) / (max - min)), t * t * (3 - 2 * t).
        SmoothstepF32 = "smoothstep.f32": F32 -> F32,
        /// `mad(a, b, c) = a * b + c` with two roundings (no fused multiply-add).
        MadF32 = "mad.f32": F32 -> F32,
        /// `lerp(x, y, s) = x + s * (y - x)`, no fused multiply-add.
        LerpF64 = "lerp.f64": F64 -> F64,
        /// `smoothstep(min, max, x)`: t = saturate((x - min) / (max - min)), t * t * (3 - 2 * t).
        SmoothstepF64 = "smoothstep.f64": F64 -> F64,
        /// `mad(a, b, c) = a * b + c` with two roundings (no fused multiply-add).
        MadF64 = "mad.f64": F64 -> F64,
        /// `clamp(x, lo, hi) = min(max(x, lo), hi)`.
        ClampI32 = "clamp.i32": I32 -> I32,
        /// `clamp(x, lo, hi) = min(max(x, lo), hi)`.
        ClampU32 = "clamp.u32": U32 -> U32,
        /// `clamp(x, lo, hi) = min(max(x, lo), hi)`.
        ClampI64 = "clamp.i64": I64 -> I64,
        /// `clamp(x, lo, hi) = min(max(x, lo), hi)`.
        ClampU64 = "clamp.u64": U64 -> U64,
        /// `clamp(x, lo, hi) = min(max(x, lo), hi)`.
        ClampF32 = "clamp.f32": F32 -> F32,
        /// `clamp(x, lo, hi) = min(max(x, lo), hi)`.
        ClampF64 = "clamp.f64": F64 -> F64,
        /// `mad(a, b, c) = a * b + c`, wrapping.
        MadI32 = "mad.i32": I32 -> I32,
        /// `mad(a, b, c) = a * b + c`, wrapping.
        MadU32 = "mad.u32": U32 -> U32,
        /// `mad(a, b, c) = a * b + c`, wrapping.
        MadI64 = "mad.i64": I64 -> I64,
        /// `mad(a, b, c) = a * b + c`, wrapping.
        MadU64 = "mad.u64": U64 -> U64,
        /// `fma(a, b, c) = a * b + c` with a single rounding (fused).
        FmaF64 = "fma.f64": F64 -> F64,
    }
}

/// A float vector op over `width` lanes held in consecutive list entries:
/// `v9 = dot.f32x3 [v1, v2, v3], [v4, v5, v6]`. The evaluation order is fixed (see
/// [`crate::intrinsics`]), so the interpreter and the JIT round identically.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
#[repr(u8)]
pub enum VectorOp {
    /// `dot(a, b)`: 2 x width sources (a then b), 1 result.
    Dot,
    /// `length(a)`: width sources, 1 result.
    Length,
    /// `normalize(a)`: width sources, width results.
    Normalize,
    /// `distance(a, b) = length(b - a)`: 2 x width sources, 1 result.
    Distance,
    /// `cross(a, b)`: width must be 3; 6 sources, 3 results.
    Cross,
}

impl VectorOp {
    /// Every vector op, in encoding order.
    pub const ALL: &'static [VectorOp] = &[
        VectorOp::Dot,
        VectorOp::Length,
        VectorOp::Normalize,
        VectorOp::Distance,
        VectorOp::Cross,
    ];

    /// The op with this encoding byte.
    pub fn from_u8(byte: u8) -> Option<Self> {
        Self::ALL.get(byte as usize).copied()
    }

    /// The text name without type (`dot`).
    pub fn name(self) -> &'static str {
        match self {
            VectorOp::Dot => "dot",
            VectorOp::Length => "length",
            VectorOp::Normalize => "normalize",
            VectorOp::Distance => "distance",
            VectorOp::Cross => "cross",
        }
    }

    /// `(number of sources, number of results)` for vectors of `width` lanes, or `None` when the
    /// width is not allowed (2 to 4 lanes; exactly 3 for `cross`).
    pub fn arity(self, width: u8) -> Option<(usize, usize)> {
        let n = width as usize;
        if !(2..=4).contains(&n) {
            return None;
        }
        Some(match self {
            VectorOp::Dot | VectorOp::Distance => (2 * n, 1),
            VectorOp::Length => (n, 1),
            VectorOp::Normalize => (n, n),
            VectorOp::Cross if n == 3 => (6, 3),
            VectorOp::Cross => return None,
        })
    }
}

/// A scheduler marker sent to the host.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
#[repr(u8)]
pub enum MarkerKind {
    /// `sch_barrier()`: nodes are not reordered across this point.
    SchBarrier,
    /// Start of a `[subgraph(...)]` scope; the argument holds [`SUBGRAPH_ATOMIC`] /
    /// [`SUBGRAPH_SEQUENTIAL`] bits.
    SubgraphBegin,
    /// End of the innermost subgraph scope.
    SubgraphEnd,
}

/// Subgraph flag: nodes outside the subgraph are not scheduled between its nodes.
pub const SUBGRAPH_ATOMIC: u32 = 1;
/// Subgraph flag: the subgraph's nodes keep their relative order.
pub const SUBGRAPH_SEQUENTIAL: u32 = 2;

impl MarkerKind {
    /// Every marker kind, in encoding order.
    pub const ALL: &'static [MarkerKind] = &[
        MarkerKind::SchBarrier,
        MarkerKind::SubgraphBegin,
        MarkerKind::SubgraphEnd,
    ];

    /// The kind with this encoding byte.
    pub fn from_u8(byte: u8) -> Option<Self> {
        Self::ALL.get(byte as usize).copied()
    }

    /// The text name (`sch_barrier`).
    pub fn name(self) -> &'static str {
        match self {
            MarkerKind::SchBarrier => "sch_barrier",
            MarkerKind::SubgraphBegin => "subgraph_begin",
            MarkerKind::SubgraphEnd => "subgraph_end",
        }
    }
}

impl std::fmt::Display for MarkerKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
