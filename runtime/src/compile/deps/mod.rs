//! Dependency edges at subresource granularity (mips x layers x planes for textures, byte ranges
//! for buffers): read-after-write, write-after-read and write-after-write, plus explicit node
//! dependencies. One walk over the accesses in call order keeps, per resource, a short list of
//! disjoint segments with their last writers and readers since; no all-pairs scans. Each node's
//! dependency level ([`DepGraph::depth`]) is kept as its edges are pushed, for the scheduler.
//!
//! `[relaxed]` writes that follow each other with no read in between form a group whose members
//! are not ordered among themselves (each is ordered after what preceded the group).

use super::table::{
    AccessBoxes, AccessInfo, AccessTable, NodeSpan, ANY_READS, ANY_WRITES, READS, RELAXED, TEXTURE,
    WHOLE, WRITES,
};
mod node_list;
pub(crate) mod stage;
use super::regions::states::{dense_count, visit_indices};
use crate::graph::RecordedGraph;
use crate::ids::NodeId;
use crate::view::SubresourceBox;
use node_list::NodeList;

/// Why an edge exists.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum EdgeKind {
    /// The later node reads data the earlier one wrote (also explicit node dependencies).
    Data,
    /// Order only: write after read or write after write.
    Order,
}

/// Predecessor lists of every node (all predecessors are earlier calls), in CSR form.
#[derive(Clone, Debug, Default)]
pub struct DepGraph {
    /// `edges[pred_start[n]..pred_start[n + 1]]` are node n's predecessors.
    pub pred_start: Vec<u32>,
    /// Predecessor node index and edge kind.
    pub edges: Vec<(u32, EdgeKind)>,
    /// Per node: its dependency level + 1 (one more than the highest of its predecessors that
    /// are earlier calls, 1 without any), or 0 for a node the build left out (dead). Valid for
    /// the `alive` the graph was built for (see [`DepBuilder::build`]); after
    /// `DepBuilder::drop_dead_nodes`, for the `alive` it was given.
    pub depth: Vec<u32>,
}

impl DepGraph {
    /// The predecessors of a node.
    pub fn preds(&self, node: usize) -> &[(u32, EdgeKind)] {
        &self.edges[self.pred_start[node] as usize..self.pred_start[node + 1] as usize]
    }
}

#[derive(Clone, Debug, Default)]
struct Segment {
    region: SubresourceBox,
    writers: NodeList,
    writers_relaxed: bool,
    readers: NodeList,
    /// What the current relaxed writer group is ordered after.
    group_base: NodeList,
}

/// No node.
const NO_NODE: u32 = u32::MAX;
/// Readers since the last write that a dense [`ResourceState`] holds inline.
const DENSE_READERS: usize = 3;
/// [`ResourceState::tag`] bit: the resource is tracked by segment list `tag & !GENERAL`.
const GENERAL: u32 = 1 << 31;
/// [`ResourceState::first`] bit: nodes read the resource before its first write; the rest of
/// the word indexes `DepBuilder::first_readers`.
const FIRST_READERS: u32 = 1 << 31;

/// Dependency-tracking state of one resource. As long as a resource is touched only whole (see
/// [`WHOLE`]), never by a `[relaxed]` write, and by at most [`DENSE_READERS`] readers after each
/// write, its state is one segment covering all of it with at most one writer, no relaxed group
/// and no group base: that segment is kept here inline ("dense"). Anything else moves the
/// resource, with this state converted to that one segment, to a segment list for the rest of
/// the build.
#[derive(Copy, Clone, Debug)]
struct ResourceState {
    /// The last writer, or `NO_NODE`.
    writer: u32,
    /// Readers since the last write, in order (the first `tag` entries).
    readers: [u32; DENSE_READERS],
    /// Dense: the number of readers. Else `GENERAL |` the index of the segment list.
    tag: u32,
    /// Once written (`writer` is not `NO_NODE`): the first writer, or `FIRST_READERS |` the
    /// index of the readers before the first write (see [`LifetimeBounds`]).
    first: u32,
}

/// The state of a resource nothing has touched yet.
const FRESH: ResourceState = ResourceState {
    writer: NO_NODE,
    readers: [NO_NODE; DENSE_READERS],
    tag: 0,
    first: NO_NODE,
};

