//! The list scheduler: one priority queue of ready scheduling units (a node, or an outermost
//! `atomic` subgraph scheduled as one contiguous run in call order). Preferences:
//! - `ProgramOrder`: call order (still honouring every constraint).
//! - `Memory`: first nodes that end a transient's lifetime, then those that start the least new
//!   transient memory, then call order.
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
//! see [`super::schedule_heap`]), and releases successors, barrier epochs and atomic units that
//! span barriers. Every priority is unique (it ends with the call index), so the order is the
//! one "smallest current key among the ready units" order, however the heaps are arranged.
//! Cost: O((nodes + edges + resource uses) log ready).

use super::access_info::AccessInfo;
use super::deps::DepGraph;
use super::schedule_heap::{before, UnitHeap, UnitKey, BY_CALL, BY_LEVEL, BY_MEMORY, NONE};
use super::schedule_units::{UnitGraph, Use};
use super::SchedulePreference;
use crate::decl::QueueClass;
use crate::graph::RecordedGraph;

/// Reusable scratch of the scheduler.
#[derive(Debug, Default)]
pub struct Scheduler {
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
    /// Orders the live nodes. `alive[n]` marks survivors; the result lists them in execution
    /// order.
    #[allow(
        clippy::too_many_arguments,
        reason = "scratch outputs are passed in to keep their allocations"
    )]
    pub fn schedule(
        &mut self,
        graph: &RecordedGraph,
        infos: &[AccessInfo],
        deps: &DepGraph,
        alive: &[bool],
        preference: SchedulePreference,
        sizes: &[u64],
        order: &mut Vec<u32>,
        levels: &mut Vec<u32>,
    ) {
        order.clear();
        levels.clear();
        // Call order never looks at memory priorities.
        let track_memory = preference != SchedulePreference::ProgramOrder;
        self.units
            .build(graph, infos, deps, alive, sizes, track_memory);
        if self.units.units.is_empty() {
            return;
        }
        match preference {
            SchedulePreference::ProgramOrder => self.run::<BY_CALL>(graph, order, levels),
            SchedulePreference::Memory => self.run::<BY_MEMORY>(graph, order, levels),
            SchedulePreference::Default => self.run::<BY_LEVEL>(graph, order, levels),
        }
    }

    fn run<const ORDER: u8>(
        &mut self,
        graph: &RecordedGraph,
        order: &mut Vec<u32>,
        levels: &mut Vec<u32>,
    ) {
        let units = &mut self.units;
        let queue = &mut self.queue;
        let unit_count = units.units.len();
        queue.reset(units, graph);
        order.reserve(units.members.len());
        levels.reserve(units.members.len());
        for unit in 0..unit_count {
            if units.units[unit].pending == 0 {
                queue.make_ready::<ORDER>(units, graph, unit as u32);
            }
        }
        let mut last_class = QueueClass::Graphics;
        for _ in 0..unit_count {
            let Some(unit) = queue.pop_best::<ORDER>(&mut units.keys, last_class) else {
                // Only possible with inconsistent constraints (e.g. an atomic unit spanning a
                // barrier that an outside node of its own epochs depends on): the rest follows
                // in call order.
                for (record, key) in units.units.iter_mut().zip(&units.keys) {
                    if !record.done {
                        record.done = true;
                        let members = record.member_start as usize..record.member_end as usize;
                        for &node in &units.members[members] {
                            order.push(node);
                            levels.push(key.level);
                        }
                    }
                }
                break;
            };
            let record = &mut units.units[unit as usize];
            record.done = true;
            last_class = record.class;
            let level = units.keys[unit as usize].level;
            let members = &units.members[record.member_start as usize..record.member_end as usize];
            for &node in members {
                order.push(node);
                levels.push(level);
            }
            if record.first_epoch == record.last_epoch {
                queue.epoch_remaining[record.first_epoch as usize] -= members.len() as u32;
            } else {
                for &node in members {
                    queue.epoch_remaining[graph.nodes[node as usize].barrier_epoch as usize] -= 1;
                }
            }
            let succ_head = record.succ_head;
            if ORDER != BY_CALL {
                queue.update_memory_after::<ORDER>(units, unit);
            }
            let mut edge = succ_head;
            while edge != NONE {
                let link = units.edges[edge as usize];
                let target = &mut units.units[link.target as usize];
                target.pending -= 1;
                if target.pending == 0 {
                    queue.make_ready::<ORDER>(units, graph, link.target);
                }
                edge = link.next;
            }
            queue.advance_epochs::<ORDER>(units, graph);
            if !queue.spanning.is_empty() {
                queue.retry_spanning::<ORDER>(units, graph);
            }
        }
    }
}

