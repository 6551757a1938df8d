//! [`Session`]: runs one entry point of a [`Program`] every frame. It owns the graph builder (with
//! the program's node declarations registered once), the frame compiler and the executor chosen
//! by [`Mode`]; per frame it fills the I/O block, imports external resources, runs the script
//! through [`BuilderHost`], finishes the recorded graph and compiles it.

use std::fmt;
use std::str::FromStr;

use rpsl_frontend::hir::{ParamDirection, ScalarKind, Type};
use rpsl_runtime::{
    BuildError, CompileError, CompileOptions, CompiledFrame, FrameCompiler, GraphBuilder,
    RecordedGraph, ResourceId,
};
use rpsl_vm::host::NULL_VIEW;
use rpsl_vm::lower::EntryInfo;
use rpsl_vm::jit::{JitError, JitModule};
use rpsl_vm::{
    FuncId, Host, Interpreter, Limits, RuntimeError, RuntimeErrorKind, Value, VerifiedModule,
};

use crate::args::{default_resource, leaves_of, ArgValue, EntryArgs, Leaf, LeafKind, Scalar};
use crate::decls::access_desc;
use crate::host_adapter::{default_view_bytes, BuilderHost};
use crate::program::{EntryError, Program};

/// How scripts execute.
///
/// The JIT (the default) compiles the program's bytecode to native code with Cranelift once, when
/// the session starts, and runs that every frame; the interpreter stays for debugging and
/// differential testing. Both give identical graphs and identical runtime errors.
///
/// ```
/// assert_eq!("interp".parse::<rpsl::Mode>(), Ok(rpsl::Mode::Interp));
/// assert_eq!("jit".parse::<rpsl::Mode>(), Ok(rpsl::Mode::Jit));
/// assert_eq!(rpsl::Mode::default(), rpsl::Mode::Jit);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Mode {
    /// Native code compiled by Cranelift.
    #[default]
    Jit,
    /// The bytecode interpreter.
    Interp,
}

impl Mode {
    /// The CLI's name (`jit` or `interp`).
    pub fn name(self) -> &'static str {
        match self {
            Mode::Jit => "jit",
            Mode::Interp => "interp",
        }
    }
}

impl FromStr for Mode {
    type Err = String;

    fn from_str(text: &str) -> Result<Mode, String> {
        match text {
            "jit" => Ok(Mode::Jit),
            "interp" => Ok(Mode::Interp),
            other => Err(format!(
                "unknown mode `{other}` (expected `jit` or `interp`)"
            )),
        }
    }
}

/// The executor behind a [`Mode`].
enum Executor {
    Jit(Box<JitModule>),
    Interp(Interpreter),
}

impl fmt::Debug for Executor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Executor::Jit(_) => f.write_str("Executor::Jit"),
            Executor::Interp(_) => f.write_str("Executor::Interp"),
        }
    }
}

impl Executor {
    fn new(mode: Mode, module: &VerifiedModule, limits: Limits) -> Result<Executor, JitError> {
        Ok(match mode {
            Mode::Jit => {
                let mut jit = JitModule::compile(module)?;
                jit.set_limits(limits);
                Executor::Jit(Box::new(jit))
            }
            Mode::Interp => Executor::Interp(Interpreter::new(limits)),
        })
    }

    fn run<H: Host>(
        &mut self,
        module: &VerifiedModule,
        func: FuncId,
        io: &mut [u8],
        host: &mut H,
    ) -> Result<Vec<Value>, RuntimeError> {
        let args = [Value::Addr(0)];
        match self {
            Executor::Jit(jit) => jit.run(func, &args, io, host),
            Executor::Interp(interp) => interp.run(module, func, &args, io, host),
        }
    }
}

/// How a [`Session`] runs and compiles frames.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SessionOptions {
    /// Interpreter or JIT.
    pub mode: Mode,
    /// Frame compiler options (schedule, culling, cache, async compute).
    pub compile: CompileOptions,
    /// The script's limits per frame (step budget, call depth, memory).
    pub limits: Limits,
}

/// Why a [`Session`] could not start.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SessionError {
    /// The entry point does not exist or the choice is ambiguous.
    Entry(EntryError),
    /// Cranelift could not compile the program (an internal error: verified bytecode always
    /// compiles on supported targets).
    Jit(String),
}

impl SessionError {
    /// The message to show a user.
    pub fn message(&self) -> String {
        match self {
            SessionError::Entry(error) => error.message.clone(),
            SessionError::Jit(message) => format!("JIT compilation failed: {message}"),
        }
    }
}

impl fmt::Display for SessionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message())
    }
}

impl std::error::Error for SessionError {}

