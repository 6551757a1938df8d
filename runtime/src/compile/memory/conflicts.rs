//! First-fit search with several queues, where transients whose extents overlap may still share
//! memory (when every queue orders them apart): the placed transients overlapping one in time
//! come from per-position lists of the ranks whose extent covers and starts at each position
//! (CSR, each list sorted by rank), less those ordered apart, and the lowest free offset from a
//! scan of them sorted by offset.

use super::search::{exclusive_prefix, meet, Meet, Span};

/// Reusable per-position rank lists.
#[derive(Debug, Default)]
pub(super) struct ConflictLists {
    /// Ranks whose extent covers each position (CSR by `cover_start`).
    cover: Vec<u32>,
    cover_start: Vec<u32>,
    /// Ranks whose extent starts at each position (CSR by `begin_start`).
    begins: Vec<u32>,
    begin_start: Vec<u32>,
    cursor: Vec<u32>,
    begin_cursor: Vec<u32>,
    /// Placed ranges overlapping the one being placed (both span widths).
    packed_gathered: Vec<u64>,
    gathered: Vec<u128>,
}

/// The gather buffer of each span width.
pub(super) trait Gathered: Span {
    fn buffer(lists: &mut ConflictLists) -> &mut Vec<Self>;
}

impl Gathered for u64 {
    fn buffer(lists: &mut ConflictLists) -> &mut Vec<u64> {
        &mut lists.packed_gathered
    }
}

impl Gathered for u128 {
    fn buffer(lists: &mut ConflictLists) -> &mut Vec<u128> {
        &mut lists.gathered
    }
}

impl ConflictLists {
    /// Builds the lists of ranks covering and starting at each position from the ranks'
    /// extents, filled in rank order (so each list is sorted by rank and the placed ranks come
    /// first in it).
    pub(super) fn build(&mut self, extents: &[(u32, u32)], positions: usize) {
        // Cover counts from a difference array: +1 at each extent start, -1 after its end
        // (modular, as a slot may dip below zero until the running sum).
        self.cover_start.clear();
        self.cover_start.resize(positions + 2, 0);
        self.begin_start.clear();
        self.begin_start.resize(positions + 2, 0);
        for &(start, end) in extents {
            let begin = &mut self.cover_start[start as usize];
            *begin = begin.wrapping_add(1);
            let after = &mut self.cover_start[end as usize + 1];
            *after = after.wrapping_sub(1);
            self.begin_start[start as usize] += 1;
        }
        let mut live = 0u32;
        for slot in &mut self.cover_start {
            live = live.wrapping_add(*slot);
            *slot = live;
        }
        exclusive_prefix(&mut self.cover_start);
        exclusive_prefix(&mut self.begin_start);
        self.cover.clear();
        self.cover
            .resize(self.cover_start[positions + 1] as usize, 0);
        self.begins.clear();
        self.begins
            .resize(self.begin_start[positions + 1] as usize, 0);
        self.cursor.clear();
        self.cursor.extend_from_slice(&self.cover_start);
        self.begin_cursor.clear();
        self.begin_cursor.extend_from_slice(&self.begin_start);
        for (rank, &(start, end)) in extents.iter().enumerate() {
            let slot = &mut self.begin_cursor[start as usize];
            self.begins[*slot as usize] = rank as u32;
            *slot += 1;
            for slot in &mut self.cursor[start as usize..=end as usize] {
                self.cover[*slot as usize] = rank as u32;
                *slot += 1;
            }
        }
    }

    /// Places every rank in order at the lowest offset free of the lower ranks overlapping it
    /// in time (those covering its extent start, plus those starting inside its extent) that
    /// `apart` does not clear; fills `spans` (by rank).
    pub(super) fn place<S: Gathered>(
        &mut self,
        apart: &dyn Fn(u32, u32) -> bool,
        extents: &[(u32, u32)],
        sizes: &[u64],
        spans: &mut Vec<S>,
    ) {
        spans.clear();
        let mut gathered = std::mem::take(S::buffer(self));
        for (rank, (&(start, end), &size)) in extents.iter().zip(sizes).enumerate() {
            let rank = rank as u32;
            gathered.clear();
            let covering = self.cover_start[start as usize] as usize
                ..self.cover_start[start as usize + 1] as usize;
            for &other in &self.cover[covering] {
                if other >= rank {
                    break;
                }
                if !apart(other, rank) {
                    gathered.push(spans[other as usize]);
                }
            }
            let beginning = self.begin_start[start as usize + 1] as usize
                ..self.begin_start[end as usize + 1] as usize;
            for &other in &self.begins[beginning] {
                if other < rank && !apart(other, rank) {
                    gathered.push(spans[other as usize]);
                }
            }
            gathered.sort_unstable();
            let mut offset = 0u64;
            for &range in gathered.iter() {
                match meet(range, offset, size) {
                    Meet::Below => {}
                    Meet::Beyond => break,
                    Meet::Overlaps => offset = range.hi(),
                }
            }
            spans.push(S::pack(offset, offset + size));
        }
        *S::buffer(self) = gathered;
    }
}
