//! Resource lifetimes: each resource used by a live node lives from its first to its last
//! access in the chosen order (execution positions). Memory placement reads them.

use super::table::AccessTable;

/// Fills `lifetimes` (one entry per resource, `resource_count` of them): the `[first, last]`
/// execution positions of the live accesses to each resource, `None` for a resource no live
/// node uses. `position` is each node's execution position (`u32::MAX` for a culled node).
///
/// The nodes are read in call order, each at its position: the nodes' spans (12 bytes each)
/// and the compact access records (8 bytes each) are read sequentially whatever the execution
/// order (with interleaved lanes it jumps between them).
pub(crate) fn compute(
    table: &AccessTable,
    position: &[u32],
    resource_count: usize,
    lifetimes: &mut Vec<Option<(u32, u32)>>,
) {
    lifetimes.clear();
    lifetimes.resize(resource_count, None);
    // Local slices: their pointers and lengths stay in registers through the loop.
    let (lifetimes, infos) = (&mut lifetimes[..], &table.infos[..]);
    for (node, &position) in table.nodes.iter().zip(position) {
        // Culled nodes have no position.
        if position == u32::MAX {
            continue;
        }
        // A range out of bounds (a hand-made graph) is skipped.
        let Some(accesses) = infos.get(node.accesses()) else {
            continue;
        };
        // The first access (least position) sets the start, the last (greatest) the end.
        for access in accesses {
            if let Some(lifetime) = lifetimes.get_mut(access.resource as usize) {
                *lifetime = Some(match *lifetime {
                    Some((first, last)) => (first.min(position), last.max(position)),
                    None => (position, position),
                });
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
        // Node 1 runs before node 0; nodes 2 and 3 are culled.
        let position = [1, 0, u32::MAX, u32::MAX];
        // Stale entries of a longer earlier frame are dropped.
        let mut lifetimes = vec![Some((7, 7)); 9];
        compute(&table, &position, graph.resources.len(), &mut lifetimes);
        assert_eq!(lifetimes, vec![None, Some((0, 1)), Some((0, 0)), None]);
        // Every node live, in call order.
        compute(&table, &[0, 1, 2, 3], graph.resources.len(), &mut lifetimes);
        assert_eq!(
            lifetimes,
            vec![Some((3, 3)), Some((0, 1)), Some((1, 2)), Some((2, 3))]
        );
    }
}
