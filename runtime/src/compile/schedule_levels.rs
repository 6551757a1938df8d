//! `Default` scheduling level by level, for frames without `sch_barrier`, `atomic` or
//! `sequential` subgraphs (every scheduling unit is one live node and every constraint is a
//! dependency edge).
//!
//! Why levels are enough: the `Default` key starts with the dependency level, and a node's
//! predecessors all have lower levels. So while any node of level `L` is unscheduled, the one of
//! lowest level among the unscheduled nodes is ready (its predecessors are all done) and beats
//! every node of a higher level: the list scheduler runs the levels in ascending order, and when
//! level `L` starts every node of it is ready. No successor lists or pending counts are needed;
//! the levels come from one pass over the predecessor lists, and the nodes are bucketed by
//! level.
//!
//! Within a level the scheduler picks by (queue class switch from the previous node, bytes freed
//! descending, bytes allocated ascending, call order). A level of one node needs no key at all.
//! For a wider level the memory priorities are computed when it starts from per-resource facts
//! over the whole frame: a resource is not started yet iff no user has a lower level, and a node
//! is its last unscheduled user iff every other user has a lower level. While the level runs,
//! only resources used by two or more nodes of the level change these priorities; those are
//! updated in place (queued nodes move within their class heap).
//!
//! The sums are exact set sums here; the general scheduler wraps and saturates them, which only
//! differs when they overflow, so frames whose sizes could overflow take the general path.

use super::access_info::{AccessInfo, OUTLIVES};
use super::deps::DepGraph;
use super::schedule_heap::{before, UnitHeap, BY_MEMORY};
use super::schedule_units::{Unit, Use, NONE};
use crate::decl::QueueClass;
use crate::graph::RecordedGraph;

/// What one resource's users look like over the whole frame, plus its state in the level being
/// scheduled (the `level_*` fields are valid while `level_stamp` is that level's depth).
#[derive(Copy, Clone, Debug)]
struct ResourceFacts {
    /// Allocation size.
    size: u64,
    /// Lowest depth (level + 1) of its users.
    min_depth: u32,
    /// Highest depth of its users.
    max_depth: u32,
    /// Highest depth of its users but one holder of `max_depth` (0 with a single user).
    second_depth: u32,
    /// The node that last listed it (each node counts once).
    last_node: u32,
    /// The depth of the level whose state the `level_*` fields hold, or [`NONE`].
    level_stamp: u32,
    /// First use of this level's user list (linked through [`Use::next`]).
    level_head: u32,
    /// Users of this level not scheduled yet.
    level_remaining: u32,
    /// XOR of the local ids of this level's unscheduled users.
    level_xor: u32,
    /// The node of this level that last listed it.
    level_last: u32,
    /// A user has been scheduled.
    started: bool,
}

/// Scratch of the level scheduler, kept across frames.
#[derive(Debug, Default)]
pub(super) struct LevelScheduler {
    /// Per node: dependency level + 1, or 0 (culled, or after the node being computed).
    depth: Vec<u32>,
    /// The live nodes in call order.
    live: Vec<u32>,
    /// The live nodes by level (call order within a level).
    by_level: Vec<u32>,
    /// Per depth: the start of its nodes in `by_level` while bucketing.
    level_start: Vec<u32>,
    /// Per resource (only when some level has two or more nodes).
    resources: Vec<ResourceFacts>,
    /// The nodes of the current level (local id = position in call order within the level).
    locals: Vec<Unit>,
    /// The current level's resource uses, grouped by local node.
    uses: Vec<Use>,
    /// One heap per queue class of the current level's unscheduled nodes.
    heaps: [UnitHeap; 3],
}

