//! HLSL intrinsic semantics as plain Rust functions, shared by the interpreter and (as host-called
//! helpers or inline equivalents) the JIT, so that both compute bit-identical results.
//!
//! `docs/semantics.md` explains each choice; in short: IEEE-754 arithmetic with no fused
//! multiply-add, `round` ties to even, `min`/`max` are IEEE minNum/maxNum (a NaN operand yields the
//! other one), `firstbithigh`/`firstbitlow` return bit indices from the LSB and `0xFFFFFFFF` when no
//! bit qualifies, float-to-int conversion saturates with NaN giving 0, integer division truncates
//! toward zero.

/// `countbits(x)`: the number of set bits.
pub fn countbits(x: u32) -> u32 {
    x.count_ones()
}

/// `reversebits(x)`: bit `i` moves to bit `31 - i`.
pub fn reversebits(x: u32) -> u32 {
    x.reverse_bits()
}

/// `firstbithigh(uint)`: the index (from the LSB) of the highest set bit; `0xFFFFFFFF` when `x == 0`.
pub fn firstbithigh_u32(x: u32) -> u32 {
    if x == 0 {
        u32::MAX
    } else {
        31 - x.leading_zeros()
    }
}

/// `firstbithigh(int)`: for non-negative values the highest set bit, for negative values the
/// highest *clear* bit (the first bit that differs from the sign); -1 when there is none
/// (`x == 0` or `x == -1`).
pub fn firstbithigh_i32(x: i32) -> i32 {
    let magnitude = if x < 0 { !x } else { x } as u32;
    firstbithigh_u32(magnitude) as i32
}

/// `firstbitlow(x)`: the index of the lowest set bit; `0xFFFFFFFF` when `x == 0`.
pub fn firstbitlow(x: u32) -> u32 {
    if x == 0 {
        u32::MAX
    } else {
        x.trailing_zeros()
    }
}

/// Integer division truncating toward zero; `None` for a zero divisor; `MIN / -1` wraps to `MIN`.
pub fn div_i32(a: i32, b: i32) -> Option<i32> {
    (b != 0).then(|| a.wrapping_div(b))
}

/// Remainder with the sign of the dividend; `None` for a zero divisor; `MIN % -1` is 0.
pub fn rem_i32(a: i32, b: i32) -> Option<i32> {
    (b != 0).then(|| a.wrapping_rem(b))
}

/// `abs(int)`, wrapping: `abs(i32::MIN) == i32::MIN`.
pub fn abs_i32(x: i32) -> i32 {
    x.wrapping_abs()
}

/// `sign(int)`: -1, 0 or 1.
pub fn sign_i32(x: i32) -> i32 {
    x.signum()
}

/// `x << n` with `n` masked to 0..=31.
pub fn shl_u32(x: u32, n: u32) -> u32 {
    x.wrapping_shl(n)
}

/// Arithmetic `x >> n` with `n` masked to 0..=31.
pub fn shr_i32(x: i32, n: u32) -> i32 {
    x.wrapping_shr(n)
}

/// `f32tof16(x)`: `x` rounded to the nearest IEEE binary16 value (ties to even), its bits in the
/// low 16 bits. Too large values give ±infinity, too small ones ±0 or a half denormal; every NaN
/// gives the quiet NaN `0x7E00` (its sign and payload are ignored, like every other op's: which
/// NaN arithmetic produces is not defined, see `docs/semantics.md`).
pub fn f32tof16(x: f32) -> u32 {
    if x.is_nan() {
        return 0x7E00;
    }
    let bits = x.to_bits();
    let sign = (bits >> 16) & 0x8000;
    let exponent = ((bits >> 23) & 0xFF) as i32;
    let mantissa = bits & 0x007F_FFFF;
    if exponent == 0xFF {
        return sign | 0x7C00;
    }
    // The value's exponent re-biased for half (bias 15 instead of 127).
    let half_exponent = exponent - 127 + 15;
    if half_exponent >= 0x1F {
        return sign | 0x7C00;
    }
    if half_exponent <= 0 {
        // A half denormal (or zero): the significand with its implicit bit, shifted right by
        // 14 - half_exponent bits (24-bit significand down to the 10-bit denormal field).
        if half_exponent < -10 {
            return sign;
        }
        let significand = mantissa | 0x0080_0000;
        let shift = (14 - half_exponent) as u32;
        return sign | round_shift_right(significand, shift);
    }
    // Normal: 13 mantissa bits drop; a carry out of the mantissa bumps the exponent (and may give
    // infinity, 0x7C00, which is the right result).
    let combined = ((half_exponent as u32) << 23) | mantissa;
    sign | round_shift_right(combined, 13)
}