impl ReadyQueue {
    /// Empties the queue and counts the live nodes per barrier epoch.
    fn reset(&mut self, units: &UnitGraph, graph: &RecordedGraph) {
        for heap in &mut self.heaps {
            heap.clear();
        }
        let epochs = graph.barrier_count as usize + 1;
        self.epoch_remaining.clear();
        self.epoch_remaining.resize(epochs, 0);
        for record in &units.units {
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
        self.spanning.clear();
        self.current_epoch = 0;
        while self.current_epoch < epochs && self.epoch_remaining[self.current_epoch] == 0 {
            self.current_epoch += 1;
        }
    }

    /// `unit` has no pending predecessors: queue it, or park it until its barrier epoch (or,
    /// for an atomic unit spanning barriers, the other nodes of its spanned epochs) is done.
    fn make_ready<const ORDER: u8>(
        &mut self,
        units: &mut UnitGraph,
        graph: &RecordedGraph,
        unit: u32,
    ) {
        let record = &mut units.units[unit as usize];
        let first = record.first_epoch as usize;
        if first > self.current_epoch {
            record.wait_next = self.wait_head[first];
            self.wait_head[first] = unit;
            return;
        }
        let last = record.last_epoch as usize;
        if last > first {
            // Every outside node of the epochs it spans (before its last one) must be done
            // first. Once true this stays true (the counts only fall), so a queued unit never
            // needs this check again.
            let members =
                &units.members[record.member_start as usize..record.member_end as usize];
            let spans_clear = (first..last).all(|epoch| {
                let own = members
                    .iter()
                    .filter(|&&node| graph.nodes[node as usize].barrier_epoch as usize == epoch)
                    .count();
                self.epoch_remaining[epoch] as usize == own
            });
            if !spans_clear {
                self.spanning.push(unit);
                return;
            }
        }
        if units.keys[unit as usize].heap_pos != NONE {
            // Already queued under its current key.
            return;
        }
        let heap = if ORDER == BY_LEVEL {
            record.class as usize
        } else {
            0
        };
        self.heaps[heap].push::<ORDER>(&mut units.keys, unit);
    }

    /// Pops the best ready unit. `Default` compares the tops of the class heaps by (level, class
    /// switch from `last_class`, memory priorities, call order); within one heap the switch is
    /// the same for every unit, so each heap's top is its best candidate.
    fn pop_best<const ORDER: u8>(
        &mut self,
        keys: &mut [UnitKey],
        last_class: QueueClass,
    ) -> Option<u32> {
        if ORDER != BY_LEVEL {
            return self.heaps[0].pop::<ORDER>(keys);
        }
        let mut best = NONE;
        let mut best_class = 0;
        for class in 0..self.heaps.len() {
            let Some(top) = self.heaps[class].top() else {
                continue;
            };
            if best == NONE {
                best = top;
                best_class = class;
                continue;
            }
            let (top_level, best_level) = (keys[top as usize].level, keys[best as usize].level);
            let top_switch = class != last_class as usize;
            let best_switch = best_class != last_class as usize;
            let better = if top_level != best_level {
                top_level < best_level
            } else if top_switch != best_switch {
                !top_switch
            } else {
                before::<BY_MEMORY>(keys, top, best)
            };
            if better {
                best = top;
                best_class = class;
            }
        }
        if best == NONE {
            return None;
        }
        self.heaps[best_class].pop::<ORDER>(keys)
    }

    /// The heap holding queued `unit`.
    #[inline(always)]
    fn heap_of<const ORDER: u8>(&mut self, units: &UnitGraph, unit: u32) -> &mut UnitHeap {
        let heap = if ORDER == BY_LEVEL {
            units.units[unit as usize].class as usize
        } else {
            0
        };
        &mut self.heaps[heap]
    }

    /// Memory priorities after scheduling `unit`: for each transient it uses, the first
    /// scheduled user starts it (the other users no longer allocate it), and once one user is
    /// left that user frees it. Queued units move within their heap at once; the others are
    /// keyed when they are queued.
    fn update_memory_after<const ORDER: u8>(&mut self, units: &mut UnitGraph, unit: u32) {
        let record = units.units[unit as usize];
        for use_index in record.use_start as usize..record.use_end as usize {
            let resource = units.uses[use_index].resource as usize;
            let state = units.resources[resource];
            let size = state.size;
            if state.users_head != NONE {
                // No earlier user was scheduled, so every other user is still unscheduled.
                units.resources[resource].users_head = NONE;
                let mut next = state.users_head;
                while next != NONE {
                    let Use {
                        unit: other, next: following, ..
                    } = units.uses[next as usize];
                    if other != unit {
                        let key = &mut units.keys[other as usize];
                        key.allocs = key.allocs.saturating_sub(size);
                        if key.heap_pos != NONE {
                            self.heap_of::<ORDER>(units, other)
                                .raised::<ORDER>(&mut units.keys, other);
                        }
                    }
                    next = following;
                }
            }
            let state = &mut units.resources[resource];
            state.remaining -= 1;
            state.undone_xor ^= unit;
            if state.remaining == 1 {
                let last = state.undone_xor;
                let key = &mut units.keys[last as usize];
                let before_frees = key.frees;
                // Wrapping, as the sums of sizes always were in release builds; only a wrap
                // lowers the priority.
                key.frees = before_frees.wrapping_add(size);
                if key.heap_pos != NONE {
                    let raised = key.frees >= before_frees;
                    let heap = self.heap_of::<ORDER>(units, last);
                    if raised {
                        heap.raised::<ORDER>(&mut units.keys, last);
                    } else {
                        heap.lowered::<ORDER>(&mut units.keys, last);
                    }
                }
            }
        }
    }

    /// Moves past finished barrier epochs, queueing the units that waited for them.
    fn advance_epochs<const ORDER: u8>(&mut self, units: &mut UnitGraph, graph: &RecordedGraph) {
        let epochs = self.epoch_remaining.len();
        while self.current_epoch < epochs && self.epoch_remaining[self.current_epoch] == 0 {
            self.current_epoch += 1;
            if self.current_epoch < epochs {
                // A released unit's first epoch is the current one, so none re-enters a list.
                let mut next = std::mem::replace(&mut self.wait_head[self.current_epoch], NONE);
                while next != NONE {
                    let following = units.units[next as usize].wait_next;
                    self.make_ready::<ORDER>(units, graph, next);
                    next = following;
                }
            }
        }
    }

    /// Retries the atomic units spanning barriers that were not clear yet.
    fn retry_spanning<const ORDER: u8>(&mut self, units: &mut UnitGraph, graph: &RecordedGraph) {
        let mut retry = std::mem::take(&mut self.spanning_retry);
        std::mem::swap(&mut retry, &mut self.spanning);
        for &unit in &retry {
            self.make_ready::<ORDER>(units, graph, unit);
        }
        retry.clear();
        self.spanning_retry = retry;
    }
}
