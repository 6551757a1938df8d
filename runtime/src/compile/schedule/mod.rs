//! The list scheduler: one priority queue of ready scheduling units (a node, or an outermost
//! `atomic` subgraph scheduled as one contiguous run in call order). Preferences:
//! - `ProgramOrder`: call order (still honouring every constraint).
//! - `Memory`: scheduled backwards from the graph's sinks (as RPS does), each step taking the
//!   ready unit that frees the most bytes net of those it allocates (in the backward direction a
//!   transient is allocated by its last reader and freed by its writer), ties to the latest
//!   call; the order is then reversed. Backwards, a join (a node reading several results) is
//!   reached before the branches it joins, so a branch's last nodes run shortly before its
//!   result is consumed instead of holding the result while other branches run (on the `lanes`
//!   shape: lane m's last nodes just before the merge that reads lane m's head). Frames with
//!   `sch_barrier` epochs are scheduled forwards: first nodes that end a transient's lifetime,
//!   then those that start the least new transient memory, then call order.
//! - `Default`: dependency depth first (everything ready at one depth runs together, so barriers
//!   batch), then the queue class of the previous node (fewer graphics/compute switches), then
//!   the memory preferences, then call order.
//!
//! Constraints: dependency edges, `sequential` subgraphs (their nodes chained in call order),
//! `atomic` subgraphs (contiguous), `sch_barrier` (a node waits for every earlier-epoch node).
//!
//! Data flow: [`UnitGraph::build`] makes one pass over the live nodes (units, successor lists,
//! levels, resource uses); then each step pops the best ready unit, updates the memory
//! priorities of the units sharing its resources in place (a queued unit moves within its heap,
//! see [`super::schedule::heap`]), and releases successors, barrier epochs and atomic units that
//! span barriers. Every priority is unique (it ends with the call index), so the order is the
//! one "smallest current key among the ready units" order, however the heaps are arranged.
//! Cost: O((nodes + edges + resource uses) log ready).
//!
//! Frames without `atomic` or `sequential` subgraphs skip the units: `Default` frames without
//! `sch_barrier` are scheduled level by level ([`super::schedule::levels`]: under `Default` the
//! levels run in ascending order, every node of a level ready when it starts), and
//! `ProgramOrder` needs only the nodes' levels. The list scheduler below handles the rest.
//!
//! `ProgramOrder` needs no queue: every edge points forward and barrier epochs never fall in call
//! order, so the first unscheduled unit always has its predecessors, its epoch and (for an
//! atomic unit spanning barriers) every earlier node of its spanned epochs done, and is the
//! smallest ready key: the order is call order.

mod balance;
mod heap;
mod level_run;
mod levels;
mod output;
mod priority;
mod search;
mod units;

use super::deps::stage::Analysis;
use super::options::SchedulePreference;
use crate::decl::QueueClass;
use crate::graph::RecordedGraph;
use balance::Balancer;
use heap::UnitHeap;
use levels::LevelScheduler;
pub(crate) use output::{Balanced, Schedule};
use priority::{BY_LEVEL, BY_MEMORY, BY_NET_FREED_REVERSED};
use search::LevelSearch;
use units::{Edge, ResourceState, Unit, UnitGraph, Use, NONE};

/// Reusable scratch of the scheduler.
#[derive(Debug, Default)]
pub struct Scheduler {
    levels: LevelScheduler,
    balance: Balancer,
    search: LevelSearch,
    units: UnitGraph,
    queue: ReadyQueue,
}

/// The ready units and the units waiting for a barrier epoch.
#[derive(Debug, Default)]
struct ReadyQueue {
    /// One heap per queue class for `Default` (the class switch is compared between their
    /// tops); the other preferences use heap 0 only.
    heaps: [UnitHeap; 3],
    /// Live nodes per barrier epoch not yet scheduled.
    epoch_remaining: Vec<u32>,
    /// Per epoch, the first unit waiting for it (linked through `Unit::wait_next`), or NONE.
    wait_head: Vec<u32>,
    /// Atomic units spanning barriers whose spanned epochs still have outside nodes left.
    spanning: Vec<u32>,
    /// The previous `spanning` list while it is retried.
    spanning_retry: Vec<u32>,
    /// The oldest barrier epoch with unscheduled nodes.
    current_epoch: usize,
}

impl Scheduler {
    /// Makes the searched schedule's level search attempt `attempt` (see
    /// [`crate::FrameCompiler::set_search_attempt`]).
    pub fn set_search_attempt(&mut self, attempt: u32) {
        self.search.set_attempt(attempt);
    }

