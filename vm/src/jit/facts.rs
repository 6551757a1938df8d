//! What holds of a register's value at every read of it, whichever definition it comes from:
//! the facts that let the translator drop run-time checks that cannot fail.
//!
//! - [`RegFacts::frame_max`]: the register is an address at most `frame base + M`. An access of
//!   `size` bytes at `offset` from it cannot pass the frame top when `M + offset + size` is at
//!   most the frame size (the only bound the interpreter checks is the frame top).
//! - [`RegFacts::frame_exact`]: the register is exactly `frame base + K` (a `frame_addr`, or an
//!   `addr_add` or `move` of one), so its host address is a constant offset from the frame.
//! - [`RegFacts::below`]: the register, read as unsigned, is less than `B` (a constant, `rem.u32`
//!   by a constant, `and.u32` with a constant): an `index_addr` with `B <= len` cannot fault.
//! - [`RegFacts::constant`]: the register always holds these bits.
//!
//! A fact of a register is the merge of what each of its definitions gives, computed from the
//! facts of their operands, to a fixed point (descending from "no definition seen"). By
//! induction over the executed definitions, every value a register holds then satisfies its
//! fact: each definition computes from operands that satisfy theirs. `index_addr` gives its
//! address fact only because its bounds guard (or a `below` fact) precedes the definition.

use crate::entities::Reg;
use crate::function::Function;
use crate::inst::{Inst, Operand};
use crate::ops::BinaryOp;

/// The facts of one register (see the module documentation); `None` fields are unknown.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub(crate) struct RegFacts {
    pub frame_max: Option<u64>,
    pub frame_exact: Option<u64>,
    pub below: Option<u64>,
    pub constant: Option<u64>,
}

impl RegFacts {
    const UNKNOWN: RegFacts = RegFacts {
        frame_max: None,
        frame_exact: None,
        below: None,
        constant: None,
    };

    /// What both `self` and `other` guarantee.
    fn merge(self, other: RegFacts) -> RegFacts {
        let same = |a: Option<u64>, b: Option<u64>| if a == b { a } else { None };
        let both = |a: Option<u64>, b: Option<u64>| Some(a?.max(b?));
        RegFacts {
            frame_max: both(self.frame_max, other.frame_max),
            frame_exact: same(self.frame_exact, other.frame_exact),
            below: both(self.below, other.below),
            constant: same(self.constant, other.constant),
        }
    }

    /// `self` moved `offset` bytes up (an `addr_add`), within `limit`.
    fn offset_by(self, offset: u64, limit: u64) -> RegFacts {
        let within = |value: Option<u64>| value.map(|v| v + offset).filter(|&v| v <= limit);
        RegFacts {
            frame_max: within(self.frame_max),
            frame_exact: within(self.frame_exact),
            ..RegFacts::UNKNOWN
        }
    }
}

/// Passes over the definitions before giving up (every fact unknown): facts only weaken from
/// pass to pass, and real code settles in two or three.
const MAX_PASSES: usize = 16;

/// The facts of every register of `func` (parameters know nothing).
pub(crate) fn register_facts(func: &Function) -> Vec<RegFacts> {
    let regs = func.reg_types.len();
    // Addresses further than this from the frame base are of no use (no access can be proven).
    let limit = func.frame_size as u64;
    let params = func.signature.params.len();
    let mut facts: Vec<Option<RegFacts>> = (0..regs)
        .map(|index| (index < params).then_some(RegFacts::UNKNOWN))
        .collect();
    for _ in 0..MAX_PASSES {
        let mut next: Vec<Option<RegFacts>> = (0..regs)
            .map(|index| (index < params).then_some(RegFacts::UNKNOWN))
            .collect();
        for inst in &func.insts {
            for (dst, fact) in definitions(func, inst, &facts, limit) {
                if let Some(slot) = next.get_mut(dst.index()) {
                    *slot = Some(match *slot {
                        Some(seen) => seen.merge(fact),
                        None => fact,
                    });
                }
            }
        }
        if next == facts {
            // A register without a (reachable) definition is never read: nothing to know.
            return facts
                .into_iter()
                .map(|fact| fact.unwrap_or(RegFacts::UNKNOWN))
                .collect();
        }
        facts = next;
    }
    vec![RegFacts::UNKNOWN; regs]
}

