//! Transient lifetimes and aliasing: every transient (not external, persistent or temporal)
//! resource lives from its first to its last live access in the chosen order; resources whose
//! lifetimes overlap never overlap in memory. All placements use [`crate::ALLOCATION_ALIGNMENT`]
//! granularity. Memory freed within a run of nodes at one dependency level is reused only from
//! the next run on (so the aliasing barrier joins the batch at the start of that run).
//!
//! Packing over (time x offset): first fit by decreasing size, each resource at the lowest offset
//! free of the resources already placed that overlap it in time (found through per-position
//! lists of the resources covering and starting at each position), when the summed lifetime
//! lengths stay within a linear budget; otherwise a sweep in
//! start order with best-fit free blocks coalesced on release, O(R log R). The better of the two
//! is not searched for: the first applies whenever it is cheap.

use super::deps::DepGraph;
use super::queue_order::QueueOrder;
use super::{CompiledFrame, MemoryStats, Placement};
use crate::graph::RecordedGraph;
use std::collections::{BTreeMap, BTreeSet};

/// Reusable scratch of lifetime analysis and placement.
#[derive(Debug, Default)]
pub struct MemoryPlanner {
    /// Ordering across queues (placement extents reach until every queue is ordered after).
    queue_order: QueueOrder,
    /// Last position of each resource's placement extent (see [`QueueOrder::releases`]).
    release: Vec<Option<u32>>,
    /// Placement extent `(first, release)` of each resource: its lifetime, extended past the
    /// last access until no queue can still run concurrently with it.
    extents: Vec<Option<(u32, u32)>>,
    by_start: Vec<u32>,
    by_end: Vec<u32>,
    free_by_offset: BTreeMap<u64, (u64, Option<u32>)>,
    free_by_size: BTreeSet<(u64, u64)>,
    deltas: Vec<i64>,
    group_start: Vec<u32>,
    /// Resources whose placement extent covers each position (CSR by `cover_start`).
    cover: Vec<u32>,
    cover_start: Vec<u32>,
    /// Resources whose placement extent starts at each position (CSR by `begin_start`).
    begins: Vec<u32>,
    begin_start: Vec<u32>,
    cursor: Vec<u32>,
    begin_cursor: Vec<u32>,
    /// Extent (start, end) of each rank (place in the first-fit order).
    rank_extent: Vec<(u32, u32)>,
    /// Size of each rank (in allocation units when they fit a word, else bytes).
    rank_size: Vec<u64>,
    /// Placed offset of each rank (same unit).
    rank_offset: Vec<u64>,
    /// Placed ranges `lo << 64 | hi` by rank.
    spans: Vec<u128>,
    /// Ranges `lo << 64 | hi` of the placed resources overlapping one in time.
    conflicts: Vec<u128>,
    /// Placed ranges `lo << 32 | hi` by rank (when they fit a word).
    packed_spans: Vec<u64>,
    /// The same as `lo << 32 | hi` words (when they fit).
    packed_conflicts: Vec<u64>,
    paint: Vec<u32>,
    /// Sort keys (largest first, extent start, index) of the first-fit order.
    size_keys: Vec<u128>,
    /// Transients in index order.
    indexed: Vec<u32>,
    counts: Vec<u32>,
    by_size: Vec<u32>,
}

