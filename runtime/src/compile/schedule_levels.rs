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

/// What one resource's users look like over the whole frame (only built when some level has
/// two or more nodes).
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
    /// The (last listed) user of depth `max_depth`.
    max_node: u32,
    /// Its first user in call order.
    first_node: u32,
    /// The node whose priorities last counted it (a node counts each resource once).
    key_last: u32,
    /// The depth of the last level that counted it.
    key_stamp: u32,
    /// Its users' depths did not rise strictly in call order, so two users may share a level.
    /// When false, its users all have different levels and it never changes a priority while
    /// a level runs.
    maybe_tie: bool,
}

/// A resource's state within the level being scheduled, for levels where two nodes share it
/// (valid while `stamp` is that level's depth).
#[derive(Copy, Clone, Debug)]
struct SharedState {
    /// The depth of the level whose state this is, or [`NONE`].
    stamp: u32,
    /// First use of this level's user list (linked through [`Use::next`]).
    head: u32,
    /// Users of this level not scheduled yet.
    remaining: u32,
    /// XOR of the local ids of this level's unscheduled users.
    xor: u32,
    /// The node of this level that last listed it.
    last: u32,
    /// A user has been scheduled.
    started: bool,
}

impl SharedState {
    /// Not part of any level yet.
    const UNUSED: SharedState = SharedState {
        stamp: NONE,
        head: NONE,
        remaining: 0,
        xor: 0,
        last: NONE,
        started: false,
    };
}

/// One node of a wide level with its memory priorities when the level starts.
#[derive(Copy, Clone, Debug)]
struct Entry {
    /// `!frees` (bytes of transient memory it would free) in the high half and `allocs`
    /// (bytes it would start) in the low half: ascending keys put most freed, then least
    /// allocated first.
    key: u128,
    /// Its position in call order within the level.
    local: u32,
    /// Its queue class.
    class: QueueClass,
}

impl Entry {
    /// The priority key of `frees` and `allocs`.
    #[inline(always)]
    fn key_of(frees: u64, allocs: u64) -> u128 {
        ((!frees as u128) << 64) | allocs as u128
    }

    /// Bytes it would free.
    fn frees(&self) -> u64 {
        !((self.key >> 64) as u64)
    }

    /// Bytes it would start.
    fn allocs(&self) -> u64 {
        self.key as u64
    }

    /// Whether it runs before `other` of the same level and class switch.
    #[inline(always)]
    fn before(&self, other: &Entry) -> bool {
        (self.key, self.local) < (other.key, other.local)
    }
}

