//! `Default` scheduling level by level, for frames without `sch_barrier`, `atomic` or
//! `sequential` subgraphs (every scheduling unit is one live node and every constraint is a
//! dependency edge).
//!
//! Why levels are enough: the `Default` key starts with the dependency level, and a node's
//! predecessors all have lower levels. So while any node of level `L` is unscheduled, the one of
//! lowest level among the unscheduled nodes is ready (its predecessors are all done) and beats
//! every node of a higher level: the list scheduler runs the levels in ascending order, and when
//! level `L` starts every node of it is ready. No successor lists or pending counts are needed;
//! the levels come from the dependency builder ([`DepGraph::depth`], checked against the live
//! nodes; else from one pass over the predecessor lists), and the nodes are bucketed by level.
//!
//! Within a level the scheduler picks by (queue class switch from the previous node, bytes freed
//! descending, bytes allocated ascending, call order). A level of one node needs no key at all.
//! For wider levels the memory priorities come from per-resource facts over the whole frame
//! (see [`super::level_run`]): a resource is not started yet when a level starts iff no
//! user has a lower level, and a node is its last unscheduled user iff every other user has a
//! lower level. In the common frame every resource's users rise in level along call order; then
//! its first user starts it and its last user ends it, whatever the order within levels, and
//! one pass over the resources gives every node's priorities.
//!
//! The sums are exact set sums here; the general scheduler wraps and saturates them, which only
//! differs when they overflow, so frames whose sizes could exceed [`PRIORITY_LIMIT`] in total
//! take the general path.

use super::output::Schedule;
use super::priority::{allocated, freed, NOTHING_FREED, PRIORITY_LIMIT};
use crate::compile::deps::stage::Analysis;
use crate::compile::deps::DepGraph;
use crate::compile::schedule::level_run::{Level, LevelRun, LevelTables, ResourceFacts};
use crate::compile::schedule::units::NONE;
use crate::compile::table::{AccessInfo, NodeSpan, OUTLIVES};
use crate::decl::QueueClass;
use crate::graph::RecordedGraph;

/// Scratch of the level scheduler, kept across frames. Per-node arrays only grow: every entry a
/// frame reads is written by that frame first.
#[derive(Debug, Default)]
pub(super) struct LevelScheduler {
    /// Per node: dependency level + 1, or 0 for a culled node (unless `depth_from_deps`).
    depth: Vec<u32>,
    /// The frame's levels are the dependency builder's ([`DepGraph::depth`]), read there:
    /// `depth` is not filled.
    depth_from_deps: bool,
    /// The live nodes in call order.
    live: Vec<u32>,
    /// The live nodes by level (call order within a level).
    by_level: Vec<u32>,
    /// Per level: the start of its nodes in `by_level` while bucketing, then their end.
    level_start: Vec<u32>,
    /// Per resource (only when some level has two or more nodes).
    resources: Vec<ResourceFacts>,
    /// Some resource's users' levels do not rise strictly in call order (`priorities` then
    /// stays unfilled: priorities are computed per level from the resources).
    any_tie: bool,
    /// Per live node without `any_tie`: its sort key without its position (see
    /// [`super::level_run`]), from the bytes of transient memory it ends (it is the
    /// last user) and starts (it is the first user).
    priorities: Vec<u128>,
    /// Per declaration: its queue class.
    decl_class: Vec<QueueClass>,
    /// Scratch of one wide level.
    run: LevelRun,
}

/// The frame's levels: the dependency builder's when `from_deps`, else the scheduler's own
/// `depth`.
fn level_source<'a>(depth: &'a [u32], deps: &'a DepGraph, from_deps: bool) -> &'a [u32] {
    if from_deps {
        &deps.depth
    } else {
        depth
    }
}

/// Grows `items` to at least `len` entries (never shrinks: entries are written before use).
fn ensure_len<T: Copy>(items: &mut Vec<T>, len: usize, fill: T) {
    if items.len() < len {
        items.resize(len, fill);
    }
}

