//! Resource lifetimes: each resource used by a live node lives from its first to its last
//! access in the chosen order (execution positions). Memory placement reads them.

use super::deps::LifetimeBounds;
use super::table::AccessTable;
use crate::ids::NodeId;

/// Fills `lifetimes` (one entry per resource, `resource_count` of them): the `[first, last]`
/// execution positions of the live accesses to each resource, `None` for a resource no live
/// node uses. `order` is the execution order of the live nodes (node indices).
///
/// The nodes are read in execution order, so positions only grow: an access's position is its
/// resource's last so far, and its first when the resource has none yet (no `min`/`max`, one
/// store of the end). The compact access records (8 bytes each) are read node by node.
pub(crate) fn compute(
    table: &AccessTable,
    order: &[NodeId],
    resource_count: usize,
    lifetimes: &mut Vec<Option<(u32, u32)>>,
) {
    lifetimes.clear();
    lifetimes.resize(resource_count, None);
    // Local slices: their pointers and lengths stay in registers through the loop.
    let (lifetimes, infos, nodes) = (&mut lifetimes[..], &table.infos[..], &table.nodes[..]);
    for (position, node) in order.iter().enumerate() {
        let position = position as u32;
        // A node or range out of bounds (a hand-made graph) is skipped.
        let Some(accesses) = nodes
            .get(node.index())
            .and_then(|node| infos.get(node.accesses()))
        else {
            continue;
        };
        for access in accesses {
            if let Some(lifetime) = lifetimes.get_mut(access.resource as usize) {
                match lifetime {
                    Some((_, last)) => *last = position,
                    None => *lifetime = Some((position, position)),
                }
            }
        }
    }
}

/// [`compute`], from what bounds each resource's lifetime when the dependency build has that
/// (`bounds`, see [`LifetimeBounds`]; the execution order must be one the dependency graph
/// allows, as every schedule is) and the nodes' execution positions (`position`, by node
/// index): one step per resource, reading the positions of a few nodes, instead of one per
/// access. Without bounds, or when a bounding node has no position, the accesses are walked
/// as [`compute`] does.
pub(crate) fn compute_bounded(
    table: &AccessTable,
    bounds: Option<LifetimeBounds<'_>>,
    (order, position): (&[NodeId], &[u32]),
    resource_count: usize,
    lifetimes: &mut Vec<Option<(u32, u32)>>,
) {
    if let Some(bounds) = bounds.filter(|bounds| bounds.len() == resource_count) {
        if bounds.spans(position, lifetimes).is_some() {
            return;
        }
    }
    compute(table, order, resource_count, lifetimes);
}

#[cfg(test)]
mod tests {
    use super::compute;
    use crate::compile::deps::stage::Dependencies;
    use crate::compile::table::AccessTable;
    use crate::shapes::{declare_shapes, record_chain, record_shape};
    use crate::*;

