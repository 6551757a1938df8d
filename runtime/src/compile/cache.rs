//! The compiled-frame cache: a frame whose recorded structure (declarations, node calls with
//! their accesses, resource descriptions and history, explicit dependencies, subgraphs and
//! barriers; not argument values) equals the previous frame's reuses the previous compilation
//! (render passes whose clear values, viewports or scissors come from arguments are rebuilt).
//! Graphs from [`crate::GraphBuilder`] carry a structure serial: the builder compares every record
//! with the previous frame's while recording, so a hit here is one serial comparison plus a check
//! of the record counts. Graphs without a serial (edited by hand, see
//! [`RecordedGraph::invalidate_structure`]) are compared exactly against a stored copy.

use crate::decl::{AccessDesc, NodeDeclDesc};
use crate::graph::{
    AccessRange, AccessRecord, NodeRecord, RecordedGraph, ResourceRecord, SubgraphRecord,
};
use crate::ids::NodeId;
use crate::resource::ResourceDesc;
use std::sync::Arc;

/// Records compared per early-exit check: within a block the comparisons combine without
/// branches, which is several times faster than field-by-field short-circuit equality.
const BLOCK: usize = 32;

/// The structure of the last compiled frame.
#[derive(Debug, Default)]
pub struct StructureKey {
    decls: Option<Arc<Vec<NodeDeclDesc>>>,
    resources: Vec<ResourceRecord>,
    nodes: Vec<NodeRecord>,
    accesses: Vec<AccessRecord>,
    explicit_deps: Vec<(NodeId, NodeId)>,
    subgraphs: Vec<SubgraphRecord>,
    barrier_count: u32,
    /// The builder's structure serial of the stored frame; when nonzero only the lengths are
    /// stored and a hit needs the same serial.
    serial: u64,
    /// Counts of resources, nodes, accesses, explicit dependencies and subgraphs.
    lengths: [usize; 5],
}

fn lengths_of(graph: &RecordedGraph) -> [usize; 5] {
    [
        graph.resources.len(),
        graph.nodes.len(),
        graph.accesses.len(),
        graph.explicit_deps.len(),
        graph.subgraphs.len(),
    ]
}

#[inline]
pub(crate) fn same_desc(a: &ResourceDesc, b: &ResourceDesc) -> bool {
    // Naming every field makes a new field a compile error here until it is compared.
    let ResourceDesc {
        kind: _,
        format: _,
        width: _,
        height: _,
        depth_or_array_size: _,
        mip_levels: _,
        sample_count: _,
        temporal_layers: _,
        flags: _,
    } = a;
    (a.kind == b.kind)
        & (a.format == b.format)
        & (a.width == b.width)
        & (a.height == b.height)
        & (a.depth_or_array_size == b.depth_or_array_size)
        & (a.mip_levels == b.mip_levels)
        & (a.sample_count == b.sample_count)
        & (a.temporal_layers == b.temporal_layers)
        & (a.flags == b.flags)
}

#[inline]
pub(crate) fn same_resource(a: &ResourceRecord, b: &ResourceRecord) -> bool {
    same_desc(&a.desc, &b.desc)
        & (a.external == b.external)
        & (a.storage == b.storage)
        & (a.external_access == b.external_access)
        & ((!a.external & (a.frames_alive > 0)) == (!b.external & (b.frames_alive > 0)))
}

#[inline]
pub(crate) fn same_node(a: &NodeRecord, b: &NodeRecord) -> bool {
    (a.decl == b.decl)
        & (a.flags == b.flags)
        & (a.subgraph == b.subgraph)
        & (a.barrier_epoch == b.barrier_epoch)
        & (a.accesses.start == b.accesses.start)
        & (a.accesses.end == b.accesses.end)
}

#[inline]
fn same_access_desc(a: &AccessDesc, b: &AccessDesc) -> bool {
    (a.mode == b.mode)
        & (a.stencil_mode == b.stencil_mode)
        & (a.flags == b.flags)
        & (a.relaxed == b.relaxed)
}

