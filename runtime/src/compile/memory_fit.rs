//! First-fit-decreasing placement over (time x offset): every transient, largest first (then by
//! extent start, then index), at the lowest offset free of the already placed transients whose
//! extents overlap its own in time.
//!
//! The rank order comes from counting passes: transients by extent start, then a stable
//! partition by size class (frames use few distinct sizes; with many, one comparison sort).
//! The search for the lowest free offset runs over per-group occupancy lists with one queue
//! ([`memory_occupancy`](super::occupancy)), over per-position lists of ranks with several
//! ([`memory_conflicts`](super::conflicts), where overlapping extents may still share memory).

use super::conflicts::ConflictLists;
use super::occupancy::OccupancyLists;
use crate::compile::Placement;

/// Above this many distinct sizes the rank order comes from a comparison sort.
const MAX_SIZE_CLASSES: usize = 32;

/// Reusable scratch of first-fit placement. Transients are named by their ordinal (place in
/// index order) throughout.
#[derive(Debug, Default)]
pub(super) struct FirstFit {
    /// Ordinals sorted by (extent start, ordinal).
    pub(super) by_start: Vec<u32>,
    /// Placed byte offset of each ordinal.
    pub(super) offsets: Vec<u64>,
    /// Ordinals in rank order (largest first, extent start, ordinal).
    ranked: Vec<u32>,
    counts: Vec<u32>,
    /// Distinct sizes in first-seen order, and each ordinal's class among them.
    size_classes: Vec<u64>,
    class_of: Vec<u8>,
    /// Classes by decreasing size.
    class_order: Vec<u8>,
    /// Rank-order keys `!size << 64 | start << 32 | ordinal` (many distinct sizes only).
    size_keys: Vec<u128>,
    /// Extent `(start, end)` and size of each rank (size in allocation units when packable).
    rank_extent: Vec<(u32, u32)>,
    rank_size: Vec<u64>,
    occupancy: OccupancyLists,
    conflicts: ConflictLists,
    /// Placed ranges in allocation units (when they fit a word) or bytes.
    packed_spans: Vec<u64>,
    spans: Vec<u128>,
}

/// Inputs of [`FirstFit::place`], by ordinal.
pub(super) struct FitInput<'a> {
    /// Resource index of each ordinal (increasing).
    pub transients: &'a [u32],
    /// Extent `[start, end]` (execution positions) of each ordinal.
    pub starts: &'a [u32],
    pub ends: &'a [u32],
    /// Allocation sizes by resource index.
    pub sizes: &'a [u64],
    /// Execution positions of the frame (every extent lies below).
    pub positions: usize,
    /// The group (run of same-level nodes, numbered in order) of each position; every extent
    /// starts at the first position of a group.
    pub group_of: &'a [u32],
    /// With several queues: `apart(a, b)` when ordinals `a` and `b` overlap in extent but may
    /// still share memory.
    pub apart: Option<&'a dyn Fn(u32, u32) -> bool>,
}

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

/// Exclusive prefix sums of `counts` (one slot per position plus a final total) in place.
pub(super) fn exclusive_prefix(counts: &mut [u32]) {
    let mut total = 0u32;
    for count in counts.iter_mut() {
        let here = *count;
        *count = total;
        total += here;
    }
}

impl FirstFit {
    /// Places every transient of `input`; fills `placements` (by resource index) and
    /// [`FirstFit::offsets`]; returns the heap size. Also leaves [`FirstFit::by_start`] filled.
    pub(super) fn place(
        &mut self,
        input: &FitInput<'_>,
        placements: &mut [Option<Placement>],
    ) -> u64 {
        self.rank_order(input);
        // Byte ranges in allocation units fit one word when every size is a whole number of
        // units and all of them together stay below 2^32 units (always, short of absurd
        // descriptions).
        let unit = crate::resource::ALLOCATION_ALIGNMENT;
        let mut total_units = 0u64;
        let packable = input.transients.iter().all(|&index| {
            let size = input.sizes[index as usize];
            total_units = total_units.saturating_add(size / unit);
            size.is_multiple_of(unit)
        }) && total_units < 1 << 32;
        let scale = if packable { unit } else { 1 };
        self.rank_extent.clear();
        self.rank_size.clear();
        for &ordinal in &self.ranked {
            let ordinal = ordinal as usize;
            self.rank_extent
                .push((input.starts[ordinal], input.ends[ordinal]));
            self.rank_size
                .push(input.sizes[input.transients[ordinal] as usize] / scale);
        }
        if let Some(apart) = input.apart {
            let ranked = &self.ranked;
            let apart = |a: u32, b: u32| apart(ranked[a as usize], ranked[b as usize]);
            let lists = &mut self.conflicts;
            lists.build(&self.rank_extent, input.positions);
            if packable {
                lists.place(&apart, &self.rank_extent, &self.rank_size, &mut self.packed_spans);
            } else {
                lists.place(&apart, &self.rank_extent, &self.rank_size, &mut self.spans);
            }
        } else {
            let lists = &mut self.occupancy;
            lists.build(&self.rank_extent, input.group_of);
            if packable {
                lists.place(&self.rank_extent, &self.rank_size, input.group_of, &mut self.packed_spans);
            } else {
                lists.place(&self.rank_extent, &self.rank_size, input.group_of, &mut self.spans);
            }
        }
        self.offsets.clear();
        self.offsets.resize(input.transients.len(), 0);
        let (ranked, offsets) = (&self.ranked, &mut self.offsets);
        if packable {
            write_placements(&self.packed_spans, ranked, scale, input, offsets, placements)
        } else {
            write_placements(&self.spans, ranked, scale, input, offsets, placements)
        }
    }

