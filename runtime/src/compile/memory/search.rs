//! The primitives every lowest-free-offset search of first-fit placement shares: packed
//! ranges ([`Span`]), the rule for one placed range met in offset order ([`meet`]), the rounds
//! that settle the offset over several lists ([`settle`]), and the list-building helpers.

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
/// for the occupancy lists of `BlockLists` and `OccupancyLists`.
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
