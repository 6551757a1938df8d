//! Dead-node elimination: a node survives when it has an effect (writes an external, `out`,
//! persistent or temporal resource, or accesses a resource from the CPU) or when a surviving
//! node reads data it wrote or depends on it explicitly. Reverse reachability over data edges,
//! so a chain that feeds nothing dies entirely.

use super::deps::stage::Analysis;
use super::deps::{DepGraph, EdgeKind};
use super::table::{has_effect, AccessTable, NodeSpan};
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
    /// [`find_live_nodes`]). `fed` is the dependency build's note of the nodes a data edge
    /// leaves ([`DepBuilder::fed`](super::deps::DepBuilder::fed)): when every node is fed or
    /// has an effect, all survive and no walk is needed.
    pub fn compute(&mut self, frame: Analysis<'_>, fed: &[bool], cull: bool) {
        if cull && every_node_survives(frame, fed) {
            let count = frame.graph.nodes.len();
            self.alive.clear();
            self.alive.resize(count, true);
            self.live_count = count;
            return;
        }
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

/// Every node of the analysed frame survives culling, known without a walk: each one either
/// has an effect or is `fed` (a data edge leaves it), and no explicit dependency names a
/// later call. Then, from the last call back, each node survives: a fed node feeds a later
/// one, which survives (the last call feeds nothing, so it has an effect). Only nodes that
/// are not fed (in a chain, the last) have their accesses read. False (a walk decides) when
/// that does not hold or `fed` is not one flag per node.
fn every_node_survives(frame: Analysis<'_>, fed: &[bool]) -> bool {
    let Analysis { graph, table, .. } = frame;
    let count = graph.nodes.len();
    if fed.len() != count || table.nodes.len() < count {
        return false;
    }
    if graph.explicit_deps.iter().any(|(node, on)| on.0 > node.0) {
        return false;
    }
    let (infos, nodes) = (&table.infos[..], &table.nodes[..count]);
    let acts = |node: &NodeSpan| {
        infos
            .get(node.accesses())
            .is_some_and(|node_infos| node_infos.iter().any(|info| has_effect(info.bits)))
    };
    // Nearly every node is fed: blocks of flags are tested whole (a fold without an early
    // exit, which the compiler turns into vector code), nodes one by one only in a block with
    // an unfed node.
    const BLOCK: usize = 32;
    fed.chunks(BLOCK)
        .zip(nodes.chunks(BLOCK))
        .all(|(fed, nodes)| {
            fed.iter().fold(true, |all, &fed| all & fed)
                || fed.iter().zip(nodes).all(|(&fed, node)| fed || acts(node))
        })
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
    use super::super::deps::stage::Analysis;
    use super::super::deps::{DepBuilder, DepGraph};
    use super::super::table::AccessTable;
    use super::{every_node_survives, find_live_nodes, Liveness};
    use crate::shapes::{declare_shapes, record_shape};
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
        let (alive, live, shortcut) = both_ways(&graph);
        assert!(
            !shortcut,
            "no node but the first has an effect or feeds another"
        );
        (alive, live)
    }

    /// The live flags and count of `graph` by [`find_live_nodes`], checked equal to what
    /// [`Liveness::compute`] finds from the dependency build's `fed` flags; and whether that
    /// took the shortcut ([`every_node_survives`]).
    fn both_ways(graph: &RecordedGraph) -> (Vec<bool>, usize, bool) {
        let mut table = AccessTable::default();
        table.build(graph);
        let mut builder = DepBuilder::default();
        let mut deps = DepGraph::default();
        builder.build(graph, None, &mut deps);
        let analysis = Analysis {
            graph,
            table: &table,
            deps: &deps,
        };
        let shortcut = every_node_survives(analysis, builder.fed());
        let mut liveness = Liveness::default();
        liveness.compute(analysis, builder.fed(), true);
        let mut alive = Vec::new();
        let live = find_live_nodes(graph, &table, &deps, true, &mut alive, &mut Vec::new());
        assert_eq!((&liveness.alive, liveness.live_count), (&alive, live));
        (alive, live, shortcut)
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

    /// Frames in which every node feeds a later one or has an effect (the bench shapes: each
    /// node's output is read by a later node, the last writes the backbuffer) survive whole
    /// without a walk; one node more that feeds nothing, or a dependency on a later call,
    /// sends the frame to the walk.
    #[test]
    fn frames_whose_every_node_feeds_another_need_no_walk() {
        let record = |lanes: bool, n: u32, extra: bool| {
            let mut builder = GraphBuilder::new();
            let decls = declare_shapes(&mut builder);
            builder.begin_frame(0);
            record_shape(&mut builder, decls, lanes, n).unwrap();
            if extra {
                // A last node that writes a transient nobody reads.
                let id = builder
                    .create_resource(ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, 8, 8), 99)
                    .unwrap();
                let view = builder.default_texture_view(id).unwrap();
                let mut args = ArgsWriter::new(builder.decl(decls.compute).unwrap());
                args.write_texture(2, &view);
                builder
                    .call_node(decls.compute, args.bytes(), CallFlags::default(), 99)
                    .unwrap();
            }
            builder.finish().unwrap().clone()
        };
        for lanes in [false, true] {
            let graph = record(lanes, 40, false);
            let count = graph.nodes.len();
            assert_eq!(both_ways(&graph), (vec![true; count], count, true));
            let graph = record(lanes, 40, true);
            let mut alive = vec![true; count + 1];
            alive[count] = false;
            assert_eq!(both_ways(&graph), (alive, count, false));
            // Node 1 depends on node 3, a later call (edited by hand): every node still
            // survives, but only a walk may say so.
            let mut graph = record(lanes, 40, false);
            graph.explicit_deps.push((NodeId(1), NodeId(3)));
            assert_eq!(both_ways(&graph), (vec![true; count], count, false));
        }
    }
}
