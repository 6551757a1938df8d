//! Discard inference for the resources that every access covers whole (one plane; nearly all):
//! one forward walk over the live nodes with one small state per resource, run inside barrier
//! planning's walk over the same order (no walk of its own). An access's discard-before
//! follows from whether the data is valid when its node begins; its discard-after is set
//! provisionally and taken back when the next node touching the resource needs the data (reads
//! it without `discard_before`), unless the access carries `discard_after` itself.

use crate::compile::frame::DiscardFlags;
use crate::compile::table::{AccessInfo, DISCARD_AFTER, DISCARD_BEFORE, OUTLIVES, READS, WRITES};
use std::cell::Cell;

/// `Track::bits`: some access does not cover the resource whole: the region maps track it.
/// The same bit as the access's `OUTLIVES`, so that "skip this access" is one OR and one test.
pub(crate) const REGIONS: u32 = OUTLIVES;
/// `Track::bits`: the data is valid after the latest node touching the resource: not all its
/// accesses carry `discard_after`, and it was valid before or the node writes it. The same
/// bit as the access's `WRITES`, so that "valid or written" is one OR.
const VALID: u32 = WRITES;
/// `Track::bits`: the latest node touching the resource has one access to it, without
/// `discard_after`: its provisional discard-after is taken back if the next node needs the data.
const KEEPABLE: u32 = 1 << 2;
const _: () = assert!(VALID != REGIONS && VALID != KEEPABLE && KEEPABLE != REGIONS);
/// `Track::bits`: as `KEEPABLE` for a latest node with several accesses to the resource (from
/// `Whole::multi_first` to `Track::last`), some of them without `discard_after`.
const KEEP_GROUP: u32 = 1 << 3;
/// `Track::bits`, while a node with several accesses to one resource is walked: its second
/// access to the resource is seen.
const MULTI: u32 = 1 << 7;
/// `Track::bits`, while a node with several accesses to one resource is walked: the data was
/// valid before the node.
const ENTRY_VALID: u32 = 1 << 4;
/// As `ENTRY_VALID`: some access of the node writes the resource.
const ANY_WRITE: u32 = 1 << 5;
/// As `ENTRY_VALID`: every access of the node carries `discard_after`.
const ALL_AFTER: u32 = 1 << 6;

/// The walk state of one resource.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) struct Track {
    /// The last access of the latest node touching the resource (`u32::MAX`: none yet).
    last: u32,
    /// The bits above.
    pub bits: u32,
}

impl Track {
    /// Not touched yet.
    pub const UNTOUCHED: Track = Track {
        last: u32::MAX,
        bits: 0,
    };
}

#[inline(always)]
fn bit(on: bool, bit: u32) -> u32 {
    u32::from(on) * bit
}

/// Whether the access (its `AccessInfo` bits, plane 0) needs the data before it: the rule
/// [`super::needs_data`] of its `READS` and `DISCARD_BEFORE` bits, as one mask and compare
/// (this runs for every access of the frame; `needs_data_on_bits_is_the_rule` checks that
/// both give the same answer for every combination).
#[inline(always)]
fn needs_data(bits: u32) -> bool {
    bits & (READS | DISCARD_BEFORE) == READS
}

/// The access's flags when its node begins: discard-before by the rule
/// [`super::discards_before`] (written out here as the walk's branch on `needs && valid`;
/// `flags_at_start_follow_the_rule` checks both agree), and discard-after provisionally (taken
/// back, by the rule's after half, when a later node needs the data: [`take_back_after`]).
#[inline(always)]
fn flags_at_start(needs: bool, valid: bool) -> DiscardFlags {
    if needs && valid {
        DiscardFlags::AFTER
    } else {
        DiscardFlags::AFTER | DiscardFlags::BEFORE
    }
}

/// Where the walk keeps each resource's [`Track`]: barrier planning keeps it in its own
/// per-resource record, so one access touches one cache line for both walks.
pub(crate) trait TrackStore {
    /// The state of `resource` (a resource of the frame).
    fn track_mut(&mut self, resource: u32) -> &mut Track;
}

impl TrackStore for [Track] {
    fn track_mut(&mut self, resource: u32) -> &mut Track {
        &mut self[resource as usize]
    }
}

