//! Dependency edges at subresource granularity (mips x layers x planes for textures, byte ranges
//! for buffers): read-after-write, write-after-read and write-after-write, plus explicit node
//! dependencies. One walk over the accesses in call order keeps, per resource, a short list of
//! disjoint segments with their last writers and readers since; no all-pairs scans.
//!
//! `[relaxed]` writes that follow each other with no read in between form a group whose members
//! are not ordered among themselves (each is ordered after what preceded the group).

use super::access_info::{self, AccessInfo, ANY_READS, ANY_WRITES, READS, RELAXED, WHOLE, WRITES};
use crate::graph::RecordedGraph;
use crate::ids::NodeId;
use crate::view::SubresourceBox;

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
    writers: Vec<u32>,
    writers_relaxed: bool,
    readers: Vec<u32>,
    /// What the current relaxed writer group is ordered after.
    group_base: Vec<u32>,
}

/// Reusable scratch for building dependency graphs.
#[derive(Debug, Default)]
pub struct DepBuilder {
    segments: Vec<Vec<Segment>>,
    scratch_pieces: Vec<SubresourceBox>,
    scratch_new: Vec<Segment>,
    explicit: Vec<(u32, u32)>,
}

/// The whole subresource space of a resource (see [`crate::SubresourceBox`]).
pub fn full_box(desc: &crate::resource::ResourceDesc) -> SubresourceBox {
    let temporal = desc.temporal_layers.max(1) as u64;
    if desc.kind.is_texture() {
        SubresourceBox {
            lo: [0, 0, 0],
            hi: [
                desc.mip_levels as u64,
                temporal * desc.array_layers() as u64,
                desc.plane_count() as u64,
            ],
        }
    } else {
        SubresourceBox {
            lo: [0, 0, 0],
            hi: [temporal * desc.width, 1, 1],
        }
    }
}

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

struct Touch {
    node: u32,
    reads: bool,
    writes: bool,
    relaxed: bool,
}

fn push_edge(edges: &mut Vec<(u32, EdgeKind)>, start: usize, pred: u32, node: u32, kind: EdgeKind) {
    if pred == node {
        return;
    }
    // Cheap de-duplication against the last few edges of this node.
    let recent = &edges[start.max(edges.len().saturating_sub(4))..];
    if recent
        .iter()
        .any(|&(p, k)| p == pred && (k == kind || k == EdgeKind::Data))
    {
        return;
    }
    edges.push((pred, kind));
}

#[inline(always)]
fn apply(segment: &mut Segment, touch: &Touch, edges: &mut Vec<(u32, EdgeKind)>, start: usize) {
    if touch.reads {
        for &writer in &segment.writers {
            push_edge(edges, start, writer, touch.node, EdgeKind::Data);
        }
    }
    if touch.writes {
        let no_other_readers = segment.readers.iter().all(|&reader| reader == touch.node);
        let continue_group = touch.relaxed
            && segment.writers_relaxed
            && no_other_readers
            && !segment.writers.is_empty();
        if continue_group {
            for &pred in &segment.group_base {
                push_edge(edges, start, pred, touch.node, EdgeKind::Order);
            }
            if segment.writers.last() != Some(&touch.node) {
                segment.writers.push(touch.node);
            }
        } else {
            for &writer in &segment.writers {
                push_edge(edges, start, writer, touch.node, EdgeKind::Order);
            }
            for &reader in &segment.readers {
                push_edge(edges, start, reader, touch.node, EdgeKind::Order);
            }
            segment.group_base.clear();
            if touch.relaxed {
                segment.group_base.extend(
                    segment
                        .writers
                        .iter()
                        .chain(segment.readers.iter())
                        .copied()
                        .filter(|&n| n != touch.node),
                );
            }
            segment.writers.clear();
            segment.writers.push(touch.node);
            segment.writers_relaxed = touch.relaxed;
            segment.readers.clear();
        }
    } else if touch.reads && segment.readers.last() != Some(&touch.node) {
        segment.readers.push(touch.node);
    }
}

impl DepBuilder {
    /// Computes the dependency graph of a recorded frame. With `alive`, dead nodes are skipped
    /// (no accesses, no edges), so order between live nodes is kept even where it ran through
    /// a culled node.
    pub fn build(&mut self, graph: &RecordedGraph, alive: Option<&[bool]>, out: &mut DepGraph) {
        let full: Vec<SubresourceBox> = graph
            .resources
            .iter()
            .map(|resource| full_box(&resource.desc))
            .collect();
        let mut table = access_info::AccessTable::default();
        table.build(graph, &full);
        self.build_boxed(graph, &table.boxes, &full, &table.infos, alive, out);
    }

