//! How large one recorded frame may grow. A script's loops are bounded by the VM's step budget,
//! but each step may record a node or create a resource: without these limits a runaway loop
//! (or a loop bound read from a corrupted argument) records graph after graph until the host
//! runs out of memory. A builder call that would pass a limit fails with
//! [`BuildError::LimitExceeded`](crate::BuildError::LimitExceeded), which the VM reports at the
//! script's call site; the builder stays usable for the next frame.

use std::fmt;

/// Upper bounds on what one frame records. The defaults sit two orders of magnitude above
/// real frames (a few thousand passes) and keep a frame's recording under ~1 GB.
///
/// ```
/// use rpsl_runtime::{GraphBuilder, GraphLimits};
///
/// let mut builder = GraphBuilder::new();
/// builder.set_limits(GraphLimits { max_nodes: 10_000, ..GraphLimits::default() });
/// assert_eq!(builder.limits().max_nodes, 10_000);
/// assert_eq!(GraphLimits::default().max_resources, 1 << 20);
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct GraphLimits {
    /// Node calls per frame.
    pub max_nodes: u32,
    /// Resources per frame (created and imported).
    pub max_resources: u32,
    /// Resource accesses per frame (one per view argument of a node).
    pub max_accesses: u32,
    /// Explicit node dependencies per frame (node-handle arguments and `add_dependency`).
    pub max_dependencies: u32,
    /// Subgraph scopes plus `sch_barrier` calls per frame.
    pub max_scopes: u32,
    /// Bytes of node argument blocks per frame.
    pub max_argument_bytes: u64,
}

impl Default for GraphLimits {
    /// 1 Mi nodes, resources and scopes, 4 Mi accesses and dependencies, 256 MiB of arguments.
    fn default() -> GraphLimits {
        GraphLimits {
            max_nodes: 1 << 20,
            max_resources: 1 << 20,
            max_accesses: 1 << 22,
            max_dependencies: 1 << 22,
            max_scopes: 1 << 20,
            max_argument_bytes: 256 << 20,
        }
    }
}

/// Which of [`GraphLimits`]' bounds a frame passed.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum GraphLimit {
    /// [`GraphLimits::max_nodes`].
    Nodes,
    /// [`GraphLimits::max_resources`].
    Resources,
    /// [`GraphLimits::max_accesses`].
    Accesses,
    /// [`GraphLimits::max_dependencies`].
    Dependencies,
    /// [`GraphLimits::max_scopes`].
    Scopes,
    /// [`GraphLimits::max_argument_bytes`].
    ArgumentBytes,
}

impl GraphLimit {
    /// What is counted, as a user reads it (`nodes`, `bytes of node arguments`, ...).
    pub fn counted(self) -> &'static str {
        match self {
            GraphLimit::Nodes => "nodes",
            GraphLimit::Resources => "resources",
            GraphLimit::Accesses => "resource accesses",
            GraphLimit::Dependencies => "explicit node dependencies",
            GraphLimit::Scopes => "subgraph scopes and sch_barrier calls",
            GraphLimit::ArgumentBytes => "bytes of node arguments",
        }
    }

    /// The field of [`GraphLimits`] that sets this bound.
    pub fn field(self) -> &'static str {
        match self {
            GraphLimit::Nodes => "max_nodes",
            GraphLimit::Resources => "max_resources",
            GraphLimit::Accesses => "max_accesses",
            GraphLimit::Dependencies => "max_dependencies",
            GraphLimit::Scopes => "max_scopes",
            GraphLimit::ArgumentBytes => "max_argument_bytes",
        }
    }
}

impl fmt::Display for GraphLimit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.counted())
    }
}

impl GraphLimits {
    /// The bound of `limit`.
    #[inline]
    pub fn bound(&self, limit: GraphLimit) -> u64 {
        match limit {
            GraphLimit::Nodes => self.max_nodes as u64,
            GraphLimit::Resources => self.max_resources as u64,
            GraphLimit::Accesses => self.max_accesses as u64,
            GraphLimit::Dependencies => self.max_dependencies as u64,
            GraphLimit::Scopes => self.max_scopes as u64,
            GraphLimit::ArgumentBytes => self.max_argument_bytes,
        }
    }
}
