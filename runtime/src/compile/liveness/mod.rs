//! Dead-node elimination: a node survives when it has an effect (writes an external, `out`,
//! persistent or temporal resource, or accesses a resource from the CPU) or when a surviving
//! node reads data it wrote or depends on it explicitly. Reverse reachability over data edges,
//! so a chain that feeds nothing dies entirely.

use super::deps::stage::Analysis;
use super::deps::{DepGraph, EdgeKind};
use super::table::{has_effect, AccessTable};
use crate::graph::RecordedGraph;
use crate::ids::NodeId;

/// The liveness stage's output: which nodes survive (and its scratch).
#[derive(Debug, Default)]
pub(crate) struct Liveness {
    /// Per node (call index): it survives.
    pub alive: Vec<bool>,
    /// How many nodes survive.
    pub live_count: usize,
    /// Scratch of the walk for graphs with a dependency on a later call.
    stack: Vec<u32>,
}

impl Liveness {
    /// Finds the live nodes of the analysed frame (every node unless `cull`; see
    /// [`find_live_nodes`]).
    pub fn compute(&mut self, frame: Analysis<'_>, cull: bool) {
        self.live_count = find_live_nodes(
            frame.graph,
            frame.table,
            frame.deps,
            cull,
            &mut self.alive,
            &mut self.stack,
        );
    }

    /// Some node was culled.
    pub fn any_culled(&self) -> bool {
        self.live_count < self.alive.len()
    }

    /// Writes the culled nodes, in call order, to `culled`.
    pub fn write_culled(&self, culled: &mut Vec<NodeId>) {
        culled.clear();
        if self.any_culled() {
            culled.extend(
                (0..self.alive.len())
                    .filter(|&node| !self.alive[node])
                    .map(NodeId::from_index),
            );
        }
    }
}

/// Fills `alive` (one flag per node): everything when `cull` is false, else the nodes reachable
/// backwards over data edges from nodes with effects (a CPU access, or a write to a resource
/// that outlives the frame; `table` holds the accesses' and nodes' compact records). `stack` is
/// scratch.
///
/// Returns the number of live nodes.
///
/// Edges run from an earlier call to a later one (the builder only records explicit
/// dependencies on earlier calls), so one sweep from the last node to the first settles each
/// node before its predecessors are visited: no stack, no revisits. A graph edited by hand
/// with a dependency on a later call falls back to a walk with a stack.
#[inline(never)]
pub fn find_live_nodes(
    graph: &RecordedGraph,
    table: &AccessTable,
    deps: &DepGraph,
    cull: bool,
    alive: &mut Vec<bool>,
    stack: &mut Vec<u32>,
) -> usize {
    let count = graph.nodes.len();
    alive.clear();
    alive.resize(count, !cull);
    if !cull {
        return count;
    }
    // The table was built from `graph`: one span per node. Cut to the node count, the
    // look-up below needs no bounds check.
    let (infos, nodes) = (&table.infos[..], &table.nodes[..count]);
    let has_effect = |node: usize| {
        infos[nodes[node].accesses()]
            .iter()
            .any(|info| has_effect(info.bits))
    };
    // Edges from accesses always point back to earlier calls; only an explicit dependency can
    // point forward.
    let forward = graph.explicit_deps.iter().any(|(node, on)| on.0 > node.0);
    if !forward {
        return sweep(count, deps, alive, has_effect);
    }
    // A walk with a stack, for graphs with a dependency on a later call.
    alive.fill(false);
    stack.clear();
    for node in 0..count {
        if has_effect(node) {
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
    alive.iter().filter(|&&live| live).count()
}

/// The backward sweep over a graph whose edges all point back to earlier calls; returns the
/// number of live nodes.
fn sweep(
    count: usize,
    deps: &DepGraph,
    alive: &mut [bool],
    has_effect: impl Fn(usize) -> bool,
) -> usize {
    let alive = &mut alive[..count];
    // Node n's predecessors are `edges[starts[n]..starts[n + 1]]`: walked backwards, each
    // list ends where the next node's begins.
    let starts = &deps.pred_start[..=count];
    let mut end = starts[count] as usize;
    let mut live = 0;
    for node in (0..count).rev() {
        let begin = starts[node] as usize;
        let preds = &deps.edges[begin..end];
        end = begin;
        if !alive[node] {
            if !has_effect(node) {
                continue;
            }
            alive[node] = true;
        }
        live += 1;
        for &(pred, kind) in preds {
            // Branch-free: only data edges keep their source alive.
            alive[pred as usize] |= kind == EdgeKind::Data;
        }
    }
    live
}

#[cfg(test)]
mod tests {
    use super::super::deps::{DepBuilder, DepGraph};
    use super::super::table::AccessTable;
    use super::find_live_nodes;
    use crate::*;

    /// Node `i` writes resource `i` (resource 0 external, the others transient); `edit` may
    /// change the recorded graph. Returns the live flags and count.
    fn liveness(nodes: usize, edit: impl Fn(&mut RecordedGraph)) -> (Vec<bool>, usize) {
        let mut builder = GraphBuilder::new();
        let write = builder.declare_node(NodeDeclDesc::new(
            "write",
            QueueClass::Compute,
            vec![ParamDesc::new("a", ValueType::Texture)
                .with_access(AccessDesc::writeonly(AccessFlags::CS))],
        ));
        builder.begin_frame(0);
        let desc = ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, 8, 8);
        let mut resources = vec![builder.import_external("out", desc).unwrap()];
        for key in 1..nodes {
            resources.push(builder.create_resource(desc, key as u64).unwrap());
        }
        for (key, &resource) in resources.iter().enumerate() {
            let view = builder.default_texture_view(resource).unwrap();
            let mut args = ArgsWriter::new(builder.decl(write).unwrap());
            args.write_texture(0, &view);
            builder
                .call_node(write, args.bytes(), CallFlags::default(), key as u64)
                .unwrap();
        }
        let mut graph = builder.finish().unwrap().clone();
        edit(&mut graph);
        let mut table = AccessTable::default();
        table.build(&graph);
        let mut deps = DepGraph::default();
        DepBuilder::default().build(&graph, None, &mut deps);
        let mut alive = Vec::new();
        let live = find_live_nodes(&graph, &table, &deps, true, &mut alive, &mut Vec::new());
        (alive, live)
    }

    #[test]
    fn dependencies_keep_their_targets_alive() {
        // Only node 0 has an effect.
        assert_eq!(liveness(3, |_| {}), (vec![true, false, false], 1));
        // Node 2 depends on node 1 (an earlier call): neither feeds node 0.
        let backward = |graph: &mut RecordedGraph| graph.explicit_deps.push((NodeId(2), NodeId(1)));
        assert_eq!(liveness(3, backward), (vec![true, false, false], 1));
        // Edited by hand: node 0 depends on node 1, which depends on node 2 (later calls).
        let forward = |graph: &mut RecordedGraph| {
            graph.explicit_deps.push((NodeId(0), NodeId(1)));
            graph.explicit_deps.push((NodeId(1), NodeId(2)));
        };
        assert_eq!(liveness(3, forward), (vec![true, true, true], 3));
    }
}