/// What bounds each resource's lifetime, from a dependency build that kept every resource
/// dense (each accessed only whole, never by a `[relaxed]` write, by at most
/// [`DENSE_READERS`] readers between writes) and left no node out. A resource's accesses in
/// call order run: readers, a write, readers, a write, ..., readers; the edges order each
/// write after everything before it and each reader after the write before it (readers
/// between two writes are not ordered among themselves). So in every execution order the
/// dependency graph allows, its first access is one of the readers before its first write
/// (that write when there are none), and its last is one of the readers after its last write
/// (that write when there are none):
///
/// ```text
/// readers r0 r1, write w1, reader r2, write w2     first: r0 or r1, last: w2
/// write w1, readers r2 r3                          first: w1, last: r2 or r3
/// ```
#[derive(Copy, Clone)]
pub(crate) struct LifetimeBounds<'a> {
    states: &'a [ResourceState],
    first_readers: &'a [[u32; DENSE_READERS + 1]],
}

impl LifetimeBounds<'_> {
    /// The number of resources.
    pub fn len(&self) -> usize {
        self.states.len()
    }

    /// Fills `spans` (one entry per resource) with each resource's first and last execution
    /// position (the earliest position among the nodes that may make its first access, the
    /// latest among those that may make its last), `None` for a resource no node accessed;
    /// `position` holds the nodes' execution positions, by node index. `None` (and `spans`
    /// holds nothing meaningful) when a bounding node has no entry in `position`.
    pub fn spans(&self, position: &[u32], spans: &mut Vec<Option<(u32, u32)>>) -> Option<()> {
        let at = |node: u32| position.get(node as usize).copied();
        // Every entry is written below: only a grown tail is filled here.
        spans.truncate(self.states.len());
        spans.resize(self.states.len(), None);
        for (state, span) in self.states.iter().zip(spans.iter_mut()) {
            let readers = &state.readers;
            let count = state.tag.min(DENSE_READERS as u32);
            // The latest position of the readers since the last write (1 to 3 of them).
            let last_reader = || -> Option<u32> {
                let mut end = at(readers[0])?;
                if count > 1 {
                    end = end.max(at(readers[1])?);
                    if count > 2 {
                        end = end.max(at(readers[2])?);
                    }
                }
                Some(end)
            };
            *span = if state.writer == NO_NODE {
                if count == 0 {
                    None
                } else {
                    // Never written: the readers make the first and the last access.
                    let mut start = u32::MAX;
                    for &reader in &readers[..count as usize] {
                        start = start.min(at(reader)?);
                    }
                    Some((start, last_reader()?))
                }
            } else {
                let start = if state.first & FIRST_READERS == 0 {
                    at(state.first)?
                } else {
                    let [a, b, c, count] = *self
                        .first_readers
                        .get((state.first & !FIRST_READERS) as usize)?;
                    let mut start = u32::MAX;
                    for &reader in &[a, b, c][..(count as usize).clamp(1, DENSE_READERS)] {
                        start = start.min(at(reader)?);
                    }
                    start
                };
                let end = if count == 0 {
                    at(state.writer)?
                } else {
                    last_reader()?
                };
                Some((start, end))
            };
        }
        Some(())
    }
}

/// Reusable scratch for building dependency graphs.
#[derive(Debug, Default)]
pub struct DepBuilder {
    /// Per resource.
    states: Vec<ResourceState>,
    /// Segment lists of the resources tracked per region: the first `lists_used` belong to the
    /// build in progress, the rest keep their allocations for later builds.
    lists: Vec<Vec<Segment>>,
    /// Per segment list in use: the resource's whole box when the list holds one segment per
    /// subresource in the dense grid order of [`super::regions::states`] (a texture of few
    /// subresources: an access then applies to exactly its subresources, with no scanning or
    /// splitting), else `None` (a list of disjoint segments split where accesses cut them).
    grids: Vec<Option<SubresourceBox>>,
    lists_used: usize,
    scratch_pieces: Vec<SubresourceBox>,
    scratch_new: Vec<Segment>,
    explicit: Vec<(u32, u32)>,
    /// Per resource: touched by a dead node so far (see [`DepBuilder::drop_dead_nodes`]).
    dead_touched: Vec<bool>,
    /// Per node of the last build: a data edge leaves it (see [`DepBuilder::fed`]).
    fed: Vec<bool>,
    /// The readers of each resource read before its first write, before that write: up to
    /// [`DENSE_READERS`] nodes, then their count.
    first_readers: Vec<[u32; DENSE_READERS + 1]>,
    /// The last build kept every resource dense and left no node out (see
    /// [`DepBuilder::lifetime_bounds`]).
    all_dense: bool,
}

