//! Transient lifetimes and aliasing: every transient (not external, persistent or temporal)
//! resource lives from its first to its last live access in the chosen order; resources whose
//! lifetimes overlap never overlap in memory. All placements use [`crate::ALLOCATION_ALIGNMENT`]
//! granularity. Memory freed within a run of nodes at one dependency level is reused only from
//! the next run on (so the aliasing barrier joins the batch at the start of that run).
//!
//! Packing over (time x offset): first fit by decreasing size ([`fit`]), when the
//! summed lifetime lengths stay within a linear budget; otherwise a sweep in start order with
//! best-fit free blocks coalesced on release, O(R log R) ([`sweep`]). The better
//! of the two is not searched for: the first applies whenever it is cheap. For a schedule the
//! memory balancing re-levelled (`schedule/balance.rs`), first fit also runs in the order the
//! transients come to life in the balancing's direction (first use, or last use seen from the
//! end), and the smaller heap is kept. A searched schedule (`SchedulePreference::Searched`)
//! gets all three orders, and then, on one queue, the placement search ([`pack`]): skyline
//! placements explored depth first under a cap just below the best heap found, from
//! perturbed restarts with fixed seeds, within a step budget scaled by the transient count;
//! it stops at the lower bound (the most allocation units live in one group) and keeps first
//! fit's placement unless it finds a smaller heap. Its placements feed `alias_after` through
//! [`FirstFit::unit_ranges`] as first fit's do.
//!
//! Each transient is one dense record ([`Transient`]), named by its ordinal (its place among the
//! transients in index order) in every later array. `alias_after` comes from a sweep in time over
//! the placements (see [`MemoryPlanner::compute_alias_after`]).

// The planner's parts, and the queue ordering its extents follow.
mod blocks;
mod conflicts;
mod fit;
mod occupancy;
mod pack;
#[cfg(test)]
mod pack_tests;
mod queue_order;
mod search;
mod sweep;
#[cfg(test)]
mod tests;

use super::deps::stage::Analysis;
use super::frame::{MemoryParts, MemoryStats, Ordered};
use crate::compile::frame::Placement;
use crate::compile::schedule::Balanced;
use fit::{paint_shift, FirstFit, RankOrder, Transient};
use pack::{Pack, PackItem};
use queue_order::QueueOrder;
use sweep::Sweep;

/// Reusable scratch of lifetime analysis and placement.
#[derive(Debug, Default)]
pub struct MemoryPlanner {
    /// Ordering across queues (placement extents reach until every queue is ordered after).
    queue_order: QueueOrder,
    /// With several queues: last position of each resource's placement extent (see
    /// [`QueueOrder::releases`]), by resource index.
    release: Vec<Option<u32>>,
    /// First position of the run of same-level nodes (group) each position belongs to.
    group_start: Vec<u32>,
    /// Group of each position (numbered in order).
    group_of: Vec<u32>,
    /// Live-set changes at each position (for the lower bound).
    deltas: Vec<i64>,
    /// The transients in index order (their ordinals name them below).
    transients: Vec<Transient>,
    /// For `alias_after`, the transients by last access: the latest-listed ordinal whose last
    /// access is at each position, and each ordinal's next-listed one with the same last
    /// access ([`NONE`] ends a list).
    ended_at: Vec<u32>,
    next_ended: Vec<u32>,
    /// `alias_after` paint: `last position + 1` of the latest released occupant of each unit
    /// (narrow when every position fits: signed, as baseline x86-64 has a vector maximum of
    /// signed 16-bit lanes, SSE2's `pmaxsw`, but none of unsigned ones).
    paint: Vec<u32>,
    narrow_paint: Vec<i16>,
    fit: FirstFit,
    /// The placement search of searched schedules, and its items (by ordinal).
    pack: Pack,
    pack_items: Vec<PackItem>,
    /// The first placement tried, kept while a second one is tried (balanced schedules).
    kept_placements: Vec<Option<Placement>>,
    kept_unit_ranges: Vec<(u32, u32)>,
    sweep: Sweep,
    /// Transient resource indices and extents by resource index (the sweep fallback only).
    indices: Vec<u32>,
    extents: Vec<Option<(u32, u32)>>,
}
/// No ordinal (ends a list of [`MemoryPlanner::ended_at`]).
const NONE: u32 = u32::MAX;

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

