//! [`BuildError`]: why a [`GraphBuilder`](crate::GraphBuilder) call failed.

use crate::format::Format;
use crate::graph_limits::GraphLimit;
use crate::ids::DeclId;
use crate::resource::ResourceError;
use crate::view::ViewRangeError;
use crate::view_format_check::ViewFormatError;
use std::fmt;

/// Why a builder call failed. The VM turns these into located runtime faults.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum BuildError {
    /// A builder call outside `begin_frame` .. `finish`.
    NotRecording,
    /// The resource description is invalid.
    InvalidResource(ResourceError),
    /// No declaration with this id.
    UnknownDecl(DeclId),
    /// The argument block is shorter than the declaration's layout.
    ArgumentsTooShort {
        /// The node.
        node: String,
        /// Bytes expected.
        expected: u32,
        /// Bytes passed.
        actual: usize,
    },
    /// A view refers to a resource that does not exist this frame.
    UnknownResource {
        /// Flattened parameter name (`srcs[3]`).
        param: String,
        /// The id found in the view.
        resource: u32,
    },
    /// A view does not fit its resource.
    ViewOutOfRange {
        /// Flattened parameter name.
        param: String,
        /// What is wrong.
        reason: ViewRangeError,
    },
    /// A view's format does not fit its resource's format or the parameter's access
    /// (`view_format_check.rs`).
    InvalidViewFormat {
        /// The node.
        node: String,
        /// Flattened parameter name.
        param: String,
        /// The resource's format.
        resource_format: Format,
        /// The view's format (`UNKNOWN` = the resource's).
        view_format: Format,
        /// What is wrong.
        reason: ViewFormatError,
    },
    /// A node handle argument or dependency names a node that was not called before.
    UnknownNode(u32),
    /// `end_subgraph` without `begin_subgraph`, or `finish` with subgraphs open.
    UnbalancedSubgraph,
    /// No resource with this id (`describe`, `set_resource_name`).
    NoSuchResource(u32),
    /// A built-in transfer node (`copy_texture`, `copy_buffer`, `copy_texture_to_buffer`,
    /// `copy_buffer_to_texture`, `resolve`) called with views it cannot copy between.
    InvalidTransfer {
        /// The node.
        node: String,
        /// What is wrong.
        message: String,
    },
    /// A node expansion ([`crate::NodeExpansion`]) could not record a call.
    Expansion {
        /// The expanded node.
        node: String,
        /// What is wrong.
        message: String,
    },
    /// The frame passed one of the builder's [`GraphLimits`](crate::GraphLimits) (a runaway loop, usually).
    LimitExceeded {
        /// Which bound.
        limit: GraphLimit,
        /// Its value.
        bound: u64,
    },
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildError::NotRecording => write!(f, "the graph builder is not recording a frame"),
            BuildError::Expansion { node, message } => write!(f, "node `{node}`: {message}"),
            BuildError::InvalidResource(err) => write!(f, "invalid resource: {err}"),
            BuildError::UnknownDecl(decl) => write!(f, "unknown node declaration {decl}"),
            BuildError::ArgumentsTooShort {
                node,
                expected,
                actual,
            } => {
                write!(
                    f,
                    "argument block of node `{node}` has {actual} bytes, expected {expected}"
                )
            }
            BuildError::UnknownResource { param, resource } => {
                write!(
                    f,
                    "argument `{param}` refers to resource {resource}, which does not exist"
                )
            }
            BuildError::ViewOutOfRange { param, reason } => {
                write!(f, "argument `{param}`: ")?;
                match *reason {
                    ViewRangeError::Mips {
                        base,
                        count,
                        levels,
                    } => write!(
                        f,
                        "mips {} exceed the resource's {levels} mip level{}",
                        counted_range(base, count),
                        plural(levels)
                    ),
                    ViewRangeError::Layers {
                        base,
                        count,
                        layers,
                    } => write!(
                        f,
                        "array layers {} exceed the resource's {layers} layer{}",
                        counted_range(base, count),
                        plural(layers)
                    ),
                    ViewRangeError::Bytes {
                        offset,
                        size,
                        buffer,
                    } => {
                        let size = match size {
                            0 | u64::MAX => "to the end".to_string(),
                            size => format!("size {size}"),
                        };
                        write!(
                            f,
                            "bytes from offset {offset} ({size}) exceed the buffer's {buffer} byte{}",
                            plural(buffer)
                        )
                    }
                    ViewRangeError::Cubemap => f.write_str(
                        "a cubemap view needs a 2-D texture view of at least 6 array layers",
                    ),
                    ViewRangeError::Kind => {
                        f.write_str("view kind does not match the resource (texture vs buffer)")
                    }
                }
            }
            BuildError::InvalidViewFormat {
                node,
                param,
                resource_format,
                view_format,
                reason,
            } => write!(
                f,
                "{node}: argument `{param}`: {}",
                reason.message(*resource_format, *view_format)
            ),
            BuildError::UnknownNode(node) => {
                write!(f, "node handle {node} does not refer to an earlier node")
            }
            BuildError::UnbalancedSubgraph => write!(f, "subgraph begin/end calls are unbalanced"),
            BuildError::NoSuchResource(id) => write!(f, "resource {id} does not exist"),
            BuildError::InvalidTransfer { node, message } => write!(f, "{node}: {message}"),
            BuildError::LimitExceeded { limit, bound } => write!(
                f,
                "the frame records more than {bound} {limit} (GraphLimits::{}; a runaway loop?)",
                limit.field()
            ),
        }
    }
}

impl std::error::Error for BuildError {}

impl From<ResourceError> for BuildError {
    fn from(err: ResourceError) -> BuildError {
        BuildError::InvalidResource(err)
    }
}

/// A view's mip or layer range as a user reads it: `2..4` (base 2, count 2), or `2..` when the
/// count means "the rest" (`REMAINING` or 0).
fn counted_range(base: u32, count: u32) -> String {
    match count {
        0 | u32::MAX => format!("{base}.."),
        count => format!("{base}..{}", u64::from(base) + u64::from(count)),
    }
}

/// `"s"` unless `n` is 1.
fn plural(n: impl Into<u64>) -> &'static str {
    if n.into() == 1 {
        ""
    } else {
        "s"
    }
}
