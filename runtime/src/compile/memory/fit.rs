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
use crate::compile::frame::Placement;

/// Groups shorter than this many positions on average (long chains of dependent nodes) make
/// per-group lists short and many per extent: blocks of several groups serve better there.
const SHORT_GROUPS: usize = 4;

/// Above this many distinct sizes the rank order comes from a comparison sort.
const MAX_SIZE_CLASSES: usize = 32;

/// Reusable scratch of first-fit placement. Transients are named by their ordinal (place in
/// index order) throughout.
#[derive(Debug, Default)]
pub(super) struct FirstFit {
    /// Ordinals sorted by (extent start, ordinal); only written when they are not already in
    /// that order (`in_start_order`).
    pub(super) by_start: Vec<u32>,
    /// Whether the ordinals are already in extent-start order (`by_start` is then not written:
    /// the order is `0..len`).
    pub(super) in_start_order: bool,
    /// Paint units `[lo, hi)` of each ordinal's placement (see [`super::paint_shift`]).
    pub(super) unit_ranges: Vec<(u32, u32)>,
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

/// What a lowest-free-offset search makes of one placed range, met in offset order while the
/// candidate offset is `offset` for `size` bytes: the one rule of every first-fit search
/// (over per-group lists, per-block lists, or gathered and sorted ranges).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(super) enum Meet {
    /// The range ends at or below the candidate: it cannot overlap it (nor, as the candidate
    /// only grows, any later candidate).
    Below,
    /// The range starts at or above the candidate's end: the candidate is free of it and of
    /// every range after it (they start no lower).
    Beyond,
    /// The range overlaps the candidate: an overlapping occupant moves the candidate to the
    /// range's end.
    Overlaps,
}

