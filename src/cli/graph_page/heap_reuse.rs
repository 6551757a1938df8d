//! Which resource each transient takes its memory over from: the heap's labels
//! (`next (reuses onCompute)`) show what aliases what.

use std::collections::BTreeMap;

use rpsl::runtime::Placement;

/// For each resource (by index): the earlier occupant of its bytes that ended last, or `None`
/// (not placed, or the first in its bytes). Resources sharing bytes have disjoint lifetimes, so
/// one sweep in order of first use over a map of byte ranges to their latest occupant finds
/// them: each range a resource covers is replaced by it, so the sweep takes O(n log n).
///
/// ```ignore
/// // a at bytes 0..8 for positions 0..=1, b at 4..12 for 2..=3: b reuses a.
/// let placements = [Some(Placement { offset: 0, size: 8 }), Some(Placement { offset: 4, size: 8 })];
/// assert_eq!(previous_occupants(&placements, &[Some((0, 1)), Some((2, 3))]), [None, Some(0)]);
/// ```
pub fn previous_occupants(
    placements: &[Option<Placement>],
    lifetimes: &[Option<(u32, u32)>],
) -> Vec<Option<u32>> {
    let mut placed: Vec<(u32, usize, Placement)> = placements
        .iter()
        .enumerate()
        .filter_map(|(index, placement)| {
            let placement = (*placement)?;
            let (first, _) = (*lifetimes.get(index)?)?;
            (placement.size > 0).then_some((first, index, placement))
        })
        .collect();
    placed.sort_unstable_by_key(|&(first, index, _)| (first, index));
    let mut out = vec![None; placements.len()];
    // Start offset -> (end offset, occupant): disjoint ranges covering the bytes used so far.
    let mut occupied: BTreeMap<u64, (u64, usize)> = BTreeMap::new();
    for (_, index, placement) in placed {
        let (start, end) = (placement.offset, placement.offset + placement.size);
        // The ranges overlapping [start, end): the one starting before `start` that reaches
        // into it, then every one starting inside it.
        let mut overlapping: Vec<(u64, u64, usize)> = Vec::new();
        if let Some((&lo, &(hi, owner))) = occupied.range(..start).next_back() {
            if hi > start {
                overlapping.push((lo, hi, owner));
            }
        }
        overlapping.extend(
            occupied
                .range(start..end)
                .map(|(&lo, &(hi, owner))| (lo, hi, owner)),
        );
        // The latest earlier occupant: the one that ended last (ties: the higher index).
        out[index] = overlapping
            .iter()
            .map(|&(_, _, owner)| owner)
            .max_by_key(|&owner| (lifetimes[owner].map_or(0, |(_, last)| last), owner))
            .map(|owner| owner as u32);
        // Paint [start, end) with this resource, keeping the parts of the old ranges outside.
        for &(lo, hi, owner) in &overlapping {
            occupied.remove(&lo);
            if lo < start {
                occupied.insert(lo, (start, owner));
            }
            if hi > end {
                occupied.insert(end, (hi, owner));
            }
        }
        occupied.insert(start, (end, index));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(offset: u64, size: u64) -> Option<Placement> {
        Some(Placement { offset, size })
    }

    #[test]
    fn each_resource_names_the_last_earlier_occupant_of_its_bytes() {
        // a: 0..8 at 0..=1; b: 8..16 at 0..=2; c: 4..12 at 3..=4 (over a and b, b ended
        // later); d: 0..4 at 5..=5 (over a's remaining bytes); e: not placed; f: 12..16 at
        // 5..=6 (over what is left of b).
        let placements = [at(0, 8), at(8, 8), at(4, 8), at(0, 4), None, at(12, 4)];
        let lifetimes = [
            Some((0, 1)),
            Some((0, 2)),
            Some((3, 4)),
            Some((5, 5)),
            Some((0, 6)),
            Some((5, 6)),
        ];
        assert_eq!(
            previous_occupants(&placements, &lifetimes),
            [None, None, Some(1), Some(0), None, Some(1)]
        );
    }

    #[test]
    fn a_resource_over_several_earlier_ones_names_the_latest() {
        let placements = [at(0, 4), at(4, 4), at(0, 8), at(2, 2)];
        let lifetimes = [Some((0, 0)), Some((1, 1)), Some((2, 2)), Some((3, 3))];
        assert_eq!(
            previous_occupants(&placements, &lifetimes),
            [None, None, Some(1), Some(2)]
        );
    }
}