/// `value >> shift` rounded to nearest, ties to even (`shift` in 1..=31).
fn round_shift_right(value: u32, shift: u32) -> u32 {
    let kept = value >> shift;
    let dropped = value & ((1 << shift) - 1);
    let half = 1 << (shift - 1);
    if dropped > half || (dropped == half && kept & 1 == 1) {
        kept + 1
    } else {
        kept
    }
}

/// `f16tof32(x)`: the IEEE binary16 value in the low 16 bits of `x`, exactly, as `f32` (the high
/// bits are ignored).
pub fn f16tof32(x: u32) -> f32 {
    let sign = (x & 0x8000) << 16;
    let exponent = (x >> 10) & 0x1F;
    let mantissa = x & 0x03FF;
    let bits = match (exponent, mantissa) {
        (0, 0) => sign,
        (0, _) => {
            // A denormal: mantissa * 2^-24, exact in f32.
            let magnitude = mantissa as f32 * f32::from_bits(0x3380_0000);
            sign | magnitude.to_bits()
        }
        (0x1F, 0) => sign | 0x7F80_0000,
        (0x1F, _) => sign | 0x7FC0_0000 | (mantissa << 13),
        _ => sign | ((exponent + 127 - 15) << 23) | (mantissa << 13),
    };
    f32::from_bits(bits)
}

