//! The scheduler's ready queue: indexed binary min-heaps of unit ids whose keys live in the
//! units' records ([`Unit`]), so a unit's priority changes in place (sift up or down from its
//! recorded position) instead of through stale heap entries.
//!
//! The order is fixed at compile time by a `const ORDER: u8` parameter, one of the orders of
//! [`super::priority`]. Every key ends with the unit id, so keys are unique and the top of a
//! heap is the one minimum, whatever the order of pushes and updates that built the heap.

use super::priority::{beats, before};
use super::units::{Unit, NONE};
use crate::decl::QueueClass;

/// A min-heap of unit ids; each queued unit's position is kept in its [`Unit::heap_pos`].
#[derive(Debug, Default)]
pub(super) struct UnitHeap {
    items: Vec<u32>,
}

impl UnitHeap {
    /// Empties the heap (the caller resets the units' positions).
    pub fn clear(&mut self) {
        self.items.clear();
    }

    /// The minimum unit.
    #[inline(always)]
    pub fn top(&self) -> Option<u32> {
        self.items.first().copied()
    }

    /// Queues `unit` (not queued yet).
    #[inline(always)]
    pub fn push<const ORDER: u8>(&mut self, units: &mut [Unit], unit: u32) {
        let position = self.items.len();
        self.items.push(unit);
        self.sift_up::<ORDER>(units, position);
    }

    /// Removes and returns the minimum unit.
    #[inline]
    pub fn pop<const ORDER: u8>(&mut self, units: &mut [Unit]) -> Option<u32> {
        let top = *self.items.first()?;
        let last = self.items.pop()?;
        if !self.items.is_empty() {
            self.items[0] = last;
            self.sift_down::<ORDER>(units, 0);
        }
        units[top as usize].heap_pos = NONE;
        Some(top)
    }

    /// Restores the heap after the key of queued `unit` moved towards the front.
    #[inline]
    pub fn raised<const ORDER: u8>(&mut self, units: &mut [Unit], unit: u32) {
        let position = units[unit as usize].heap_pos as usize;
        self.sift_up::<ORDER>(units, position);
    }

    /// Restores the heap after the key of queued `unit` moved towards the back.
    #[inline]
    pub fn lowered<const ORDER: u8>(&mut self, units: &mut [Unit], unit: u32) {
        let position = units[unit as usize].heap_pos as usize;
        self.sift_down::<ORDER>(units, position);
    }

    #[inline(always)]
    fn sift_up<const ORDER: u8>(&mut self, units: &mut [Unit], mut position: usize) {
        let unit = self.items[position];
        while position > 0 {
            let parent = (position - 1) / 2;
            let parent_unit = self.items[parent];
            if !before::<ORDER>(units, unit, parent_unit) {
                break;
            }
            self.items[position] = parent_unit;
            units[parent_unit as usize].heap_pos = position as u32;
            position = parent;
        }
        self.items[position] = unit;
        units[unit as usize].heap_pos = position as u32;
    }

    fn sift_down<const ORDER: u8>(&mut self, units: &mut [Unit], mut position: usize) {
        let unit = self.items[position];
        let len = self.items.len();
        loop {
            let left = 2 * position + 1;
            if left >= len {
                break;
            }
            let mut child = left;
            if left + 1 < len && before::<ORDER>(units, self.items[left + 1], self.items[left]) {
                child = left + 1;
            }
            let child_unit = self.items[child];
            if !before::<ORDER>(units, child_unit, unit) {
                break;
            }
            self.items[position] = child_unit;
            units[child_unit as usize].heap_pos = position as u32;
            position = child;
        }
        self.items[position] = unit;
        units[unit as usize].heap_pos = position as u32;
    }
}

/// Pops the best unit among the tops of `heaps` (one per queue class, each ordered by
/// `ORDER`) after a unit of `last_class`, by the rule of [`beats`].
#[inline(always)]
pub(super) fn pop_best<const ORDER: u8>(
    heaps: &mut [UnitHeap; 3],
    units: &mut [Unit],
    last_class: QueueClass,
) -> Option<u32> {
    let mut best = NONE;
    let mut best_class = 0;
    for (class, heap) in heaps.iter().enumerate() {
        let Some(top) = heap.top() else {
            continue;
        };
        if best == NONE || beats::<ORDER>(units, (top, class), (best, best_class), last_class) {
            best = top;
            best_class = class;
        }
    }
    if best == NONE {
        return None;
    }
    heaps[best_class].pop::<ORDER>(units)
}
