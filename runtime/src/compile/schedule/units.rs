//! The scheduler's input, built in one pass over the live nodes in call order: scheduling units
//! (a node, or the live nodes of an outermost `atomic` subgraph), their successor lists, pending
//! predecessor counts and levels, and, for the memory preferences, which units use which
//! transient resource and the units' initial memory priorities.
//!
//! Every list is flat: successors and resource users are singly linked lists threaded through
//! one `Vec` each (pushed in call order, so building needs no counting pass or sort); a unit's
//! members and resource uses are contiguous runs of `members` / `uses`.
//!
//! Every edge goes from an earlier unit to a later one: dependencies point at earlier nodes (the
//! builder rejects anything else) and sequential chains follow call order.

use crate::compile::deps::stage::Analysis;
use crate::compile::table::{AccessInfo, OUTLIVES};
use crate::decl::QueueClass;
use crate::graph::RecordedGraph;

/// "No unit" / "not in a heap" / "end of list".
pub(super) const NONE: u32 = u32::MAX;

/// One scheduling unit (its members run as one contiguous run in call order): its priority, its
/// place in the ready queue and its graph data, in one 64-byte record.
#[derive(Copy, Clone, Debug)]
pub(super) struct Unit {
    /// Bytes of transient memory whose lifetime the unit would end (it is their last user).
    pub frees: u64,
    /// Bytes of transient memory the unit would start (resources no scheduled unit touched).
    pub allocs: u64,
    /// Dependency depth (longest predecessor chain).
    pub level: u32,
    /// Position in its heap, or [`NONE`] while not queued.
    pub heap_pos: u32,
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

impl Unit {
    /// A placeholder for slots not written yet.
    pub(super) const EMPTY: Unit = Unit {
        frees: 0,
        allocs: 0,
        level: 0,
        heap_pos: NONE,
        member_start: 0,
        member_end: 0,
        succ_head: NONE,
        use_start: 0,
        use_end: 0,
        first_epoch: 0,
        last_epoch: 0,
        pending: 0,
        wait_next: NONE,
        class: QueueClass::Graphics,
        done: false,
    };
}

/// Grows `items` to at least `len` entries (never shrinks: slots are overwritten before use).
fn ensure_len<T: Copy>(items: &mut Vec<T>, len: usize, fill: T) {
    if items.len() < len {
        items.resize(len, fill);
    }
}

/// A successor-list link: `target` runs after the list's owner.
#[derive(Copy, Clone, Debug, Default)]
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
#[derive(Copy, Clone, Debug, Default)]
pub(super) struct Use {
    /// The resource.
    pub resource: u32,
    /// The using unit.
    pub unit: u32,
    /// The resource's next use (earlier in call order), or [`NONE`].
    pub next: u32,
}

/// Units, edges and resource uses of one frame (scratch kept across frames).
///
/// `units`, `members`, `edges` and `uses` only ever grow (to the frame's upper bound: one unit,
/// member, edge or use per node, dependency edge or access) and are written by index, so the
/// build loop has no reallocation calls and a frame re-initialises nothing it does not write;
/// only their first `unit_count` / `member_count` / `edge_count` / `use_count` entries belong
/// to the current frame.
#[derive(Debug, Default)]
pub(super) struct UnitGraph {
    /// The units in call order.
    pub units: Vec<Unit>,
    /// Units of this frame.
    pub unit_count: usize,
    /// Live nodes grouped by unit, in call order.
    pub members: Vec<u32>,
    /// Live nodes of this frame.
    pub member_count: usize,
    /// Successor-list links.
    pub edges: Vec<Edge>,
    /// Links of this frame.
    edge_count: usize,
    /// Per resource (memory preferences only).
    pub resources: Vec<ResourceState>,
    /// Resource uses grouped by unit (memory preferences only).
    pub uses: Vec<Use>,
    /// Uses of this frame.
    use_count: usize,
    /// Each node's unit, or [`NONE`] for culled nodes (and nodes not reached yet while
    /// building).
    unit_of: Vec<u32>,
    /// Each subgraph's outermost enclosing atomic subgraph, or [`NONE`].
    outer_atomic: Vec<u32>,
    /// Scratch of [`UnitGraph::reverse_edges`]: the reversed links while they are built.
    reversed_edges: Vec<Edge>,
}

impl UnitGraph {
    /// Builds the units of the live nodes with their levels; unless `levels_only`, also the
    /// successor lists and pending counts (always when sequential subgraphs exist: their
    /// levels are propagated over those lists); `track_memory` also builds the resource uses and
    /// memory priorities.
    pub fn build(
        &mut self,
        frame: Analysis<'_>,
        alive: &[bool],
        levels_only: bool,
        track_memory: bool,
    ) {
        let (graph, deps) = (frame.graph, frame.deps);
        let (infos, sizes) = (&frame.table.infos[..], frame.table.sizes());
        let node_count = graph.nodes.len();
        ensure_len(&mut self.units, node_count, Unit::EMPTY);
        ensure_len(&mut self.members, node_count, 0);
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
        let with_edges = !levels_only || any_sequential;
        if with_edges {
            ensure_len(&mut self.edges, deps.edges.len(), Edge::default());
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
            ensure_len(&mut self.uses, infos.len(), Use::default());
        }

        // Slices and local counters instead of `self.field` in the loop, so pointers and
        // counts stay in registers.
        let units = &mut self.units[..];
        let members = &mut self.members[..];
        let edges = &mut self.edges[..];
        let unit_of = &mut self.unit_of[..];
        let outer_atomic = &self.outer_atomic[..];
        let pred_edges = &deps.edges[..];
        let mut unit_count = 0usize;
        let mut member_count = 0usize;
        let mut edge_count = 0usize;
        let mut current_atomic = NONE;
        let nodes = graph
            .nodes
            .iter()
            .zip(alive)
            .zip(deps.pred_start.windows(2));
        for (node, ((record, &live), pred_range)) in nodes.enumerate() {
            if !live {
                continue;
            }
            let atomic = if any_atomic {
                record
                    .subgraph
                    .and_then(|subgraph| outer_atomic.get(subgraph as usize).copied())
                    .unwrap_or(NONE)
            } else {
                NONE
            };
            if atomic == NONE || atomic != current_atomic {
                units[unit_count] = Unit {
                    member_start: member_count as u32,
                    member_end: member_count as u32,
                    first_epoch: record.barrier_epoch,
                    class: graph.decls[record.decl.index()].queue,
                    ..Unit::EMPTY
                };
                unit_count += 1;
            }
            current_atomic = atomic;
            let unit = unit_count - 1;
            unit_of[node] = unit as u32;
            members[member_count] = node as u32;
            member_count += 1;
            // The units before this one are complete (their levels are final).
            let (earlier, current) = units.split_at_mut(unit);
            let current = &mut current[0];
            current.member_end = member_count as u32;
            current.last_epoch = record.barrier_epoch;

            // A predecessor in this unit, or culled, has no unit before this one. Each edge
            // made here is one pending predecessor of this unit.
            let node_edges_start = edge_count;
            for &(pred, _) in &pred_edges[pred_range[0] as usize..pred_range[1] as usize] {
                let Some(pred_record) = earlier.get_mut(unit_of[pred as usize] as usize) else {
                    continue;
                };
                current.level = current.level.max(pred_record.level + 1);
                if with_edges {
                    edges[edge_count] = Edge {
                        target: unit as u32,
                        next: pred_record.succ_head,
                    };
                    pred_record.succ_head = edge_count as u32;
                    edge_count += 1;
                }
            }
            current.pending += (edge_count - node_edges_start) as u32;
        }
        self.unit_count = unit_count;
        self.member_count = member_count;
        self.edge_count = edge_count;
        self.use_count = 0;
        if track_memory {
            self.build_uses(graph, infos);
        }

        if any_sequential {
            self.add_sequential_edges(graph, alive);
        }
    }