    /// Orders the live nodes of the analysed `frame` (`alive[n]` marks survivors) into
    /// `out`, which lists them in execution order with their levels.
    pub fn schedule(
        &mut self,
        frame: Analysis<'_>,
        alive: &[bool],
        preference: SchedulePreference,
        out: &mut Schedule,
    ) {
        let done = match preference {
            SchedulePreference::Default => self.levels.schedule(frame, alive, out),
            SchedulePreference::Balanced => {
                let done = self.levels.schedule(frame, alive, out);
                if done {
                    self.balance.balance(frame, alive, out);
                }
                done
            }
            SchedulePreference::Searched => {
                let done = self.levels.schedule(frame, alive, out);
                if done {
                    self.search.remember_asap(out);
                    self.balance.balance(frame, alive, out);
                    if let Some(prepared) = self.balance.prepared() {
                        self.search.search(prepared, out);
                    }
                    out.searched = true;
                }
                done
            }
            SchedulePreference::ProgramOrder => self.levels.program_order(frame, alive, out),
            SchedulePreference::Memory => false,
        };
        if done {
            return;
        }
        self.schedule_general(frame, alive, preference, out);
    }

    /// [`Scheduler::schedule`] with the list scheduler over scheduling units, for every frame
    /// and preference.
    fn schedule_general(
        &mut self,
        frame: Analysis<'_>,
        alive: &[bool],
        preference: SchedulePreference,
        out: &mut Schedule,
    ) {
        out.clear();
        let graph = frame.graph;
        let program_order = preference == SchedulePreference::ProgramOrder;
        // Call order needs only the levels (see the module docs).
        self.units
            .build(frame, alive, program_order, !program_order);
        match preference {
            SchedulePreference::ProgramOrder => {
                let units = &self.units;
                out.order
                    .extend_from_slice(&units.members[..units.member_count]);
                out.levels.reserve(units.member_count);
                for unit in &units.units[..units.unit_count] {
                    let count = unit.member_end - unit.member_start;
                    out.levels
                        .extend(std::iter::repeat_n(unit.level, count as usize));
                }
            }
            // Without `sch_barrier` every unit is in epoch 0: no epoch bookkeeping.
            SchedulePreference::Memory if graph.barrier_count == 0 => {
                self.units.reverse_edges();
                self.run::<BY_NET_FREED_REVERSED, false>(graph, out);
                self.restore_forward_order(out);
            }
            SchedulePreference::Memory => self.run::<BY_MEMORY, true>(graph, out),
            // A frame the level path cannot take is scheduled by level, not balanced.
            SchedulePreference::Default
            | SchedulePreference::Balanced
            | SchedulePreference::Searched
                if graph.barrier_count == 0 =>
            {
                self.run::<BY_LEVEL, false>(graph, out)
            }
            SchedulePreference::Default
            | SchedulePreference::Balanced
            | SchedulePreference::Searched => self.run::<BY_LEVEL, true>(graph, out),
        }
    }

    /// Turns `out`, scheduled backwards, into execution order: the units run in reverse, each
    /// unit's members (pushed in call order) still in call order.
    fn restore_forward_order(&self, out: &mut Schedule) {
        out.order.reverse();
        out.levels.reverse();
        let mut start = 0;
        while start < out.order.len() {
            let unit = self.units.unit_of(out.order[start]);
            let mut end = start + 1;
            while end < out.order.len() && self.units.unit_of(out.order[end]) == unit {
                end += 1;
            }
            out.order[start..end].reverse();
            out.levels[start..end].reverse();
            start = end;
        }
    }

