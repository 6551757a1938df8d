//! Dead-node elimination: a node survives when it has an effect (writes an external, `out`,
//! persistent or temporal resource, or accesses a resource from the CPU) or when a surviving
//! node reads data it wrote or depends on it explicitly. Reverse reachability over data edges,
//! so a chain that feeds nothing dies entirely.

use super::access_info::{AccessInfo, ANY_WRITES, CPU, OUTLIVES};
use super::deps::{DepGraph, EdgeKind};
use crate::graph::RecordedGraph;

/// Fills `alive` (one flag per node): everything when `cull` is false, else the nodes reachable
/// backwards over data edges from nodes with effects (a CPU access, or a write to a resource
/// that outlives the frame; `infos` are the accesses' compact records).
#[inline(never)]
pub fn find_live_nodes(
    graph: &RecordedGraph,
    infos: &[AccessInfo],
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
    for (node, record) in graph.nodes.iter().enumerate() {
        let accesses = &infos[record.accesses.start as usize..record.accesses.end as usize];
        let effect = accesses
            .iter()
            .any(|info| info.has(CPU) || info.has(ANY_WRITES | OUTLIVES));
        if effect {
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
