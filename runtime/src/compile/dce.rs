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
///
/// Returns the number of live nodes.
///
/// Every edge runs from an earlier call to a later one, so one sweep from the last node to the
/// first settles each node before its predecessors are visited: no stack, no revisits.
#[inline(never)]
pub fn find_live_nodes(
    graph: &RecordedGraph,
    infos: &[AccessInfo],
    deps: &DepGraph,
    cull: bool,
    alive: &mut Vec<bool>,
) -> usize {
    let count = graph.nodes.len();
    alive.clear();
    alive.resize(count, !cull);
    if !cull {
        return count;
    }
    let mut live = 0;
    for (node, record) in graph.nodes.iter().enumerate().rev() {
        if !alive[node] {
            let accesses = &infos[record.accesses.start as usize..record.accesses.end as usize];
            let effect = accesses.iter().any(|info| {
                info.bits & CPU != 0 || info.bits & (ANY_WRITES | OUTLIVES) == ANY_WRITES | OUTLIVES
            });
            if !effect {
                continue;
            }
            alive[node] = true;
        }
        live += 1;
        for &(pred, kind) in deps.preds(node) {
            if kind == EdgeKind::Data {
                alive[pred as usize] = true;
            }
        }
    }
    live
}