/// The whole subresource space of a resource (defined with the access table, which computes
/// it once per resource description).
pub use super::table::full_box;

/// The subresource box of every access of `graph` (indexed like `graph.accesses`).
pub fn access_boxes(graph: &RecordedGraph, out: &mut Vec<SubresourceBox>) {
    out.clear();
    out.extend(
        graph
            .accesses
            .iter()
            .map(|access| access.subresource_box(&graph.resources[access.resource.index()].desc)),
    );
}

/// What the per-access steps of one node's walk share.
struct NodeWalk<'a> {
    graph: &'a RecordedGraph,
    boxes: AccessBoxes<'a>,
    full: &'a [SubresourceBox],
    /// The node's first access index.
    first: usize,
    /// The node.
    node: u32,
}

struct Touch {
    node: u32,
    reads: bool,
    writes: bool,
    relaxed: bool,
}

/// The edge list while the nodes' predecessors are pushed (taken out of the [`DepGraph`] for
/// the build, so that its length and capacity live here rather than behind a reference), with
/// the levels of the nodes so far.
struct EdgeSink<'a> {
    edges: Vec<(u32, EdgeKind)>,
    /// Where the current node's edges start in `edges`.
    start: usize,
    /// The current node.
    node: usize,
    /// Per node: its level + 1 (see [`DepGraph::depth`]), written up to the current node.
    depth: &'a mut [u32],
    /// The highest of `depth` over the current node's predecessors pushed so far (0: none).
    level: u32,
    /// Per node (as long as `depth`): a data edge leaves it (see [`DepBuilder::fed`]).
    fed: &'a mut [bool],
}

impl EdgeSink<'_> {
    /// Starts the edges of `node`.
    #[inline(always)]
    fn begin(&mut self, node: usize) {
        self.start = self.edges.len();
        self.node = node;
        self.level = 0;
    }

    /// Adds the edge from `pred` to the current node `node` unless it is a self-edge or
    /// repeats one of the node's last few edges (an order edge repeats a data edge too).
    #[inline(always)]
    fn push(&mut self, pred: u32, node: u32, kind: EdgeKind) {
        if pred == node || !self.append(pred, kind) {
            return;
        }
        // Only an earlier call constrains the level (a later one appears only in graphs
        // edited by hand; its entry is not this build's).
        let pred = pred as usize;
        self.mark_fed(pred, kind);
        let pred_depth = self.depth.get(pred).copied().unwrap_or(0);
        let pred_depth = if pred < self.node { pred_depth } else { 0 };
        self.level = self.level.max(pred_depth);
    }

    /// [`EdgeSink::push`] of an edge from an earlier call than the current node (a dense
    /// state's writer in the read phase: every write seen so far is an earlier node's).
    #[inline(always)]
    fn push_earlier(&mut self, pred: u32, kind: EdgeKind) {
        if self.append(pred, kind) {
            self.mark_fed(pred as usize, kind);
            let pred_depth = self.depth.get(pred as usize).copied().unwrap_or(0);
            self.level = self.level.max(pred_depth);
        }
    }

    /// Notes that a data edge leaves `pred` (`kind` is a constant where this is inlined: an
    /// order edge costs nothing). Called for each edge appended: a data edge left out as a
    /// repeat repeats a data edge, already noted.
    #[inline(always)]
    fn mark_fed(&mut self, pred: usize, kind: EdgeKind) {
        if kind == EdgeKind::Data {
            if let Some(fed) = self.fed.get_mut(pred) {
                *fed = true;
            }
        }
    }

    /// Appends `(pred, kind)` unless it repeats one of the node's last few edges; returns
    /// whether it did.
    #[inline(always)]
    fn append(&mut self, pred: u32, kind: EdgeKind) -> bool {
        let (edges, start) = (&mut self.edges, self.start);
        // Cheap de-duplication against the last few edges of this node (none yet: nothing to
        // scan).
        let repeats = |&(p, k): &(u32, EdgeKind)| p == pred && (k == kind || k == EdgeKind::Data);
        let len = edges.len();
        match len.wrapping_sub(start) {
            0 => {}
            // One edge so far (the commonest case after none): compared without a loop.
            1 => {
                if edges.last().is_some_and(repeats) {
                    return false;
                }
            }
            _ => {
                let from = if len - start > 4 { len - 4 } else { start };
                if edges
                    .get(from..)
                    .is_some_and(|recent| recent.iter().any(repeats))
                {
                    return false;
                }
            }
        }
        edges.push((pred, kind));
        true
    }

    /// Ends the current node: its level + 1, or 0 when it is not `live`.
    #[inline(always)]
    fn end(&mut self, live: bool) {
        if let Some(depth) = self.depth.get_mut(self.node) {
            // `live` as 0 or 1 keeps this branch-free.
            *depth = (self.level + 1) * live as u32;
        }
    }
}