impl LevelScheduler {
    /// Schedules the frame if it qualifies (see the module docs) and returns true; returns false
    /// and leaves `order` and `levels` untouched otherwise.
    #[allow(
        clippy::too_many_arguments,
        reason = "the compiler's per-frame tables, passed through"
    )]
    pub fn schedule(
        &mut self,
        graph: &RecordedGraph,
        infos: &[AccessInfo],
        deps: &DepGraph,
        alive: &[bool],
        sizes: &[u64],
        order: &mut Vec<u32>,
        levels: &mut Vec<u32>,
    ) -> bool {
        if graph.barrier_count != 0
            || graph
                .subgraphs
                .iter()
                .any(|subgraph| subgraph.atomic || subgraph.sequential)
        {
            return false;
        }
        let (live_count, max_depth, monotone) = self.compute_depths(deps, alive);
        // Every level from 0 to the highest has a node (a node's deepest predecessor is one level
        // lower), so fewer levels than nodes means some level has two or more.
        let wide_levels = (max_depth as usize) < live_count;
        if wide_levels && !self.prepare_resources(graph, infos, sizes) {
            return false;
        }
        let sorted = if monotone {
            // Levels never fall in call order: the live list is already bucketed.
            &self.live[..live_count]
        } else {
            self.bucket_by_level(live_count, max_depth);
            &self.by_level[..live_count]
        };
        order.clear();
        order.resize(live_count, 0);
        levels.clear();
        levels.resize(live_count, 0);
        let depth = &self.depth[..];
        if !wide_levels {
            for ((slot, level), &node) in order.iter_mut().zip(levels.iter_mut()).zip(sorted) {
                *slot = node;
                *level = depth[node as usize] - 1;
            }
            return true;
        }
        let mut level_state = LevelState {
            resources: &mut self.resources,
            locals: &mut self.locals,
            uses: &mut self.uses,
            heaps: &mut self.heaps,
        };
        let mut last_node = NONE;
        let mut start = 0;
        while start < live_count {
            let node = sorted[start];
            let node_depth = depth[node as usize];
            let mut end = start + 1;
            while end < live_count && depth[sorted[end] as usize] == node_depth {
                end += 1;
            }
            if end == start + 1 {
                order[start] = node;
                levels[start] = node_depth - 1;
                last_node = node;
            } else {
                // The class of the node before the level decides the first class switch.
                let last_class = if last_node == NONE {
                    QueueClass::Graphics
                } else {
                    class_of(graph, last_node)
                };
                last_node = level_state.run(
                    graph,
                    infos,
                    &sorted[start..end],
                    node_depth,
                    last_class,
                    &mut order[start..end],
                );
                levels[start..end].fill(node_depth - 1);
            }
            start = end;
        }
        true
    }

    /// Fills `depth` and `live`; returns the live node count, the highest depth and whether
    /// depths never fall along call order.
    fn compute_depths(&mut self, deps: &DepGraph, alive: &[bool]) -> (usize, u32, bool) {
        let node_count = alive.len().min(deps.pred_start.len().saturating_sub(1));
        self.depth.clear();
        self.depth.resize(alive.len(), 0);
        if self.live.len() < node_count {
            self.live.resize(node_count, 0);
        }
        let depth = &mut self.depth[..];
        let live = &mut self.live[..];
        let pred_edges = &deps.edges[..];
        let mut live_count = 0usize;
        let mut max_depth = 0u32;
        let mut monotone = true;
        let nodes = alive.iter().zip(deps.pred_start.windows(2));
        for (node, (&is_live, range)) in nodes.enumerate() {
            if !is_live {
                continue;
            }
            // A culled predecessor, the node itself and later nodes read 0: like the general
            // scheduler, which gives them no unit before this node, they add no constraint.
            let mut node_depth = 0;
            for &(pred, _) in &pred_edges[range[0] as usize..range[1] as usize] {
                node_depth = node_depth.max(depth[pred as usize]);
            }
            node_depth += 1;
            depth[node] = node_depth;
            monotone &= node_depth >= max_depth;
            max_depth = max_depth.max(node_depth);
            live[live_count] = node as u32;
            live_count += 1;
        }
        (live_count, max_depth, monotone)
    }

    /// Sorts the live nodes into `by_level` by depth (a stable counting sort).
    fn bucket_by_level(&mut self, live_count: usize, max_depth: u32) {
        let depth = &self.depth[..];
        let live = &self.live[..live_count];
        self.level_start.clear();
        self.level_start.resize(max_depth as usize + 1, 0);
        for &node in live {
            self.level_start[depth[node as usize] as usize - 1] += 1;
        }
        let mut total = 0;
        for start in &mut self.level_start {
            let count = *start;
            *start = total;
            total += count;
        }
        if self.by_level.len() < live_count {
            self.by_level.resize(live_count, 0);
        }
        for &node in live {
            let slot = &mut self.level_start[depth[node as usize] as usize - 1];
            self.by_level[*slot as usize] = node;
            *slot += 1;
        }
    }

    /// Gathers each resource's user depths over the live nodes; false when the memory sums
    /// could overflow (the general scheduler's wrapping sums then decide).
    fn prepare_resources(
        &mut self,
        graph: &RecordedGraph,
        infos: &[AccessInfo],
        sizes: &[u64],
    ) -> bool {
        let resource_count = graph.resources.len();
        let sizes = &sizes[..sizes.len().min(resource_count)];
        let largest = sizes.iter().copied().max().unwrap_or(0);
        if largest.checked_mul(resource_count as u64 + 1).is_none() {
            return false;
        }
        self.resources.clear();
        self.resources
            .extend((0..resource_count).map(|resource| ResourceFacts {
                size: sizes.get(resource).copied().unwrap_or(0),
                min_depth: u32::MAX,
                max_depth: 0,
                second_depth: 0,
                last_node: NONE,
                level_stamp: NONE,
                level_head: NONE,
                level_remaining: 0,
                level_xor: 0,
                level_last: NONE,
                started: false,
            }));
        let resources = &mut self.resources[..];
        let depth = &self.depth[..];
        for (node, (record, &node_depth)) in graph.nodes.iter().zip(depth).enumerate() {
            if node_depth == 0 {
                continue;
            }
            let node = node as u32;
            for info in &infos[record.accesses.start as usize..record.accesses.end as usize] {
                if info.has(OUTLIVES) {
                    continue;
                }
                let facts = &mut resources[info.resource as usize];
                if facts.last_node == node {
                    continue;
                }
                facts.last_node = node;
                facts.min_depth = facts.min_depth.min(node_depth);
                facts.second_depth = facts.second_depth.max(facts.max_depth.min(node_depth));
                facts.max_depth = facts.max_depth.max(node_depth);
            }
        }
        true
    }
}