impl From<EntryError> for SessionError {
    fn from(error: EntryError) -> SessionError {
        SessionError::Entry(error)
    }
}

/// Why a frame failed. The session stays usable: the next frame starts afresh.
#[derive(Clone, Debug, PartialEq)]
pub enum FrameError {
    /// The script faulted (or a host call it made failed).
    Runtime {
        /// The fault.
        error: RuntimeError,
        /// `PATH:LINE:COL: error: MESSAGE` with a source excerpt.
        rendered: String,
    },
    /// Importing an external argument or finishing the graph failed.
    Build(BuildError),
    /// The frame compiler rejected the graph.
    Compile(CompileError),
}

impl FrameError {
    /// The text to show a user: the located diagnostic, or `error: MESSAGE`.
    pub fn render(&self) -> String {
        match self {
            FrameError::Runtime { rendered, .. } => rendered.clone(),
            other => format!("error: {other}\n"),
        }
    }
}

impl fmt::Display for FrameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FrameError::Runtime { rendered, .. } => f.write_str(rendered.trim_end()),
            FrameError::Build(error) => write!(f, "{error}"),
            FrameError::Compile(error) => write!(f, "frame compilation failed: {error:?}"),
        }
    }
}

impl std::error::Error for FrameError {}

/// A recorded and compiled frame, lent until the next frame.
#[derive(Debug, Clone, Copy)]
pub struct Frame<'s> {
    /// What the script recorded.
    pub graph: &'s RecordedGraph,
    /// The schedule, barriers and memory plan.
    pub compiled: &'s CompiledFrame,
}

/// Runs an entry point of a program frame after frame.
///
/// ```
/// let program = rpsl::Program::from_source(
///     "s.rpsl",
///     "graphics node Draw(rtv rt, uint i);\n\
///      export void main(texture bb, uint frameIndex) { Draw(bb, frameIndex * 2); }\n",
/// ).unwrap();
/// let mut session = rpsl::Session::new(&program, None, rpsl::SessionOptions::default()).unwrap();
/// let args = rpsl::EntryArgs::defaults(session.entry());
/// session.run_frame(&args).unwrap();
/// let frame = session.run_frame(&args).unwrap();
/// assert_eq!(frame.graph.frame_index, 1);
/// assert_eq!(frame.graph.nodes.len(), 1);
/// assert_eq!(frame.compiled.order.len(), 1);
/// ```
#[derive(Debug)]
pub struct Session<'p> {
    program: &'p Program,
    entry: &'p EntryInfo,
    leaves: Vec<Vec<Leaf>>,
    builder: GraphBuilder,
    compiler: FrameCompiler,
    executor: Executor,
    io: Vec<u8>,
    next_frame: u64,
}

