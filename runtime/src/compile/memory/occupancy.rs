//! First-fit search with one queue, over per-group occupancy lists.
//!
//! Every extent starts at the first position of a group (a run of same-level nodes), so a
//! placed transient overlaps the extent `[start, end]` in time exactly when it is live at one of
//! the group starts inside `[start, end]` (it either covers `start`, or starts later within the
//! extent, at a group start). Each group keeps the placed transients live at its start, sorted
//! by offset; they are all live at one moment, so their ranges are disjoint, and sorted by
//! offset they are sorted by end too. The lowest free offset then needs no gathering or
//! sorting: a candidate offset only grows; in each group's list a cursor skips the ranges ending
//! at or below it, and a range starting below the candidate's end moves the candidate to its
//! own end. Visiting the groups cyclically until every one leaves the candidate unchanged
//! yields the lowest offset free in all of them (each move skips only offsets that overlap
//! some placed range), the same answer as a scan of all overlapping ranges sorted by offset.
//! The new range then goes into each group's list at its cursor.
//!
//! Largest-first placement packs each list's low offsets tightly: each group also keeps the
//! length of its list's gapless run from offset 0 and that run's end. A candidate offset
//! inside the run would step through every range of it in turn and leave at its end, so the
//! search jumps there (same offset, same cursor, same answer).

use super::search::{meet, Meet, Occupant, Span, SpanBuffers};

/// One group's list: its slots in the span buffer and the search cursor.
#[derive(Copy, Clone, Debug, Default)]
struct Group {
    /// First slot of the list in the span buffer.
    start: u32,
    /// Length of the list (its capacity is the next group's `start` minus this one).
    len: u32,
    /// Index in the list of the first range ending above the candidate offset (one search).
    cursor: u32,
    /// The list's first `run_len` ranges cover `0..run_end` without a gap.
    run_len: u32,
    run_end: u64,
}

/// Reusable per-group occupancy lists (CSR: capacity of each group = the ranks live at its
/// start).
#[derive(Debug, Default)]
pub(super) struct OccupancyLists {
    groups: Vec<Group>,
    /// Entry ranges (of the frame's span width).
    spans: SpanBuffers,
}

/// Moves `group.cursor` past the ranges of `list` (the group's list) ending at or below
/// `offset`, and `offset` past every range overlapping `offset..offset + size` (the list is
/// sorted and disjoint, so such ranges follow one another); returns whether `offset` moved.
#[inline(always)]
fn advance<S: Span>(list: &[S], group: &mut Group, offset: &mut u64, size: u64) -> bool {
    // Ranges are sorted by end too: when the last ends at or below `offset`, all do.
    if list.last().is_none_or(|range| range.hi() <= *offset) {
        group.cursor = list.len() as u32;
        return false;
    }
    let mut moved = false;
    // An offset inside the gapless run from 0 overlaps the run's range containing it, then
    // each one after it (the next starts where it ends): the scan would leave at the run's
    // end, past its ranges. The cursor is then below the run's length (the ranges before it
    // end at or below the offset).
    if *offset < group.run_end {
        *offset = group.run_end;
        group.cursor = group.run_len;
        moved = true;
    }
    let mut at = group.cursor as usize;
    while let Some(&range) = list.get(at) {
        match meet(range, *offset, size) {
            Meet::Below => {}
            Meet::Beyond => break,
            Meet::Overlaps => {
                *offset = range.hi();
                moved = true;
            }
        }
        at += 1;
    }
    group.cursor = at as u32;
    moved
}

impl Group {
    /// The slots of the list (bounds summed as `usize`, which cannot wrap: one check for
    /// the slice).
    #[inline(always)]
    fn list(&self) -> std::ops::Range<usize> {
        let start = self.start as usize;
        start..start + self.len as usize
    }

    /// The slots of the list and the free slot after it.
    #[inline(always)]
    fn list_and_free_slot(&self) -> std::ops::RangeInclusive<usize> {
        let start = self.start as usize;
        start..=start + self.len as usize
    }
}

impl OccupancyLists {
    /// Sizes the lists from the ranks' extents: each group's capacity is the number of extents
    /// covering its start.
    pub(super) fn build(&mut self, extents: &[(u32, u32)], group_of: &[u32]) {
        let count = group_of.last().map_or(0, |&group| group as usize + 1);
        super::search::fill_list_starts(&mut self.groups, count, extents, group_of, |group| {
            &mut group.start
        });
    }

    /// Places every rank in order at the lowest offset free of the lower ranks overlapping it
    /// in time; fills `spans` (by rank).
    #[inline(never)]
    pub(super) fn place<S: Occupant>(
        &mut self,
        extents: &[(u32, u32)],
        sizes: &[u64],
        group_of: &[u32],
        spans: &mut Vec<S>,
    ) {
        // One span per rank, each slot written below.
        super::search::set_len(spans, extents.len().min(sizes.len()));
        let mut occupants = std::mem::take(S::buffer(&mut self.spans));
        let capacity = self.groups.last().map_or(0, |group| group.start) as usize;
        if occupants.len() < capacity {
            occupants.resize(capacity, S::default());
        }
        for ((&(first, last), &size), slot) in extents.iter().zip(sizes).zip(spans.iter_mut()) {
            // Size 0 always fits at 0, and every later rank has size 0 too: no list is read
            // again, so none needs the range.
            if size == 0 {
                *slot = S::pack(0, 0);
                continue;
            }
            let (first_group, last_group) = (
                group_of[first as usize] as usize,
                group_of[last as usize] as usize,
            );
            let groups = &mut self.groups[first_group..=last_group];
            let mut offset = 0u64;
            // The first round; then, cyclically from the first group, until every group has
            // seen the final offset (those after the last move already have).
            let mut last_moved = None;
            for (index, group) in groups.iter_mut().enumerate() {
                let list = &occupants[group.list()];
                group.cursor = 0;
                if advance(list, group, &mut offset, size) {
                    last_moved = Some(index);
                }
            }
            if let Some(moved) = last_moved {
                super::search::settle(groups.len(), moved, |index| {
                    let group = &mut groups[index];
                    let list = &occupants[group.list()];
                    advance(list, group, &mut offset, size)
                });
            }
            let span = S::pack(offset, offset + size);
            *slot = span;
            for group in groups.iter_mut() {
                let list = &mut occupants[group.list_and_free_slot()];
                let mut at = group.len as usize;
                while at > group.cursor as usize {
                    list[at] = list[at - 1];
                    at -= 1;
                }
                list[at] = span;
                group.len += 1;
                // Every search of the group left the offset at or past the run's end, so the
                // new range goes at or after the run: it extends the run only by starting at
                // its end, and may join it to the ranges after it.
                if at == group.run_len as usize && span.lo() == group.run_end {
                    let mut run_len = at;
                    let mut run_end = group.run_end;
                    while let Some(&range) = list.get(run_len) {
                        if range.lo() != run_end {
                            break;
                        }
                        run_end = range.hi();
                        run_len += 1;
                    }
                    group.run_len = run_len as u32;
                    group.run_end = run_end;
                }
            }
        }
        *S::buffer(&mut self.spans) = occupants;
    }
}