impl MemoryPlanner {
    /// Fills `out` (placements, `alias_after`, the heap's figures) for the analysed `frame` in
    /// the execution order `ordered`, whose dependency levels by position are `levels`, from
    /// the resources' `lifetimes` (`balanced` and `searched` from the schedule choose the
    /// placement orders tried). The access table's compact access records and outliving
    /// resources stand for the graph's 56-byte access and 104-byte resource records.
    pub fn plan(
        &mut self,
        frame: Analysis<'_>,
        (levels, balanced, searched): (&[u32], Option<Balanced>, bool),
        ordered: &Ordered<'_>,
        lifetimes: &[Option<(u32, u32)>],
        out: &mut MemoryParts<'_>,
    ) {
        let Analysis { graph, table, deps } = frame;
        let sizes = table.sizes();
        let resource_count = graph.resources.len();
        let positions = ordered.order.len();
        // Every slot of these two is written below: `None` here for the resources that are not
        // transient, by placement and the `alias_after` sweep for the transients.
        search::set_len(out.placements, resource_count);
        search::set_len(out.alias_after, resource_count);
        // Memory freed inside a run of same-level nodes becomes reusable only from the next run,
        // so the aliasing barrier can join the batch at the start of that run.
        search::set_len(&mut self.group_start, positions);
        search::set_len(&mut self.group_of, positions);
        let mut group_start = 0u32;
        let mut group = 0u32;
        for (position, (start, of)) in self
            .group_start
            .iter_mut()
            .zip(&mut self.group_of)
            .enumerate()
        {
            if position > 0 && levels.get(position) != levels.get(position - 1) {
                group_start = position as u32;
                group += 1;
            }
            *start = group_start;
            *of = group;
        }
        self.deltas.clear();
        self.deltas.resize(positions + 1, 0);
        self.ended_at.clear();
        self.ended_at.resize(positions, NONE);
        // At most one transient per resource: the slots are written in order and the lists cut
        // to the transient count after.
        search::set_len(&mut self.transients, resource_count);
        search::set_len(&mut self.next_ended, resource_count);
        let (transients, next_ended) = (
            &mut self.transients[..resource_count],
            &mut self.next_ended[..resource_count],
        );
        let mut count = 0usize;
        let mut unaliased = 0u64;
        // Summed extent lengths (for the choice of placement).
        let mut span = 0usize;
        // The resources that outlive the frame, in index order, met by a cursor.
        let mut outliving = table.outliving().iter().copied();
        let mut next_outliving = outliving.next();
        for index in 0..resource_count {
            let outlives = next_outliving == Some(index as u32);
            if outlives {
                next_outliving = outliving.next();
            }
            let (Some((first, last)), false) = (lifetimes[index], outlives) else {
                out.placements[index] = None;
                out.alias_after[index] = None;
                continue;
            };
            let size = sizes[index];
            unaliased += size;
            self.deltas[first as usize] += size as i64;
            self.deltas[last as usize + 1] -= size as i64;
            next_ended[count] = std::mem::replace(&mut self.ended_at[last as usize], count as u32);
            let start = self.group_start[first as usize];
            span += (last - start) as usize + 1;
            transients[count] = Transient {
                index: index as u32,
                start,
                end: last,
            };
            count += 1;
        }
        self.transients.truncate(count);
        self.next_ended.truncate(count);
        let mut live = 0i64;
        let mut peak = 0i64;
        for delta in &self.deltas {
            live += delta;
            peak = peak.max(live);
        }
        let several_queues =
            self.queue_order
                .releases(graph, deps, ordered, lifetimes, &mut self.release);
        if several_queues {
            span = 0;
            for transient in &mut self.transients {
                if let Some(release) = self.release[transient.index as usize] {
                    transient.end = release;
                }
                span += (transient.end - transient.start) as usize + 1;
            }
        }
        let budget = 16 * (resource_count + positions) + 1024;
        let heap_end = if span <= budget {
            let (queue_order, group_start) = (&self.queue_order, &self.group_start);
            let transients = &self.transients;
            let apart = |a: u32, b: u32| {
                apart(
                    queue_order,
                    lifetimes,
                    group_start,
                    transients[a as usize].index,
                    transients[b as usize].index,
                )
            };
            let apart = several_queues.then_some(&apart as fit::Apart<'_>);
            let mut heap_end = self.fit.place(
                transients,
                sizes,
                positions,
                (&self.group_of, RankOrder::Decreasing),
                apart,
                out.placements,
            );
            // A balanced schedule changes the mix of sizes from batch to batch, where placing
            // in the order the transients come to life, in the direction the balancing ran,
            // can pack tighter; a searched one tries both directions. The smallest heap is kept.
            let others: &[RankOrder] = match (searched, balanced) {
                (true, _) => &[RankOrder::Start, RankOrder::End],
                (false, Some(Balanced::Forward)) => &[RankOrder::Start],
                (false, Some(Balanced::Backward)) => &[RankOrder::End],
                (false, None) => &[],
            };
            for &rank in others {
                self.kept_placements.clear();
                self.kept_placements.extend_from_slice(out.placements);
                self.kept_unit_ranges.clear();
                self.kept_unit_ranges
                    .extend_from_slice(&self.fit.unit_ranges);
                let other = self.fit.place(
                    transients,
                    sizes,
                    positions,
                    (&self.group_of, rank),
                    apart,
                    out.placements,
                );
                if other < heap_end {
                    heap_end = other;
                } else {
                    out.placements.copy_from_slice(&self.kept_placements);
                    self.fit.unit_ranges.clear();
                    self.fit
                        .unit_ranges
                        .extend_from_slice(&self.kept_unit_ranges);
                }
            }
            // A searched schedule (one queue: extents alone decide what may share memory)
            // also gets the placement search, which keeps first fit's placement unless it
            // finds a smaller heap.
            if searched && !several_queues {
                heap_end = self.search_placement(sizes, heap_end, out.placements);
            }
            self.compute_alias_after(positions, out.alias_after, heap_end);
            heap_end
        } else {
            self.indices.clear();
            self.extents.clear();
            self.extents.resize(resource_count, None);
            for transient in &self.transients {
                let first = lifetimes[transient.index as usize].map_or(0, |(first, _)| first);
                self.indices.push(transient.index);
                self.extents[transient.index as usize] = Some((first, transient.end));
            }
            self.sweep.place(
                (out.placements, out.alias_after),
                &self.indices,
                &self.extents,
                &self.group_start,
                sizes,
            )
        };
        *out.stats = MemoryStats {
            transient_bytes: heap_end,
            unaliased_bytes: unaliased,
            lower_bound_bytes: peak as u64,
        };
    }

    /// Runs the placement search ([`pack`]) on the transients, whose first-fit heap is
    /// `heap_end` bytes; where it finds a smaller heap, rewrites their `placements` and
    /// [`FirstFit::unit_ranges`] and returns the new heap size (otherwise `heap_end`). Frames
    /// whose sizes are not whole allocation units keep first fit.
    fn search_placement(
        &mut self,
        sizes: &[u64],
        heap_end: u64,
        placements: &mut [Option<Placement>],
    ) -> u64 {
        let unit = crate::resource::ALLOCATION_ALIGNMENT;
        self.pack_items.clear();
        for transient in &self.transients {
            let size = sizes.get(transient.index as usize).copied().unwrap_or(0);
            let (Ok(units), true) = (u32::try_from(size / unit), size % unit == 0) else {
                return heap_end;
            };
            let group = |position: u32| self.group_of.get(position as usize).copied();
            let (Some(first), Some(last)) = (group(transient.start), group(transient.end)) else {
                return heap_end;
            };
            self.pack_items.push(PackItem { first, last, units });
        }
        let groups = self.group_of.last().map_or(0, |&group| group as usize + 1);
        let Some(heap_units) = self.pack.search(&self.pack_items, groups, heap_end / unit) else {
            return heap_end;
        };
        let heap_end = heap_units * unit;
        let shift = paint_shift(heap_end);
        for ((transient, &offset), units) in self
            .transients
            .iter()
            .zip(&self.pack.best)
            .zip(&mut self.fit.unit_ranges)
        {
            let offset = u64::from(offset) * unit;
            let size = sizes.get(transient.index as usize).copied().unwrap_or(0);
            let end = offset + size;
            *units = ((offset >> shift) as u32, end.div_ceil(1 << shift) as u32);
            if let Some(placement) = placements.get_mut(transient.index as usize) {
                *placement = Some(Placement { offset, size });
            }
        }
        heap_end
    }

    /// For each placed transient, the last use of earlier transients in its memory: a sweep in
    /// time painting released memory with the releasing transient's last position. Memory is
    /// painted in units of at least 64 KiB and at most 1/256 of the heap (rounded outwards, so
    /// the answer may be later than exact but never earlier: always safe); placement wrote each
    /// transient's units ([`FirstFit::unit_ranges`]).
    #[inline(never)]
    fn compute_alias_after(
        &mut self,
        positions: usize,
        alias_after: &mut [Option<u32>],
        heap_end: u64,
    ) {
        let units = heap_end.div_ceil(1 << paint_shift(heap_end)) as usize;
        // Previous occupants are released by their last access (earlier than their extent end
        // with several queues, where placement shares memory between extent-overlapping
        // transients that are ordered apart), in order of it, so each fill paints a value at
        // least as large as any before it.
        let sweep = AliasSweep {
            transients: &self.transients,
            by_start: &self.fit.by_start,
            in_start_order: self.fit.in_start_order,
            ended_at: &self.ended_at,
            next_ended: &self.next_ended,
            unit_ranges: &self.fit.unit_ranges,
        };
        // Narrow paint (vector steps for the fold and twice the units per step) when every
        // painted value fits.
        if positions < i16::MAX as usize {
            let mut paint = std::mem::take(&mut self.narrow_paint);
            paint.clear();
            paint.resize(units, 0);
            sweep.run(&mut paint, alias_after);
            self.narrow_paint = paint;
        } else {
            self.paint.clear();
            self.paint.resize(units, 0);
            sweep.run(&mut self.paint, alias_after);
        }
    }
}

/// A painted value: `last position + 1` (0: unpainted).
trait Painted: Copy + Ord + Default {
    /// `position + 1` (fits by the caller's choice of width).
    fn after(position: u32) -> Self;
    /// The position painted, if any.
    fn position(self) -> Option<u32>;
}

impl Painted for i16 {
    #[inline(always)]
    fn after(position: u32) -> i16 {
        (position + 1) as i16
    }
    #[inline(always)]
    fn position(self) -> Option<u32> {
        (self as u32).checked_sub(1)
    }
}

impl Painted for u32 {
    #[inline(always)]
    fn after(position: u32) -> u32 {
        position + 1
    }
    #[inline(always)]
    fn position(self) -> Option<u32> {
        self.checked_sub(1)
    }
}

/// The `alias_after` sweep's inputs (see [`MemoryPlanner::compute_alias_after`]).
struct AliasSweep<'a> {
    transients: &'a [Transient],
    /// Ordinals by extent start (unless `in_start_order`).
    by_start: &'a [u32],
    /// Whether the ordinals are in extent-start order (the sweep then walks them directly).
    in_start_order: bool,
    /// Ordinals by last access (lists; see [`MemoryPlanner::ended_at`]).
    ended_at: &'a [u32],
    next_ended: &'a [u32],
    /// Paint units `[lo, hi)` of each ordinal (rounded outwards).
    unit_ranges: &'a [(u32, u32)],
}

