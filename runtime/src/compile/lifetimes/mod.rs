//! Resource lifetimes: each resource used by a live node lives from its first to its last
//! access in the chosen order (execution positions). Memory placement reads them.

use super::table::AccessTable;

/// An empty span: every position is below its first and above its last (`first > last`), so
/// the first access's `min` and `max` make it `(position, position)`.
const EMPTY: (u32, u32) = (u32::MAX, 0);

/// Scratch of the lifetimes stage, kept across frames: the spans as plain `(first, last)`
/// pairs while the accesses are walked (an untouched resource's pair is [`EMPTY`]), so each
/// access updates its resource with a `min` and a `max` and no test of an `Option`.
#[derive(Debug, Default)]
pub(crate) struct Lifetimes {
    spans: Vec<(u32, u32)>,
}

impl Lifetimes {
    /// Fills `lifetimes` (one entry per resource, `resource_count` of them): the `[first,
    /// last]` execution positions of the live accesses to each resource, `None` for a resource
    /// no live node uses. `position` is each node's execution position (`u32::MAX` for a
    /// culled node).
    ///
    /// The nodes are read in call order, each at its position: the nodes' spans (12 bytes
    /// each) and the compact access records (8 bytes each) are read sequentially whatever the
    /// execution order (with interleaved lanes it jumps between them).
    pub(crate) fn compute(
        &mut self,
        table: &AccessTable,
        position: &[u32],
        resource_count: usize,
        lifetimes: &mut Vec<Option<(u32, u32)>>,
    ) {
        self.spans.clear();
        self.spans.resize(resource_count, EMPTY);
        // A local slice: its pointer and length stay in registers through the loop.
        let (spans, infos) = (&mut self.spans[..], &table.infos[..]);
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
                if let Some(span) = spans.get_mut(access.resource as usize) {
                    *span = (span.0.min(position), span.1.max(position));
                }
            }
        }
        lifetimes.clear();
        lifetimes.extend(
            self.spans
                .iter()
                .map(|&(first, last)| (first <= last).then_some((first, last))),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::Lifetimes;
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
        let mut stage = Lifetimes::default();
        stage.compute(&table, &position, graph.resources.len(), &mut lifetimes);
        assert_eq!(lifetimes, vec![None, Some((0, 1)), Some((0, 0)), None]);
        // The scratch starts over each frame: every node live, in call order.
        stage.compute(&table, &[0, 1, 2, 3], graph.resources.len(), &mut lifetimes);
        assert_eq!(
            lifetimes,
            vec![Some((3, 3)), Some((0, 1)), Some((1, 2)), Some((2, 3))]
        );
    }
}
