//! The backend trait the runtime reaches a GPU through, its typed errors, and [`NullBackend`],
//! which executes nothing and records what a GPU backend would do (for tests).

use crate::compile::CompiledFrame;
use crate::graph::RecordedGraph;
use crate::ids::NodeId;
use std::fmt;

/// Why a backend could not execute a frame. Messages have no trailing period.
#[derive(Clone, PartialEq, Debug)]
pub enum BackendError {
    /// No usable device (no driver, or none with the needed API version).
    NoDevice(String),
    /// A feature or extension the run needs is missing.
    MissingFeature(String),
    /// The device was lost.
    DeviceLost(String),
    /// Host or device memory ran out.
    OutOfMemory(String),
    /// A wait on the device did not finish within the timeout.
    Timeout(String),
    /// The validation layer reported messages (each one is an error of the run).
    Validation(Vec<String>),
    /// A node has no implementation and unbound nodes are not allowed.
    UnboundNode {
        /// The node.
        node: NodeId,
        /// Its declaration's name.
        name: String,
    },
    /// A node's implementation failed.
    Node {
        /// The node.
        node: NodeId,
        /// Its declaration's name.
        name: String,
        /// What went wrong.
        message: String,
    },
    /// The frame asks for something this backend does not do (yet).
    Unsupported(String),
    /// Any other API failure.
    Api(String),
}

impl fmt::Display for BackendError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BackendError::NoDevice(message) => write!(f, "no usable device: {message}"),
            BackendError::MissingFeature(message) => write!(f, "missing feature: {message}"),
            BackendError::DeviceLost(message) => write!(f, "device lost: {message}"),
            BackendError::OutOfMemory(message) => write!(f, "out of memory: {message}"),
            BackendError::Timeout(message) => write!(f, "timed out: {message}"),
            BackendError::Validation(messages) => {
                write!(f, "{} validation message(s)", messages.len())?;
                for message in messages {
                    write!(f, "\n  {message}")?;
                }
                Ok(())
            }
            BackendError::UnboundNode { node, name } => write!(
                f,
                "node {} (`{name}`) has no implementation (allow unbound nodes to skip it)",
                node.0
            ),
            BackendError::Node {
                node,
                name,
                message,
            } => write!(f, "node {} (`{name}`): {message}", node.0),
            BackendError::Unsupported(message) => write!(f, "unsupported: {message}"),
            BackendError::Api(message) => write!(f, "{message}"),
        }
    }
}

impl std::error::Error for BackendError {}

/// A GPU (or null) backend: executes compiled frames of recorded graphs.
pub trait Backend {
    /// A short name for messages (`"vulkan"`, `"null"`).
    fn name(&self) -> &str;

    /// Executes one compiled frame of `graph`: realises its resources, records barriers,
    /// render passes and nodes in `frame.order` and submits them. Returns once the frame's work
    /// is complete (or, for a backend with several frames in flight, submitted; see
    /// [`Backend::wait_idle`]) or has failed; never hangs.
    fn execute_frame(
        &mut self,
        graph: &RecordedGraph,
        frame: &CompiledFrame,
    ) -> Result<(), BackendError>;

    /// Waits until the device is idle.
    fn wait_idle(&mut self) -> Result<(), BackendError>;
}

/// One thing [`NullBackend`] would have done.
#[derive(Clone, PartialEq, Debug)]
pub enum NullCommand {
    /// A barrier batch with this many barriers.
    Barriers(u32),
    /// A render pass began for a node.
    BeginPass(NodeId),
    /// A node ran (`bound`: it has an implementation; else skipped as unbound).
    Node {
        /// The node.
        node: NodeId,
        /// The node has an implementation or is built in.
        bound: bool,
    },
    /// A render pass ended.
    EndPass(NodeId),
}

/// A backend that executes nothing and logs what it would do, per frame.
#[derive(Clone, Debug, Default)]
pub struct NullBackend {
    /// Names of nodes with implementations (built-in nodes always count as bound).
    pub bound_nodes: Vec<String>,
    /// Skip nodes without an implementation instead of failing.
    pub allow_unbound: bool,
    /// The commands of the last frame.
    pub log: Vec<NullCommand>,
    /// Frames executed.
    pub frames: u64,
}

impl Backend for NullBackend {
    fn name(&self) -> &str {
        "null"
    }

    fn execute_frame(
        &mut self,
        graph: &RecordedGraph,
        frame: &CompiledFrame,
    ) -> Result<(), BackendError> {
        self.log.clear();
        let mut batches = frame.batch_list.iter().peekable();
        let mut passes = frame.render_passes.iter().peekable();
        for (position, &node) in frame.order.iter().enumerate() {
            if let Some(batch) = batches.next_if(|batch| batch.position as usize == position) {
                self.log.push(NullCommand::Barriers(
                    batch.barriers.end - batch.barriers.start,
                ));
            }
            let decl = graph.decl_of(node);
            let bound = decl.is_builtin() || self.bound_nodes.contains(&decl.name);
            if !bound && !self.allow_unbound {
                return Err(BackendError::UnboundNode {
                    node,
                    name: decl.name.clone(),
                });
            }
            let pass = passes.next_if(|pass| pass.node == node);
            if pass.is_some() {
                self.log.push(NullCommand::BeginPass(node));
            }
            self.log.push(NullCommand::Node { node, bound });
            if pass.is_some() {
                self.log.push(NullCommand::EndPass(node));
            }
        }
        if let Some(batch) = batches.next() {
            self.log.push(NullCommand::Barriers(
                batch.barriers.end - batch.barriers.start,
            ));
        }
        self.frames += 1;
        Ok(())
    }

    fn wait_idle(&mut self) -> Result<(), BackendError> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::*;

    #[test]
    fn null_backend_logs_passes_and_rejects_unbound_nodes() {
        let mut builder = GraphBuilder::new();
        // Built-in clears have no render pass of their own: the backend makes one.
        let clear = builder.declare_node(
            builtin_declarations()
                .into_iter()
                .find(|decl| decl.name == "clear_depth")
                .unwrap(),
        );
        let custom =
            builder.declare_node(NodeDeclDesc::new("custom", QueueClass::Graphics, vec![]));
        builder.begin_frame(0);
        let depth = builder
            .import_external("depth", ResourceDesc::tex2d(Format::D32_FLOAT, 8, 8))
            .unwrap();
        let view = builder.default_texture_view(depth).unwrap();
        let mut args = ArgsWriter::new(builder.decl(clear).unwrap());
        args.write_texture(0, &view).write_f32(1, 0, 1.0);
        builder
            .call_node(clear, args.bytes(), CallFlags::default(), 1)
            .unwrap();
        builder
            .call_node(custom, &[], CallFlags::default(), 2)
            .unwrap();
        let graph = builder.finish().unwrap();
        let mut compiler = FrameCompiler::new(CompileOptions {
            cull: false,
            ..CompileOptions::default()
        });
        let frame = compiler.compile(graph).unwrap();
        let mut backend = NullBackend::default();
        let error = backend.execute_frame(graph, frame).unwrap_err();
        assert_eq!(
            error,
            BackendError::UnboundNode {
                node: NodeId(1),
                name: "custom".to_string()
            }
        );
        backend.allow_unbound = true;
        backend.execute_frame(graph, frame).unwrap();
        assert_eq!(
            backend.log,
            vec![
                NullCommand::Barriers(1),
                NullCommand::Node {
                    node: NodeId(0),
                    bound: true
                },
                NullCommand::Node {
                    node: NodeId(1),
                    bound: false
                },
                NullCommand::Barriers(1),
            ]
        );
    }
}