impl AliasSweep<'_> {
    /// Paints released transients into `paint` (zeroed, one slot per unit) in time and fills
    /// `alias_after` (by resource index) with each transient's latest painted position.
    fn run<P: Painted>(&self, paint: &mut [P], alias_after: &mut [Option<u32>]) {
        // The per-ordinal slices cut to the transient count once, so that walking the ordinals
        // in order indexes them without checks.
        let count = self.transients.len();
        let Some(unit_ranges) = self.unit_ranges.get(..count) else {
            return;
        };
        let mut walk = Walk {
            transients: self.transients,
            ended_at: self.ended_at,
            next_ended: self.next_ended,
            unit_ranges,
            released: 0,
        };
        // `by_start` is sorted by extent start; transients with equal starts see the same
        // releases, so their order among themselves does not matter.
        if self.in_start_order {
            for ordinal in 0..count {
                walk.visit(ordinal, paint, alias_after);
            }
        } else {
            for &ordinal in self.by_start {
                walk.visit(ordinal as usize, paint, alias_after);
            }
        }
    }
}

/// The state of one `alias_after` sweep (see [`AliasSweep::run`]).
struct Walk<'a> {
    transients: &'a [Transient],
    ended_at: &'a [u32],
    next_ended: &'a [u32],
    /// Paint units of each ordinal (as long as `transients`).
    unit_ranges: &'a [(u32, u32)],
    /// Positions below this one have had their transients painted.
    released: u32,
}