/// Two resources whose placement extents overlap may still share memory when one's last access
/// comes before the other's extent starts and every queue orders it before the other.
fn apart(
    queue_order: &QueueOrder,
    lifetimes: &[Option<(u32, u32)>],
    group_start: &[u32],
    a: u32,
    b: u32,
) -> bool {
    let (Some((a_first, a_last)), Some((b_first, b_last))) =
        (lifetimes[a as usize], lifetimes[b as usize])
    else {
        return false;
    };
    (a_last < group_start[b_first as usize] && queue_order.ordered(a, b))
        || (b_last < group_start[a_first as usize] && queue_order.ordered(b, a))
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

/// A range `lo..hi` packed into one integer ordered by `lo` first.
trait Span: Copy + Ord + Default {
    fn pack(lo: u64, hi: u64) -> Self;
    fn lo(self) -> u64;
    fn hi(self) -> u64;
}

impl Span for u64 {
    #[inline(always)]
    fn pack(lo: u64, hi: u64) -> u64 {
        lo << 32 | hi
    }
    #[inline(always)]
    fn lo(self) -> u64 {
        self >> 32
    }
    #[inline(always)]
    fn hi(self) -> u64 {
        self & 0xffff_ffff
    }
}

impl Span for u128 {
    #[inline(always)]
    fn pack(lo: u64, hi: u64) -> u128 {
        (lo as u128) << 64 | hi as u128
    }
    #[inline(always)]
    fn lo(self) -> u64 {
        (self >> 64) as u64
    }
    #[inline(always)]
    fn hi(self) -> u64 {
        self as u64
    }
}

/// The per-rank inputs of first-fit placement: extents, sizes, and the per-position lists of
/// ranks whose extent covers / starts at each position (CSR, each list sorted by rank).
struct RankLists<'a> {
    /// Lower ranks overlapping in extent that may still share memory with a rank (by rank).
    apart: Option<&'a dyn Fn(u32, u32) -> bool>,
    extents: &'a [(u32, u32)],
    sizes: &'a [u64],
    cover_start: &'a [u32],
    cover: &'a [u32],
    begin_start: &'a [u32],
    begins: &'a [u32],
}

impl RankLists<'_> {
    /// Places every rank in order at the lowest offset free of the lower ranks overlapping it
    /// in time (those covering its extent start, plus those starting inside its extent), into
    /// `offsets`.
    fn place<S: Span>(&self, spans: &mut Vec<S>, gathered: &mut Vec<S>, offsets: &mut Vec<u64>) {
        offsets.clear();
        // `spans` holds the placed ranges by rank; `gathered` those overlapping the current one.
        spans.clear();
        for (rank, (&(start, end), &size)) in self.extents.iter().zip(self.sizes).enumerate() {
            let rank = rank as u32;
            gathered.clear();
            let covering = self.cover_start[start as usize] as usize
                ..self.cover_start[start as usize + 1] as usize;
            let apart = |other: u32| self.apart.is_some_and(|apart| apart(other, rank));
            for &other in &self.cover[covering] {
                if other >= rank {
                    break;
                }
                if !apart(other) {
                    gathered.push(spans[other as usize]);
                }
            }
            let beginning = self.begin_start[start as usize + 1] as usize
                ..self.begin_start[end as usize + 1] as usize;
            for &other in &self.begins[beginning] {
                if other < rank && !apart(other) {
                    gathered.push(spans[other as usize]);
                }
            }
            gathered.sort_unstable();
            let mut offset = 0u64;
            for &range in gathered.iter() {
                if range.lo() >= offset + size {
                    break;
                }
                offset = offset.max(range.hi());
            }
            offsets.push(offset);
            spans.push(S::pack(offset, offset + size));
        }
    }
}

