//! The scheduler's input, built in one pass over the live nodes in call order: scheduling units
//! (a node, or the live nodes of an outermost `atomic` subgraph), their successor lists, pending
//! predecessor counts and levels, and, for the memory preferences, which units use which
//! transient resource and the units' initial memory priorities.
//!
//! Every list is flat: successors and resource users are singly linked lists threaded through
//! one `Vec` each (pushed in call order, so building needs no counting pass or sort); a unit's
//! members and resource uses are contiguous runs of `members` / `uses`.

use super::access_info::{AccessInfo, OUTLIVES};
use super::deps::DepGraph;
use super::schedule_heap::{UnitKey, NONE};
use crate::decl::QueueClass;
use crate::graph::RecordedGraph;

/// One scheduling unit: its members run as one contiguous run in call order.
#[derive(Copy, Clone, Debug)]
pub(super) struct Unit {
    /// Its nodes are `members[member_start..member_end]`.
    pub member_start: u32,
    /// End of its member run.
    pub member_end: u32,
    /// First edge of its successor list in `edges`, or [`NONE`].
    pub succ_head: u32,
    /// Its transient resource uses are `uses[use_start..use_end]` (memory preferences only).
    pub use_start: u32,
    /// End of its use run.
    pub use_end: u32,
    /// `sch_barrier` epoch of its first member.
    pub first_epoch: u32,
    /// `sch_barrier` epoch of its last member (greater for an atomic unit spanning barriers).
    pub last_epoch: u32,
    /// Predecessor edges not yet satisfied (repeated edges count once per repeat: each repeat is
    /// also listed once in the predecessor's successor list, so the count still ends at zero).
    pub pending: u32,
    /// Next unit waiting for the same barrier epoch, or [`NONE`].
    pub wait_next: u32,
    /// The queue class of its first member.
    pub class: QueueClass,
    /// Scheduled.
    pub done: bool,
}

/// A successor-list link: `target` runs after the list's owner.
#[derive(Copy, Clone, Debug)]
pub(super) struct Edge {
    /// The successor unit.
    pub target: u32,
    /// The next edge of the same list, or [`NONE`].
    pub next: u32,
}

/// Scheduling state of one resource (memory preferences only).
#[derive(Copy, Clone, Debug)]
pub(super) struct ResourceState {
    /// Its allocation size.
    pub size: u64,
    /// First of its uses (linked through [`Use::next`]) until a user is scheduled, then [`NONE`]:
    /// the list is only needed once, when the first user starts the resource.
    pub users_head: u32,
    /// Users not yet scheduled.
    pub remaining: u32,
    /// XOR of the users not yet scheduled: once one remains, this is that unit.
    pub undone_xor: u32,
    /// The unit that last listed it (each unit lists a resource once).
    last_user: u32,
}

/// One unit's use of one transient resource.
#[derive(Copy, Clone, Debug)]
pub(super) struct Use {
    /// The resource.
    pub resource: u32,
    /// The using unit.
    pub unit: u32,
    /// The resource's next use (earlier in call order), or [`NONE`].
    pub next: u32,
}

/// Units, edges and resource uses of one frame (scratch kept across frames).
#[derive(Debug, Default)]
pub(super) struct UnitGraph {
    /// The units in call order.
    pub units: Vec<Unit>,
    /// Each unit's priority (levels always; memory fields for the memory preferences).
    pub keys: Vec<UnitKey>,
    /// Live nodes grouped by unit, in call order.
    pub members: Vec<u32>,
    /// Successor-list links.
    pub edges: Vec<Edge>,
    /// Per resource (memory preferences only).
    pub resources: Vec<ResourceState>,
    /// Resource uses grouped by unit (memory preferences only).
    pub uses: Vec<Use>,
    /// Each node's unit, or [`NONE`] for culled nodes.
    unit_of: Vec<u32>,
    /// Each subgraph's outermost enclosing atomic subgraph, or [`NONE`].
    outer_atomic: Vec<u32>,
}

