//! Dead-node elimination: a node survives when it has an effect (writes an external, `out`,
//! persistent or temporal resource, or accesses a resource from the CPU) or when a surviving
//! node reads data it wrote or depends on it explicitly. Reverse reachability over data edges,
//! so a chain that feeds nothing dies entirely.

use super::deps::{DepGraph, EdgeKind};
use crate::decl::AccessFlags;
use crate::graph::RecordedGraph;

/// Whether a node has an effect outside the frame's transient data.
pub fn has_effect(graph: &RecordedGraph, node: usize) -> bool {
    let record = &graph.nodes[node];
    graph.accesses[record.accesses.start as usize..record.accesses.end as usize]
        .iter()
        .any(|access| {
            access.access.flags.contains(AccessFlags::CPU)
                || (access.access.writes()
                    && graph.resources[access.resource.index()].outlives_frame())
        })
}

/// Fills `alive` (one flag per node): everything when `cull` is false, else the nodes reachable
/// backwards over data edges from nodes with effects.
pub fn find_live_nodes(
    graph: &RecordedGraph,
    deps: &DepGraph,
    cull: bool,
    alive: &mut Vec<bool>,
    stack: &mut Vec<u32>,
) {
    let count = graph.nodes.len();
    alive.clear();
    alive.resize(count, !cull);
    if !cull {
        return;
    }
    stack.clear();
    for node in 0..count {
        if has_effect(graph, node) {
            alive[node] = true;
            stack.push(node as u32);
        }
    }
    while let Some(node) = stack.pop() {
        for &(pred, kind) in deps.preds(node as usize) {
            if kind == EdgeKind::Data && !alive[pred as usize] {
                alive[pred as usize] = true;
                stack.push(pred);
            }
        }
    }
}