    /// The list-scheduling loop under `ORDER`; `BARRIERS`: the frame has `sch_barrier` epochs
    /// to honour (without, every unit is in epoch 0).
    fn run<const ORDER: u8, const BARRIERS: bool>(
        &mut self,
        graph: &RecordedGraph,
        out: &mut Schedule,
    ) {
        let unit_graph = &mut self.units;
        let queue = &mut self.queue;
        queue.reset(unit_graph, graph, BARRIERS);
        out.reserve(unit_graph.member_count);
        let mut frame = Frame {
            units: &mut unit_graph.units[..unit_graph.unit_count],
            members: &unit_graph.members[..unit_graph.member_count],
            edges: &unit_graph.edges,
            uses: &unit_graph.uses,
            resources: &mut unit_graph.resources,
            graph,
        };
        let unit_count = frame.units.len();
        for unit in 0..unit_count {
            if frame.units[unit].pending == 0 {
                queue.make_ready::<ORDER, BARRIERS>(&mut frame, unit as u32);
            }
        }
        let mut last_class = QueueClass::Graphics;
        for _ in 0..unit_count {
            let Some(unit) = queue.pop_best::<ORDER>(frame.units, last_class) else {
                // Only possible with inconsistent constraints (e.g. an atomic unit spanning a
                // barrier that an outside node of its own epochs depends on): the rest follows
                // in call order.
                for record in frame.units.iter_mut() {
                    if !record.done {
                        record.done = true;
                        let members = record.member_start as usize..record.member_end as usize;
                        for &node in &frame.members[members] {
                            out.push(node, record.level);
                        }
                    }
                }
                break;
            };
            let record = &mut frame.units[unit as usize];
            record.done = true;
            let record = *record;
            last_class = record.class;
            let level = record.level;
            let members = &frame.members[record.member_start as usize..record.member_end as usize];
            for &node in members {
                out.push(node, level);
            }
            if BARRIERS {
                if record.first_epoch == record.last_epoch {
                    queue.epoch_remaining[record.first_epoch as usize] -= members.len() as u32;
                } else {
                    for &node in members {
                        let epoch = graph.nodes[node as usize].barrier_epoch;
                        queue.epoch_remaining[epoch as usize] -= 1;
                    }
                }
            }
            queue.update_memory_after::<ORDER>(&mut frame, unit, record);
            let mut edge = record.succ_head;
            while edge != NONE {
                let link = frame.edges[edge as usize];
                let target = &mut frame.units[link.target as usize];
                target.pending -= 1;
                if target.pending == 0 {
                    queue.make_ready::<ORDER, BARRIERS>(&mut frame, link.target);
                }
                edge = link.next;
            }
            if BARRIERS {
                if queue.epoch_remaining.get(queue.current_epoch) == Some(&0) {
                    queue.advance_epochs::<ORDER>(&mut frame);
                }
                if !queue.spanning.is_empty() {
                    queue.retry_spanning::<ORDER>(&mut frame);
                }
            }
        }
    }
}

/// The scheduler's per-frame arrays as slices (their pointers stay in registers in the loop).
struct Frame<'a> {
    units: &'a mut [Unit],
    members: &'a [u32],
    edges: &'a [Edge],
    uses: &'a [Use],
    resources: &'a mut [ResourceState],
    graph: &'a RecordedGraph,
}

impl ReadyQueue {
    /// Empties the queue and (`barriers`) counts the live nodes per barrier epoch.
    fn reset(&mut self, units: &UnitGraph, graph: &RecordedGraph, barriers: bool) {
        for heap in &mut self.heaps {
            heap.clear();
        }
        self.spanning.clear();
        self.current_epoch = 0;
        if !barriers {
            return;
        }
        let epochs = graph.barrier_count as usize + 1;
        self.epoch_remaining.clear();
        self.epoch_remaining.resize(epochs, 0);
        for record in &units.units[..units.unit_count] {
            if record.first_epoch == record.last_epoch {
                self.epoch_remaining[record.first_epoch as usize] +=
                    record.member_end - record.member_start;
            } else {
                let members = record.member_start as usize..record.member_end as usize;
                for &node in &units.members[members] {
                    self.epoch_remaining[graph.nodes[node as usize].barrier_epoch as usize] += 1;
                }
            }
        }
        self.wait_head.clear();
        self.wait_head.resize(epochs, NONE);
        while self.current_epoch < epochs && self.epoch_remaining[self.current_epoch] == 0 {
            self.current_epoch += 1;
        }
    }

    /// `unit` has no pending predecessors: queue it, or park it until its barrier epoch (or,
    /// for an atomic unit spanning barriers, the other nodes of its spanned epochs) is done.
    #[inline(always)]
    fn make_ready<const ORDER: u8, const BARRIERS: bool>(&mut self, frame: &mut Frame, unit: u32) {
        let record = &mut frame.units[unit as usize];
        let (class, queued) = (record.class, record.heap_pos != NONE);
        if BARRIERS {
            let first = record.first_epoch as usize;
            if first > self.current_epoch {
                record.wait_next = self.wait_head[first];
                self.wait_head[first] = unit;
                return;
            }
            if record.last_epoch as usize > first && !self.spans_clear(frame, unit) {
                self.spanning.push(unit);
                return;
            }
        }
        if queued {
            // Already queued under its current key.
            return;
        }
        let heap = if ORDER == BY_LEVEL { class as usize } else { 0 };
        self.heaps[heap].push::<ORDER>(frame.units, unit);
    }

