//! First-fit-decreasing placement over (time x offset): every transient, largest first (then by
//! extent start, then index), at the lowest offset free of the already placed transients whose
//! extents overlap its own in time. [`RankOrder::Start`] and [`RankOrder::End`] place them in
//! extent-start order, or latest extent end first, instead (the memory planner tries both for
//! balanced schedules, see `memory/mod.rs`).
//!
//! The rank order comes from counting passes: transients by extent start, then a stable
//! partition by size class (frames use few distinct sizes; with many, one comparison sort).
//! The search for the lowest free offset runs, with one queue, over per-group occupancy lists
//! ([`occupancy`](super::occupancy)), or where groups are short over per-block lists
//! with a time check ([`blocks`](super::blocks)); with several queues, where overlapping
//! extents may still share memory, over per-position lists of ranks
//! ([`conflicts`](super::conflicts)). All give the same placements.

use super::blocks::BlockLists;
use super::conflicts::ConflictLists;
use super::occupancy::OccupancyLists;
use super::search::{exclusive_prefix, set_len, Span};
use crate::compile::frame::Placement;

/// One transient resource of a frame.
#[derive(Copy, Clone, Debug, Default)]
pub(super) struct Transient {
    /// Resource index.
    pub index: u32,
    /// Placement extent start: the first position of the group of its first access.
    pub start: u32,
    /// Placement extent end: its last access, or with several queues the last position that
    /// may still run concurrently with one of its accesses.
    pub end: u32,
}

/// The `alias_after` paint unit for a heap of `heap_end` bytes, as a shift: at least
/// [`crate::resource::ALLOCATION_ALIGNMENT`] and 1/256 of the heap, a power of two.
pub(super) fn paint_shift(heap_end: u64) -> u32 {
    (heap_end / 256)
        .next_power_of_two()
        .max(crate::resource::ALLOCATION_ALIGNMENT)
        .trailing_zeros()
}

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
    /// Paint units `[lo, hi)` of each ordinal's placement (see [`paint_shift`]).
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

/// The order in which first fit places the transients.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(super) enum RankOrder {
    /// Largest first, then extent start, then ordinal (first-fit-decreasing).
    Decreasing,
    /// Extent start (the order in which they come to life), then largest first, then ordinal.
    Start,
    /// Extent end, latest first (the order in which they come to life, seen from the frame's
    /// end), then largest first, then ordinal.
    End,
}

/// With several queues: `apart(a, b)` when the transients of ordinals `a` and `b` overlap in
/// extent but may still share memory.
pub(super) type Apart<'a> = &'a dyn Fn(u32, u32) -> bool;

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
        (group_of, rank): (&[u32], RankOrder),
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
        if rank != RankOrder::Decreasing {
            let by_end = (rank == RankOrder::End).then_some(group_of);
            self.time_rank_order(transients, sizes, scale_shift, by_end);
        } else {
            self.rank_order(transients, sizes, classified, scale_shift);
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
            unit_shift: paint_shift(heap_end) - scale_shift,
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

    /// Fills `ranked` with the order of [`RankOrder::Start`] (or, `by_end`, [`RankOrder::End`])
    /// and, by rank, `rank_extent` and `rank_size` (sizes shifted right by `scale_shift`): one
    /// sort of keys `time << 96 | !size << 32 | ordinal`, where time is the extent start (or,
    /// `by_end` with the groups of the positions, the complement of the group of its end: the
    /// transients ending in one run of same-level nodes tie).
    fn time_rank_order(
        &mut self,
        transients: &[Transient],
        sizes: &[u64],
        scale_shift: u32,
        by_end: Option<&[u32]>,
    ) {
        self.size_keys.clear();
        self.size_keys
            .extend(transients.iter().enumerate().map(|(ordinal, transient)| {
                let size = sizes.get(transient.index as usize).copied().unwrap_or(0);
                let time = match by_end {
                    Some(group_of) => !group_of.get(transient.end as usize).copied().unwrap_or(0),
                    None => transient.start,
                };
                ((time as u128) << 96) | ((!size as u128) << 32) | ordinal as u128
            }));
        self.size_keys.sort_unstable();
        self.ranked.clear();
        self.rank_extent.clear();
        self.rank_size.clear();
        for &key in &self.size_keys {
            let ordinal = key as u32;
            let transient = transients
                .get(ordinal as usize)
                .copied()
                .unwrap_or_default();
            let size = !((key >> 32) as u64);
            self.ranked.push(ordinal);
            self.rank_extent.push((transient.start, transient.end));
            self.rank_size.push(size >> scale_shift);
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
