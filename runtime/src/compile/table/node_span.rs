//! The compact per-node records of a frame ([`NodeSpan`]), written by the access table's
//! build (`crate::compile::table::AccessTable::nodes`) and read by the stages after it instead of
//! the recorded nodes.

use crate::graph::NodeRecord;

/// One node as the stages after the access table read it: its access range and declaration,
/// 12 bytes instead of its 48-byte [`NodeRecord`]. Dependencies, dead-node elimination, the
/// level scheduler, lifetimes, barriers and render passes each walk every node for these three
/// words alone; at 10k nodes the records are 480 KB (7.5k cache lines, beyond the L1 and
/// crowding the L2 at each walk), the spans 120 KB. The range is copied as recorded (a
/// hand-made graph's range may be reversed or out of bounds): each reader checks it as it
/// checked the record's.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub struct NodeSpan {
    /// Index of the node's first access in `RecordedGraph::accesses`.
    pub start: u32,
    /// One past its last access.
    pub end: u32,
    /// Its declaration's index.
    pub decl: u32,
}

impl NodeSpan {
    /// The span of `node`.
    #[inline(always)]
    pub(super) fn of(node: &NodeRecord) -> NodeSpan {
        NodeSpan {
            start: node.accesses.start,
            end: node.accesses.end,
            decl: node.decl.0,
        }
    }

    /// Its accesses' index range (as recorded: possibly reversed or out of bounds).
    #[inline(always)]
    pub fn accesses(self) -> std::ops::Range<usize> {
        self.start as usize..self.end as usize
    }
}

#[cfg(test)]
mod tests {
    use super::NodeSpan;
    use crate::compile::table::AccessTable;
    use crate::shapes::{declare_shapes, record_chain};
    use crate::*;

    /// The spans copy each node's access range and declaration as recorded (a hand-made
    /// reversed or out-of-bounds range included), and the table notes `async` calls.
    #[test]
    fn spans_follow_the_node_records() {
        let mut builder = GraphBuilder::new();
        let decls = declare_shapes(&mut builder);
        builder.begin_frame(0);
        record_chain(&mut builder, decls, 12).unwrap();
        let mut graph = builder.finish().unwrap().clone();
        graph.invalidate_structure();
        let mut table = AccessTable::default();
        table.build(&graph);
        assert!(!table.any_async());
        // Reversed: built from bounds, as a hand-made graph may hold it.
        let (start, end) = (9, 2);
        graph.nodes[3].accesses = start..end;
        graph.nodes[5].accesses = u32::MAX - 1..u32::MAX;
        graph.nodes[7].flags.prefer_async = true;
        // A shorter frame after a longer one: the spans are as many as the nodes.
        for len in [graph.nodes.len(), 6] {
            graph.nodes.truncate(len);
            table.build(&graph);
            assert_eq!(table.nodes.len(), len);
            for (span, node) in table.nodes.iter().zip(&graph.nodes) {
                let want = NodeSpan {
                    start: node.accesses.start,
                    end: node.accesses.end,
                    decl: node.decl.0,
                };
                assert_eq!(*span, want);
                assert_eq!(span.accesses(), want.start as usize..want.end as usize);
            }
            assert_eq!(table.any_async(), len > 7);
        }
    }
}