impl<'p> Session<'p> {
    /// A session for entry `entry` (see [`Program::entry`] for the default). In [`Mode::Jit`]
    /// this compiles the program to native code (once; every frame reuses it).
    pub fn new(
        program: &'p Program,
        entry: Option<&str>,
        options: SessionOptions,
    ) -> Result<Session<'p>, SessionError> {
        let entry = program.entry(entry)?;
        let executor = Executor::new(options.mode, program.bytecode(), options.limits)
            .map_err(|error: JitError| SessionError::Jit(error.to_string()))?;
        let mut builder = GraphBuilder::new();
        for decl in program.node_declarations() {
            builder.declare_node(decl.clone());
        }
        let types = &program.hir().types;
        let leaves = entry
            .params
            .iter()
            .map(|param| {
                let mut leaves = Vec::new();
                leaves_of(types, &param.ty, param.offset, &param.name, &mut leaves);
                leaves
            })
            .collect();
        Ok(Session {
            program,
            entry,
            leaves,
            builder,
            compiler: FrameCompiler::new(options.compile),
            executor,
            io: vec![0; entry.io_size as usize],
            next_frame: 0,
        })
    }

    /// The entry point this session runs.
    pub fn entry(&self) -> &'p EntryInfo {
        self.entry
    }

    /// How this session executes the script.
    pub fn mode(&self) -> Mode {
        match self.executor {
            Executor::Jit(_) => Mode::Jit,
            Executor::Interp(_) => Mode::Interp,
        }
    }

    /// The program.
    pub fn program(&self) -> &'p Program {
        self.program
    }

    /// The index the next frame gets (frames count from 0, failed ones included).
    pub fn next_frame_index(&self) -> u64 {
        self.next_frame
    }

    /// The graph builder (its last recorded graph, declarations, cross-frame storage).
    pub fn builder(&self) -> &GraphBuilder {
        &self.builder
    }

    /// Runs the script for the next frame and returns the recorded graph (not compiled).
    pub fn record_frame(&mut self, args: &EntryArgs) -> Result<&RecordedGraph, FrameError> {
        let frame = self.next_frame;
        self.next_frame += 1;
        self.builder.begin_frame(frame);
        self.fill_io(args, frame)?;
        let result = {
            let mut host = BuilderHost::new(&mut self.builder);
            self.executor.run(
                self.program.bytecode(),
                self.entry.func,
                &mut self.io,
                &mut host,
            )
        };
        if let Err(error) = result {
            let rendered = self.program.render_runtime_error(&error);
            return Err(FrameError::Runtime { error, rendered });
        }
        self.mark_out_resources();
        self.builder.finish().map_err(FrameError::Build)
    }

    /// Runs the script for the next frame, then compiles the recorded graph.
    pub fn run_frame(&mut self, args: &EntryArgs) -> Result<Frame<'_>, FrameError> {
        self.record_frame(args)?;
        let graph = self.builder.graph();
        let compiled = self.compiler.compile(graph).map_err(FrameError::Compile)?;
        Ok(Frame { graph, compiled })
    }

    fn fill_io(&mut self, args: &EntryArgs, frame: u64) -> Result<(), FrameError> {
        self.io.fill(0);
        let function = self.program.entry_function(self.entry);
        for (index, param) in self.entry.params.iter().enumerate() {
            let leaves = &self.leaves[index];
            if param.direction == ParamDirection::Out {
                for leaf in leaves {
                    if matches!(leaf.kind, LeafKind::Texture | LeafKind::Buffer) {
                        write_bytes(&mut self.io, leaf.offset, &NULL_VIEW);
                    }
                }
                continue;
            }
            let value = args.value(index);
            let access = function
                .params
                .get(index)
                .and_then(|p| p.access.as_ref())
                .map(access_desc);
            let mut data = match value {
                Some(ArgValue::Data(values)) => Some(values.iter()),
                _ => None,
            };
            for leaf in leaves {
                match leaf.kind {
                    LeafKind::Texture | LeafKind::Buffer => {
                        let desc = match value {
                            Some(ArgValue::Resource(desc)) => *desc,
                            _ => default_resource(&leaf.kind),
                        };
                        let resource = self
                            .builder
                            .import_external_with_access(&leaf.path, desc, access)
                            .map_err(FrameError::Build)?;
                        let view = default_view_bytes(&self.builder, resource)
                            .map_err(FrameError::Build)?;
                        write_bytes(&mut self.io, leaf.offset, &view);
                    }
                    _ => {
                        let scalar = match data.as_mut().and_then(|values| values.next()) {
                            Some(scalar) => Some(*scalar),
                            None if value.is_none()
                                && param.name == "frameIndex"
                                && param.ty == Type::Scalar(ScalarKind::Uint) =>
                            {
                                Some(Scalar::U32(frame as u32))
                            }
                            None => None,
                        };
                        if let Some(scalar) = scalar {
                            scalar.write(&mut self.io, leaf.offset as usize);
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// Marks the resources a script assigned to its `out` view parameters as outputs of the frame
    /// (kept by dead-node elimination, never aliased, left in the parameter's access state) and
    /// names them after the parameter.
    fn mark_out_resources(&mut self) {
        let function = self.program.entry_function(self.entry);
        for (index, param) in self.entry.params.iter().enumerate() {
            if param.direction != ParamDirection::Out {
                continue;
            }
            let access = function.params.get(index).and_then(|p| p.access.as_ref()).map(access_desc);
            for leaf in &self.leaves[index] {
                if !matches!(leaf.kind, LeafKind::Texture | LeafKind::Buffer) {
                    continue;
                }
                let at = leaf.offset as usize;
                let Some(bytes) = self.io.get(at..at + 4) else {
                    continue;
                };
                let resource = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
                if resource == u32::MAX {
                    continue;
                }
                // The VM only hands out ids of resources it created, so these cannot fail; a
                // stale id would only lose the name and the output mark.
                let _ = self.builder.mark_output(ResourceId(resource), access.clone());
                let _ = self.builder.set_resource_name(ResourceId(resource), &leaf.path);
            }
        }
    }
}

fn write_bytes(io: &mut [u8], offset: u32, bytes: &[u8]) {
    let at = offset as usize;
    if let Some(dst) = io.get_mut(at..at + bytes.len()) {
        dst.copy_from_slice(bytes);
    }
}

/// Whether a runtime error is the script's own `abort(code)`.
pub fn abort_code(error: &FrameError) -> Option<i32> {
    match error {
        FrameError::Runtime {
            error:
                RuntimeError {
                    kind: RuntimeErrorKind::Abort { code },
                    ..
                },
            ..
        } => Some(*code),
        _ => None,
    }
}