impl UnitGraph {
    /// Builds the units of the live nodes; `track_memory` also builds the resource uses and the
    /// memory priorities.
    pub fn build(
        &mut self,
        graph: &RecordedGraph,
        infos: &[AccessInfo],
        deps: &DepGraph,
        alive: &[bool],
        sizes: &[u64],
        track_memory: bool,
    ) {
        let node_count = graph.nodes.len();
        self.units.clear();
        self.keys.clear();
        self.members.clear();
        self.edges.clear();
        self.uses.clear();
        self.unit_of.clear();
        self.unit_of.resize(node_count, NONE);
        self.outer_atomic.clear();
        let mut any_atomic = false;
        let mut any_sequential = false;
        for (index, subgraph) in graph.subgraphs.iter().enumerate() {
            let parent = subgraph
                .parent
                .and_then(|parent| self.outer_atomic.get(parent as usize).copied())
                .unwrap_or(NONE);
            let outer = if parent != NONE {
                parent
            } else if subgraph.atomic {
                index as u32
            } else {
                NONE
            };
            self.outer_atomic.push(outer);
            any_atomic |= subgraph.atomic;
            any_sequential |= subgraph.sequential;
        }
        self.resources.clear();
        if track_memory {
            self.resources
                .extend((0..graph.resources.len()).map(|resource| ResourceState {
                    size: sizes.get(resource).copied().unwrap_or(0),
                    users_head: NONE,
                    remaining: 0,
                    undone_xor: 0,
                    last_user: NONE,
                }));
        }

        let mut current_atomic = NONE;
        for (node, record) in graph.nodes.iter().enumerate() {
            if !alive[node] {
                continue;
            }
            let atomic = if any_atomic {
                record
                    .subgraph
                    .and_then(|subgraph| self.outer_atomic.get(subgraph as usize).copied())
                    .unwrap_or(NONE)
            } else {
                NONE
            };
            if atomic == NONE || atomic != current_atomic {
                let member_start = self.members.len() as u32;
                let use_start = self.uses.len() as u32;
                self.units.push(Unit {
                    member_start,
                    member_end: member_start,
                    succ_head: NONE,
                    use_start,
                    use_end: use_start,
                    first_epoch: record.barrier_epoch,
                    last_epoch: record.barrier_epoch,
                    pending: 0,
                    wait_next: NONE,
                    class: graph.decls[record.decl.index()].queue,
                    done: false,
                });
                self.keys.push(UnitKey::default());
            }
            current_atomic = atomic;
            let unit = self.units.len() as u32 - 1;
            self.unit_of[node] = unit;
            self.members.push(node as u32);

            // Predecessors are earlier nodes (the builder allows nothing else), so their units
            // are complete: their levels are final and their successor lists can grow here.
            let mut level = self.keys[unit as usize].level;
            let mut pending = 0;
            for &(pred, _) in deps.preds(node) {
                let pred_unit = self.unit_of[pred as usize];
                if pred_unit == NONE || pred_unit == unit {
                    continue;
                }
                let pred_record = &mut self.units[pred_unit as usize];
                self.edges.push(Edge {
                    target: unit,
                    next: pred_record.succ_head,
                });
                pred_record.succ_head = self.edges.len() as u32 - 1;
                pending += 1;
                level = level.max(self.keys[pred_unit as usize].level + 1);
            }
            self.keys[unit as usize].level = level;

            let mut allocs = self.keys[unit as usize].allocs;
            if track_memory {
                let accesses = record.accesses.start as usize..record.accesses.end as usize;
                for info in &infos[accesses] {
                    if info.has(OUTLIVES) {
                        continue;
                    }
                    let state = &mut self.resources[info.resource as usize];
                    if state.last_user == unit {
                        continue;
                    }
                    state.last_user = unit;
                    state.remaining += 1;
                    state.undone_xor ^= unit;
                    self.uses.push(Use {
                        resource: info.resource,
                        unit,
                        next: state.users_head,
                    });
                    state.users_head = self.uses.len() as u32 - 1;
                    // Wrapping, as the sums of sizes always were in release builds.
                    allocs = allocs.wrapping_add(state.size);
                }
            }
            self.keys[unit as usize].allocs = allocs;
            let unit_record = &mut self.units[unit as usize];
            unit_record.pending += pending;
            unit_record.member_end = self.members.len() as u32;
            unit_record.use_end = self.uses.len() as u32;
            unit_record.last_epoch = record.barrier_epoch;
        }

        // A resource with one user: that user ends its lifetime.
        for state in &self.resources {
            if state.remaining == 1 {
                let key = &mut self.keys[state.undone_xor as usize];
                key.frees = key.frees.wrapping_add(state.size);
            }
        }
        if any_sequential {
            self.add_sequential_edges(graph, alive);
        }
    }

    /// Chains the live nodes of each `sequential` subgraph in call order, then propagates levels
    /// over all edges (units are in call order and every edge goes forward, so one pass in unit
    /// order sees each unit's final level before its successors; the levels from the dependency
    /// pass are lower bounds, so starting from them gives the same result as starting from 0).
    fn add_sequential_edges(&mut self, graph: &RecordedGraph, alive: &[bool]) {
        for subgraph in &graph.subgraphs {
            if !subgraph.sequential {
                continue;
            }
            let mut previous = NONE;
            for node in subgraph.first_node as usize..subgraph.end_node as usize {
                if !alive[node] {
                    continue;
                }
                let unit = self.unit_of[node];
                if previous != NONE && previous != unit {
                    let pred_record = &mut self.units[previous as usize];
                    self.edges.push(Edge {
                        target: unit,
                        next: pred_record.succ_head,
                    });
                    pred_record.succ_head = self.edges.len() as u32 - 1;
                    self.units[unit as usize].pending += 1;
                }
                previous = unit;
            }
        }
        for unit in 0..self.units.len() {
            let level = self.keys[unit].level + 1;
            let mut edge = self.units[unit].succ_head;
            while edge != NONE {
                let Edge { target, next } = self.edges[edge as usize];
                let key = &mut self.keys[target as usize];
                key.level = key.level.max(level);
                edge = next;
            }
        }
    }
}