    /// The unit of live `node`.
    pub fn unit_of(&self, node: u32) -> u32 {
        self.unit_of[node as usize]
    }

    /// Turns every edge around (for scheduling backwards from the sinks): afterwards each
    /// unit's successor list holds its predecessors and `pending` counts its successors (a
    /// repeated edge once per repeat, as before). Levels stay those of the forward graph.
    pub fn reverse_edges(&mut self) {
        let units = &mut self.units[..self.unit_count];
        let edges = &self.edges[..self.edge_count];
        let reversed = &mut self.reversed_edges;
        reversed.clear();
        // Each unit's new list is built in `wait_next` (unused until scheduling starts).
        for unit in units.iter_mut() {
            unit.pending = 0;
            unit.wait_next = NONE;
        }
        for source in 0..units.len() {
            let mut edge = units[source].succ_head;
            while edge != NONE {
                let Edge { target, next } = edges[edge as usize];
                let target = &mut units[target as usize];
                reversed.push(Edge {
                    target: source as u32,
                    next: target.wait_next,
                });
                target.wait_next = (reversed.len() - 1) as u32;
                units[source].pending += 1;
                edge = next;
            }
        }
        for unit in units.iter_mut() {
            unit.succ_head = std::mem::replace(&mut unit.wait_next, NONE);
        }
        std::mem::swap(&mut self.edges, &mut self.reversed_edges);
        self.edge_count = self.edges.len();
    }