#[inline]
pub(crate) fn same_range(a: &AccessRange, b: &AccessRange) -> bool {
    match (a, b) {
        (AccessRange::Texture(a), AccessRange::Texture(b)) => {
            (a.base_mip == b.base_mip)
                & (a.mip_count == b.mip_count)
                & (a.base_layer == b.base_layer)
                & (a.layer_count == b.layer_count)
                & (a.planes == b.planes)
        }
        (
            AccessRange::Buffer { offset, size },
            AccessRange::Buffer {
                offset: other_offset,
                size: other_size,
            },
        ) => (offset == other_offset) & (size == other_size),
        _ => false,
    }
}

#[inline]
pub(crate) fn same_access(a: &AccessRecord, b: &AccessRecord) -> bool {
    // Naming every field makes a new field a compile error here until it is compared.
    let AccessRecord {
        node: _,
        param: _,
        slot: _,
        resource: _,
        access: _,
        range: _,
        temporal_layer: _,
        temporal_slice: _,
        view_format: _,
    } = a;
    (a.node == b.node)
        & (a.param == b.param)
        & (a.slot == b.slot)
        & (a.resource == b.resource)
        & same_access_desc(&a.access, &b.access)
        & same_range(&a.range, &b.range)
        & (a.temporal_layer == b.temporal_layer)
        & (a.temporal_slice == b.temporal_slice)
        & (a.view_format == b.view_format)
}

/// Equal lengths and `same` for every pair, checking for a difference once per block.
fn all_same<T>(a: &[T], b: &[T], same: impl Fn(&T, &T) -> bool) -> bool {
    a.len() == b.len()
        && a.chunks(BLOCK).zip(b.chunks(BLOCK)).all(|(a, b)| {
            a.iter()
                .zip(b)
                .fold(true, |equal, (a, b)| equal & same(a, b))
        })
}

impl StructureKey {
    /// The recorded structure of `graph` equals the stored one.
    pub fn matches(&self, graph: &RecordedGraph) -> bool {
        if self.serial != 0 || graph.structure_serial != 0 {
            return self.serial == graph.structure_serial && self.same_shape(graph);
        }
        let same_decls = self
            .decls
            .as_ref()
            .is_some_and(|decls| Arc::ptr_eq(decls, &graph.decls) || **decls == *graph.decls);
        same_decls
            && self.barrier_count == graph.barrier_count
            && self.resources.len() == graph.resources.len()
            && self.nodes.len() == graph.nodes.len()
            && self.accesses.len() == graph.accesses.len()
            && self.explicit_deps == graph.explicit_deps
            && self.subgraphs == graph.subgraphs
            && all_same(&self.nodes, &graph.nodes, same_node)
            && all_same(&self.resources, &graph.resources, same_resource)
            && all_same(&self.accesses, &graph.accesses, same_access)
    }

    /// Cheap verification of a serial match: the same declarations and record counts.
    fn same_shape(&self, graph: &RecordedGraph) -> bool {
        self.decls
            .as_ref()
            .is_some_and(|decls| Arc::ptr_eq(decls, &graph.decls))
            && self.barrier_count == graph.barrier_count
            && self.lengths == lengths_of(graph)
    }

    /// Stores the structure of `graph` (reusing allocations).
    pub fn store(&mut self, graph: &RecordedGraph) {
        self.decls = Some(Arc::clone(&graph.decls));
        self.barrier_count = graph.barrier_count;
        self.serial = graph.structure_serial;
        self.lengths = lengths_of(graph);
        if self.serial != 0 {
            // Lengths only (see `same_shape`): the builder vouches for the contents.
            self.resources.clear();
            self.nodes.clear();
            self.accesses.clear();
            self.explicit_deps.clear();
            self.subgraphs.clear();
            return;
        }
        self.resources.clone_from(&graph.resources);
        self.nodes.clone_from(&graph.nodes);
        self.accesses.clone_from(&graph.accesses);
        self.explicit_deps.clone_from(&graph.explicit_deps);
        self.subgraphs.clone_from(&graph.subgraphs);
        self.barrier_count = graph.barrier_count;
    }
}