impl Walk<'_> {
    /// Paints the transients released before `ordinal`'s extent start, then reads the latest
    /// paint under `ordinal`'s placement into its `alias_after`.
    #[inline(always)]
    fn visit<P: Painted>(
        &mut self,
        ordinal: usize,
        paint: &mut [P],
        alias_after: &mut [Option<u32>],
    ) {
        let (Some(transient), Some(&(lo, hi))) =
            (self.transients.get(ordinal), self.unit_ranges.get(ordinal))
        else {
            return;
        };
        // Releases in order of position (those at one position paint the same value, so
        // their order does not matter).
        while self.released < transient.start {
            let mut ended = self
                .ended_at
                .get(self.released as usize)
                .copied()
                .unwrap_or(NONE);
            while let Some(&(lo, hi)) = self.unit_ranges.get(ended as usize) {
                if let Some(units) = paint.get_mut(lo as usize..hi as usize) {
                    units.fill(P::after(self.released));
                }
                ended = self.next_ended.get(ended as usize).copied().unwrap_or(NONE);
            }
            self.released += 1;
        }
        let latest = paint
            .get(lo as usize..hi as usize)
            .unwrap_or_default()
            .iter()
            .fold(P::default(), |latest, &painted| latest.max(painted));
        if let Some(slot) = alias_after.get_mut(transient.index as usize) {
            *slot = latest.position();
        }
    }
}
