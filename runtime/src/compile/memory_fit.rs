//! First-fit-decreasing placement over (time x offset): every transient, largest first (then by
//! extent start, then index), at the lowest offset free of the already placed transients whose
//! extents overlap its own in time.
//!
//! The rank order comes from counting passes: transients by extent start, then a stable
//! partition by size class (frames use few distinct sizes; with many, one comparison sort).
//! The search for the lowest free offset runs, with one queue, over per-group occupancy lists
//! ([`memory_occupancy`](super::occupancy)), or where groups are short over per-block lists
//! with a time check ([`memory_blocks`](super::blocks)); with several queues, where overlapping
//! extents may still share memory, over per-position lists of ranks
//! ([`memory_conflicts`](super::conflicts)). All give the same placements.

use super::blocks::BlockLists;
use super::conflicts::ConflictLists;
use super::occupancy::OccupancyLists;
use super::Transient;
use crate::compile::Placement;

/// Groups shorter than this many positions on average (long chains of dependent nodes) make
/// per-group lists short and many per extent: blocks of several groups serve better there.
const SHORT_GROUPS: usize = 4;

/// Above this many distinct sizes the rank order comes from a comparison sort.
const MAX_SIZE_CLASSES: usize = 32;

/// Reusable scratch of first-fit placement. Transients are named by their ordinal (place in
/// index order) throughout.
#[derive(Debug, Default)]
pub(super) struct FirstFit {
    /// Ordinals sorted by (extent start, ordinal).
    pub(super) by_start: Vec<u32>,
    /// Whether the ordinals are already in extent-start order (`by_start` is `0..len`).
    pub(super) in_start_order: bool,
    /// Placed byte range `(offset, end)` of each ordinal.
    pub(super) ranges: Vec<(u64, u64)>,
    /// Ordinals in rank order (largest first, extent start, ordinal).
    ranked: Vec<u32>,
    counts: Vec<u32>,
    /// Distinct sizes in first-seen order, each ordinal's class among them, the ordinals in
    /// each class, and the classes by decreasing size.
    size_classes: Vec<u64>,
    class_of: Vec<u8>,
    class_counts: Vec<u32>,
    class_order: Vec<u8>,
    /// Rank-order keys `!size << 64 | start << 32 | ordinal` (many distinct sizes only).
    size_keys: Vec<u128>,
    /// Extent `(start, end)` and size of each rank (size in allocation units when packable).
    rank_extent: Vec<(u32, u32)>,
    rank_size: Vec<u64>,
    occupancy: OccupancyLists,
    blocks: BlockLists,
    conflicts: ConflictLists,
    /// Placed ranges by rank, in allocation units (when they fit a word) or bytes.
    packed_spans: Vec<u64>,
    spans: Vec<u128>,
}

/// With several queues: `apart(a, b)` when the transients of ordinals `a` and `b` overlap in
/// extent but may still share memory.
pub(super) type Apart<'a> = &'a dyn Fn(u32, u32) -> bool;