impl MemoryPlanner {
    /// Fills `frame.lifetimes`, `frame.placements` and `frame.memory` from `frame.order`.
    pub fn plan(
        &mut self,
        graph: &RecordedGraph,
        frame: &mut CompiledFrame,
        deps: &DepGraph,
        levels: &[u32],
        sizes: &[u64],
    ) {
        let resource_count = graph.resources.len();
        frame.lifetimes.clear();
        frame.lifetimes.resize(resource_count, None);
        for (position, node) in frame.order.iter().enumerate() {
            let position = position as u32;
            for access in graph.node_accesses(*node) {
                let lifetime = &mut frame.lifetimes[access.resource.index()];
                *lifetime = Some(match *lifetime {
                    None => (position, position),
                    Some((first, last)) => (first.min(position), last.max(position)),
                });
            }
        }
        frame.placements.clear();
        frame.placements.resize(resource_count, None);
        frame.alias_after.clear();
        frame.alias_after.resize(resource_count, None);
        self.by_start.clear();
        let mut unaliased = 0u64;
        self.deltas.clear();
        self.deltas.resize(frame.order.len() + 1, 0);
        for (index, resource) in graph.resources.iter().enumerate() {
            if resource.outlives_frame() {
                continue;
            }
            if let Some((first, last)) = frame.lifetimes[index] {
                let size = sizes[index];
                unaliased += size;
                self.by_start.push(index as u32);
                self.deltas[first as usize] += size as i64;
                self.deltas[last as usize + 1] -= size as i64;
            }
        }
        let mut live = 0i64;
        let mut peak = 0i64;
        for delta in &self.deltas {
            live += delta;
            peak = peak.max(live);
        }
        self.queue_order
            .releases(graph, deps, frame, &mut self.release);
        self.extents.clear();
        self.extents.extend(
            frame
                .lifetimes
                .iter()
                .zip(&self.release)
                .map(|(lifetime, release)| {
                    lifetime.map(|(first, last)| (first, release.unwrap_or(last)))
                }),
        );
        let extents = std::mem::take(&mut self.extents);
        let lifetimes = &extents;
        let size_of = |index: u32| sizes[index as usize];
        let first_of = |index: u32| lifetimes[index as usize].map_or(0, |(first, _)| first);
        let last_of = |index: u32| lifetimes[index as usize].map_or(0, |(_, last)| last);
        // Sorted by (first, largest first, index): by first position, then each run of equal
        // first positions (a few resources) by size.
        let positions = frame.order.len();
        self.indexed.clear();
        self.indexed.extend_from_slice(&self.by_start);
        sort_by_position(
            &self.indexed,
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
            &self.indexed,
            positions,
            &mut self.counts,
            &mut self.by_end,
            last_of,
        );
        self.free_by_offset.clear();
        self.free_by_size.clear();
        // Memory freed inside a run of same-level nodes becomes reusable only from the next run,
        // so the aliasing barrier can join the batch at the start of that run.
        self.group_start.clear();
        for position in 0..frame.order.len() {
            let start = if position > 0 && levels.get(position) == levels.get(position - 1) {
                self.group_start[position - 1]
            } else {
                position as u32
            };
            self.group_start.push(start);
        }
        let budget = 16 * (resource_count + frame.order.len()) + 1024;
        let span: usize = self
            .by_start
            .iter()
            .map(|&index| {
                let (first, last) = lifetimes[index as usize].unwrap();
                (last - self.group_start[first as usize]) as usize + 1
            })
            .sum();
        if span <= budget {
            self.extents = extents;
            let heap_end = self.first_fit_decreasing(frame, sizes);
            self.compute_alias_after(frame, heap_end);
            frame.memory = MemoryStats {
                transient_bytes: heap_end,
                unaliased_bytes: unaliased,
                lower_bound_bytes: peak as u64,
            };
            return;
        }
        let mut heap_end = 0u64;
        let mut end_cursor = 0;
        let by_start = std::mem::take(&mut self.by_start);
        for &index in &by_start {
            let (first, _) = lifetimes[index as usize].unwrap();
            while end_cursor < self.by_end.len() {
                let ended = self.by_end[end_cursor];
                let (_, last) = lifetimes[ended as usize].unwrap();
                if last >= self.group_start[first as usize] {
                    break;
                }
                end_cursor += 1;
                if let Some(placement) = frame.placements[ended as usize] {
                    self.release(placement.offset, placement.size, Some(last));
                }
            }
            let size = size_of(index);
            let (offset, previous_use) = self.allocate(size, &mut heap_end);
            frame.placements[index as usize] = Some(Placement { offset, size });
            frame.alias_after[index as usize] = previous_use;
        }
        self.by_start = by_start;
        self.extents = extents;
        frame.memory = MemoryStats {
            transient_bytes: heap_end,
            unaliased_bytes: unaliased,
            lower_bound_bytes: peak as u64,
        };
    }