impl LevelScheduler {
    /// Schedules the frame if it qualifies (see the module docs) and returns true; returns false
    /// and leaves `out` untouched otherwise.
    pub fn schedule(&mut self, frame: Analysis<'_>, alive: &[bool], out: &mut Schedule) -> bool {
        let Analysis { graph, table, deps } = frame;
        let sizes = table.sizes();
        if graph.barrier_count != 0
            || graph
                .subgraphs
                .iter()
                .any(|subgraph| subgraph.atomic || subgraph.sequential)
        {
            return false;
        }
        // The nodes' spans (declaration and access range), not their 48-byte records.
        let (infos, spans) = (&table.infos[..], &table.nodes[..]);
        let (live_count, max_depth, monotone) = self.compute_depths(deps, alive);
        // Every level from 0 to the highest has a node (a node's deepest predecessor is one level
        // lower), so fewer levels than nodes means some level has two or more.
        let wide_levels = (max_depth as usize) < live_count;
        if wide_levels && !self.prepare_resources(graph, infos, spans, deps, sizes, live_count) {
            return false;
        }
        let sorted = if monotone {
            // Levels never fall in call order: the live list is already bucketed.
            &self.live[..live_count]
        } else {
            self.bucket_by_level(deps, live_count, max_depth);
            &self.by_level[..live_count]
        };
        out.clear();
        out.reserve(live_count);
        if !wide_levels {
            // One node per level.
            out.order.extend_from_slice(sorted);
            out.levels.extend(0..live_count as u32);
            return true;
        }
        self.run.begin_frame();
        self.decl_class.clear();
        self.decl_class
            .extend(graph.decls.iter().map(|decl| decl.queue));
        let depth = level_source(&self.depth, deps, self.depth_from_deps);
        let priorities = (!self.any_tie).then_some(&self.priorities[..]);
        // The same for every level: built once, passed by reference.
        let tables = LevelTables {
            spans,
            infos,
            decl_class: &self.decl_class,
        };
        let mut last_node = NONE;
        let mut start = 0;
        // Every depth from 1 to `max_depth` has a node, so the level of the n-th run is n.
        for node_depth in 1..=max_depth {
            let node = sorted[start];
            let end = if monotone {
                let mut end = start + 1;
                while end < live_count && depth[sorted[end] as usize] == node_depth {
                    end += 1;
                }
                end
            } else {
                // After bucketing, each level's start slot has moved to its end.
                self.level_start[node_depth as usize - 1] as usize
            };
            if end == start + 1 {
                out.push(node, node_depth - 1);
                last_node = node;
            } else {
                // The class of the node before the level decides the first class switch.
                let last_class = if last_node == NONE {
                    QueueClass::Graphics
                } else {
                    tables.decl_class[spans[last_node as usize].decl as usize]
                };
                let level = Level {
                    nodes: &sorted[start..end],
                    depth: node_depth,
                    last_class,
                };
                last_node = self.run.run(
                    &tables,
                    &mut self.resources,
                    priorities,
                    level,
                    &mut out.order,
                );
                out.levels
                    .extend(std::iter::repeat_n(node_depth - 1, end - start));
            }
            start = end;
        }
        true
    }

    /// `ProgramOrder` for frames without `atomic` or `sequential` subgraphs: the live nodes in
    /// call order with their dependency levels. Returns false (and leaves `order` and
    /// `levels` untouched) for other frames.
    pub fn program_order(
        &mut self,
        frame: Analysis<'_>,
        alive: &[bool],
        out: &mut Schedule,
    ) -> bool {
        let (graph, deps) = (frame.graph, frame.deps);
        if graph
            .subgraphs
            .iter()
            .any(|subgraph| subgraph.atomic || subgraph.sequential)
        {
            return false;
        }
        let (live_count, _, _) = self.compute_depths(deps, alive);
        let live = &self.live[..live_count];
        let depth = level_source(&self.depth, deps, self.depth_from_deps);
        out.clear();
        out.order.extend_from_slice(live);
        out.levels
            .extend(live.iter().map(|&node| depth[node as usize] - 1));
        true
    }

    /// Fills `live` and the levels (`depth`, or only `depth_from_deps` where the builder's
    /// fit); returns the live node count, the highest depth and whether depths never fall
    /// along call order.
    fn compute_depths(&mut self, deps: &DepGraph, alive: &[bool]) -> (usize, u32, bool) {
        let node_count = alive.len().min(deps.pred_start.len().saturating_sub(1));
        if node_count == 0 {
            return (0, 0, true);
        }
        ensure_len(&mut self.live, node_count, 0);
        let copied = self.copy_depths(deps, alive, node_count);
        self.depth_from_deps = copied.is_some();
        copied.unwrap_or_else(|| self.walk_depths(deps, alive, node_count))
    }

    /// [`LevelScheduler::compute_depths`] from the levels the dependency builder computed
    /// ([`DepGraph::depth`], read there: `depth` is left as it was), in one branch-free pass
    /// over the nodes; `None` when they were
    /// built for other live nodes than `alive`'s (some node's level is 0 but it is live, or
    /// the other way round), which may give a live node a level through a dead one.
    ///
    /// When the nodes with a level are exactly the live ones, the levels are the ones
    /// [`LevelScheduler::walk_depths`] gives: the builder left the dead nodes out (no edges
    /// to or from them), or dropped them where every live node's predecessors were live.
    fn copy_depths(
        &mut self,
        deps: &DepGraph,
        alive: &[bool],
        node_count: usize,
    ) -> Option<(usize, u32, bool)> {
        let built = deps.depth.get(..node_count)?;
        let live = &mut self.live[..node_count];
        let alive = &alive[..node_count];
        // Folds without early exits (LLVM vectorizes them): nothing culled is the common frame.
        if alive.iter().fold(true, |all, &is_live| all & is_live) {
            if !built
                .iter()
                .fold(true, |all, &node_depth| all & (node_depth != 0))
            {
                return None;
            }
            for (node, slot) in live.iter_mut().enumerate() {
                *slot = node as u32;
            }
            let monotone = built
                .iter()
                .zip(&built[1..])
                .fold(true, |all, (&before, &after)| all & (before <= after));
            // Levels that never fall end with the highest.
            let max_depth = if monotone {
                built.last().copied().unwrap_or(0)
            } else {
                built.iter().fold(0, |max, &node_depth| max.max(node_depth))
            };
            return Some((node_count, max_depth, monotone));
        }
        let mut live_count = 0usize;
        let mut max_depth = 0u32;
        let mut monotone = true;
        let mut consistent = true;
        for (node, (&node_depth, &is_live)) in built.iter().zip(alive).enumerate() {
            consistent &= (node_depth != 0) == is_live;
            // Written at every node, kept (counted) at live ones: `live_count <= node`.
            if let Some(slot) = live.get_mut(live_count) {
                *slot = node as u32;
            }
            live_count += is_live as usize;
            monotone &= (node_depth >= max_depth) | !is_live;
            max_depth = max_depth.max(node_depth);
        }
        consistent.then_some((live_count, max_depth, monotone))
    }