/// The reusable state of the walk.
#[derive(Debug, Default)]
pub(crate) struct Whole {
    /// Per resource: `REGIONS` where some access does not cover the resource whole, filled
    /// only in a frame with such an access (empty otherwise). The walk's own states live in
    /// the caller's [`TrackStore`], which starts each frame from these bits.
    pub track: Vec<Track>,
    /// Per resource whose latest node has several accesses to it (`KEEP_GROUP`, or a group
    /// that dropped the data): the first of them.
    /// Entries of other resources are stale and never read.
    multi_first: Vec<u32>,
}

impl Whole {
    /// The walk over the whole-tracked resources for one frame, driven node by node by
    /// barrier planning: `infos` and `flags` are the accesses' records and flags, cut to one
    /// length. The per-resource states are the caller's, each started as
    /// `Track::start(regions)` with `regions` from `track`.
    pub fn walk<'a>(
        &'a mut self,
        infos: &'a [AccessInfo],
        flags: &'a [Cell<DiscardFlags>],
    ) -> WholeWalk<'a> {
        let len = infos.len().min(flags.len());
        WholeWalk {
            multi_first: &mut self.multi_first,
            infos: &infos[..len],
            cells: &flags[..len],
        }
    }
}

/// The discard walk over the whole-tracked resources, one node at a time in execution order:
/// for a node that names each resource once, `access` per access (in any order: they touch
/// distinct resources); for any other node, `repeated_node` once. The accesses of outliving
/// and region-tracked resources are skipped. Flags go through cells: the take-backs of earlier
/// nodes' discard-after share the slice that barrier planning reads discard-before from (a
/// flag's discard-before is final once its node is walked).
pub(crate) struct WholeWalk<'a> {
    multi_first: &'a mut Vec<u32>,
    infos: &'a [AccessInfo],
    cells: &'a [Cell<DiscardFlags>],
}

impl WholeWalk<'_> {
    /// One access (`index`, record `info`, `flag` its cell of the flags given to `walk`,
    /// `track` its resource's state) of a node that names its resource once: its flags from
    /// the state when the node begins, the take-back of the previous node's discard-after
    /// where this access needs the data, and the state after the node. Returns the access's
    /// flags as they stand now (its discard-before is final).
    #[inline(always)]
    pub fn access(
        &mut self,
        track: &mut Track,
        info: AccessInfo,
        flag: &Cell<DiscardFlags>,
        index: u32,
    ) -> DiscardFlags {
        let bits = info.bits;
        let state = track.bits;
        if (bits | state) & REGIONS != 0 {
            return flag.get();
        }
        let needs = needs_data(bits);
        let flags = flags_at_start(needs, state & VALID != 0);
        flag.set(flags);
        if needs {
            if state & KEEPABLE != 0 {
                if let Some(last) = self.cells.get(track.last as usize) {
                    take_back_after(last);
                }
            } else if state & KEEP_GROUP != 0 {
                if let Some(&first) = self.multi_first.get(info.resource as usize) {
                    keep_group(self.infos, self.cells, info.resource, first, track.last);
                }
            }
        }
        // Valid after when valid before or written, unless `discard_after` drops it.
        track.bits = if bits & DISCARD_AFTER == 0 {
            ((state | bits) & VALID) | KEEPABLE
        } else {
            0
        };
        track.last = index;
        flags
    }

    /// A node (accesses `start..end`) with several accesses to some resource; `tracks` holds
    /// the `resources` resources' states.
    #[cold]
    #[inline(never)]
    pub fn repeated_node<S: TrackStore + ?Sized>(
        &mut self,
        tracks: &mut S,
        resources: usize,
        start: u32,
        end: u32,
    ) {
        let end = end.min(self.infos.len() as u32);
        if start >= end {
            return;
        }
        if self.multi_first.len() < resources {
            self.multi_first.resize(resources, 0);
        }
        repeated_node(tracks, self.multi_first, self.infos, self.cells, start, end);
    }
}

/// Clears the provisional discard-after of `flag`: a later node needs the data.
#[inline(always)]
fn take_back_after(flag: &Cell<DiscardFlags>) {
    flag.set(DiscardFlags(flag.get().0 & !DiscardFlags::AFTER.0));
}