#[inline(always)]
fn apply(segment: &mut Segment, touch: &Touch, edges: &mut EdgeSink<'_>) {
    let Segment {
        writers,
        writers_relaxed,
        readers,
        group_base,
        ..
    } = segment;
    if touch.reads {
        for &writer in writers.as_slice() {
            edges.push(writer, touch.node, EdgeKind::Data);
        }
    }
    if touch.writes {
        let no_other_readers = readers
            .as_slice()
            .iter()
            .all(|&reader| reader == touch.node);
        let continue_group =
            touch.relaxed && *writers_relaxed && no_other_readers && !writers.is_empty();
        if continue_group {
            for &pred in group_base.as_slice() {
                edges.push(pred, touch.node, EdgeKind::Order);
            }
            if writers.last() != Some(touch.node) {
                writers.push(touch.node);
            }
        } else {
            for &writer in writers.as_slice() {
                edges.push(writer, touch.node, EdgeKind::Order);
            }
            for &reader in readers.as_slice() {
                edges.push(reader, touch.node, EdgeKind::Order);
            }
            group_base.clear();
            if touch.relaxed {
                for &node in writers.as_slice().iter().chain(readers.as_slice()) {
                    if node != touch.node {
                        group_base.push(node);
                    }
                }
            }
            writers.clear();
            writers.push(touch.node);
            *writers_relaxed = touch.relaxed;
            readers.clear();
        }
    } else if touch.reads && readers.last() != Some(touch.node) {
        readers.push(touch.node);
    }
}

impl DepBuilder {
    /// Computes the dependency graph of a recorded frame. With `alive`, dead nodes are skipped
    /// (no accesses, no edges), so order between live nodes is kept even where it ran through
    /// a culled node. `out.depth` holds the nodes' levels over the edges built.
    pub fn build(&mut self, graph: &RecordedGraph, alive: Option<&[bool]>, out: &mut DepGraph) {
        let mut table = AccessTable::default();
        table.build(graph);
        self.build_from_table(graph, &table, alive, out);
    }