    /// Lists each unit's transient resource uses (each resource once per unit) and each
    /// resource's users, and sets the units' initial memory priorities: a unit allocates the
    /// sizes of all its resources and frees those it alone uses.
    #[inline(never)]
    fn build_uses(&mut self, graph: &RecordedGraph, infos: &[AccessInfo]) {
        let units = &mut self.units[..self.unit_count];
        let members = &self.members[..self.member_count];
        let uses = &mut self.uses[..];
        let resources = &mut self.resources[..];
        let mut use_count = 0usize;
        for (unit, record) in units.iter_mut().enumerate() {
            let unit = unit as u32;
            record.use_start = use_count as u32;
            let mut allocs = 0u64;
            for &node in &members[record.member_start as usize..record.member_end as usize] {
                let accesses = &graph.nodes[node as usize].accesses;
                for info in &infos[accesses.start as usize..accesses.end as usize] {
                    if info.has(OUTLIVES) {
                        continue;
                    }
                    let state = &mut resources[info.resource as usize];
                    if state.last_user == unit {
                        continue;
                    }
                    state.last_user = unit;
                    state.remaining += 1;
                    state.undone_xor ^= unit;
                    uses[use_count] = Use {
                        resource: info.resource,
                        unit,
                        next: state.users_head,
                    };
                    state.users_head = use_count as u32;
                    use_count += 1;
                    // Wrapping, as the sums of sizes always were in release builds.
                    allocs = allocs.wrapping_add(state.size);
                }
            }
            record.allocs = allocs;
            record.use_end = use_count as u32;
        }
        self.use_count = use_count;
        // A resource with one user: that user ends its lifetime.
        for state in resources.iter() {
            if state.remaining == 1 {
                let unit = &mut units[state.undone_xor as usize];
                unit.frees = unit.frees.wrapping_add(state.size);
            }
        }
    }

    /// Chains the live nodes of each `sequential` subgraph in call order, then propagates levels
    /// over all edges (units are in call order and every edge goes forward, so one pass in unit
    /// order sees each unit's final level before its successors; the levels from the
    /// dependency pass are lower bounds, so starting from them gives the same result as
    /// starting from 0).
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
                    let link = Edge {
                        target: unit,
                        next: pred_record.succ_head,
                    };
                    pred_record.succ_head = self.edge_count as u32;
                    self.units[unit as usize].pending += 1;
                    // Past the dependency edges' bound: grow by one.
                    if self.edge_count == self.edges.len() {
                        self.edges.push(link);
                    } else {
                        self.edges[self.edge_count] = link;
                    }
                    self.edge_count += 1;
                }
                previous = unit;
            }
        }
        for unit in 0..self.unit_count {
            let level = self.units[unit].level + 1;
            let mut edge = self.units[unit].succ_head;
            while edge != NONE {
                let Edge { target, next } = self.edges[edge as usize];
                let target = &mut self.units[target as usize];
                target.level = target.level.max(level);
                edge = next;
            }
        }
    }
}
