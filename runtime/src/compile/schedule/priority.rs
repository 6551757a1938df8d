//! The scheduler's priority rule, defined once for the list scheduler ([`super`]) and the level
//! scheduler ([`super::levels`], [`super::level_run`]), which must agree on every frame both
//! take (`schedule/tests.rs` checks it):
//!
//! `Default`: lowest dependency level first; then no queue-class switch from the previous
//! node; then most bytes of transient memory freed (the node is the last user); then fewest
//! bytes allocated (the node is the first user); then call order. `Memory` frames with
//! `sch_barrier`: the same without the level and the class switch. `Memory` frames without
//! barriers are scheduled backwards ([`BY_NET_FREED_REVERSED`]): most bytes freed minus bytes
//! allocated, then latest call first.
//!
//! The memory part comes in two encodings: [`before`] compares two units' fields, and
//! [`key_of`] packs the same order into one `u128` whose ascending order is it (the level
//! scheduler sorts such keys). [`beats`] makes the class-switch choice between the tops of one
//! heap per queue class.

use super::units::Unit;
use crate::decl::QueueClass;

/// Order by (bytes freed descending, bytes allocated ascending, unit id).
pub(super) const BY_MEMORY: u8 = 1;
/// Order by (level, bytes freed descending, bytes allocated ascending, unit id).
pub(super) const BY_LEVEL: u8 = 2;

/// Order by (bytes freed minus bytes allocated, descending; unit id descending): the order of
/// the backward memory scheduler, where "freed" and "allocated" are meant in its direction
/// (a resource is allocated by its first scheduled user, which is its last user in execution
/// order, and freed by its last scheduled user, the first in execution order). Ties go to the
/// latest call, so that after the order is reversed they run in call order.
pub(super) const BY_NET_FREED_REVERSED: u8 = 3;

/// Whether unit `a` comes before unit `b` under `ORDER` (the keys of the heaps).
#[inline(always)]
pub(super) fn before<const ORDER: u8>(units: &[Unit], a: u32, b: u32) -> bool {
    let (x, y) = (&units[a as usize], &units[b as usize]);
    if ORDER == BY_NET_FREED_REVERSED {
        let net = |unit: &Unit| unit.frees as i128 - unit.allocs as i128;
        let (net_a, net_b) = (net(x), net(y));
        return if net_a != net_b { net_a > net_b } else { a > b };
    }
    if ORDER == BY_LEVEL && x.level != y.level {
        return x.level < y.level;
    }
    if x.frees != y.frees {
        return x.frees > y.frees;
    }
    if x.allocs != y.allocs {
        return x.allocs < y.allocs;
    }
    a < b
}

/// Priority sums stay below this bound (checked per frame), so a node's bytes freed and bytes
/// allocated pack with its position in one `u128` key.
pub(super) const PRIORITY_LIMIT: u64 = 1 << 48;

/// The largest priority sum (`PRIORITY_LIMIT - 1`).
const PRIORITY_MASK: u64 = PRIORITY_LIMIT - 1;

/// The sort key of a level's node: ascending keys put most bytes freed, then fewest bytes
/// allocated, then call order first (`local` is the node's position within the level).
#[inline(always)]
pub(super) fn key_of(frees: u64, allocs: u64, local: u32) -> u128 {
    (((PRIORITY_MASK - frees) as u128) << 80) | ((allocs as u128) << 32) | local as u128
}

/// The key part of a node that frees and allocates nothing (the start of a sum: adding
/// [`allocated`] and subtracting [`freed`] of sizes gives [`key_of`] without the position, as no
/// sum reaches [`PRIORITY_LIMIT`]).
pub(super) const NOTHING_FREED: u128 = (PRIORITY_MASK as u128) << 80;

/// `size` bytes allocated, in key form.
#[inline(always)]
pub(super) fn allocated(size: u64) -> u128 {
    (size as u128) << 32
}

/// `size` bytes freed, in key form (subtracted).
#[inline(always)]
pub(super) fn freed(size: u64) -> u128 {
    (size as u128) << 80
}

/// Bytes freed, bytes allocated and position of a key.
#[inline(always)]
pub(super) fn unpack(key: u128) -> (u64, u64, u32) {
    (
        PRIORITY_MASK - (key >> 80) as u64,
        (key >> 32) as u64 & PRIORITY_MASK,
        key as u32,
    )
}

/// Whether candidate `top`, the top of the heap of queue class `class`, beats `best`, the top
/// of the heap of `best_class`, after a unit of `last_class`: by level (under [`BY_LEVEL`]),
/// then no class switch, then the memory order and call order ([`before`] under
/// [`BY_MEMORY`]). Within one heap the switch is the same for every unit, so comparing the
/// heaps' tops this way finds the best ready unit ([`super::heap::pop_best`]).
#[inline(always)]
pub(super) fn beats<const ORDER: u8>(
    units: &[Unit],
    (top, class): (u32, usize),
    (best, best_class): (u32, usize),
    last_class: QueueClass,
) -> bool {
    let (top_level, best_level) = (units[top as usize].level, units[best as usize].level);
    let top_switch = class != last_class as usize;
    let best_switch = best_class != last_class as usize;
    if ORDER == BY_LEVEL && top_level != best_level {
        top_level < best_level
    } else if top_switch != best_switch {
        !top_switch
    } else {
        before::<BY_MEMORY>(units, top, best)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shapes::ShapeRng;

    /// The packed key orders units exactly as [`before`] does under [`BY_MEMORY`], sums near
    /// the limit included.
    #[test]
    fn packed_keys_follow_the_memory_order() {
        let mut rng = ShapeRng(0x7e57);
        let value = |rng: &mut ShapeRng| match rng.below(4) {
            0 => 0,
            1 => rng.below(4),
            2 => PRIORITY_LIMIT - 1 - rng.below(3),
            _ => rng.next_value() & (PRIORITY_LIMIT - 1),
        };
        for _ in 0..20_000 {
            let units = [
                Unit {
                    frees: value(&mut rng),
                    allocs: value(&mut rng),
                    ..Unit::EMPTY
                },
                Unit {
                    frees: value(&mut rng),
                    allocs: value(&mut rng),
                    ..Unit::EMPTY
                },
            ];
            let keys = [0, 1].map(|id| key_of(units[id].frees, units[id].allocs, id as u32));
            assert_eq!(
                before::<BY_MEMORY>(&units, 0, 1),
                keys[0] < keys[1],
                "{units:?}"
            );
            assert_eq!(
                before::<BY_MEMORY>(&units, 1, 0),
                keys[1] < keys[0],
                "{units:?}"
            );
            assert_eq!(unpack(keys[1]), (units[1].frees, units[1].allocs, 1));
        }
    }
}