    /// [`DepBuilder::build`] from the frame's access table, already built: the accesses'
    /// boxes, the resources' whole boxes (see [`full_box`]) and the accesses' and nodes'
    /// compact records (the nodes' access ranges are read from the table, not from the node
    /// records).
    #[inline(never)]
    pub(crate) fn build_from_table(
        &mut self,
        graph: &RecordedGraph,
        table: &AccessTable,
        alive: Option<&[bool]>,
        out: &mut DepGraph,
    ) {
        let (boxes, full): (AccessBoxes<'_>, &[SubresourceBox]) =
            (table.boxes(), table.full_boxes());
        let (infos, nodes): (&[AccessInfo], &[NodeSpan]) = (&table.infos, &table.nodes);
        self.reset(graph, out);
        let DepGraph {
            pred_start,
            edges,
            depth,
        } = out;
        // Every entry is written below: the node's in the loop, the end after it.
        pred_start.resize(graph.nodes.len() + 1, 0);
        // Taken out for the walk, as `explicit` below (the per-access steps borrow the builder):
        // the states' pointer and length then live in the walk's locals, not behind `self`.
        let mut fed = std::mem::take(&mut self.fed);
        let mut resource_states = std::mem::take(&mut self.states);
        let states = &mut resource_states[..];
        let mut sink = EdgeSink {
            edges: std::mem::take(edges),
            start: 0,
            node: 0,
            depth: &mut depth[..graph.nodes.len()],
            level: 0,
            fed: &mut fed[..graph.nodes.len()],
        };
        // The explicit dependencies, sorted by node: `next_explicit` is the node of the next
        // unconsumed one (`usize::MAX` past the last), so a node without any costs a compare.
        // Taken out for the walk (the per-access steps borrow the builder), put back after.
        let explicit = std::mem::take(&mut self.explicit);
        let mut explicit_at = 0;
        let mut next_explicit = explicit
            .first()
            .map_or(usize::MAX, |&(node, _)| node as usize);
        // Only `first` and `node` change from node to node.
        let mut walk = NodeWalk {
            graph,
            boxes,
            full,
            first: 0,
            node: 0,
        };
        for ((node_index, node), pred_start) in nodes.iter().enumerate().zip(&mut *pred_start) {
            sink.begin(node_index);
            *pred_start = sink.start as u32;
            let live = alive.is_none_or(|alive| alive[node_index]);
            if node_index == next_explicit {
                while let Some(&(of, on)) = explicit.get(explicit_at) {
                    if of as usize != node_index {
                        break;
                    }
                    if live && alive.is_none_or(|alive| alive[on as usize]) {
                        sink.push(on, node_index as u32, EdgeKind::Data);
                    }
                    explicit_at += 1;
                }
                next_explicit = explicit
                    .get(explicit_at)
                    .map_or(usize::MAX, |&(node, _)| node as usize);
            }
            if live {
                let first = node.start as usize;
                let node_infos = &infos[node.accesses()];
                walk.first = first;
                walk.node = node_index as u32;
                // Nodes of up to four accesses (nearly all) take a copy of the phases unrolled
                // for their access count: no loop exits to predict, and each access slot has
                // branches of its own (slot k of most nodes is read-only, or written, frame
                // after frame).
                match node_infos.len() {
                    0 => {}
                    1 => self.node_fixed::<1>(states, &walk, node_infos, &mut sink),
                    2 => self.node_fixed::<2>(states, &walk, node_infos, &mut sink),
                    3 => self.node_fixed::<3>(states, &walk, node_infos, &mut sink),
                    4 => self.node_fixed::<4>(states, &walk, node_infos, &mut sink),
                    _ => self.node_any(states, &walk, node_infos, &mut sink),
                }
            }
            sink.end(live);
        }
        *edges = sink.edges;
        pred_start[graph.nodes.len()] = edges.len() as u32;
        // An explicit dependency on a later call (a graph edited by hand) may close a cycle,
        // which no execution order honours: no bounds then.
        self.all_dense = alive.is_none()
            && self.lists_used == 0
            && explicit.iter().all(|&(node, on)| on <= node);
        self.explicit = explicit;
        self.fed = fed;
        self.states = resource_states;
    }

    /// The accesses of one node whose access count is `N` (`node_infos.len()`): all reads
    /// first (reads see the data from before the node), then all writes; both phases
    /// unrolled.
    #[inline(always)]
    fn node_fixed<const N: usize>(
        &mut self,
        states: &mut [ResourceState],
        walk: &NodeWalk<'_>,
        node_infos: &[AccessInfo],
        edges: &mut EdgeSink<'_>,
    ) {
        let Ok(node_infos) = <&[AccessInfo; N]>::try_from(node_infos) else {
            return self.node_any(states, walk, node_infos, edges);
        };
        // Slot by slot, written out (LLVM does not always unroll a loop over the slots): with
        // `N` known, each `get` is either always there or compiled away.
        const { assert!(N <= 4) };
        // Each access record is read where it is used (kept in no array of copies).
        if let Some(&info) = node_infos.first() {
            self.read_access(states, walk, 0, info, edges);
        }
        if let Some(&info) = node_infos.get(1) {
            self.read_access(states, walk, 1, info, edges);
        }
        if let Some(&info) = node_infos.get(2) {
            self.read_access(states, walk, 2, info, edges);
        }
        if let Some(&info) = node_infos.get(3) {
            self.read_access(states, walk, 3, info, edges);
        }
        if let Some(&info) = node_infos.first() {
            self.write_access(states, walk, 0, info, edges);
        }
        if let Some(&info) = node_infos.get(1) {
            self.write_access(states, walk, 1, info, edges);
        }
        if let Some(&info) = node_infos.get(2) {
            self.write_access(states, walk, 2, info, edges);
        }
        if let Some(&info) = node_infos.get(3) {
            self.write_access(states, walk, 3, info, edges);
        }
    }

    /// [`DepBuilder::node_fixed`] for any access count, with loops.
    #[inline(never)]
    fn node_any(
        &mut self,
        states: &mut [ResourceState],
        walk: &NodeWalk<'_>,
        node_infos: &[AccessInfo],
        edges: &mut EdgeSink<'_>,
    ) {
        for (offset, &info) in node_infos.iter().enumerate() {
            self.read_access(states, walk, offset, info, edges);
        }
        for (offset, &info) in node_infos.iter().enumerate() {
            self.write_access(states, walk, offset, info, edges);
        }
    }

    /// Clears `out` and the per-resource state for a build over `graph`.
    fn reset(&mut self, graph: &RecordedGraph, out: &mut DepGraph) {
        out.edges.clear();
        // Every node's entry is written by the build (and `pred_start`'s end after it): only a
        // grown tail is filled here.
        out.pred_start.truncate(graph.nodes.len() + 1);
        out.depth.truncate(graph.nodes.len());
        out.depth.resize(graph.nodes.len(), 0);
        self.states.clear();
        self.states.resize(graph.resources.len(), FRESH);
        self.fed.clear();
        self.fed.resize(graph.nodes.len(), false);
        self.lists_used = 0;
        self.first_readers.clear();
        self.all_dense = false;
        self.explicit.clear();
        self.explicit
            .extend(graph.explicit_deps.iter().map(|(node, on)| (node.0, on.0)));
        self.explicit.sort_unstable();
    }

    /// Per node of the graph last built (call index): some node depends on it by a data edge
    /// (it reads data the node wrote, or names it as an explicit dependency). After a build
    /// without `alive` where no explicit dependency names a later call, every node that is
    /// marked here or has an effect survives culling (induction from the last call back: a
    /// marked node feeds a later node, which survives), so liveness needs no walk when that
    /// holds for every node.
    pub(crate) fn fed(&self) -> &[bool] {
        &self.fed
    }

    /// Keeps the readers of a dense `state` before its first write; returns its
    /// [`ResourceState::first`].
    #[cold]
    #[inline(never)]
    fn note_first_readers(&mut self, state: &ResourceState) -> u32 {
        let index = self.first_readers.len() as u32;
        let [a, b, c] = state.readers;
        self.first_readers.push([a, b, c, state.tag]);
        FIRST_READERS | index
    }

    /// What bounds each resource's lifetime in any execution order of the last build's graph
    /// ([`LifetimeBounds`]), when that build had no `alive`, kept every resource dense and met
    /// no explicit dependency on a later call; else `None`.
    pub(crate) fn lifetime_bounds(&self) -> Option<LifetimeBounds<'_>> {
        self.all_dense.then_some(LifetimeBounds {
            states: &self.states,
            first_readers: &self.first_readers,
        })
    }