    /// [`LevelScheduler::compute_depths`] by a walk over the predecessor lists.
    fn walk_depths(
        &mut self,
        deps: &DepGraph,
        alive: &[bool],
        node_count: usize,
    ) -> (usize, u32, bool) {
        ensure_len(&mut self.depth, node_count, 0);
        let depth = &mut self.depth[..node_count];
        let live = &mut self.live[..node_count];
        let alive = &alive[..node_count];
        let pred_start = &deps.pred_start[..node_count + 1];
        let pred_edges = &deps.edges[..];
        let mut live_count = 0usize;
        let mut max_depth = 0u32;
        let mut monotone = true;
        let mut begin = pred_start[0] as usize;
        for node in 0..node_count {
            let end = pred_start[node + 1] as usize;
            let preds = &pred_edges[begin..end];
            begin = end;
            if !alive[node] {
                depth[node] = 0;
                continue;
            }
            // A culled predecessor (depth 0), the node itself and later nodes (only in graphs
            // edited by hand) add no constraint, as in the general scheduler, which gives them
            // no unit before this node.
            let mut node_depth = 0;
            for &(pred, _) in preds {
                if (pred as usize) < node {
                    node_depth = node_depth.max(depth[pred as usize]);
                }
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
    fn bucket_by_level(&mut self, deps: &DepGraph, live_count: usize, max_depth: u32) {
        let depth = level_source(&self.depth, deps, self.depth_from_deps);
        let live = &self.live[..live_count];
        self.level_start.clear();
        self.level_start.resize(max_depth as usize, 0);
        let level_start = &mut self.level_start[..];
        for &node in live {
            level_start[depth[node as usize] as usize - 1] += 1;
        }
        let mut total = 0;
        for start in level_start.iter_mut() {
            let count = *start;
            *start = total;
            total += count;
        }
        ensure_len(&mut self.by_level, live_count, 0);
        for &node in live {
            let slot = &mut level_start[depth[node as usize] as usize - 1];
            self.by_level[*slot as usize] = node;
            *slot += 1;
        }
    }

    /// Gathers each resource's user depths over the live nodes and, when every resource's
    /// users rise in level along call order, each live node's priorities; false when the
    /// memory sums could reach [`PRIORITY_LIMIT`] (the general scheduler then decides).
    fn prepare_resources(
        &mut self,
        graph: &RecordedGraph,
        infos: &[AccessInfo],
        spans: &[NodeSpan],
        deps: &DepGraph,
        sizes: &[u64],
        live_count: usize,
    ) -> bool {
        let resource_count = graph.resources.len();
        ensure_len(&mut self.resources, resource_count, ResourceFacts::UNUSED);
        let resources = &mut self.resources[..resource_count];
        // Any node's sum is at most the sum over all resources.
        let mut total = 0u128;
        for (index, facts) in resources.iter_mut().enumerate() {
            let size = sizes.get(index).copied().unwrap_or(0);
            total += size as u128;
            *facts = ResourceFacts {
                size,
                ..ResourceFacts::UNUSED
            };
        }
        if total >= PRIORITY_LIMIT as u128 {
            return false;
        }
        let depth = level_source(&self.depth, deps, self.depth_from_deps);
        ensure_len(&mut self.priorities, depth.len(), 0);
        let priorities = &mut self.priorities[..];
        let mut any_tie = false;
        for &node in &self.live[..live_count] {
            let record = spans[node as usize];
            let node_depth = depth[node as usize];
            priorities[node as usize] = NOTHING_FREED;
            for info in &infos[record.accesses()] {
                if info.has(OUTLIVES) {
                    continue;
                }
                let facts = &mut resources[info.resource as usize];
                if node_depth > facts.max_depth {
                    // Deeper than every earlier user (the common case: users in call order).
                    if facts.max_depth == 0 {
                        facts.first_node = node;
                        facts.min_depth = node_depth;
                    }
                    facts.second_depth = facts.max_depth;
                    facts.max_depth = node_depth;
                    facts.max_node = node;
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
            for facts in resources.iter() {
                if facts.max_depth != 0 {
                    priorities[facts.first_node as usize] += allocated(facts.size);
                    priorities[facts.max_node as usize] -= freed(facts.size);
                }
            }
        }
        true
    }
}
