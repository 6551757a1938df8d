//! Lowering of the HLSL intrinsics that expand into several ops: the shading helpers (`dst`,
//! `lit`, `faceforward`, `reflect`, `refract`), `ldexp`, `asdouble`, `msad4`, HLSL 2021's
//! `select`/`and`/`or`, `D3DCOLORtoUBYTE4`, and the intrinsics with `out` arguments (`modf`,
//! `frexp`, `sincos`).
//!
//! Each expansion is the single definition of its intrinsic: both engines run the same ops in the
//! same order, so they agree bit for bit. `docs/semantics.md` states every formula.

use super::expr::{find_binary, find_unary};
use super::{FnLower, LowerError, PlaceAddr, Val};
use crate::entities::Reg;
use crate::ops::{BinaryOp as VmBinary, UnaryOp as VmUnary};
use crate::types::Type as VmType;
use crate::Value;
use rpsl_frontend::hir::Place;
use rpsl_frontend::intrinsics::Intrinsic;
use rpsl_frontend::source::Span;

impl FnLower<'_> {
    /// A float constant of register type `ty` (`f32` or `f64`).
    fn float_const(&mut self, ty: VmType, value: f64) -> Reg {
        if ty == VmType::F64 {
            self.b.constant(Value::F64(value))
        } else {
            self.b.constant(Value::F32(value as f32))
        }
    }

    /// `a0*b0 + a1*b1 + ...` summed left to right (the `dot` order), in `ty`.
    fn dot_chain(
        &mut self,
        a: &[Reg],
        b: &[Reg],
        ty: VmType,
        span: Span,
    ) -> Result<Reg, LowerError> {
        let (mul, add) = (find_binary("mul", ty, span)?, find_binary("add", ty, span)?);
        let mut sum = self.b.binary(mul, a[0], b[0]);
        for (&x, &y) in a.iter().zip(b).skip(1) {
            let product = self.b.binary(mul, x, y);
            sum = self.b.binary(add, sum, product);
        }
        Ok(sum)
    }

    /// The intrinsics defined here; `None` for the others. `lanes` holds the `in` arguments,
    /// `outs` the `out` arguments' places in order; `ty` is the computation's register type.
    pub(super) fn shading_intrinsic(
        &mut self,
        intrinsic: Intrinsic,
        lanes: &[Vec<Reg>],
        outs: &[(PlaceAddr, &Place)],
        ty: VmType,
        span: Span,
    ) -> Result<Option<Val>, LowerError> {
        let lane = |v: &Vec<Reg>, i: usize| v.get(i).copied().unwrap_or(v[0]);
        let out = match intrinsic {
            Intrinsic::Dst => {
                // (1, a.y * b.y, a.z, b.w)
                let (a, b) = (&lanes[0], &lanes[1]);
                let one = self.float_const(ty, 1.0);
                let mul = find_binary("mul", ty, span)?;
                let y = self.b.binary(mul, lane(a, 1), lane(b, 1));
                vec![one, y, lane(a, 2), lane(b, 3)]
            }
            Intrinsic::Lit => {
                // (1, n_dot_l < 0 ? 0 : n_dot_l, n_dot_l < 0 || n_dot_h < 0 ? 0 : pow(n_dot_h, m), 1)
                let (n_dot_l, n_dot_h, m) = (lanes[0][0], lanes[1][0], lanes[2][0]);
                let (zero, one) = (self.float_const(ty, 0.0), self.float_const(ty, 1.0));
                let lt = find_binary("lt", ty, span)?;
                let l_negative = self.b.binary(lt, n_dot_l, zero);
                let h_negative = self.b.binary(lt, n_dot_h, zero);
                let diffuse = self.b.select(l_negative, zero, n_dot_l);
                let either = self.b.binary(VmBinary::OrBool, l_negative, h_negative);
                let power = self.b.binary(find_binary("pow", ty, span)?, n_dot_h, m);
                let specular = self.b.select(either, zero, power);
                vec![one, diffuse, specular, one]
            }
            Intrinsic::Faceforward => {
                // dot(i, ng) < 0 ? n : -n
                let (n, i, ng) = (&lanes[0], &lanes[1], &lanes[2]);
                let d = self.dot_chain(i, ng, ty, span)?;
                let zero = self.float_const(ty, 0.0);
                let facing = self.b.binary(find_binary("lt", ty, span)?, d, zero);
                let neg = find_unary("neg", ty, span)?;
                n.iter()
                    .map(|&x| {
                        let flipped = self.b.unary(neg, x);
                        self.b.select(facing, x, flipped)
                    })
                    .collect()
            }
            Intrinsic::Reflect => {
                // t = 2 * dot(i, n); i - t * n per lane
                let (i, n) = (&lanes[0], &lanes[1]);
                let d = self.dot_chain(i, n, ty, span)?;
                let two = self.float_const(ty, 2.0);
                let mul = find_binary("mul", ty, span)?;
                let sub = find_binary("sub", ty, span)?;
                let t = self.b.binary(mul, two, d);
                i.iter()
                    .zip(n)
                    .map(|(&x, &y)| {
                        let scaled = self.b.binary(mul, t, y);
                        self.b.binary(sub, x, scaled)
                    })
                    .collect()
            }
            Intrinsic::Refract => {
                self.lower_refract(&lanes[0], &lanes[1], lanes[2][0], ty, span)?
            }
            Intrinsic::Ldexp => {
                // x * exp2(e)
                let exp2 = find_unary("exp2", ty, span)?;
                let mul = find_binary("mul", ty, span)?;
                let n = lanes[0].len().max(lanes[1].len());
                (0..n)
                    .map(|k| {
                        let scale = self.b.unary(exp2, lane(&lanes[1], k));
                        self.b.binary(mul, lane(&lanes[0], k), scale)
                    })
                    .collect()
            }
            Intrinsic::Asdouble => {
                // (uint64_t(hi) << 32 | lo) as double bits
                let n = lanes[0].len().max(lanes[1].len());
                let shift = self.b.constant(Value::U64(32));
                (0..n)
                    .map(|k| {
                        let lo = self.b.convert(VmType::U64, lane(&lanes[0], k));
                        let hi = self.b.convert(VmType::U64, lane(&lanes[1], k));
                        let high = self.b.binary(VmBinary::ShlU64, hi, shift);
                        let bits = self.b.binary(VmBinary::OrU64, high, lo);
                        self.b.bitcast(VmType::F64, bits)
                    })
                    .collect()
            }
            Intrinsic::Msad4 => self.lower_msad4(lanes[0][0], &lanes[1], &lanes[2]),
            Intrinsic::Select => {
                let n = lanes.iter().map(Vec::len).max().unwrap_or(0);
                (0..n)
                    .map(|k| {
                        let (c, a, b) =
                            (lane(&lanes[0], k), lane(&lanes[1], k), lane(&lanes[2], k));
                        self.b.select(c, a, b)
                    })
                    .collect()
            }
            Intrinsic::And | Intrinsic::Or => {
                let op = if intrinsic == Intrinsic::And {
                    VmBinary::AndBool
                } else {
                    VmBinary::OrBool
                };
                let n = lanes[0].len().max(lanes[1].len());
                (0..n)
                    .map(|k| self.b.binary(op, lane(&lanes[0], k), lane(&lanes[1], k)))
                    .collect()
            }
            Intrinsic::D3dcolortoubyte4 => {
                // int4(c.zyxw * 255.001953f) (the f32 255.001953125): truncating, saturating.
                let scale = self.b.fconst_f32(255.001_95);
                [2, 1, 0, 3]
                    .into_iter()
                    .map(|k| {
                        let scaled = self.b.binary(VmBinary::MulF32, lane(&lanes[0], k), scale);
                        self.b.convert(VmType::I32, scaled)
                    })
                    .collect()
            }
            Intrinsic::Modf | Intrinsic::Frexp => {
                let (result_op, out_op) = if intrinsic == Intrinsic::Modf {
                    ("modf", "trunc")
                } else {
                    ("frexp_mantissa", "frexp_exponent")
                };
                let (result_op, out_op) = (
                    find_unary(result_op, ty, span)?,
                    find_unary(out_op, ty, span)?,
                );
                let x = &lanes[0];
                let written: Vec<Reg> = x.iter().map(|&v| self.b.unary(out_op, v)).collect();
                let result = x.iter().map(|&v| self.b.unary(result_op, v)).collect();
                self.write_outs(outs, vec![written], span)?;
                result
            }
            Intrinsic::AsuintDouble => {
                // lo = low 32 bits, hi = high 32 bits of the double's bits
                let shift = self.b.constant(Value::U64(32));
                let mut low = Vec::new();
                let mut high = Vec::new();
                for &d in &lanes[0] {
                    let bits = self.b.bitcast(VmType::U64, d);
                    low.push(self.b.convert(VmType::U32, bits));
                    let top = self.b.binary(VmBinary::ShrU64, bits, shift);
                    high.push(self.b.convert(VmType::U32, top));
                }
                self.write_outs(outs, vec![low, high], span)?;
                Vec::new()
            }
            Intrinsic::Sincos => {
                let x = &lanes[0];
                let (sin, cos) = (find_unary("sin", ty, span)?, find_unary("cos", ty, span)?);
                let s: Vec<Reg> = x.iter().map(|&v| self.b.unary(sin, v)).collect();
                let c: Vec<Reg> = x.iter().map(|&v| self.b.unary(cos, v)).collect();
                self.write_outs(outs, vec![s, c], span)?;
                Vec::new()
            }
            _ => return Ok(None),
        };
        Ok(Some(Val::Lanes(out)))
    }

    /// Stores each value to its `out` place, in argument order (the last write wins when two
    /// places alias, as HLSL's copy-out does).
    fn write_outs(
        &mut self,
        outs: &[(PlaceAddr, &Place)],
        values: Vec<Vec<Reg>>,
        span: Span,
    ) -> Result<(), LowerError> {
        if outs.len() != values.len() {
            return self.error(span, "wrong number of `out` arguments");
        }
        for ((addr, place), value) in outs.iter().zip(values) {
            self.store_place(addr, &place.ty, &Val::Lanes(value), place.span)?;
        }
        Ok(())
    }

    /// `refract(i, n, eta)`: `d = dot(n, i)`, `k = 1 - (eta * eta) * (1 - d * d)`; the zero vector
    /// when `k < 0`, else per lane `eta * i - (eta * d + sqrt(k)) * n`.
    fn lower_refract(
        &mut self,
        i: &[Reg],
        n: &[Reg],
        eta: Reg,
        ty: VmType,
        span: Span,
    ) -> Result<Vec<Reg>, LowerError> {
        let (mul, sub, add) = (
            find_binary("mul", ty, span)?,
            find_binary("sub", ty, span)?,
            find_binary("add", ty, span)?,
        );
        let d = self.dot_chain(n, i, ty, span)?;
        let (zero, one) = (self.float_const(ty, 0.0), self.float_const(ty, 1.0));
        let dd = self.b.binary(mul, d, d);
        let one_minus_dd = self.b.binary(sub, one, dd);
        let eta2 = self.b.binary(mul, eta, eta);
        let scaled = self.b.binary(mul, eta2, one_minus_dd);
        let k = self.b.binary(sub, one, scaled);
        let total_reflection = self.b.binary(find_binary("lt", ty, span)?, k, zero);
        let root = self.b.unary(find_unary("sqrt", ty, span)?, k);
        let eta_d = self.b.binary(mul, eta, d);
        let factor = self.b.binary(add, eta_d, root);
        Ok(i.iter()
            .zip(n)
            .map(|(&x, &y)| {
                let bent = self.b.binary(mul, eta, x);
                let along = self.b.binary(mul, factor, y);
                let refracted = self.b.binary(sub, bent, along);
                self.b.select(total_reflection, zero, refracted)
            })
            .collect())
    }

    /// `msad4(reference, source, accum)`: for each i in 0..4, `accum[i]` plus the sum over the
    /// reference's bytes j (skipping those equal to 0) of `|ref_byte[j] - src_byte[i + j]|`, where
    /// source bytes 0..3 are `source.x`'s (low first) and 4..7 `source.y`'s; wrapping.
    fn lower_msad4(&mut self, reference: Reg, source: &[Reg], accum: &[Reg]) -> Vec<Reg> {
        let lane = |v: &[Reg], i: usize| v.get(i).copied().unwrap_or(v[0]);
        let byte_mask = self.b.iconst_u32(0xFF);
        let zero = self.b.iconst_u32(0);
        let byte_of = |this: &mut Self, word: Reg, index: u32| {
            let shift = this.b.iconst_u32(8 * index);
            let shifted = this.b.binary(VmBinary::ShrU32, word, shift);
            this.b.binary(VmBinary::AndU32, shifted, byte_mask)
        };
        let ref_bytes: Vec<Reg> = (0..4).map(|j| byte_of(self, reference, j)).collect();
        let src_bytes: Vec<Reg> = (0..8)
            .map(|k| byte_of(self, lane(source, (k / 4) as usize), k % 4))
            .collect();
        (0..4)
            .map(|i| {
                let mut sum = lane(accum, i);
                for (j, &r) in ref_bytes.iter().enumerate() {
                    let s = src_bytes[i + j];
                    let high = self.b.binary(VmBinary::MaxU32, r, s);
                    let low = self.b.binary(VmBinary::MinU32, r, s);
                    let diff = self.b.binary(VmBinary::SubU32, high, low);
                    let counted = self.b.binary(VmBinary::NeU32, r, zero);
                    let masked = self.b.select(counted, diff, zero);
                    sum = self.b.binary(VmBinary::AddU32, sum, masked);
                }
                sum
            })
            .collect()
    }

    /// `f16tof32` / `f32tof16` per lane.
    pub(super) fn half_conversion(&mut self, intrinsic: Intrinsic, lanes: &[Reg]) -> Option<Val> {
        let op = match intrinsic {
            Intrinsic::F16tof32 => VmUnary::F16tof32U32,
            Intrinsic::F32tof16 => VmUnary::F32tof16F32,
            _ => return None,
        };
        let operand = op.operand_type();
        let out = lanes
            .iter()
            .map(|&l| {
                let l = if self.b.reg_type(l) == Some(operand) {
                    l
                } else {
                    self.b.convert(operand, l)
                };
                self.b.unary(op, l)
            })
            .collect();
        Some(Val::Lanes(out))
    }
}
