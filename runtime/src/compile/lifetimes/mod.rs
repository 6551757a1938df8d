//! Resource lifetimes: each resource used by a live node lives from its first to its last
//! access in the chosen order (execution positions). Memory placement reads them.

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

#[cfg(test)]
mod tests {
    use super::compute;
    use crate::compile::table::AccessTable;
    use crate::shapes::{declare_shapes, record_chain};
    use crate::*;

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