/// Takes back the provisional discard-after of the accesses `first..=last` (one node's) to
/// `resource` that do not carry `discard_after`: a later node needs their data.
#[cold]
fn keep_group(
    infos: &[AccessInfo],
    flags: &[Cell<DiscardFlags>],
    resource: u32,
    first: u32,
    last: u32,
) {
    for earlier in first as usize..last as usize + 1 {
        let info = infos[earlier];
        if info.resource == resource && info.bits & DISCARD_AFTER == 0 {
            take_back_after(&flags[earlier]);
        }
    }
}

/// A node (accesses `start..end`) with several accesses to some resource: every access sees
/// the state before the node; the node keeps the data where any access lacks
/// `discard_after`, and it is valid after the node where it was before or is written.
#[cold]
#[inline(never)]
fn repeated_node<S: TrackStore + ?Sized>(
    track: &mut S,
    multi_first: &mut [u32],
    infos: &[AccessInfo],
    flags: &[Cell<DiscardFlags>],
    start: u32,
    end: u32,
) {
    let whole = |info: AccessInfo, track: &mut S| {
        (info.bits | track.track_mut(info.resource).bits) & REGIONS == 0
    };
    // Flags from the state before the node; the earlier node keeps what this one needs.
    for access_index in start..end {
        let info = infos[access_index as usize];
        if !whole(info, track) {
            continue;
        }
        let resource = *track.track_mut(info.resource);
        let needs = needs_data(info.bits);
        flags[access_index as usize].set(flags_at_start(needs, resource.bits & VALID != 0));
        if needs && resource.bits & KEEPABLE != 0 {
            take_back_after(&flags[resource.last as usize]);
        } else if needs && resource.bits & KEEP_GROUP != 0 {
            let first = multi_first[info.resource as usize];
            keep_group(infos, flags, info.resource, first, resource.last);
        }
    }
    // The node's group per resource: the entry state, writes and drops. A resource's `last`
    // lies in `start..end` once this node touched it (other nodes' accesses lie outside).
    for access_index in start..end {
        let info = infos[access_index as usize];
        if !whole(info, track) {
            continue;
        }
        let resource = track.track_mut(info.resource);
        let writes = info.bits & WRITES != 0;
        let after = info.bits & DISCARD_AFTER != 0;
        if (start..end).contains(&resource.last) {
            resource.bits |= MULTI | bit(writes, ANY_WRITE);
            if !after {
                resource.bits &= !ALL_AFTER;
            }
        } else {
            resource.bits = bit(resource.bits & VALID != 0, ENTRY_VALID)
                | bit(writes, ANY_WRITE)
                | bit(after, ALL_AFTER);
            multi_first[info.resource as usize] = access_index;
        }
        resource.last = access_index;
    }
    // The state after the node, once per resource (at its last access).
    for access_index in start..end {
        let info = infos[access_index as usize];
        if !whole(info, track) {
            continue;
        }
        let resource = track.track_mut(info.resource);
        if resource.last != access_index {
            continue;
        }
        let bits = resource.bits;
        let keeps = bits & ALL_AFTER == 0;
        resource.bits = bit(
            keeps,
            if bits & MULTI != 0 {
                KEEP_GROUP
            } else {
                KEEPABLE
            },
        ) | bit(keeps && bits & (ENTRY_VALID | ANY_WRITE) != 0, VALID);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The whole walk's bit form of the discard rule is the rule, whatever the other bits.
    #[test]
    fn needs_data_on_bits_is_the_rule() {
        for other in [
            0,
            WRITES,
            OUTLIVES,
            DISCARD_AFTER,
            !(READS | DISCARD_BEFORE),
        ] {
            for (reads, before) in [(false, false), (false, true), (true, false), (true, true)] {
                let bits = other | bit(reads, READS) | bit(before, DISCARD_BEFORE);
                assert_eq!(needs_data(bits), super::super::needs_data(reads, before));
            }
        }
        assert!(needs_data(READS) && !needs_data(READS | DISCARD_BEFORE) && !needs_data(0));
    }

    /// The walk's flags at a node's start carry discard-before exactly where the rule says,
    /// and always the provisional discard-after.
    #[test]
    fn flags_at_start_follow_the_rule() {
        for (needs, valid) in [(false, false), (false, true), (true, false), (true, true)] {
            let flags = flags_at_start(needs, valid);
            assert_eq!(
                flags.contains(DiscardFlags::BEFORE),
                super::super::discards_before(needs, valid)
            );
            assert!(flags.contains(DiscardFlags::AFTER));
        }
    }
}