/// A range `lo..hi` packed into one integer ordered by `lo` first.
pub(super) trait Span: Copy + Ord + Default {
    /// The range `lo..hi`.
    fn pack(lo: u64, hi: u64) -> Self;
    /// Its start.
    fn lo(self) -> u64;
    /// Its end.
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

/// Fills the list starts of `lists` (one list per block or group, `list_of[position]`, plus one
/// past the last) so that each list holds one slot per extent covering it: live counts from a
/// difference array (+1 at an extent's first list, -1 after its last; modular, as a slot may dip
/// below zero until the running sum), then their running sums. `start` picks the field.
#[inline(always)]
pub(super) fn fill_list_starts<T: Default + Clone>(
    lists: &mut Vec<T>,
    count: usize,
    extents: &[(u32, u32)],
    list_of: &[u32],
    start: impl Fn(&mut T) -> &mut u32,
) {
    lists.clear();
    lists.resize(count + 1, T::default());
    for &(first, last) in extents {
        let begin = start(&mut lists[list_of[first as usize] as usize]);
        *begin = begin.wrapping_add(1);
        let after = start(&mut lists[list_of[last as usize] as usize + 1]);
        *after = after.wrapping_sub(1);
    }
    let mut live = 0u32;
    let mut total = 0u32;
    for list in lists.iter_mut() {
        let slot = start(list);
        live = live.wrapping_add(*slot);
        *slot = total;
        total += live;
    }
}

/// Reusable buffers of both span widths (only grown: every slot is written before it is read),
/// for the occupancy lists of [`BlockLists`] and [`OccupancyLists`].
#[derive(Debug, Default)]
pub(super) struct SpanBuffers {
    packed: Vec<u64>,
    wide: Vec<u128>,
}

/// A span width and its buffer in [`SpanBuffers`].
pub(super) trait Occupant: Span {
    /// The buffer of this width.
    fn buffer(buffers: &mut SpanBuffers) -> &mut Vec<Self>;
}

impl Occupant for u64 {
    fn buffer(buffers: &mut SpanBuffers) -> &mut Vec<u64> {
        &mut buffers.packed
    }
}

impl Occupant for u128 {
    fn buffer(buffers: &mut SpanBuffers) -> &mut Vec<u128> {
        &mut buffers.wide
    }
}

/// Makes `values` `len` long without clearing the slots it keeps: for buffers whose every slot
/// is written before it is read.
pub(super) fn set_len<T: Copy + Default>(values: &mut Vec<T>, len: usize) {
    if values.len() != len {
        values.resize(len, T::default());
    }
}

/// Exclusive prefix sums of `counts` in place.
pub(super) fn exclusive_prefix(counts: &mut [u32]) {
    let mut total = 0u32;
    for count in counts.iter_mut() {
        (*count, total) = (total, total + *count);
    }
}

impl FirstFit {
    /// Places `transients` (execution positions `0..positions`, grouped by `group_of`: every
    /// extent starts at the first position of a group); fills `placements` (by resource index)
    /// and [`FirstFit::ranges`] and [`FirstFit::by_start`]; returns the heap size.
    pub(super) fn place(
        &mut self,
        transients: &[Transient],
        sizes: &[u64],
        positions: usize,
        group_of: &[u32],
        apart: Option<Apart<'_>>,
        placements: &mut [Option<Placement>],
    ) -> u64 {
        // One pass: extent start counts, size classes, and whether byte ranges in allocation
        // units fit one word (every size a whole number of units, all of them together below
        // 2^32 units: always, short of absurd descriptions).
        let unit = crate::resource::ALLOCATION_ALIGNMENT;
        self.counts.clear();
        self.counts.resize(positions + 1, 0);
        self.size_classes.clear();
        self.class_counts.clear();
        let mut classified = true;
        let mut last_class = 0usize;
        let mut whole_units = true;
        let mut total_units = 0u64;
        set_len(&mut self.class_of, transients.len());
        for (transient, class_of) in transients.iter().zip(&mut self.class_of) {
            self.counts[transient.start as usize] += 1;
            let size = sizes[transient.index as usize];
            whole_units &= size.is_multiple_of(unit);
            total_units = total_units.saturating_add(size / unit);
            if !classified {
                continue;
            }
            if self.size_classes.get(last_class) != Some(&size) {
                last_class = match self.size_classes.iter().position(|&known| known == size) {
                    Some(class) => class,
                    None if self.size_classes.len() < MAX_SIZE_CLASSES => {
                        self.size_classes.push(size);
                        self.class_counts.push(0);
                        self.size_classes.len() - 1
                    }
                    None => {
                        classified = false;
                        continue;
                    }
                };
            }
            *class_of = last_class as u8;
            self.class_counts[last_class] += 1;
        }
        let packable = whole_units && total_units < 1 << 32;
        let scale = if packable { unit } else { 1 };
        let scale_shift = scale.trailing_zeros();
        // A check that stops at the first descent (soon, in most frames that are not in order).
        let in_start_order = transients
            .windows(2)
            .all(|pair| pair[0].start <= pair[1].start);
        self.in_start_order = in_start_order;
        if in_start_order {
            // Resources created in the order they are first used (sequential frames): the
            // ordinals are the order.
            self.by_start.clear();
            self.by_start.extend(0..transients.len() as u32);
        } else {
            self.scatter_by_start(transients);
        }
        self.rank_order(transients, sizes, classified);
        set_len(&mut self.rank_extent, transients.len());
        set_len(&mut self.rank_size, transients.len());
        for ((&ordinal, extent), size) in self
            .ranked
            .iter()
            .zip(&mut self.rank_extent)
            .zip(&mut self.rank_size)
        {
            let transient = &transients[ordinal as usize];
            *extent = (transient.start, transient.end);
            *size = sizes[transient.index as usize] >> scale_shift;
        }
        if let Some(apart) = apart {
            let ranked = &self.ranked;
            let apart = |a: u32, b: u32| apart(ranked[a as usize], ranked[b as usize]);
            let lists = &mut self.conflicts;
            lists.build(&self.rank_extent, positions);
            if packable {
                lists.place(
                    &apart,
                    &self.rank_extent,
                    &self.rank_size,
                    &mut self.packed_spans,
                );
            } else {
                lists.place(&apart, &self.rank_extent, &self.rank_size, &mut self.spans);
            }
        } else {
            let groups = group_of.last().map_or(0, |&group| group as usize + 1);
            if positions < SHORT_GROUPS * groups {
                let lists = &mut self.blocks;
                lists.build(&self.rank_extent, group_of);
                if packable {
                    lists.place(&self.rank_extent, &self.rank_size, &mut self.packed_spans);
                } else {
                    lists.place(&self.rank_extent, &self.rank_size, &mut self.spans);
                }
            } else {
                let lists = &mut self.occupancy;
                lists.build(&self.rank_extent, group_of);
                if packable {
                    lists.place(
                        &self.rank_extent,
                        &self.rank_size,
                        group_of,
                        &mut self.packed_spans,
                    );
                } else {
                    lists.place(
                        &self.rank_extent,
                        &self.rank_size,
                        group_of,
                        &mut self.spans,
                    );
                }
            }
        }
        // Every ordinal has a rank: every slot is written.
        set_len(&mut self.ranges, transients.len());
        let placed = Placed {
            ranked: &self.ranked,
            transients,
            sizes,
            scale,
        };
        if packable {
            placed.write(&self.packed_spans, &mut self.ranges, placements)
        } else {
            placed.write(&self.spans, &mut self.ranges, placements)
        }
    }