/// Sorts one class's entries of a level into priority order (call order among equal keys).
fn sort_by_priority(entries: &mut [Entry]) {
    if entries.len() > 32 {
        entries.sort_unstable_by_key(|entry| (entry.key, entry.local));
        return;
    }
    // Insertion sort: stable, and the entries arrive in call order.
    for index in 1..entries.len() {
        let entry = entries[index];
        let mut slot = index;
        while slot > 0 && entry.key < entries[slot - 1].key {
            entries[slot] = entries[slot - 1];
            slot -= 1;
        }
        entries[slot] = entry;
    }
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
    /// Some resource's users' levels do not rise strictly in call order (`frees` and `allocs`
    /// are then not filled: priorities are computed per level from the resources).
    any_tie: bool,
    /// Per node without `any_tie`: bytes of transient memory it frees (it is the last user).
    frees: Vec<u64>,
    /// Per node without `any_tie`: bytes of transient memory it starts (it is the first user).
    allocs: Vec<u64>,
    /// Per resource, once a level of this frame shares a resource between two nodes.
    shared: Vec<SharedState>,
    /// The current level's nodes with their priorities.
    entries: Vec<Entry>,
    /// `entries` grouped by class, for levels of several classes.
    grouped: Vec<Entry>,
    /// The nodes of a level with shared resources (local id = position in call order within
    /// the level).
    locals: Vec<Unit>,
    /// A level's uses of resources that may be shared, grouped by local node.
    uses: Vec<Use>,
    /// One heap per queue class of a level's unscheduled nodes.
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
            priorities: (!self.any_tie).then_some((&self.frees[..], &self.allocs[..])),
            resources: &mut self.resources,
            shared: &mut self.shared,
            shared_ready: false,
            entries: &mut self.entries,
            grouped: &mut self.grouped,
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
                max_node: NONE,
                first_node: NONE,
                key_last: NONE,
                key_stamp: NONE,
                maybe_tie: false,
            }));
        let resources = &mut self.resources[..];
        let depth = &self.depth[..];
        let mut any_tie = false;
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
                if node_depth > facts.max_depth {
                    // Deeper than every earlier user (the common case: users in call order).
                    if facts.max_depth == 0 {
                        facts.first_node = node;
                    }
                    facts.second_depth = facts.max_depth;
                    facts.max_depth = node_depth;
                    facts.max_node = node;
                    facts.min_depth = facts.min_depth.min(node_depth);
                } else if node_depth != facts.max_depth || facts.max_node != node {
                    // Not this node's repeated access (a node's accesses are contiguous, so
                    // after its first one it holds the maximum): a later call at the same or a
                    // lower level.
                    facts.maybe_tie = true;
                    any_tie = true;
                    facts.second_depth = facts.second_depth.max(node_depth);
                    facts.min_depth = facts.min_depth.min(node_depth);
                }
            }
        }
        self.any_tie = any_tie;
        if !any_tie {
            // Every resource's users have distinct levels rising in call order: its first user
            // starts it and its last user ends it, whatever runs in between.
            self.frees.clear();
            self.frees.resize(depth.len(), 0);
            self.allocs.clear();
            self.allocs.resize(depth.len(), 0);
            for facts in resources.iter() {
                if facts.max_depth != 0 {
                    self.allocs[facts.first_node as usize] += facts.size;
                    self.frees[facts.max_node as usize] += facts.size;
                }
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
    /// Per node `frees` and `allocs` when no resource can be shared within a level.
    priorities: Option<(&'a [u64], &'a [u64])>,
    resources: &'a mut [ResourceFacts],
    shared: &'a mut Vec<SharedState>,
    /// `shared` holds no state of an earlier frame.
    shared_ready: bool,
    entries: &'a mut Vec<Entry>,
    grouped: &'a mut Vec<Entry>,
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
        last_class: QueueClass,
        order: &mut [u32],
    ) -> u32 {
        if let Some((frees, allocs)) = self.priorities {
            self.entries.clear();
            self.entries
                .extend(nodes.iter().enumerate().map(|(local, &node)| Entry {
                    key: Entry::key_of(frees[node as usize], allocs[node as usize]),
                    local: local as u32,
                    class: class_of(graph, node),
                }));
            self.run_fixed(nodes, last_class, order)
        } else if self.key_level(graph, infos, nodes, level_depth) {
            self.run_shared(graph, infos, nodes, level_depth, last_class, order)
        } else {
            self.run_fixed(nodes, last_class, order)
        }
    }

    /// Lists the level's nodes in `entries` with their memory priorities when the level
    /// starts; true when a resource has two or more users in the level (priorities then
    /// change while the level runs).
    fn key_level(
        &mut self,
        graph: &RecordedGraph,
        infos: &[AccessInfo],
        nodes: &[u32],
        level_depth: u32,
    ) -> bool {
        self.entries.clear();
        let mut shared = false;
        for (local, &node) in nodes.iter().enumerate() {
            let record = &graph.nodes[node as usize];
            let (mut frees, mut allocs) = (0u64, 0u64);
            for info in &infos[record.accesses.start as usize..record.accesses.end as usize] {
                if info.has(OUTLIVES) {
                    continue;
                }
                let facts = &mut self.resources[info.resource as usize];
                if facts.key_last == node {
                    continue;
                }
                facts.key_last = node;
                // No user of a lower level: nobody started it yet.
                if facts.min_depth == level_depth {
                    allocs += facts.size;
                }
                // Every other user has a lower level: this node is the last one left.
                if facts.second_depth < level_depth {
                    frees += facts.size;
                }
                if facts.maybe_tie {
                    shared |= facts.key_stamp == level_depth;
                    facts.key_stamp = level_depth;
                }
            }
            self.entries.push(Entry {
                key: Entry::key_of(frees, allocs),
                local: local as u32,
                class: graph.decls[record.decl.index()].queue,
            });
        }
        shared
    }

    /// Schedules a level whose priorities stay fixed: the nodes of the previous node's class
    /// first, then class by class, each class in priority order (once a class runs, staying
    /// in it never switches, so it runs to its end; the next class is the one whose best node
    /// is best).
    fn run_fixed(&mut self, nodes: &[u32], last_class: QueueClass, order: &mut [u32]) -> u32 {
        // Group the entries by class, keeping call order within a class.
        let mut runs = [(0usize, 0usize); 3];
        for entry in self.entries.iter() {
            runs[entry.class as usize].1 += 1;
        }
        let entries = if runs.iter().filter(|run| run.1 != 0).count() == 1 {
            let class = self.entries[0].class as usize;
            runs[class] = (0, self.entries.len());
            &mut self.entries[..]
        } else {
            let mut total = 0;
            for run in &mut runs {
                let count = run.1;
                *run = (total, total);
                total += count;
            }
            // `runs[class].1` is the class's next free slot while grouping.
            self.grouped.clear();
            self.grouped.resize(self.entries.len(), self.entries[0]);
            for &entry in self.entries.iter() {
                let run = &mut runs[entry.class as usize];
                self.grouped[run.1] = entry;
                run.1 += 1;
            }
            &mut self.grouped[..]
        };
        for &(start, end) in &runs {
            sort_by_priority(&mut entries[start..end]);
        }
        let mut class = last_class as usize;
        let mut written = 0;
        loop {
            if runs[class].0 == runs[class].1 {
                // Every remaining class is a switch: the best first node decides.
                let mut best = NONE as usize;
                for (candidate, &(start, end)) in runs.iter().enumerate() {
                    if start == end {
                        continue;
                    }
                    if best == NONE as usize
                        || entries[start].before(&entries[runs[best].0])
                    {
                        best = candidate;
                    }
                }
                if best == NONE as usize {
                    break;
                }
                class = best;
            }
            let (start, end) = std::mem::take(&mut runs[class]);
            for (slot, entry) in order[written..].iter_mut().zip(&entries[start..end]) {
                *slot = nodes[entry.local as usize];
            }
            written += end - start;
        }
        order[written - 1]
    }

    /// Schedules a level where some resource has several users: after each node, the
    /// priorities of the nodes sharing its resources are updated and they move within their
    /// class heap.
    fn run_shared(
        &mut self,
        graph: &RecordedGraph,
        infos: &[AccessInfo],
        nodes: &[u32],
        level_depth: u32,
        mut last_class: QueueClass,
        order: &mut [u32],
    ) -> u32 {
        if !self.shared_ready {
            self.shared_ready = true;
            self.shared.clear();
            self.shared.resize(self.resources.len(), SharedState::UNUSED);
        }
        self.queue_shared(graph, infos, nodes, level_depth);
        let mut last_node = NONE;
        for slot in order.iter_mut() {
            let Some(local) = self.pop_best(last_class) else {
                break;
            };
            let record = self.locals[local as usize];
            last_class = record.class;
            last_node = nodes[local as usize];
            *slot = last_node;
            self.update_after(local, record, level_depth);
        }
        last_node
    }

    /// Queues the level's nodes under their priorities from `entries` and lists their uses
    /// of the resources that may be shared.
    fn queue_shared(
        &mut self,
        graph: &RecordedGraph,
        infos: &[AccessInfo],
        nodes: &[u32],
        level_depth: u32,
    ) {
        self.locals.clear();
        self.uses.clear();
        for heap in self.heaps.iter_mut() {
            heap.clear();
        }
        for (entry, &node) in self.entries.iter().zip(nodes) {
            let local = entry.local;
            let record = &graph.nodes[node as usize];
            let use_start = self.uses.len() as u32;
            for info in &infos[record.accesses.start as usize..record.accesses.end as usize] {
                if info.has(OUTLIVES) || !self.resources[info.resource as usize].maybe_tie {
                    continue;
                }
                let state = &mut self.shared[info.resource as usize];
                if state.last == node {
                    continue;
                }
                state.last = node;
                if state.stamp != level_depth {
                    *state = SharedState {
                        stamp: level_depth,
                        started: self.resources[info.resource as usize].min_depth < level_depth,
                        ..SharedState::UNUSED
                    };
                    state.last = node;
                }
                self.uses.push(Use {
                    resource: info.resource,
                    unit: local,
                    next: state.head,
                });
                state.head = self.uses.len() as u32 - 1;
                state.remaining += 1;
                state.xor ^= local;
            }
            self.locals.push(Unit {
                frees: entry.frees(),
                allocs: entry.allocs(),
                use_start,
                use_end: self.uses.len() as u32,
                class: entry.class,
                ..Unit::EMPTY
            });
            self.heaps[entry.class as usize].push::<BY_MEMORY>(&mut self.locals[..], local);
        }
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
            let state = &mut self.shared[resource];
            if state.remaining == 1 {
                // No other user in this level: nobody's priority changes.
                state.remaining = 0;
                continue;
            }
            let facts = &self.resources[resource];
            let size = facts.size;
            let start_others = !state.started;
            state.started = true;
            state.remaining -= 1;
            state.xor ^= local;
            let last = if state.remaining == 1 && facts.max_depth == level_depth {
                state.xor
            } else {
                NONE
            };
            if start_others {
                let mut next = state.head;
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
