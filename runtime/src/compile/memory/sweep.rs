//! The placement fallback for frames whose summed lifetime lengths exceed first fit's linear
//! budget: a sweep in start order with best-fit free blocks coalesced on release, O(R log R).
//! Each resource's `alias_after` is the latest last use among the freed blocks it reuses.

use crate::compile::frame::Placement;
use std::collections::{BTreeMap, BTreeSet};

/// Reusable scratch of the sweep.
#[derive(Debug, Default)]
pub(super) struct Sweep {
    /// Transients sorted by (first position, largest first, index).
    by_start: Vec<u32>,
    /// Transients sorted by (extent end, index).
    by_end: Vec<u32>,
    counts: Vec<u32>,
    /// Free blocks by offset: `(size, last use of the data previously there)`.
    free_by_offset: BTreeMap<u64, (u64, Option<u32>)>,
    /// Free blocks as `(size, offset)`, for best fit.
    free_by_size: BTreeSet<(u64, u64)>,
}

/// Fills `out` with `items` (resource indices in increasing order) sorted by
/// `(position(index), index)`: a stable counting sort over positions `0..positions`.
fn sort_by_position(
    items: &[u32],
    positions: usize,
    counts: &mut Vec<u32>,
    out: &mut Vec<u32>,
    position: impl Fn(u32) -> u32,
) {
    counts.clear();
    counts.resize(positions + 1, 0);
    for &index in items {
        counts[position(index) as usize + 1] += 1;
    }
    for slot in 1..counts.len() {
        counts[slot] += counts[slot - 1];
    }
    out.clear();
    out.resize(items.len(), 0);
    for &index in items {
        let slot = &mut counts[position(index) as usize];
        out[*slot as usize] = index;
        *slot += 1;
    }
}

impl Sweep {
    /// Places `transients` (resource indices in increasing order, each with an extent) in start
    /// order, each after releasing the resources whose extent ended before its group starts;
    /// fills their placements and `alias_after` (`out`, by resource index); returns the heap
    /// size. `group_start` has one entry per execution position.
    pub(super) fn place(
        &mut self,
        out: (&mut [Option<Placement>], &mut [Option<u32>]),
        transients: &[u32],
        extents: &[Option<(u32, u32)>],
        group_start: &[u32],
        sizes: &[u64],
    ) -> u64 {
        let (placements, alias_after) = out;
        let positions = group_start.len();
        let size_of = |index: u32| sizes[index as usize];
        let first_of = |index: u32| extents[index as usize].map_or(0, |(first, _)| first);
        let last_of = |index: u32| extents[index as usize].map_or(0, |(_, last)| last);
        // Sorted by (first, largest first, index): by first position, then each run of equal
        // first positions (a few resources) by size.
        sort_by_position(
            transients,
            positions,
            &mut self.counts,
            &mut self.by_start,
            first_of,
        );
        let mut run_start = 0;
        while run_start < self.by_start.len() {
            let first = first_of(self.by_start[run_start]);
            let mut run_end = run_start + 1;
            while run_end < self.by_start.len() && first_of(self.by_start[run_end]) == first {
                run_end += 1;
            }
            if run_end - run_start > 1 {
                self.by_start[run_start..run_end]
                    .sort_unstable_by_key(|&index| (std::cmp::Reverse(size_of(index)), index));
            }
            run_start = run_end;
        }
        sort_by_position(
            transients,
            positions,
            &mut self.counts,
            &mut self.by_end,
            last_of,
        );
        self.free_by_offset.clear();
        self.free_by_size.clear();
        let mut heap_end = 0u64;
        let mut end_cursor = 0;
        let by_start = std::mem::take(&mut self.by_start);
        for &index in &by_start {
            let first = first_of(index);
            while end_cursor < self.by_end.len() {
                let ended = self.by_end[end_cursor];
                let last = last_of(ended);
                if last >= group_start[first as usize] {
                    break;
                }
                end_cursor += 1;
                if let Some(placement) = placements[ended as usize] {
                    self.release(placement.offset, placement.size, Some(last));
                }
            }
            let size = size_of(index);
            let (offset, previous_use) = self.allocate(size, &mut heap_end);
            placements[index as usize] = Some(Placement { offset, size });
            alias_after[index as usize] = previous_use;
        }
        self.by_start = by_start;
        heap_end
    }

    /// Best fit: returns the offset and the last use position of data previously in that memory.
    fn allocate(&mut self, size: u64, heap_end: &mut u64) -> (u64, Option<u32>) {
        if let Some(&(block_size, offset)) = self.free_by_size.range((size, 0)..).next() {
            self.free_by_size.remove(&(block_size, offset));
            let (_, dirty) = self
                .free_by_offset
                .remove(&offset)
                .unwrap_or((block_size, None));
            if block_size > size {
                self.insert_free(offset + size, block_size - size, dirty);
            }
            return (offset, dirty);
        }
        // Grow the heap, reusing a free block at its top.
        if let Some((&offset, &(block_size, dirty))) = self.free_by_offset.iter().next_back() {
            if offset + block_size == *heap_end {
                self.free_by_offset.remove(&offset);
                self.free_by_size.remove(&(block_size, offset));
                *heap_end = offset + size;
                return (offset, dirty);
            }
        }
        let offset = *heap_end;
        *heap_end += size;
        (offset, None)
    }

    fn insert_free(&mut self, offset: u64, size: u64, dirty: Option<u32>) {
        self.free_by_offset.insert(offset, (size, dirty));
        self.free_by_size.insert((size, offset));
    }

    fn release(&mut self, mut offset: u64, mut size: u64, mut dirty: Option<u32>) {
        if let Some((&prev_offset, &(prev_size, prev_dirty))) =
            self.free_by_offset.range(..offset).next_back()
        {
            if prev_offset + prev_size == offset {
                self.free_by_offset.remove(&prev_offset);
                self.free_by_size.remove(&(prev_size, prev_offset));
                offset = prev_offset;
                size += prev_size;
                dirty = dirty.max(prev_dirty);
            }
        }
        if let Some(&(next_size, next_dirty)) = self.free_by_offset.get(&(offset + size)) {
            self.free_by_offset.remove(&(offset + size));
            self.free_by_size.remove(&(next_size, offset + size));
            size += next_size;
            dirty = dirty.max(next_dirty);
        }
        self.insert_free(offset, size, dirty);
    }
}