    /// Places `self.by_start`'s resources by decreasing size at the lowest offset free of
    /// time-overlapping placed resources; returns the heap size.
    #[inline(never)]
    fn first_fit_decreasing(&mut self, frame: &mut CompiledFrame, sizes: &[u64]) -> u64 {
        let extents = &self.extents;
        let group_start = &self.group_start;
        let extent = |index: u32| {
            let (first, last) = extents[index as usize].unwrap();
            (group_start[first as usize], last)
        };
        let mut by_size = std::mem::take(&mut self.by_size);
        // One integer per resource ordering as (largest first, extent start, index).
        self.size_keys.clear();
        self.size_keys.extend(self.by_start.iter().map(|&index| {
            ((!sizes[index as usize] as u128) << 64)
                | ((extent(index).0 as u128) << 32)
                | index as u128
        }));
        self.size_keys.sort_unstable();
        by_size.clear();
        by_size.extend(self.size_keys.iter().map(|&key| key as u32));
        // Time overlap through two lists per position: the resources whose extent covers it,
        // and those whose extent starts there. The placed resources overlapping [start, end]
        // are those covering `start` plus those starting in (start, end], each seen once.
        let positions = frame.order.len() + 1;
        self.cover_start.clear();
        self.cover_start.resize(positions + 1, 0);
        self.begin_start.clear();
        self.begin_start.resize(positions + 1, 0);
        self.rank_extent.clear();
        self.rank_extent
            .extend(by_size.iter().map(|&index| extent(index)));
        for &(start, end) in &self.rank_extent {
            self.begin_start[start as usize + 1] += 1;
            for slot in &mut self.cover_start[start as usize + 1..end as usize + 2] {
                *slot += 1;
            }
        }
        for position in 0..positions {
            self.cover_start[position + 1] += self.cover_start[position];
            self.begin_start[position + 1] += self.begin_start[position];
        }
        self.cover.clear();
        self.cover.resize(self.cover_start[positions] as usize, 0);
        self.begins.clear();
        self.begins.resize(self.begin_start[positions] as usize, 0);
        self.cursor.clear();
        self.cursor
            .extend_from_slice(&self.cover_start[..positions]);
        self.begin_cursor.clear();
        self.begin_cursor
            .extend_from_slice(&self.begin_start[..positions]);
        // Ranks (places in the first-fit order) everywhere below: the lists hold ranks, filled
        // in rank order, so each list is sorted and the placed resources (lower ranks) come
        // first in it.
        for (rank, &(start, end)) in self.rank_extent.iter().enumerate() {
            let slot = &mut self.begin_cursor[start as usize];
            self.begins[*slot as usize] = rank as u32;
            *slot += 1;
            for position in start..=end {
                let slot = &mut self.cursor[position as usize];
                self.cover[*slot as usize] = rank as u32;
                *slot += 1;
            }
        }
        // Byte ranges in allocation units fit one word when every size is a whole number of
        // units and all of them together stay below 2^32 units (always, short of absurd
        // descriptions): then conflicts sort as `lo << 32 | hi` words (same order as by bytes).
        let unit = crate::resource::ALLOCATION_ALIGNMENT;
        let mut total_units = 0u64;
        let packable = by_size.iter().all(|&index| {
            let size = sizes[index as usize];
            total_units = total_units.saturating_add(size / unit);
            size.is_multiple_of(unit)
        }) && total_units < 1 << 32;
        let scale = if packable { unit } else { 1 };
        self.rank_size.clear();
        self.rank_size
            .extend(by_size.iter().map(|&index| sizes[index as usize] / scale));
        // With several queues, extent overlaps that every queue orders apart share memory.
        let lifetimes = &frame.lifetimes;
        let (queue_order, group_start) = (&self.queue_order, &self.group_start);
        let apart = |a: u32, b: u32| {
            apart(
                queue_order,
                lifetimes,
                group_start,
                by_size[a as usize],
                by_size[b as usize],
            )
        };
        let lists = RankLists {
            apart: queue_order.several_queues().then_some(&apart as &dyn Fn(u32, u32) -> bool),
            extents: &self.rank_extent,
            sizes: &self.rank_size,
            cover_start: &self.cover_start,
            cover: &self.cover,
            begin_start: &self.begin_start,
            begins: &self.begins,
        };
        if packable {
            lists.place(
                &mut self.packed_spans,
                &mut self.packed_conflicts,
                &mut self.rank_offset,
            );
        } else {
            lists.place(&mut self.spans, &mut self.conflicts, &mut self.rank_offset);
        }
        let mut heap_end = 0u64;
        for (rank, &index) in by_size.iter().enumerate() {
            let offset = self.rank_offset[rank] * scale;
            let size = sizes[index as usize];
            frame.placements[index as usize] = Some(Placement { offset, size });
            heap_end = heap_end.max(offset + size);
        }
        self.by_size = by_size;
        heap_end
    }

