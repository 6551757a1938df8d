//! The schedule stage's named output.

/// The schedule stage's output: the live nodes in execution order, each with its dependency
/// level (by position).
#[derive(Debug, Default)]
pub(crate) struct Schedule {
    /// The live nodes (call indices) in execution order.
    pub order: Vec<u32>,
    /// The dependency level of the node at each position.
    pub levels: Vec<u32>,
}

impl Schedule {
    /// Empties both lists.
    pub(super) fn clear(&mut self) {
        self.order.clear();
        self.levels.clear();
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
