//! The placement search ([`super::pack`]): an instance that every first-fit order fragments,
//! placed at its lower bound, and properties over seeded random instances (legal, within the
//! bounds, deterministic).

use super::fit::{FirstFit, RankOrder, Transient};
use super::pack::{Pack, PackItem};
use crate::compile::frame::Placement;
use crate::shapes::ShapeRng;
use crate::ALLOCATION_ALIGNMENT;

/// The heap of first fit in `rank` order over `items`, with one position per group.
fn first_fit_units(items: &[PackItem], groups: usize, rank: RankOrder) -> u64 {
    let transients: Vec<Transient> = items
        .iter()
        .enumerate()
        .map(|(index, item)| Transient {
            index: index as u32,
            start: item.first,
            end: item.last,
        })
        .collect();
    let sizes: Vec<u64> = items
        .iter()
        .map(|item| u64::from(item.units) * ALLOCATION_ALIGNMENT)
        .collect();
    let group_of: Vec<u32> = (0..groups as u32).collect();
    let mut placements: Vec<Option<Placement>> = vec![None; items.len()];
    let heap = FirstFit::default().place(
        &transients,
        &sizes,
        groups,
        (&group_of, rank),
        None,
        &mut placements,
    );
    heap / ALLOCATION_ALIGNMENT
}

/// The heap of `offsets` (units), after checking that no two items sharing a group overlap in
/// memory.
fn checked_heap(items: &[PackItem], offsets: &[u32]) -> u64 {
    assert_eq!(offsets.len(), items.len());
    for (a, (item_a, &offset_a)) in items.iter().zip(offsets).enumerate() {
        for (b, (item_b, &offset_b)) in items.iter().zip(offsets).enumerate().skip(a + 1) {
            let time = item_a.first <= item_b.last && item_b.first <= item_a.last;
            let memory = offset_a < offset_b + item_b.units && offset_b < offset_a + item_a.units;
            assert!(
                !(time && memory),
                "items {a} ({item_a:?} at {offset_a}) and {b} ({item_b:?} at {offset_b}) overlap"
            );
        }
    }
    items
        .iter()
        .zip(offsets)
        .map(|(item, &offset)| u64::from(offset + item.units))
        .max()
        .unwrap_or(0)
}

fn item(first: u32, last: u32, units: u32) -> PackItem {
    PackItem { first, last, units }
}

/// The module doc's example: group 1 holds a, b and d (6 units), and c (3 units) fits beside b
/// in group 2 only if b sits at an end of the 6 units. Largest first puts c at 0 and b above
/// a, leaving d a gap of one unit; by start or by end d or c lands above as well.
#[test]
fn search_reaches_the_bound_that_every_first_fit_order_misses() {
    let items = [item(0, 1, 2), item(0, 2, 2), item(2, 2, 3), item(1, 1, 2)];
    assert_eq!(Pack::lower_bound(&items, 3), 6);
    for rank in [RankOrder::Decreasing, RankOrder::Start, RankOrder::End] {
        assert_eq!(first_fit_units(&items, 3, rank), 7, "{rank:?}");
    }
    let mut pack = Pack::default();
    assert_eq!(pack.search(&items, 3, 7), Some(6));
    assert_eq!(pack.best, [0, 4, 0, 2]);
    assert_eq!(checked_heap(&items, &pack.best), 6);
    // Nothing below the ceiling to find: the bound is the ceiling.
    assert_eq!(pack.search(&items, 3, 6), None);
}

/// A random instance: up to 60 items over up to 24 groups, extents of up to 6 groups, sizes
/// from a small palette (as frames have).
fn random_items(rng: &mut ShapeRng) -> (Vec<PackItem>, usize) {
    let groups = 1 + rng.below(24) as usize;
    let count = rng.below(60) as usize;
    let palette = [1, 2, 3, 4, 8, 5 + rng.below(12) as u32];
    let items = (0..count)
        .map(|_| {
            let first = rng.below(groups as u64) as u32;
            let last = (first + rng.below(6) as u32).min(groups as u32 - 1);
            item(
                first,
                last,
                palette[rng.below(palette.len() as u64) as usize],
            )
        })
        .collect();
    (items, groups)
}

/// Over seeded random instances: whatever the search returns is a legal placement whose heap
/// is its answer, at least the lower bound and below first fit's (largest first); a second
/// search, with fresh or reused scratch, gives the same offsets.
#[test]
fn search_placements_are_legal_bounded_and_deterministic() {
    let mut rng = ShapeRng(0x9ac4_5eed);
    let mut reused = Pack::default();
    let (mut fragmented, mut improved, mut at_bound) = (0, 0, 0);
    for round in 0..300 {
        let (items, groups) = random_items(&mut rng);
        let ceiling = first_fit_units(&items, groups, RankOrder::Decreasing);
        let bound = Pack::lower_bound(&items, groups);
        assert!(bound <= ceiling, "round {round}");
        fragmented += usize::from(bound < ceiling);
        let mut pack = Pack::default();
        let found = pack.search(&items, groups, ceiling);
        if let Some(heap) = found {
            assert!(bound <= heap && heap < ceiling, "round {round}: {heap}");
            assert_eq!(checked_heap(&items, &pack.best), heap, "round {round}");
            improved += 1;
            at_bound += usize::from(heap == bound);
        }
        assert_eq!(
            reused.search(&items, groups, ceiling),
            found,
            "round {round}"
        );
        if found.is_some() {
            assert_eq!(reused.best, pack.best, "round {round}");
        }
    }
    // Every instance that first fit fragments (59 of 300) is placed at the bound.
    assert_eq!((fragmented, improved, at_bound), (59, 59, 59));
}
