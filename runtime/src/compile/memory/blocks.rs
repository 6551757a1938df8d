//! First-fit search with one queue, over per-block occupancy lists.
//!
//! Positions are cut into blocks (whole groups of same-level nodes, at least
//! [`MIN_BLOCK_POSITIONS`] long), and each block keeps the placed transients whose extent touches
//! it, sorted by offset, with their extents and the highest end among them. Every placed
//! transient overlapping an extent `[start, end]` in time is in the list of some block touching
//! `[start, end]`; the lists' other entries fail the time check. The lowest free offset needs no
//! gathering or sorting: a candidate offset only grows; in each list a cursor skips entries
//! ending at or below it or apart in time, and an entry starting below the candidate's end
//! moves the candidate to its own end; an entry starting at or above that end stops the list
//! (those after it start no lower). Visiting the blocks cyclically until every one leaves the
//! candidate unchanged yields the lowest offset free of all placed transients overlapping in
//! time (each move skips only offsets that overlap one), the same answer as a scan of them
//! sorted by offset.

use super::search::{meet, Meet, Occupant, Span, SpanBuffers};

/// Blocks span at least this many positions (unless the frame ends first).
const MIN_BLOCK_POSITIONS: u32 = 5;

/// One block's list: its slots in the entry buffers, the highest end in it, and the search
/// cursor.
#[derive(Copy, Clone, Debug, Default)]
struct Block {
    /// First slot of the list.
    start: u32,
    /// Length of the list (its capacity is the next block's `start` minus this one).
    len: u32,
    /// Index in the list before which no entry can conflict any more (one search).
    cursor: u32,
    /// Highest end among the list's ranges.
    top: u64,
}

/// Reusable per-block occupancy lists (CSR: capacity of each block = the extents touching it).
#[derive(Debug, Default)]
pub(super) struct BlockLists {
    block_of: Vec<u32>,
    blocks: Vec<Block>,
    /// Entry extents `start << 32 | end` (only grown: every slot is written before it is read).
    extents: Vec<u64>,
    /// Entry ranges (of the frame's span width).
    spans: SpanBuffers,
}

/// Moves `block.cursor` past the entries of its list that cannot conflict (ending at or below
/// `offset`, or apart from `start..=end` in time) and `offset` past every conflicting one
/// overlapping `offset..offset + size`; returns whether `offset` moved.
#[inline(always)]
fn advance<S: Span>(
    block: &mut Block,
    ranges: &[S],
    extents: &[u64],
    (start, end): (u32, u32),
    offset: &mut u64,
    size: u64,
) -> bool {
    if block.top <= *offset {
        block.cursor = block.len;
        return false;
    }
    // Bounds summed as `usize` (no wrap): the slices need no start-before-end check.
    let list_start = block.start as usize;
    let list = list_start..list_start + block.len as usize;
    let (ranges, extents) = (&ranges[list.clone()], &extents[list]);
    let mut moved = false;
    let mut at = block.cursor as usize;
    while let (Some(&range), Some(&extent)) = (ranges.get(at), extents.get(at)) {
        match meet(range, *offset, size) {
            Meet::Below => {}
            Meet::Beyond => break,
            Meet::Overlaps => {
                // Only a range overlapping the extent in time is an occupant.
                let apart = (extent >> 32) as u32 > end || (extent as u32) < start;
                if !apart {
                    *offset = range.hi();
                    moved = true;
                }
            }
        }
        at += 1;
    }
    block.cursor = at as u32;
    moved
}

impl BlockLists {
    /// Cuts positions into blocks and sizes their lists from the ranks' extents.
    pub(super) fn build(&mut self, extents: &[(u32, u32)], group_of: &[u32]) {
        super::search::set_len(&mut self.block_of, group_of.len());
        let mut block = 0u32;
        let mut block_start = 0u32;
        let mut previous_group = 0u32;
        for (position, (&group, block_of)) in group_of.iter().zip(&mut self.block_of).enumerate() {
            let position = position as u32;
            if group != previous_group && position - block_start >= MIN_BLOCK_POSITIONS {
                block += 1;
                block_start = position;
            }
            previous_group = group;
            *block_of = block;
        }
        let count = self.block_of.last().map_or(0, |&block| block as usize + 1);
        // Each block's capacity: the extents touching it.
        super::search::fill_list_starts(
            &mut self.blocks,
            count,
            extents,
            &self.block_of,
            |block| &mut block.start,
        );
    }

    /// Places every rank in order at the lowest offset free of the lower ranks overlapping it
    /// in time; fills `spans` (by rank).
    #[inline(never)]
    pub(super) fn place<S: Occupant>(
        &mut self,
        extents: &[(u32, u32)],
        sizes: &[u64],
        spans: &mut Vec<S>,
    ) {
        // One span per rank, each slot written below.
        super::search::set_len(spans, extents.len().min(sizes.len()));
        let mut ranges = std::mem::take(S::buffer(&mut self.spans));
        let capacity = self.blocks.last().map_or(0, |block| block.start) as usize;
        if ranges.len() < capacity {
            ranges.resize(capacity, S::default());
        }
        if self.extents.len() < capacity {
            self.extents.resize(capacity, 0);
        }
        // Both buffers cut to the lists' total capacity: one check covers a list in both.
        let (entry_ranges, entry_extents) =
            (&mut ranges[..capacity], &mut self.extents[..capacity]);
        for ((&(first, last), &size), slot) in extents.iter().zip(sizes).zip(spans.iter_mut()) {
            // Size 0 always fits at 0, and every later rank has size 0 too: no list is read
            // again, so none needs the range.
            if size == 0 {
                *slot = S::pack(0, 0);
                continue;
            }
            let blocks = &mut self.blocks
                [self.block_of[first as usize] as usize..=self.block_of[last as usize] as usize];
            let mut offset = 0u64;
            // The first round; then, cyclically from the first block, until every block has
            // seen the final offset (those after the last move already have).
            let mut last_moved = None;
            for (index, block) in blocks.iter_mut().enumerate() {
                block.cursor = 0;
                if advance(
                    block,
                    entry_ranges,
                    entry_extents,
                    (first, last),
                    &mut offset,
                    size,
                ) {
                    last_moved = Some(index);
                }
            }
            if let Some(moved) = last_moved {
                super::search::settle(blocks.len(), moved, |index| {
                    advance(
                        &mut blocks[index],
                        entry_ranges,
                        entry_extents,
                        (first, last),
                        &mut offset,
                        size,
                    )
                });
            }
            let span = S::pack(offset, offset + size);
            *slot = span;
            let extent = (first as u64) << 32 | last as u64;
            // Insertion by offset (new ranges tend to go on top: few moves).
            for block in blocks.iter_mut() {
                // The list and the free slot after it, bounds summed as `usize` (no wrap).
                let start = block.start as usize;
                let end = start + block.len as usize;
                let (ranges, extents) = (
                    &mut entry_ranges[start..=end],
                    &mut entry_extents[start..=end],
                );
                let mut at = block.len as usize;
                while at > 0 && ranges[at - 1] > span {
                    ranges[at] = ranges[at - 1];
                    extents[at] = extents[at - 1];
                    at -= 1;
                }
                ranges[at] = span;
                extents[at] = extent;
                block.len += 1;
                block.top = block.top.max(offset + size);
            }
        }
        *S::buffer(&mut self.spans) = ranges;
    }
}