/// Where `range` lies against the candidate `offset..offset + size` (see [`Meet`]).
#[inline(always)]
pub(super) fn meet<S: Span>(range: S, offset: u64, size: u64) -> Meet {
    if range.hi() <= offset {
        Meet::Below
    } else if range.lo() >= offset + size {
        Meet::Beyond
    } else {
        Meet::Overlaps
    }
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
    /// The highest end among `spans` (0 for none).
    fn highest_end(spans: &[Self]) -> u64 {
        spans.iter().fold(0, |top, &span| top.max(span.hi()))
    }
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
    fn highest_end(spans: &[u64]) -> u64 {
        // Ends are the low 32 bits: a maximum of 32-bit lanes (vectorizes).
        spans.iter().fold(0u32, |top, &span| top.max(span as u32)) as u64
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

/// The rounds after the first of a lowest-offset search over `count` lists: visits the lists
/// cyclically from the first until every one has seen the final offset; `moved` is the last
/// list that moved the offset in the first round (those after it have seen it already), and
/// `advance(index)` runs list `index`'s search and says whether it moved the offset (then
/// every other list must see it again).
#[inline(always)]
pub(super) fn settle(count: usize, moved: usize, mut advance: impl FnMut(usize) -> bool) {
    let mut unchanged = count - moved;
    let mut index = 0;
    while unchanged < count {
        unchanged = if advance(index) { 1 } else { unchanged + 1 };
        index += 1;
        if index == count {
            index = 0;
        }
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
    /// extent starts at the first position of a group); fills `placements` (by resource index),
    /// [`FirstFit::unit_ranges`] in paint units of `1 << paint_shift(heap size)` bytes, and
    /// [`FirstFit::by_start`] (when not in start order); returns the heap size.
    pub(super) fn place(
        &mut self,
        transients: &[Transient],
        sizes: &[u64],
        positions: usize,
        group_of: &[u32],
        apart: Option<Apart<'_>>,
        placements: &mut [Option<Placement>],
    ) -> u64 {
        // One pass: size classes, whether the ordinals are in extent-start order, and whether
        // byte ranges in allocation units fit one word (every size a whole number of units, all
        // of them together below 2^32 units: always, short of absurd descriptions).
        let unit = crate::resource::ALLOCATION_ALIGNMENT;
        self.size_classes.clear();
        self.class_counts.clear();
        let mut classified = true;
        let mut last_class = 0usize;
        let mut whole_units = true;
        let mut total_units = 0u64;
        let mut in_start_order = true;
        let mut previous_start = 0u32;
        set_len(&mut self.class_of, transients.len());
        for (transient, class_of) in transients.iter().zip(&mut self.class_of) {
            in_start_order &= previous_start <= transient.start;
            previous_start = transient.start;
            let size = sizes.get(transient.index as usize).copied().unwrap_or(0);
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
        let scale_shift = if packable { unit.trailing_zeros() } else { 0 };
        // Resources created in the order they are first used (sequential frames): the ordinals
        // are the start order, and `by_start` is not written (see `in_start_order`).
        self.in_start_order = in_start_order;
        if !in_start_order {
            self.scatter_by_start(transients, positions);
        }
        self.rank_order(transients, sizes, classified, scale_shift);
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
        // The heap size first: it sets the paint units written with the placements.
        let top = if packable {
            Span::highest_end(&self.packed_spans)
        } else {
            Span::highest_end(&self.spans)
        };
        let heap_end = top << scale_shift;
        // Every ordinal has a rank: every slot is written.
        set_len(&mut self.unit_ranges, transients.len());
        let placed = Placed {
            ranked: &self.ranked,
            transients,
            scale_shift,
            // Paint units are at least one allocation unit, so never finer than span units.
            unit_shift: super::paint_shift(heap_end) - scale_shift,
        };
        if packable {
            placed.write(&self.packed_spans, &mut self.unit_ranges, placements);
        } else {
            placed.write(&self.spans, &mut self.unit_ranges, placements);
        }
        heap_end
    }

    /// Fills `by_start` by a counting sort on extent starts (`0..positions`).
    #[inline(never)]
    fn scatter_by_start(&mut self, transients: &[Transient], positions: usize) {
        self.counts.clear();
        self.counts.resize(positions + 1, 0);
        for transient in transients {
            if let Some(count) = self.counts.get_mut(transient.start as usize) {
                *count += 1;
            }
        }
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

    /// Fills `ranked` with the rank order and, by rank, `rank_extent` and `rank_size` (sizes
    /// shifted right by `scale_shift`): with few size classes a stable scatter of the ordinals
    /// in start order by class, classes by decreasing size; otherwise a sort.
    fn rank_order(
        &mut self,
        transients: &[Transient],
        sizes: &[u64],
        classified: bool,
        scale_shift: u32,
    ) {
        // Permutations: every slot is written.
        let count = transients.len();
        set_len(&mut self.ranked, count);
        set_len(&mut self.rank_extent, count);
        set_len(&mut self.rank_size, count);
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
            // Per-class and per-rank slices cut to one length each, so that one check covers
            // all of them.
            let classes = self.size_classes.len().min(self.class_counts.len());
            let mut scatter = RankScatter {
                class_sizes: &self.size_classes[..classes],
                next_rank: &mut self.class_counts[..classes],
                scale_shift,
                ranked: &mut self.ranked[..count],
                rank_extent: &mut self.rank_extent[..count],
                rank_size: &mut self.rank_size[..count],
            };
            if self.in_start_order {
                for (ordinal, (transient, &class)) in
                    transients.iter().zip(&self.class_of).enumerate()
                {
                    scatter.put(ordinal as u32, transient, class);
                }
            } else {
                for &ordinal in &self.by_start {
                    if let (Some(transient), Some(&class)) = (
                        transients.get(ordinal as usize),
                        self.class_of.get(ordinal as usize),
                    ) {
                        scatter.put(ordinal, transient, class);
                    }
                }
            }
        } else {
            self.size_keys.clear();
            self.size_keys
                .extend(transients.iter().enumerate().map(|(ordinal, transient)| {
                    let size = sizes.get(transient.index as usize).copied().unwrap_or(0);
                    ((!size as u128) << 64) | ((transient.start as u128) << 32) | ordinal as u128
                }));
            self.size_keys.sort_unstable();
            for (((rank, extent), size), &key) in self
                .ranked
                .iter_mut()
                .zip(&mut self.rank_extent)
                .zip(&mut self.rank_size)
                .zip(&self.size_keys)
            {
                *rank = key as u32;
                let end = transients.get(key as u32 as usize).map_or(0, |t| t.end);
                *extent = ((key >> 32) as u32, end);
                *size = !((key >> 64) as u64) >> scale_shift;
            }
        }
    }
}

/// The stable scatter of ordinals (in extent-start order) into ranks by size class.
struct RankScatter<'a> {
    class_sizes: &'a [u64],
    /// The next free rank of each class.
    next_rank: &'a mut [u32],
    scale_shift: u32,
    ranked: &'a mut [u32],
    rank_extent: &'a mut [(u32, u32)],
    rank_size: &'a mut [u64],
}

impl RankScatter<'_> {
    /// Gives `ordinal` (`transient`, of size class `class`) the next rank of its class and
    /// writes that rank's ordinal, extent and size.
    #[inline(always)]
    fn put(&mut self, ordinal: u32, transient: &Transient, class: u8) {
        let (Some(rank), Some(&size)) = (
            self.next_rank.get_mut(class as usize),
            self.class_sizes.get(class as usize),
        ) else {
            return;
        };
        let at = *rank as usize;
        *rank += 1;
        if let (Some(slot), Some(extent), Some(rank_size)) = (
            self.ranked.get_mut(at),
            self.rank_extent.get_mut(at),
            self.rank_size.get_mut(at),
        ) {
            *slot = ordinal;
            *extent = (transient.start, transient.end);
            *rank_size = size >> self.scale_shift;
        }
    }
}

/// What turns spans by rank into placements.
struct Placed<'a> {
    /// The ordinal of each rank.
    ranked: &'a [u32],
    transients: &'a [Transient],
    /// Bytes per span unit, as a shift.
    scale_shift: u32,
    /// Span units per paint unit, as a shift.
    unit_shift: u32,
}

impl Placed<'_> {
    /// Writes each rank's placement into `placements` (by resource index) and its paint units
    /// `[lo, hi)` (rounded outwards) into `unit_ranges` (by ordinal).
    fn write<S: Span>(
        &self,
        spans: &[S],
        unit_ranges: &mut [(u32, u32)],
        placements: &mut [Option<Placement>],
    ) {
        let round_up = (1u64 << self.unit_shift) - 1;
        for (&ordinal, &span) in self.ranked.iter().zip(spans) {
            let (Some(transient), Some(units)) = (
                self.transients.get(ordinal as usize),
                unit_ranges.get_mut(ordinal as usize),
            ) else {
                continue;
            };
            let (lo, hi) = (span.lo(), span.hi());
            *units = (
                (lo >> self.unit_shift) as u32,
                ((hi >> self.unit_shift) + (hi & round_up != 0) as u64) as u32,
            );
            if let Some(placement) = placements.get_mut(transient.index as usize) {
                *placement = Some(Placement {
                    offset: lo << self.scale_shift,
                    size: (hi - lo) << self.scale_shift,
                });
            }
        }
    }
}