    /// The read phase of the access at `offset` among the node's (compact record `info`).
    #[inline(always)]
    fn read_access(
        &mut self,
        states: &mut [ResourceState],
        walk: &NodeWalk<'_>,
        offset: usize,
        info: AccessInfo,
        edges: &mut EdgeSink<'_>,
    ) {
        // First the commonest way out: the access reads no plane (`READS` implies `ANY_READS`).
        if info.bits & ANY_READS == 0 {
            return;
        }
        if info.bits & (WHOLE | READS) == WHOLE | READS {
            let state = &mut states[info.resource as usize];
            if state.tag & GENERAL == 0 && dense_read(state, walk.node, edges) {
                return;
            }
        } else if info.bits & WHOLE != 0 {
            // Whole but not plane 0: no other plane to read.
            return;
        }
        self.touch_access(states, walk, walk.first + offset, info, false, edges);
    }

    /// The write phase of an access (see [`DepBuilder::read_access`]).
    #[inline(always)]
    fn write_access(
        &mut self,
        states: &mut [ResourceState],
        walk: &NodeWalk<'_>,
        offset: usize,
        info: AccessInfo,
        edges: &mut EdgeSink<'_>,
    ) {
        // First the commonest way out: the access writes no plane (`WRITES` implies
        // `ANY_WRITES`).
        if info.bits & ANY_WRITES == 0 {
            return;
        }
        if info.bits & (WHOLE | WRITES | RELAXED) == WHOLE | WRITES {
            let state = &mut states[info.resource as usize];
            if state.tag & GENERAL == 0 {
                if state.writer == NO_NODE {
                    // The first write: note what bounds the resource's lifetime from below.
                    state.first = if state.tag == 0 {
                        walk.node
                    } else {
                        self.note_first_readers(state)
                    };
                }
                dense_write(state, walk.node, edges);
                return;
            }
        } else if info.bits & (WHOLE | WRITES) == WHOLE {
            // Whole but not plane 0: no other plane to write.
            return;
        }
        self.touch_access(states, walk, walk.first + offset, info, true, edges);
    }