macro_rules! float_intrinsics {
    ($module:ident, $f:ident, $i:ident, $u:ident) => {
        /// Float intrinsics for this width.
        pub mod $module {
            /// `round(x)`: to nearest, ties to even (`round(2.5) == 2`, `round(-0.5) == -0.0`).
            pub fn round(x: $f) -> $f {
                x.round_ties_even()
            }

            /// `frac(x) = x - floor(x)` (in [0, 1) for finite x; `frac(-0.25) == 0.75`).
            pub fn frac(x: $f) -> $f {
                x - x.floor()
            }

            /// `rcp(x) = 1 / x`.
            pub fn rcp(x: $f) -> $f {
                1.0 / x
            }

            /// `rsqrt(x) = 1 / sqrt(x)`, correctly rounded division of a correctly rounded root.
            pub fn rsqrt(x: $f) -> $f {
                1.0 / x.sqrt()
            }

            /// `saturate(x)`: clamp to [0, 1]; NaN gives 0 (maxNum then minNum).
            pub fn saturate(x: $f) -> $f {
                x.max(0.0).min(1.0)
            }

            /// `sign(x)` as `int`: -1, 0 or 1; 0 for ±0 and NaN.
            pub fn sign(x: $f) -> i32 {
                (x > 0.0) as i32 - (x < 0.0) as i32
            }

            /// `fmod(x, y)`: remainder of truncated division, with the sign of `x`
            /// (`fmod(-7, 3) == -1`); NaN when `y == 0`.
            pub fn fmod(x: $f, y: $f) -> $f {
                x % y
            }

            /// `min(a, b)`: IEEE minNum; a NaN operand yields the other operand.
            pub fn min(a: $f, b: $f) -> $f {
                a.min(b)
            }

            /// `max(a, b)`: IEEE maxNum; a NaN operand yields the other operand.
            pub fn max(a: $f, b: $f) -> $f {
                a.max(b)
            }

            /// `clamp(x, lo, hi) = min(max(x, lo), hi)`.
            pub fn clamp(x: $f, lo: $f, hi: $f) -> $f {
                min(max(x, lo), hi)
            }

            /// `lerp(x, y, s) = x + s * (y - x)`, three roundings, no fused multiply-add.
            pub fn lerp(x: $f, y: $f, s: $f) -> $f {
                x + s * (y - x)
            }

            /// `mad(a, b, c) = a * b + c`, two roundings.
            pub fn mad(a: $f, b: $f, c: $f) -> $f {
                a * b + c
            }

            /// `step(y, x)`: 1 when `x >= y`, else 0 (0 when either is NaN).
            pub fn step(y: $f, x: $f) -> $f {
                if x >= y {
                    1.0
                } else {
                    0.0
                }
            }

            /// `smoothstep(lo, hi, x)`: `t = saturate((x - lo) / (hi - lo))`, `t * t * (3 - 2 * t)`.
            pub fn smoothstep(lo: $f, hi: $f, x: $f) -> $f {
                let t = saturate((x - lo) / (hi - lo));
                t * t * (3.0 - 2.0 * t)
            }

            /// `atan2(y, x)`.
            pub fn atan2(y: $f, x: $f) -> $f {
                y.atan2(x)
            }

            /// `degrees(x) = x * (180 / pi)`.
            pub fn degrees(x: $f) -> $f {
                x * (180.0 / core::$f::consts::PI)
            }

            /// `radians(x) = x * (pi / 180)`.
            pub fn radians(x: $f) -> $f {
                x * (core::$f::consts::PI / 180.0)
            }

            /// `modf(x)`'s result: the fractional part `x - trunc(x)` with the sign of `x`
            /// (`modf(-1.5) == -0.5`); ±0 for infinities; NaN for NaN. The integer part is
            /// `trunc(x)`.
            pub fn modf_fraction(x: $f) -> $f {
                if x.is_infinite() {
                    (0.0 as $f).copysign(x)
                } else {
                    (x - x.trunc()).copysign(x)
                }
            }

            /// `frexp(x)`'s result: the mantissa `m` with `x == m * 2^e` and `0.5 <= |m| < 1`;
            /// ±0 for ±0; `x` itself for infinities and NaN. Denormals are exact.
            pub fn frexp_mantissa(x: $f) -> $f {
                frexp(x).0
            }

            /// `frexp(x, e)`'s `e`, as a float: 0 for zeros, infinities and NaN.
            pub fn frexp_exponent(x: $f) -> $f {
                frexp(x).1 as $f
            }

            /// `(mantissa, exponent)` of [`frexp_mantissa`] / [`frexp_exponent`].
            fn frexp(x: $f) -> ($f, i32) {
                if x == 0.0 || !x.is_finite() {
                    return (x, 0);
                }
                const MANTISSA_BITS: u32 = <$f>::MANTISSA_DIGITS - 1;
                const BIAS: i32 = <$f>::MAX_EXP - 1;
                // Scale denormals into the normal range first (exactly: a power of two).
                let (x, extra) = if x.abs() < <$f>::MIN_POSITIVE {
                    (x * (2.0 as $f).powi(64), -64)
                } else {
                    (x, 0)
                };
                let bits = x.to_bits();
                let exponent_field = ((bits >> MANTISSA_BITS) & ((1 << (<$f>::MAX_EXP.trailing_zeros() + 1)) - 1)) as i32;
                // Keep sign and mantissa, set the exponent of [0.5, 1): BIAS - 1.
                let exponent_mask = ((1 << (<$f>::MAX_EXP.trailing_zeros() + 1)) - 1) << MANTISSA_BITS;
                // 0.5 has exactly that exponent, a zero mantissa and a clear sign.
                let mantissa = <$f>::from_bits((bits & !exponent_mask) | (0.5 as $f).to_bits());
                (mantissa, exponent_field - (BIAS - 1) + extra)
            }

            /// `dot(a, b)`, summed left to right: `((a0*b0 + a1*b1) + a2*b2) + a3*b3`.
            pub fn dot(a: &[$f], b: &[$f]) -> $f {
                let mut sum = a[0] * b[0];
                for lane in 1..a.len().min(b.len()) {
                    sum += a[lane] * b[lane];
                }
                sum
            }

            /// `length(a) = sqrt(dot(a, a))`.
            pub fn length(a: &[$f]) -> $f {
                dot(a, a).sqrt()
            }

            /// `normalize(a)`: each lane times `rsqrt(dot(a, a))` (how DXC expands it).
            pub fn normalize(a: &[$f], out: &mut [$f]) {
                let inv = rsqrt(dot(a, a));
                for (o, x) in out.iter_mut().zip(a) {
                    *o = x * inv;
                }
            }

            /// `distance(a, b) = length(b - a)`.
            pub fn distance(a: &[$f], b: &[$f]) -> $f {
                let mut diff = [0.0; 4];
                let n = a.len().min(b.len()).min(4);
                for lane in 0..n {
                    diff[lane] = b[lane] - a[lane];
                }
                length(&diff[..n])
            }

            /// `cross(a, b)` of 3-lane vectors.
            pub fn cross(a: &[$f; 3], b: &[$f; 3]) -> [$f; 3] {
                [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
            }

            /// Float to signed integer: truncates; saturates out of range; NaN gives 0 (Cranelift's
            /// `fcvt_to_sint_sat`).
            pub fn to_i32(x: $f) -> i32 {
                x as i32
            }

            /// Float to unsigned integer: truncates; negative values give 0, too large values
            /// `u32::MAX`; NaN gives 0 (Cranelift's `fcvt_to_uint_sat`).
            pub fn to_u32(x: $f) -> u32 {
                x as u32
            }

            /// Float to `int64_t`, saturating like [`to_i32`].
            pub fn to_i64(x: $f) -> i64 {
                x as $i
            }

            /// Float to `uint64_t`, saturating like [`to_u32`].
            pub fn to_u64(x: $f) -> u64 {
                x as $u
            }
        }
    };
}

float_intrinsics!(float32, f32, i64, u64);
float_intrinsics!(float64, f64, i64, u64);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bit_intrinsics() {
        // -(int)5 - 4096 = -4101; !(-4101) = 4100 = 0x1004, highest set bit 12.
        assert_eq!(firstbithigh_i32(-5 - 4096), 12);
        assert_eq!(firstbithigh_i32(-1), -1);
        assert_eq!(firstbithigh_i32(0), -1);
        assert_eq!(firstbithigh_i32(i32::MIN), 30);
        assert_eq!(firstbithigh_i32(1), 0);
        assert_eq!(firstbithigh_u32(0x8000_0000), 31);
        assert_eq!(firstbithigh_u32(0), 0xFFFF_FFFF);
        assert_eq!(firstbithigh_u32(0x1234), 12);
        assert_eq!(firstbitlow(0x1230), 4);
        assert_eq!(firstbitlow(0), 0xFFFF_FFFF);
        assert_eq!(countbits(0xF0F0_0001), 9);
        assert_eq!(reversebits(1), 0x8000_0000);
        assert_eq!(reversebits(0x0000_00F0), 0x0F00_0000);
    }

    #[test]
    fn integer_arithmetic() {
        assert_eq!(div_i32(-7, 2), Some(-3));
        assert_eq!(rem_i32(-7, 2), Some(-1));
        assert_eq!(rem_i32(7, -2), Some(1));
        assert_eq!(div_i32(1, 0), None);
        assert_eq!(rem_i32(1, 0), None);
        assert_eq!(div_i32(i32::MIN, -1), Some(i32::MIN));
        assert_eq!(rem_i32(i32::MIN, -1), Some(0));
        assert_eq!(abs_i32(-5), 5);
        assert_eq!(abs_i32(i32::MIN), i32::MIN);
        assert_eq!(sign_i32(-9), -1);
        assert_eq!(shl_u32(1, 33), 2);
        assert_eq!(shr_i32(-16, 2), -4);
        assert_eq!(shr_i32(-16, 34), -4);
    }

    #[test]
    fn rounding_and_fractions() {
        assert_eq!(float32::round(2.5), 2.0);
        assert_eq!(float32::round(3.5), 4.0);
        assert_eq!(float32::round(-2.5), -2.0);
        let negative_zero = float32::round(-0.5);
        assert_eq!(negative_zero.to_bits(), (-0.0f32).to_bits());
        assert_eq!(float32::frac(-0.25), 0.75);
        assert_eq!(float32::frac(1.75), 0.75);
        assert_eq!(float32::fmod(-7.0, 3.0), -1.0);
        assert_eq!(float32::fmod(7.0, -3.0), 1.0);
        assert!(float32::fmod(1.0, 0.0).is_nan());
        assert_eq!(float64::round(0.5), 0.0);
    }

    #[test]
    fn bit_casts() {
        assert_eq!(1.0f32.to_bits(), 0x3f80_0000);
        assert_eq!(f32::from_bits(0x4040_0000), 3.0);
        assert_eq!((-1.0f32).to_bits() as i32, -1_082_130_432);
    }

    #[test]
    fn min_max_saturate_with_nan() {
        let nan = f32::NAN;
        assert_eq!(float32::min(nan, 2.0), 2.0);
        assert_eq!(float32::min(2.0, nan), 2.0);
        assert_eq!(float32::max(nan, -3.0), -3.0);
        assert!(float32::min(nan, nan).is_nan());
        assert_eq!(float32::saturate(nan), 0.0);
        assert_eq!(float32::saturate(1.5), 1.0);
        assert_eq!(float32::saturate(-0.5), 0.0);
        assert_eq!(float32::clamp(5.0, 0.0, 2.0), 2.0);
    }

    #[test]
    fn float_helpers() {
        assert_eq!(float32::rcp(4.0), 0.25);
        assert_eq!(float32::rsqrt(16.0), 0.25);
        assert_eq!(float32::sign(-0.0), 0);
        assert_eq!(float32::sign(f32::NAN), 0);
        assert_eq!(float32::sign(-3.0), -1);
        assert_eq!(float32::sign(f32::INFINITY), 1);
        assert_eq!(float32::lerp(2.0, 4.0, 0.25), 2.5);
        assert_eq!(float32::step(1.0, 1.0), 1.0);
        assert_eq!(float32::step(1.0, 0.5), 0.0);
        assert_eq!(float32::smoothstep(0.0, 2.0, 1.0), 0.5);
        assert_eq!(float32::smoothstep(0.0, 2.0, 3.0), 1.0);
        assert_eq!(float32::smoothstep(0.0, 4.0, 1.0), 0.15625);
        assert_eq!(float32::atan2(1.0, 1.0), core::f32::consts::FRAC_PI_4);
        assert_eq!(float32::atan2(0.0, -1.0), core::f32::consts::PI);
        assert_eq!(float32::mad(2.0, 3.0, 1.0), 7.0);
        assert_eq!(float32::degrees(core::f32::consts::PI), 180.0);
        // No fused multiply-add: with a = 1 + 2^-23, a*a rounds before the subtraction.
        let a = 1.0f32 + f32::EPSILON;
        let product = a * a;
        assert_eq!(float32::mad(a, a, -product), 0.0);
    }

    #[test]
    fn vector_helpers() {
        assert_eq!(float32::dot(&[1.0, 2.0, 3.0], &[4.0, 5.0, 6.0]), 32.0);
        assert_eq!(float32::length(&[3.0, 4.0]), 5.0);
        assert_eq!(float32::distance(&[1.0, 1.0], &[4.0, 5.0]), 5.0);
        let mut out = [0.0; 2];
        float32::normalize(&[0.0, 2.0], &mut out);
        assert_eq!(out, [0.0, 1.0]);
        assert_eq!(
            float32::cross(&[1.0, 0.0, 0.0], &[0.0, 1.0, 0.0]),
            [0.0, 0.0, 1.0]
        );
    }

    #[test]
    fn half_conversions() {
        assert_eq!(f32tof16(1.0), 0x3C00);
        assert_eq!(f32tof16(-0.0), 0x8000);
        assert_eq!(f32tof16(65504.0), 0x7BFF);
        // 65520 is halfway between 65504 and 65536 (infinity): ties to even give infinity.
        assert_eq!(f32tof16(65519.0), 0x7BFF);
        assert_eq!(f32tof16(65520.0), 0x7C00);
        assert_eq!(f32tof16(f32::NEG_INFINITY), 0xFC00);
        assert_eq!(f32tof16(f32::NAN), 0x7E00);
        assert_eq!(f32tof16(f32::from_bits(0xFFC0_0001)), 0x7E00);
        // 1 + 2^-11 is halfway between 1 and 1 + 2^-10: ties to even (down); 1 + 3 * 2^-11 up.
        assert_eq!(f32tof16(1.0 + f32::powi(2.0, -11)), 0x3C00);
        assert_eq!(f32tof16(1.0 + 3.0 * f32::powi(2.0, -11)), 0x3C02);
        // The smallest normal and denormal halves, and half of the smallest denormal (ties to 0).
        assert_eq!(f32tof16(f32::powi(2.0, -14)), 0x0400);
        assert_eq!(f32tof16(f32::powi(2.0, -24)), 0x0001);
        assert_eq!(f32tof16(f32::powi(2.0, -25)), 0x0000);
        assert_eq!(f32tof16(1.5 * f32::powi(2.0, -25)), 0x0001);
        // The largest denormal rounds up into the smallest normal.
        assert_eq!(f32tof16(f32::powi(2.0, -14) - f32::powi(2.0, -26)), 0x0400);
        assert_eq!(f16tof32(0x0400), f32::powi(2.0, -14));
        assert_eq!(f16tof32(0x03FF), 1023.0 * f32::powi(2.0, -24));
        assert_eq!(f16tof32(0xFC00), f32::NEG_INFINITY);
        assert!(f16tof32(0x7E00).is_nan());
        assert_eq!(f16tof32(0x8000).to_bits(), 0x8000_0000);
        // Every finite half survives the round trip.
        for bits in 0..0x7C00u32 {
            for sign in [0, 0x8000] {
                assert_eq!(f32tof16(f16tof32(bits | sign)), bits | sign);
            }
        }
    }

    #[test]
    fn modf_and_frexp() {
        assert_eq!(float32::modf_fraction(-1.5), -0.5);
        assert_eq!(float32::modf_fraction(2.0).to_bits(), 0);
        assert_eq!(float32::modf_fraction(-2.0).to_bits(), (-0.0f32).to_bits());
        assert_eq!(
            float64::modf_fraction(f64::NEG_INFINITY).to_bits(),
            (-0.0f64).to_bits()
        );
        assert!(float32::modf_fraction(f32::NAN).is_nan());
        assert_eq!(float32::frexp_mantissa(8.0), 0.5);
        assert_eq!(float32::frexp_exponent(8.0), 4.0);
        assert_eq!(float32::frexp_mantissa(-0.375), -0.75);
        assert_eq!(float32::frexp_exponent(-0.375), -1.0);
        assert_eq!(float32::frexp_mantissa(1.0), 0.5);
        assert_eq!(float32::frexp_exponent(1.0), 1.0);
        // The smallest denormal: 2^-149 = 0.5 * 2^-148.
        assert_eq!(float32::frexp_mantissa(f32::from_bits(1)), 0.5);
        assert_eq!(float32::frexp_exponent(f32::from_bits(1)), -148.0);
        assert_eq!(float64::frexp_mantissa(f64::MAX), 1.0 - f64::EPSILON / 2.0);
        assert_eq!(float64::frexp_exponent(f64::MAX), 1024.0);
        assert_eq!(float32::frexp_mantissa(f32::INFINITY), f32::INFINITY);
        assert_eq!(float32::frexp_exponent(f32::INFINITY), 0.0);
        assert_eq!(float32::frexp_exponent(0.0), 0.0);
    }

    #[test]
    fn float_to_int_conversions_saturate() {
        assert_eq!(float32::to_i32(-1.9), -1);
        assert_eq!(float32::to_i32(f32::NAN), 0);
        assert_eq!(float32::to_i32(3e9), i32::MAX);
        assert_eq!(float32::to_i32(-3e9), i32::MIN);
        assert_eq!(float32::to_u32(-5.0), 0);
        assert_eq!(float32::to_u32(5e9), u32::MAX);
        assert_eq!(float32::to_u32(f32::INFINITY), u32::MAX);
        assert_eq!(float64::to_i64(f64::NEG_INFINITY), i64::MIN);
    }
}