    /// Whether every outside node of the epochs atomic `unit` spans (before its last one) is
    /// done. Once true this stays true (the counts only fall), so a queued unit never needs
    /// this check again.
    #[cold]
    fn spans_clear(&self, frame: &Frame, unit: u32) -> bool {
        let record = &frame.units[unit as usize];
        let members = &frame.members[record.member_start as usize..record.member_end as usize];
        (record.first_epoch..record.last_epoch).all(|epoch| {
            let own = members
                .iter()
                .filter(|&&node| frame.graph.nodes[node as usize].barrier_epoch == epoch)
                .count();
            self.epoch_remaining[epoch as usize] as usize == own
        })
    }

    /// Pops the best ready unit: under `Default` by the rule of [`heap::pop_best`] over the
    /// class heaps, else the top of heap 0.
    #[inline(always)]
    fn pop_best<const ORDER: u8>(
        &mut self,
        units: &mut [Unit],
        last_class: QueueClass,
    ) -> Option<u32> {
        if ORDER != BY_LEVEL {
            return self.heaps[0].pop::<ORDER>(units);
        }
        heap::pop_best::<ORDER>(&mut self.heaps, units, last_class)
    }

    /// Restores the heap of queued `unit` after its key changed (`raised`: towards the front).
    #[inline(always)]
    fn requeue<const ORDER: u8>(&mut self, frame: &mut Frame, unit: u32, raised: bool) {
        let heap = if ORDER == BY_LEVEL {
            frame.units[unit as usize].class as usize
        } else {
            0
        };
        let heap = &mut self.heaps[heap];
        if raised {
            heap.raised::<ORDER>(frame.units, unit);
        } else {
            heap.lowered::<ORDER>(frame.units, unit);
        }
    }

    /// Memory priorities after scheduling `unit` (`record`): for each transient it uses, the
    /// first scheduled user starts it (the other users no longer allocate it), and once one
    /// user is left that user frees it. Queued units move within their heap at once; the others
    /// are keyed when they are queued.
    #[inline(always)]
    fn update_memory_after<const ORDER: u8>(&mut self, frame: &mut Frame, unit: u32, record: Unit) {
        for unit_use in &frame.uses[record.use_start as usize..record.use_end as usize] {
            let resource = unit_use.resource as usize;
            let state = &mut frame.resources[resource];
            let size = state.size;
            let users_head = std::mem::replace(&mut state.users_head, NONE);
            state.remaining -= 1;
            state.undone_xor ^= unit;
            let last = if state.remaining == 1 {
                state.undone_xor
            } else {
                NONE
            };
            if users_head != NONE {
                // The first scheduled user: every other user is still unscheduled.
                let mut next = users_head;
                while next != NONE {
                    let Use {
                        unit: other,
                        next: following,
                        ..
                    } = frame.uses[next as usize];
                    if other != unit {
                        let other_record = &mut frame.units[other as usize];
                        other_record.allocs = other_record.allocs.saturating_sub(size);
                        if other_record.heap_pos != NONE {
                            self.requeue::<ORDER>(frame, other, true);
                        }
                    }
                    next = following;
                }
            }
            if last != NONE {
                let last_record = &mut frame.units[last as usize];
                let before_frees = last_record.frees;
                // Wrapping, as the sums of sizes always were in release builds; only a wrap
                // lowers the priority.
                last_record.frees = before_frees.wrapping_add(size);
                if last_record.heap_pos != NONE {
                    let raised = last_record.frees >= before_frees;
                    self.requeue::<ORDER>(frame, last, raised);
                }
            }
        }
    }

    /// Moves past finished barrier epochs, queueing the units that waited for them.
    fn advance_epochs<const ORDER: u8>(&mut self, frame: &mut Frame) {
        let epochs = self.epoch_remaining.len();
        while self.current_epoch < epochs && self.epoch_remaining[self.current_epoch] == 0 {
            self.current_epoch += 1;
            if self.current_epoch < epochs {
                // A released unit's first epoch is the current one, so none re-enters a list.
                let mut next = std::mem::replace(&mut self.wait_head[self.current_epoch], NONE);
                while next != NONE {
                    let following = frame.units[next as usize].wait_next;
                    self.make_ready::<ORDER, true>(frame, next);
                    next = following;
                }
            }
        }
    }

    /// Retries the atomic units spanning barriers that were not clear yet.
    fn retry_spanning<const ORDER: u8>(&mut self, frame: &mut Frame) {
        let mut retry = std::mem::take(&mut self.spanning_retry);
        std::mem::swap(&mut retry, &mut self.spanning);
        for &unit in &retry {
            self.make_ready::<ORDER, true>(frame, unit);
        }
        retry.clear();
        self.spanning_retry = retry;
    }
}

#[cfg(test)]
mod tests;