    /// A frame whose resources are read before their first write (by two nodes), written
    /// twice, read by up to three nodes after a write, or never written; `compute` nodes read
    /// parameters 0 and 1 and write parameter 2.
    fn reads_before_writes() -> RecordedGraph {
        let mut builder = GraphBuilder::new();
        let decls = declare_shapes(&mut builder);
        builder.begin_frame(0);
        let out = builder
            .import_external("out", ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, 8, 8))
            .unwrap();
        let out = builder.default_texture_view(out).unwrap();
        let views: Vec<TextureView> = (0..5)
            .map(|key| {
                let desc = ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, 8 + key as u32, 8);
                let id = builder.create_resource(desc, key).unwrap();
                builder.default_texture_view(id).unwrap()
            })
            .collect();
        let [x, y, z, w, v] = [views[0], views[1], views[2], views[3], views[4]];
        // (read, read, write)
        let calls = [
            (x, w, y),
            (x, TextureView::NULL, z),
            (z, y, x),
            (x, w, v),
            (x, TextureView::NULL, y),
            (x, v, z),
            (y, z, x),
            (x, w, out),
        ];
        for (key, (a, b, c)) in calls.into_iter().enumerate() {
            let mut args = ArgsWriter::new(builder.decl(decls.compute).unwrap());
            args.write_texture(0, &a)
                .write_texture(1, &b)
                .write_texture(2, &c);
            builder
                .call_node(
                    decls.compute,
                    args.bytes(),
                    CallFlags::default(),
                    key as u64,
                )
                .unwrap();
        }
        builder.finish().unwrap().clone()
    }

    /// Under every schedule, the lifetimes the compiler finds from the dependency build's
    /// bounds (one step per resource) are those of the walk over the accesses in the
    /// execution order; frames the bounds do not cover are walked.
    #[test]
    fn bounds_give_the_walked_lifetimes() {
        let mut builder = GraphBuilder::new();
        let decls = declare_shapes(&mut builder);
        let mut shape = |lanes: bool| {
            builder.begin_frame(0);
            record_shape(&mut builder, decls, lanes, if lanes { 57 } else { 40 }).unwrap();
            builder.finish().unwrap().clone()
        };
        // Edited by hand: node 1 (lane 0) depends on node 9 (lane 1), a later call (no bounds
        // then).
        let mut forward = shape(true);
        forward.explicit_deps.push((NodeId(1), NodeId(9)));
        // A fourth reader after a write: the resource leaves the dense states (no bounds).
        let mut many_readers = reads_before_writes();
        many_readers.accesses[3].resource = many_readers.accesses[1].resource;
        let graphs = [
            (shape(false), true),
            (shape(true), true),
            (reads_before_writes(), true),
            (forward, false),
            (many_readers, false),
        ];
        for (graph, bounded) in &graphs {
            let mut table = AccessTable::default();
            table.build(graph);
            let mut dependencies = Dependencies::default();
            dependencies.build(graph, &table);
            assert_eq!(dependencies.lifetime_bounds().is_some(), *bounded);
            for schedule in [
                SchedulePreference::Default,
                SchedulePreference::ProgramOrder,
                SchedulePreference::Memory,
                SchedulePreference::Balanced,
                SchedulePreference::Searched,
            ] {
                let mut compiler = FrameCompiler::new(CompileOptions {
                    schedule,
                    ..CompileOptions::default()
                });
                let frame = compiler.compile(graph).unwrap();
                let mut walked = Vec::new();
                compute(&table, &frame.order, graph.resources.len(), &mut walked);
                assert_eq!(frame.lifetimes, walked, "{schedule:?}");
            }
        }
    }

    /// Each resource lives from its first to its last access in execution order, whatever
    /// the call order; a resource that only culled nodes use has no lifetime.
    #[test]
    fn spans_run_from_first_to_last_access() {
        let mut builder = GraphBuilder::new();
        let decls = declare_shapes(&mut builder);
        builder.begin_frame(0);
        // Resource 0 is the imported backbuffer; node i < 3 writes resource i + 1 and node i > 0
        // reads resource i; node 3 writes the backbuffer.
        record_chain(&mut builder, decls, 4).unwrap();
        let graph = builder.finish().unwrap().clone();
        let mut table = AccessTable::default();
        table.build(&graph);
        // Node 1 runs before node 0; nodes 2 and 3 are culled (not in the order).
        let order = [NodeId(1), NodeId(0)];
        // Stale entries of a longer earlier frame are dropped.
        let mut lifetimes = vec![Some((7, 7)); 9];
        compute(&table, &order, graph.resources.len(), &mut lifetimes);
        assert_eq!(lifetimes, vec![None, Some((0, 1)), Some((0, 0)), None]);
        // Every node live, in call order.
        let order = [NodeId(0), NodeId(1), NodeId(2), NodeId(3)];
        compute(&table, &order, graph.resources.len(), &mut lifetimes);
        assert_eq!(
            lifetimes,
            vec![Some((3, 3)), Some((0, 1)), Some((1, 2)), Some((2, 3))]
        );
    }
}