/// The registers `inst` defines, each with what this definition guarantees given `facts`
/// (an operand without facts yet, `None`, is taken as guaranteeing anything: the fixed point
/// revisits it).
fn definitions(
    func: &Function,
    inst: &Inst,
    facts: &[Option<RegFacts>],
    limit: u64,
) -> Vec<(Reg, RegFacts)> {
    const ANY: RegFacts = RegFacts {
        frame_max: Some(0),
        frame_exact: None,
        below: Some(0),
        constant: None,
    };
    let of = |reg: Reg| -> Option<RegFacts> { facts.get(reg.index()).copied().flatten() };
    let fact = match *inst {
        Inst::Const { dst, bits, .. } => {
            let value = bits.to_u64();
            Some((
                dst,
                RegFacts {
                    below: value.checked_add(1),
                    constant: Some(value),
                    ..RegFacts::UNKNOWN
                },
            ))
        }
        Inst::Move { dst, src } => Some((dst, of(src).unwrap_or(ANY))),
        Inst::FrameAddr { dst, offset } => {
            let offset = offset as u64;
            let known = (offset <= limit).then_some(offset);
            Some((
                dst,
                RegFacts {
                    frame_max: known,
                    frame_exact: known,
                    ..RegFacts::UNKNOWN
                },
            ))
        }
        Inst::AddrAdd { dst, base, offset } => match of(base) {
            Some(base) => Some((dst, base.offset_by(offset as u64, limit))),
            None => Some((dst, ANY)),
        },
        Inst::IndexAddr {
            dst,
            base,
            stride,
            len,
            ..
        } => {
            // The guard (or a `below` fact) makes `index < len` before the definition.
            let reach = (len as u64).saturating_sub(1) * stride as u64;
            let frame_max = match of(base) {
                Some(base) => base.frame_max.map(|m| m + reach).filter(|&m| m <= limit),
                None => Some(0),
            };
            Some((
                dst,
                RegFacts {
                    frame_max,
                    ..RegFacts::UNKNOWN
                },
            ))
        }
        Inst::Binary { op, dst, a, b } => {
            let constant = |reg: Reg| of(reg).map_or(Some(0), |fact| fact.constant);
            let below = match op {
                BinaryOp::RemU32 => constant(b).filter(|&c| c != 0),
                BinaryOp::AndU32 => match (constant(a), constant(b)) {
                    (Some(x), Some(y)) => Some(x.min(y) + 1),
                    (Some(c), None) | (None, Some(c)) => Some(c + 1),
                    (None, None) => None,
                },
                _ => None,
            };
            Some((
                dst,
                RegFacts {
                    below,
                    ..RegFacts::UNKNOWN
                },
            ))
        }
        _ => None,
    };
    if let Some(fact) = fact {
        return vec![fact];
    }
    let mut defs = Vec::new();
    inst.for_each_operand(|operand| match operand {
        Operand::Def(reg) => defs.push((reg, RegFacts::UNKNOWN)),
        Operand::DefList(list) => {
            defs.extend(func.list(list).iter().map(|&reg| (reg, RegFacts::UNKNOWN)))
        }
        _ => {}
    });
    defs
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{FunctionBuilder, FunctionBuilderContext, LocId, Signature, Type};

    #[test]
    fn facts_hold_for_every_definition_and_weaken_at_merges() {
        let mut ctx = FunctionBuilderContext::new();
        let mut b = FunctionBuilder::new(&mut ctx, "f", Signature::new([Type::U32], []));
        let entry = b.create_block();
        b.switch_to_block(entry);
        b.set_loc(LocId::from_u32(0));
        let i = b.param(0);
        b.alloc_frame(128, 4);
        let array = b.frame_addr(16);
        let field = b.addr_add(array, 8);
        let eight = b.iconst_u32(8);
        let slot = b.binary(crate::BinaryOp::RemU32, i, eight);
        let element = b.index_addr(array, slot, 4, 8);
        // Two frame addresses: only the larger bound and no exact offset survive.
        let either = b.new_reg(Type::Addr);
        let low = b.frame_addr(0);
        b.assign(either, low);
        let high = b.frame_addr(64);
        b.assign(either, high);
        // Frame address, then the parameter: nothing is known.
        let mixed = b.new_reg(Type::U32);
        b.assign(mixed, eight);
        b.assign(mixed, i);
        b.ret(&[]);
        let facts = register_facts(&b.finish());
        let exact = |at: u64| RegFacts {
            frame_max: Some(at),
            frame_exact: Some(at),
            ..RegFacts::UNKNOWN
        };
        assert_eq!(facts[i.index()], RegFacts::UNKNOWN);
        assert_eq!(facts[array.index()], exact(16));
        assert_eq!(facts[field.index()], exact(24));
        assert_eq!(
            facts[eight.index()],
            RegFacts {
                below: Some(9),
                constant: Some(8),
                ..RegFacts::UNKNOWN
            }
        );
        assert_eq!(facts[slot.index()].below, Some(8));
        assert_eq!(
            facts[element.index()],
            RegFacts {
                frame_max: Some(16 + 7 * 4),
                ..RegFacts::UNKNOWN
            }
        );
        assert_eq!(
            facts[either.index()],
            RegFacts {
                frame_max: Some(64),
                ..RegFacts::UNKNOWN
            }
        );
        assert_eq!(facts[mixed.index()], RegFacts::UNKNOWN);
    }
}
