//! The schedule stage's named output.

/// The schedule stage's output: the live nodes in execution order, each with its dependency
/// level (by position).
#[derive(Debug, Default)]
pub(crate) struct Schedule {
    /// The live nodes (call indices) in execution order.
    pub order: Vec<u32>,
    /// The level of the node at each position: its dependency level, or the level the
    /// memory balancing of the `Default` schedule gave it (`balanced`), or the level search
    /// of the `Searched` preference (`search.rs`). Nodes of one level never depend on each
    /// other, and levels never fall along the order.
    pub levels: Vec<u32>,
    /// The `Default` schedule was re-levelled to lower its peak of live transient bytes
    /// (see `balance.rs`), by a pass in this direction (`None` again once the level search
    /// replaced those levels).
    pub balanced: Option<Balanced>,
    /// The levels and the placement are to be searched (`SchedulePreference::Searched`).
    pub searched: bool,
}

/// The direction of the balancing pass that re-levelled a schedule.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum Balanced {
    /// From the sources: nodes waited to start.
    Forward,
    /// From the sinks over reversed edges: nodes were pulled early before their readers.
    Backward,
}

impl Schedule {
    /// Empties both lists.
    pub(super) fn clear(&mut self) {
        self.order.clear();
        self.levels.clear();
        self.balanced = None;
        self.searched = false;
    }

    /// Room for `count` more nodes.
    pub(super) fn reserve(&mut self, count: usize) {
        self.order.reserve(count);
        self.levels.reserve(count);
    }

    /// Appends `node` at `level`.
    #[inline(always)]
    pub(super) fn push(&mut self, node: u32, level: u32) {
        self.order.push(node);
        self.levels.push(level);
    }
}
