//! The compiled-frame cache: a frame whose recorded structure (declarations, node calls with
//! their accesses, resource descriptions and history, explicit dependencies, subgraphs and
//! barriers; not argument values) equals the previous frame's reuses the previous compilation.
//! The previous frame's structure is kept and compared exactly, so a hit is never wrong.

use crate::decl::NodeDeclDesc;
use crate::graph::{AccessRecord, NodeRecord, RecordedGraph, ResourceRecord, SubgraphRecord};
use crate::ids::NodeId;
use std::sync::Arc;

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
}

fn same_resource(a: &ResourceRecord, b: &ResourceRecord) -> bool {
    a.desc == b.desc
        && a.external == b.external
        && a.storage == b.storage
        && a.external_access == b.external_access
        && (!a.external && a.frames_alive > 0) == (!b.external && b.frames_alive > 0)
}

fn same_node(a: &NodeRecord, b: &NodeRecord) -> bool {
    a.decl == b.decl
        && a.flags == b.flags
        && a.subgraph == b.subgraph
        && a.barrier_epoch == b.barrier_epoch
        && a.accesses == b.accesses
}

impl StructureKey {
    /// The recorded structure of `graph` equals the stored one.
    pub fn matches(&self, graph: &RecordedGraph) -> bool {
        let same_decls = self
            .decls
            .as_ref()
            .is_some_and(|decls| Arc::ptr_eq(decls, &graph.decls) || **decls == *graph.decls);
        same_decls
            && self.barrier_count == graph.barrier_count
            && self.resources.len() == graph.resources.len()
            && self.nodes.len() == graph.nodes.len()
            && self.accesses == graph.accesses
            && self.explicit_deps == graph.explicit_deps
            && self.subgraphs == graph.subgraphs
            && self
                .nodes
                .iter()
                .zip(&graph.nodes)
                .all(|(a, b)| same_node(a, b))
            && self
                .resources
                .iter()
                .zip(&graph.resources)
                .all(|(a, b)| same_resource(a, b))
    }

    /// Stores the structure of `graph` (reusing allocations).
    pub fn store(&mut self, graph: &RecordedGraph) {
        self.decls = Some(Arc::clone(&graph.decls));
        self.resources.clone_from(&graph.resources);
        self.nodes.clone_from(&graph.nodes);
        self.accesses.clone_from(&graph.accesses);
        self.explicit_deps.clone_from(&graph.explicit_deps);
        self.subgraphs.clone_from(&graph.subgraphs);
        self.barrier_count = graph.barrier_count;
    }
}