    /// Fills `by_start` (counting sort by extent start; ordinals are already in index order, so
    /// ties stay by index) and `ranked` (a stable partition of `by_start` by decreasing size).
    fn rank_order(&mut self, input: &FitInput<'_>) {
        let count = input.transients.len();
        self.counts.clear();
        self.counts.resize(input.positions + 1, 0);
        for &start in input.starts {
            self.counts[start as usize] += 1;
        }
        exclusive_prefix(&mut self.counts);
        self.by_start.clear();
        self.by_start.resize(count, 0);
        for (ordinal, &start) in input.starts.iter().enumerate() {
            let slot = &mut self.counts[start as usize];
            self.by_start[*slot as usize] = ordinal as u32;
            *slot += 1;
        }
        self.ranked.clear();
        if self.classify_sizes(input) {
            // Stable scatter of `by_start` by class, classes by decreasing size.
            self.counts.clear();
            self.counts.resize(self.size_classes.len(), 0);
            for &class in &self.class_of {
                self.counts[class as usize] += 1;
            }
            let mut total = 0;
            for &class in &self.class_order {
                let here = self.counts[class as usize];
                self.counts[class as usize] = total;
                total += here;
            }
            self.ranked.resize(count, 0);
            for &ordinal in &self.by_start {
                let slot = &mut self.counts[self.class_of[ordinal as usize] as usize];
                self.ranked[*slot as usize] = ordinal;
                *slot += 1;
            }
        } else {
            self.size_keys.clear();
            self.size_keys
                .extend(input.transients.iter().enumerate().map(|(ordinal, &index)| {
                    ((!input.sizes[index as usize] as u128) << 64)
                        | ((input.starts[ordinal] as u128) << 32)
                        | ordinal as u128
                }));
            self.size_keys.sort_unstable();
            self.ranked
                .extend(self.size_keys.iter().map(|&key| key as u32));
        }
    }

    /// Fills `size_classes`, `class_of` and `class_order`; false when there are more than
    /// [`MAX_SIZE_CLASSES`] distinct sizes.
    fn classify_sizes(&mut self, input: &FitInput<'_>) -> bool {
        self.size_classes.clear();
        self.class_of.clear();
        let mut last = 0usize;
        for &index in input.transients {
            let size = input.sizes[index as usize];
            if self.size_classes.get(last) != Some(&size) {
                last = match self.size_classes.iter().position(|&known| known == size) {
                    Some(class) => class,
                    None if self.size_classes.len() < MAX_SIZE_CLASSES => {
                        self.size_classes.push(size);
                        self.size_classes.len() - 1
                    }
                    None => return false,
                };
            }
            self.class_of.push(last as u8);
        }
        self.class_order.clear();
        self.class_order
            .extend(0..self.size_classes.len() as u8);
        let classes = &self.size_classes;
        self.class_order
            .sort_unstable_by_key(|&class| std::cmp::Reverse(classes[class as usize]));
        true
    }
}

/// Writes each rank's placement (`spans` in units of `scale` bytes, `ranked` the ordinal of each
/// rank) into `placements` and `offsets` (by ordinal); returns the heap size.
fn write_placements<S: Span>(
    spans: &[S],
    ranked: &[u32],
    scale: u64,
    input: &FitInput<'_>,
    offsets: &mut [u64],
    placements: &mut [Option<Placement>],
) -> u64 {
    let mut heap_end = 0u64;
    for (&ordinal, &span) in ranked.iter().zip(spans) {
        let index = input.transients[ordinal as usize];
        let offset = span.lo() * scale;
        let size = input.sizes[index as usize];
        offsets[ordinal as usize] = offset;
        placements[index as usize] = Some(Placement { offset, size });
        heap_end = heap_end.max(offset + size);
    }
    heap_end
}