/// The queue class of a node.
#[inline(always)]
fn class_of(graph: &RecordedGraph, node: u32) -> QueueClass {
    graph.decls[graph.nodes[node as usize].decl.index()].queue
}

/// The scratch one wide level works in.
struct LevelState<'a> {
    resources: &'a mut [ResourceFacts],
    locals: &'a mut Vec<Unit>,
    uses: &'a mut Vec<Use>,
    heaps: &'a mut [UnitHeap; 3],
}

impl LevelState<'_> {
    /// Schedules the ready `nodes` of one level (depth `level_depth`, call order) into `order`
    /// after a node of `last_class`; returns the last node scheduled.
    fn run(
        &mut self,
        graph: &RecordedGraph,
        infos: &[AccessInfo],
        nodes: &[u32],
        level_depth: u32,
        mut last_class: QueueClass,
        order: &mut [u32],
    ) -> u32 {
        let any_shared = self.key_level(graph, infos, nodes, level_depth);
        let mut last_node = NONE;
        for slot in order.iter_mut() {
            let Some(local) = self.pop_best(last_class) else {
                break;
            };
            let record = self.locals[local as usize];
            last_class = record.class;
            last_node = nodes[local as usize];
            *slot = last_node;
            if any_shared {
                self.update_after(local, record, level_depth);
            }
        }
        last_node
    }

    /// Computes the memory priorities of the level's nodes, lists their resource uses and
    /// queues them; true when some resource has two or more users in the level (priorities
    /// then change while the level runs).
    fn key_level(
        &mut self,
        graph: &RecordedGraph,
        infos: &[AccessInfo],
        nodes: &[u32],
        level_depth: u32,
    ) -> bool {
        self.locals.clear();
        self.uses.clear();
        for heap in self.heaps.iter_mut() {
            heap.clear();
        }
        let mut any_shared = false;
        for (local, &node) in nodes.iter().enumerate() {
            let local = local as u32;
            let record = &graph.nodes[node as usize];
            let use_start = self.uses.len() as u32;
            let (mut frees, mut allocs) = (0u64, 0u64);
            for info in &infos[record.accesses.start as usize..record.accesses.end as usize] {
                if info.has(OUTLIVES) {
                    continue;
                }
                let facts = &mut self.resources[info.resource as usize];
                if facts.level_last == node {
                    continue;
                }
                facts.level_last = node;
                // No user of a lower level: nobody started it yet.
                if facts.min_depth == level_depth {
                    allocs += facts.size;
                }
                // Every other user has a lower level: this node is the last one left.
                if facts.second_depth < level_depth {
                    frees += facts.size;
                }
                if facts.level_stamp != level_depth {
                    facts.level_stamp = level_depth;
                    facts.level_head = NONE;
                    facts.level_remaining = 0;
                    facts.level_xor = 0;
                    facts.started = facts.min_depth < level_depth;
                }
                self.uses.push(Use {
                    resource: info.resource,
                    unit: local,
                    next: facts.level_head,
                });
                facts.level_head = self.uses.len() as u32 - 1;
                facts.level_remaining += 1;
                facts.level_xor ^= local;
                any_shared |= facts.level_remaining > 1;
            }
            let class = graph.decls[record.decl.index()].queue;
            self.locals.push(Unit {
                frees,
                allocs,
                use_start,
                use_end: self.uses.len() as u32,
                class,
                ..Unit::EMPTY
            });
            self.heaps[class as usize].push::<BY_MEMORY>(&mut self.locals[..], local);
        }
        any_shared
    }

    /// Pops the best node: no class switch from `last_class` first, then the memory
    /// priorities and call order (within one heap the switch is the same for every node, so
    /// each heap's top is its best candidate).
    #[inline(always)]
    fn pop_best(&mut self, last_class: QueueClass) -> Option<u32> {
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
            let top_switch = class != last_class as usize;
            let best_switch = best_class != last_class as usize;
            let better = if top_switch != best_switch {
                !top_switch
            } else {
                before::<BY_MEMORY>(&self.locals[..], top, best)
            };
            if better {
                best = top;
                best_class = class;
            }
        }
        if best == NONE {
            return None;
        }
        self.heaps[best_class].pop::<BY_MEMORY>(&mut self.locals[..])
    }

    /// Priorities after scheduling `local` (`record`), for the resources it shares with other
    /// nodes of the level: the first scheduled user starts a resource (the others no longer
    /// allocate it), and once one user is left and no later level uses it, that user frees it.
    fn update_after(&mut self, local: u32, record: Unit, level_depth: u32) {
        for index in record.use_start..record.use_end {
            let resource = self.uses[index as usize].resource as usize;
            let facts = &mut self.resources[resource];
            if facts.level_remaining == 1 {
                // No other user in this level: nobody's priority changes.
                facts.level_remaining = 0;
                continue;
            }
            let size = facts.size;
            let start_others = !facts.started;
            facts.started = true;
            facts.level_remaining -= 1;
            facts.level_xor ^= local;
            let last = if facts.level_remaining == 1 && facts.max_depth == level_depth {
                facts.level_xor
            } else {
                NONE
            };
            if start_others {
                let mut next = facts.level_head;
                while next != NONE {
                    let Use {
                        unit: other,
                        next: following,
                        ..
                    } = self.uses[next as usize];
                    let other_record = &mut self.locals[other as usize];
                    if other_record.heap_pos != NONE {
                        other_record.allocs -= size;
                        let class = other_record.class as usize;
                        self.heaps[class].raised::<BY_MEMORY>(&mut self.locals[..], other);
                    }
                    next = following;
                }
            }
            if last != NONE {
                let last_record = &mut self.locals[last as usize];
                last_record.frees += size;
                let class = last_record.class as usize;
                self.heaps[class].raised::<BY_MEMORY>(&mut self.locals[..], last);
            }
        }
    }
}