    /// For each placed resource, the last use of earlier resources in its memory: a sweep in
    /// time painting released memory with the releasing resource's last position. Memory is
    /// painted in units of at least 64 KiB and at most 1/256 of the heap (rounded outwards, so
    /// the answer may be later than exact but never earlier: always safe).
    #[inline(never)]
    fn compute_alias_after(&mut self, frame: &mut CompiledFrame, heap_end: u64) {
        let unit_bytes = (heap_end / 256)
            .next_power_of_two()
            .max(crate::resource::ALLOCATION_ALIGNMENT);
        let units = heap_end.div_ceil(unit_bytes) as usize;
        // Painted values are `last position + 1`; 0 is unpainted (so a plain maximum finds the
        // latest painter, which vectorizes).
        self.paint.clear();
        self.paint.resize(units, 0);
        let lifetimes = &frame.lifetimes;
        let group_start = &self.group_start;
        // `by_start` is sorted by first position, so also by extent start (`group_start` never
        // decreases); resources with equal extent starts see the same releases and do not change
        // the paint, so their order does not matter.
        // `by_end` still holds the same resources sorted by (extent end, index); previous
        // occupants are released by their last access, which comes earlier than the extent
        // end only with several queues (placement shares memory between extent-overlapping
        // resources that are ordered apart).
        let mut by_end = std::mem::take(&mut self.by_end);
        if self.queue_order.several_queues() {
            sort_by_position(
                &self.indexed,
                frame.order.len(),
                &mut self.counts,
                &mut by_end,
                |index| lifetimes[index as usize].map_or(0, |(_, last)| last),
            );
        }
        let unit_range = |placement: Placement| {
            let unit = unit_bytes;
            (placement.offset / unit) as usize
                ..(placement.offset + placement.size).div_ceil(unit) as usize
        };
        let mut cursor = 0;
        for &index in &self.by_start {
            let start = group_start[lifetimes[index as usize].unwrap().0 as usize];
            while cursor < by_end.len() && lifetimes[by_end[cursor] as usize].unwrap().1 < start {
                let ended = by_end[cursor];
                cursor += 1;
                if let Some(placement) = frame.placements[ended as usize] {
                    let last = lifetimes[ended as usize].unwrap().1;
                    self.paint[unit_range(placement)].fill(last + 1);
                }
            }
            if let Some(placement) = frame.placements[index as usize] {
                let previous = self.paint[unit_range(placement)]
                    .iter()
                    .fold(0, |latest, &painted| latest.max(painted));
                frame.alias_after[index as usize] = previous.checked_sub(1);
            }
        }
        self.by_end = by_end;
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