    /// Fills `by_start` from the start counts (`counts`).
    #[inline(never)]
    fn scatter_by_start(&mut self, transients: &[Transient]) {
        // Ordinals are in index order, so a stable scatter by start keeps ties by index.
        exclusive_prefix(&mut self.counts);
        // A permutation: every slot is written.
        set_len(&mut self.by_start, transients.len());
        for (ordinal, transient) in transients.iter().enumerate() {
            let slot = &mut self.counts[transient.start as usize];
            self.by_start[*slot as usize] = ordinal as u32;
            *slot += 1;
        }
    }

    /// Fills `ranked`: with few size classes a stable scatter of `by_start` by class, classes
    /// by decreasing size; otherwise a sort.
    fn rank_order(&mut self, transients: &[Transient], sizes: &[u64], classified: bool) {
        // A permutation: every slot is written.
        set_len(&mut self.ranked, transients.len());
        if classified {
            self.class_order.clear();
            self.class_order.extend(0..self.size_classes.len() as u8);
            let classes = &self.size_classes;
            self.class_order
                .sort_unstable_by_key(|&class| std::cmp::Reverse(classes[class as usize]));
            let mut total = 0;
            for &class in &self.class_order {
                let count = &mut self.class_counts[class as usize];
                (*count, total) = (total, total + *count);
            }
            for &ordinal in &self.by_start {
                let slot = &mut self.class_counts[self.class_of[ordinal as usize] as usize];
                self.ranked[*slot as usize] = ordinal;
                *slot += 1;
            }
        } else {
            self.size_keys.clear();
            self.size_keys
                .extend(transients.iter().enumerate().map(|(ordinal, transient)| {
                    ((!sizes[transient.index as usize] as u128) << 64)
                        | ((transient.start as u128) << 32)
                        | ordinal as u128
                }));
            self.size_keys.sort_unstable();
            for (rank, &key) in self.ranked.iter_mut().zip(&self.size_keys) {
                *rank = key as u32;
            }
        }
    }
}

/// What turns spans by rank into placements.
struct Placed<'a> {
    /// The ordinal of each rank.
    ranked: &'a [u32],
    transients: &'a [Transient],
    sizes: &'a [u64],
    /// Bytes per span unit.
    scale: u64,
}

impl Placed<'_> {
    /// Writes each rank's placement into `placements` (by resource index) and its byte range
    /// into `ranges` (by ordinal); returns the heap size.
    fn write<S: Span>(
        &self,
        spans: &[S],
        ranges: &mut [(u64, u64)],
        placements: &mut [Option<Placement>],
    ) -> u64 {
        let mut heap_end = 0u64;
        for (&ordinal, &span) in self.ranked.iter().zip(spans) {
            let index = self.transients[ordinal as usize].index as usize;
            let offset = span.lo() * self.scale;
            let size = self.sizes[index];
            ranges[ordinal as usize] = (offset, offset + size);
            placements[index] = Some(Placement { offset, size });
            heap_end = heap_end.max(offset + size);
        }
        heap_end
    }
}