    /// One phase (reads, or writes with `phase_writes`) of an access through the general path:
    /// a dense state's read overflow (its edge from the writer is already there), a relaxed
    /// write, a resource already tracked per segment, or an access not covering its resource
    /// whole (per plane). The access takes part in the phase.
    #[inline(never)]
    fn touch_access(
        &mut self,
        states: &mut [ResourceState],
        walk: &NodeWalk<'_>,
        access_index: usize,
        info: AccessInfo,
        phase_writes: bool,
        edges: &mut EdgeSink<'_>,
    ) {
        let NodeWalk {
            graph,
            boxes,
            full,
            node,
            ..
        } = *walk;
        let resource = info.resource as usize;
        let was_dense = states[resource].tag & GENERAL == 0;
        let list = self.general(states, resource, full, info.has(TEXTURE));
        if info.has(WHOLE) {
            // One plane (plane 0), the whole resource: no splitting, no plane loop.
            if was_dense && !phase_writes {
                // A reader more than the dense state holds: `dense_read` added the edge (a
                // whole access: every subresource's segment gets the reader).
                for segment in &mut self.lists[list] {
                    segment.readers.push(node);
                }
                return;
            }
            let touch = Touch {
                node,
                reads: !phase_writes && info.has(READS),
                writes: phase_writes && info.has(WRITES),
                relaxed: info.has(RELAXED),
            };
            if self.lists[list].len() == 1 {
                apply(&mut self.lists[list][0], &touch, edges);
            } else {
                self.touch(list, boxes.get(access_index), &touch, edges);
            }
            return;
        }
        let desc_access = graph.accesses[access_index].access;
        let texture = info.has(TEXTURE);
        let region = boxes.get(access_index);
        for plane in region.lo[2]..region.hi[2] {
            let mut plane_region = region;
            let mode = if texture {
                plane_region.lo[2] = plane;
                plane_region.hi[2] = plane + 1;
                desc_access.mode_for_plane(plane as u32)
            } else {
                desc_access.mode
            };
            let touch = Touch {
                node,
                reads: !phase_writes && mode.reads(),
                writes: phase_writes && mode.writes(),
                relaxed: desc_access.relaxed,
            };
            if touch.reads || touch.writes {
                self.touch(list, plane_region, &touch, edges);
            }
            if !texture {
                break;
            }
        }
    }

    /// Turns `deps`, built without `alive`, into what [`DepBuilder::build_from_table`] with `alive`
    /// gives, by dropping the dead nodes' predecessor lists, when no live node touches a
    /// resource after a dead node did: then every live node sees the same resource states in
    /// both builds (its predecessors are all live, its edges come in the same order), and a
    /// dead node's edges are all a rebuild would remove (and its level, set to 0: the live
    /// nodes' levels stand). Returns false, leaving `deps` as it
    /// was, when that does not hold and a rebuild is needed. `table` is the frame's access
    /// table.
    pub(crate) fn drop_dead_nodes(
        &mut self,
        graph: &RecordedGraph,
        table: &AccessTable,
        alive: &[bool],
        deps: &mut DepGraph,
    ) -> bool {
        let (infos, nodes) = (&table.infos, &table.nodes);
        self.dead_touched.clear();
        self.dead_touched.resize(graph.resources.len(), false);
        for (node, record) in nodes.iter().enumerate() {
            let node_infos = &infos[record.accesses()];
            if alive[node] {
                if node_infos
                    .iter()
                    .any(|info| self.dead_touched[info.resource as usize])
                {
                    return false;
                }
            } else {
                for info in node_infos {
                    self.dead_touched[info.resource as usize] = true;
                }
            }
        }
        // Compact in place: each live list moves to an offset at or before its own.
        let mut kept = 0;
        for (node, &live) in alive.iter().enumerate() {
            let start = deps.pred_start[node] as usize;
            let end = deps.pred_start[node + 1] as usize;
            deps.pred_start[node] = kept as u32;
            if live {
                deps.edges.copy_within(start..end, kept);
                kept += end - start;
            } else if let Some(depth) = deps.depth.get_mut(node) {
                // Live nodes' levels stand: their predecessors are all live.
                *depth = 0;
            }
        }
        deps.pred_start[alive.len()] = kept as u32;
        deps.edges.truncate(kept);
        true
    }

