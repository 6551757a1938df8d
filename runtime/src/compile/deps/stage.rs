//! The dependency stage as the compiler's driver holds it, and what the stages after it read.

use super::{DepBuilder, DepGraph, LifetimeBounds};
use crate::compile::table::AccessTable;
use crate::graph::RecordedGraph;

/// The dependency stage of the frame compiler: the builder's scratch and the frame's
/// [`DepGraph`], its output.
#[derive(Debug, Default)]
pub(crate) struct Dependencies {
    builder: DepBuilder,
    /// The frame's dependency graph.
    pub graph: DepGraph,
    /// Dead nodes were dropped since the last build.
    culled: bool,
}

impl Dependencies {
    /// The dependencies of every node of `graph` (`table`: its access table).
    pub fn build(&mut self, graph: &RecordedGraph, table: &AccessTable) {
        self.builder
            .build_from_table(graph, table, None, &mut self.graph);
        self.culled = false;
    }

    /// What bounds each resource's lifetime in any execution order of the graph (see
    /// [`LifetimeBounds`]), when the build kept every resource dense and no node was dropped
    /// since; else `None`.
    pub fn lifetime_bounds(&self) -> Option<LifetimeBounds<'_>> {
        if self.culled {
            return None;
        }
        self.builder.lifetime_bounds()
    }

    /// Per node of the last [`Dependencies::build`]: a data edge leaves it (see
    /// [`DepBuilder::fed`]).
    pub fn fed(&self) -> &[bool] {
        self.builder.fed()
    }

    /// The dependencies without the nodes that are not `alive` (order between live nodes may
    /// run differently without them): the dead nodes' edges dropped where that is all that
    /// changes, else built again.
    pub fn drop_dead(&mut self, graph: &RecordedGraph, table: &AccessTable, alive: &[bool]) {
        self.culled = true;
        if !self
            .builder
            .drop_dead_nodes(graph, table, alive, &mut self.graph)
        {
            self.builder
                .build_from_table(graph, table, Some(alive), &mut self.graph);
        }
    }
}

/// What every stage after the dependencies reads of the frame: the recorded graph, its
/// access table and its dependency graph.
#[derive(Copy, Clone)]
pub(crate) struct Analysis<'a> {
    /// The recorded frame.
    pub graph: &'a RecordedGraph,
    /// Its access table.
    pub table: &'a AccessTable,
    /// Its dependency graph (without the dead nodes when some were culled).
    pub deps: &'a DepGraph,
}
