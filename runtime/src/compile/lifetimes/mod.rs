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