    /// The segment list tracking `resource`, converting its dense state into a list first if
    /// needed: one segment per subresource for a texture (`texture`) of few subresources, else
    /// one segment covering the resource.
    fn general(
        &mut self,
        states: &mut [ResourceState],
        resource: usize,
        full: &[SubresourceBox],
        texture: bool,
    ) -> usize {
        let state = &mut states[resource];
        if state.tag & GENERAL != 0 {
            return (state.tag & !GENERAL) as usize;
        }
        let index = self.lists_used;
        self.lists_used += 1;
        if index == self.lists.len() {
            self.lists.push(Vec::new());
        }
        let list = &mut self.lists[index];
        // Keep the first segment's vectors to avoid reallocating every frame.
        list.truncate(1);
        if list.is_empty() {
            list.push(Segment::default());
        }
        let segment = &mut list[0];
        segment.region = full[resource];
        segment.writers.clear();
        if state.writer != NO_NODE {
            segment.writers.push(state.writer);
        }
        segment.writers_relaxed = false;
        segment.readers.clear();
        segment
            .readers
            .extend_from_slice(&state.readers[..state.tag as usize]);
        segment.group_base.clear();
        state.tag = GENERAL | index as u32;
        if self.grids.len() <= index {
            self.grids.resize(index + 1, None);
        }
        let whole = full[resource];
        self.grids[index] = match dense_count(&whole, texture) {
            Some(count) if count > 1 => {
                // Every subresource starts with the resource's state, in grid order (the
                // segments' regions are not read in this layout: the grid places them).
                let first = list[0].clone();
                list.resize(count as usize, first);
                Some(whole)
            }
            _ => None,
        };
        index
    }

    fn touch(
        &mut self,
        list: usize,
        region: SubresourceBox,
        touch: &Touch,
        edges: &mut EdgeSink<'_>,
    ) {
        if let Some(whole) = self.grids[list] {
            let list = &mut self.lists[list];
            visit_indices(0, &whole, &region, |index| {
                if let Some(segment) = list.get_mut(index) {
                    apply(segment, touch, edges);
                }
                true
            });
            return;
        }
        let list = &mut self.lists[list];
        // Fast path: one segment equal to the region.
        if list.len() == 1 && list[0].region == region {
            apply(&mut list[0], touch, edges);
            return;
        }
        self.scratch_new.clear();
        let mut index = 0;
        while index < list.len() {
            if !list[index].region.overlaps(&region) {
                index += 1;
                continue;
            }
            if region.contains(&list[index].region) {
                apply(&mut list[index], touch, edges);
                index += 1;
                continue;
            }
            let segment = list.swap_remove(index);
            self.scratch_pieces.clear();
            segment
                .region
                .subtract_into(&region, &mut self.scratch_pieces);
            for piece in &self.scratch_pieces {
                self.scratch_new.push(Segment {
                    region: *piece,
                    ..segment.clone()
                });
            }
            let mut inside = segment;
            inside.region = inside.region.intersection(&region);
            apply(&mut inside, touch, edges);
            self.scratch_new.push(inside);
        }
        list.append(&mut self.scratch_new);
    }
}

/// [`apply`] of a whole read to a dense state: false (nothing changed but the edge) when the
/// reader does not fit.
#[inline(always)]
fn dense_read(state: &mut ResourceState, node: u32, edges: &mut EdgeSink<'_>) -> bool {
    // Reads come before the node's writes: the writer is an earlier node.
    if state.writer != NO_NODE {
        edges.push_earlier(state.writer, EdgeKind::Data);
    }
    let count = state.tag as usize;
    if count > 0 && state.readers[count - 1] == node {
        return true;
    }
    if count == DENSE_READERS {
        return false;
    }
    state.readers[count] = node;
    state.tag += 1;
    true
}

/// [`apply`] of a whole, not relaxed write to a dense state.
#[inline(always)]
fn dense_write(state: &mut ResourceState, node: u32, edges: &mut EdgeSink<'_>) {
    if state.writer != NO_NODE {
        edges.push(state.writer, node, EdgeKind::Order);
    }
    for &reader in &state.readers[..state.tag as usize] {
        edges.push(reader, node, EdgeKind::Order);
    }
    state.writer = node;
    state.tag = 0;
}

/// Node ids whose predecessors include `pred` (test helper): all `(pred, node)` pairs.
pub fn edge_pairs(deps: &DepGraph) -> Vec<(NodeId, NodeId, EdgeKind)> {
    let mut out = Vec::new();
    for node in 0..deps.pred_start.len().saturating_sub(1) {
        for &(pred, kind) in deps.preds(node) {
            out.push((NodeId(pred), NodeId::from_index(node), kind));
        }
    }
    out
}

#[cfg(test)]
mod tests;