    /// [`DepBuilder::build`] with the accesses' boxes, the resources' whole boxes (see
    /// [`full_box`]) and the accesses' compact records already computed.
    #[inline(never)]
    pub(crate) fn build_boxed(
        &mut self,
        graph: &RecordedGraph,
        boxes: &[SubresourceBox],
        full: &[SubresourceBox],
        infos: &[AccessInfo],
        alive: Option<&[bool]>,
        out: &mut DepGraph,
    ) {
        out.pred_start.clear();
        out.edges.clear();
        self.segments
            .resize_with(graph.resources.len().max(self.segments.len()), Vec::new);
        for index in 0..graph.resources.len() {
            // Keep the first segment's vectors to avoid reallocating every frame.
            let list = &mut self.segments[index];
            list.truncate(1);
            if list.is_empty() {
                list.push(Segment::default());
            }
            let segment = &mut list[0];
            segment.region = full[index];
            segment.writers.clear();
            segment.readers.clear();
            segment.group_base.clear();
            segment.writers_relaxed = false;
        }
        self.explicit.clear();
        self.explicit
            .extend(graph.explicit_deps.iter().map(|(node, on)| (node.0, on.0)));
        self.explicit.sort_unstable();
        let mut explicit_at = 0;
        for (node_index, node) in graph.nodes.iter().enumerate() {
            let start = out.edges.len();
            out.pred_start.push(start as u32);
            let live = alive.is_none_or(|alive| alive[node_index]);
            while explicit_at < self.explicit.len()
                && self.explicit[explicit_at].0 as usize == node_index
            {
                let on = self.explicit[explicit_at].1;
                if live && alive.is_none_or(|alive| alive[on as usize]) {
                    push_edge(&mut out.edges, start, on, node_index as u32, EdgeKind::Data);
                }
                explicit_at += 1;
            }
            if !live {
                continue;
            }
            // Reads see the data from before the node: all reads first, then all writes.
            let accesses = node.accesses.start as usize..node.accesses.end as usize;
            for phase_writes in [false, true] {
                let active_bit = if phase_writes { ANY_WRITES } else { ANY_READS };
                for (access_index, info) in accesses.clone().zip(&infos[accesses.clone()]) {
                    // No plane of the access takes part in this phase.
                    if !info.has(active_bit) {
                        continue;
                    }
                    let resource = info.resource as usize;
                    if info.has(WHOLE) {
                        // One plane (plane 0), the whole resource: no splitting, no plane loop.
                        let touch = Touch {
                            node: node_index as u32,
                            reads: !phase_writes && info.has(READS),
                            writes: phase_writes && info.has(WRITES),
                            relaxed: info.has(RELAXED),
                        };
                        if touch.reads || touch.writes {
                            let list = &mut self.segments[resource];
                            if list.len() == 1 {
                                apply(&mut list[0], &touch, &mut out.edges, start);
                            } else {
                                let region = boxes[access_index];
                                self.touch(resource, region, &touch, &mut out.edges, start);
                            }
                        }
                        continue;
                    }
                    let access = &graph.accesses[access_index];
                    let desc_access = access.access;
                    let desc = &graph.resources[resource].desc;
                    let region = boxes[access_index];
                    for plane in region.lo[2]..region.hi[2] {
                        let mut plane_region = region;
                        let mode = if desc.kind.is_texture() {
                            plane_region.lo[2] = plane;
                            plane_region.hi[2] = plane + 1;
                            desc_access.mode_for_plane(plane as u32)
                        } else {
                            desc_access.mode
                        };
                        let touch = Touch {
                            node: node_index as u32,
                            reads: !phase_writes && mode.reads(),
                            writes: phase_writes && mode.writes(),
                            relaxed: desc_access.relaxed,
                        };
                        if touch.reads || touch.writes {
                            self.touch(
                                access.resource.index(),
                                plane_region,
                                &touch,
                                &mut out.edges,
                                start,
                            );
                        }
                        if !desc.kind.is_texture() {
                            break;
                        }
                    }
                }
            }
        }
        out.pred_start.push(out.edges.len() as u32);
    }

    fn touch(
        &mut self,
        resource: usize,
        region: SubresourceBox,
        touch: &Touch,
        edges: &mut Vec<(u32, EdgeKind)>,
        start: usize,
    ) {
        let list = &mut self.segments[resource];
        // Fast path: one segment equal to the region.
        if list.len() == 1 && list[0].region == region {
            apply(&mut list[0], touch, edges, start);
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
                apply(&mut list[index], touch, edges, start);
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
            apply(&mut inside, touch, edges, start);
            self.scratch_new.push(inside);
        }
        list.append(&mut self.scratch_new);
    }
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
