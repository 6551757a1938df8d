//! [`Session`]: runs one entry point of a borrowed [`Program`] every frame (the per-frame work is
//! the crate's `Runner`), plus the options, modes and errors sessions share with
//! [`HotScript`](crate::HotScript).

use std::fmt;
use std::str::FromStr;

use rpsl_runtime::{
    BuildError, CompileError, CompileOptions, CompiledFrame, GraphBuilder, GraphLimits,
    RecordedGraph,
};
use rpsl_vm::lower::EntryInfo;
use rpsl_vm::{Limits, RuntimeError, RuntimeErrorKind};

use crate::args::EntryArgs;
use crate::program::{EntryError, Program};
use crate::refinement::MemoryRefinement;
use crate::runner::Runner;

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

/// How a [`Session`] runs and compiles frames.
///
/// ```
/// let options = rpsl::SessionOptions::default();
/// assert_eq!(options.mode, rpsl::Mode::Jit);
/// assert!(options.jit_tier_up);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SessionOptions {
    /// Interpreter or JIT.
    pub mode: Mode,
    /// Frame compiler options (schedule, culling, cache, async compute).
    pub compile: CompileOptions,
    /// The script's limits per frame (step budget, call depth, memory).
    pub limits: Limits,
    /// Bounds on the graph one frame records (nodes, resources, accesses, ...): a frame that
    /// passes one fails with a located error instead of exhausting the host's memory.
    pub graph_limits: GraphLimits,
    /// JIT only: once the session has recorded a frame, compile the script again with
    /// Cranelift's optimiser on a background thread and run that code from the first frame that
    /// starts after it is ready (the session starts with quickly compiled, unoptimised code).
    /// Both give the same graphs and errors. On by default.
    pub jit_tier_up: bool,
    /// [`Session::run_frame`] repeats the last frame — its recorded graph and compiled frame,
    /// with the next frame index — instead of running the script and compiling, when the
    /// script would see exactly what it saw in the last frame (the same entry arguments,
    /// external resource descriptions and, for a `uint frameIndex` parameter left to the frame
    /// counter, the same value: never) and the repeat gives the graph recording would give
    /// (no temporal resource, no persistent one in its first frame). The graph and the compiled
    /// frame are then identical to what recording and compiling would have given; only the
    /// script's own work is skipped (its step budget is not charged). An engine turns it off
    /// when it needs the script to run every frame. On by default; see `docs/semantics.md`.
    pub reuse_unchanged_frames: bool,
    /// When a steady frame's plan is searched for less transient memory, and whether the frame
    /// loop waits for it ([`MemoryRefinement`]). By default in the background, 30 frames after
    /// a structure first appears.
    pub memory_refinement: MemoryRefinement,
}

impl Default for SessionOptions {
    fn default() -> SessionOptions {
        SessionOptions {
            mode: Mode::default(),
            compile: CompileOptions::default(),
            limits: Limits::default(),
            graph_limits: GraphLimits::default(),
            jit_tier_up: true,
            reuse_unchanged_frames: true,
            memory_refinement: MemoryRefinement::DEFAULT,
        }
    }
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
    /// The frame compiler rejected the graph (a render pass that breaks the rules, say).
    Compile {
        /// Why.
        error: CompileError,
        /// `PATH:LINE:COL: error: MESSAGE` at the call of the node at fault, with a source
        /// excerpt.
        rendered: String,
    },
}

impl FrameError {
    /// The text to show a user: the located diagnostic, or `error: MESSAGE`.
    pub fn render(&self) -> String {
        match self {
            FrameError::Runtime { rendered, .. } | FrameError::Compile { rendered, .. } => {
                rendered.clone()
            }
            other => format!("error: {other}\n"),
        }
    }
}

impl fmt::Display for FrameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FrameError::Runtime { rendered, .. } => f.write_str(rendered.trim_end()),
            FrameError::Build(error) => write!(f, "{error}"),
            FrameError::Compile { rendered, .. } => f.write_str(rendered.trim_end()),
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
    runner: Runner,
}

impl<'p> Session<'p> {
    /// A session for entry `entry` (see [`Program::entry`] for the default). In [`Mode::Jit`]
    /// this compiles the program to native code (once; every frame reuses it).
    pub fn new(
        program: &'p Program,
        entry: Option<&str>,
        options: SessionOptions,
    ) -> Result<Session<'p>, SessionError> {
        let runner = Runner::new(program, entry, options, 0)?;
        Ok(Session { program, runner })
    }

    /// The entry point this session runs.
    pub fn entry(&self) -> &'p EntryInfo {
        self.runner.entry(self.program)
    }

    /// How this session executes the script.
    pub fn mode(&self) -> Mode {
        self.runner.mode()
    }

    /// The program.
    pub fn program(&self) -> &'p Program {
        self.program
    }

    /// Whether the script runs as optimised native code now: true in [`Mode::Jit`] once the
    /// tier-up of [`SessionOptions::jit_tier_up`] has swapped its code in (checked when a frame
    /// starts), false before and in [`Mode::Interp`].
    pub fn jit_optimised(&self) -> bool {
        self.runner.jit_optimised()
    }

    /// With [`SessionOptions::jit_tier_up`] on (JIT only), compiles the optimised code now
    /// instead of after the first frame and waits for it, so every following frame runs it (a
    /// host that would rather pay the compile at load time than in the background, and tests).
    ///
    /// ```
    /// let program = rpsl::Program::from_source("s.rpsl", "export void main() {}").unwrap();
    /// let mut session = rpsl::Session::new(&program, None, Default::default()).unwrap();
    /// session.finish_tier_up();
    /// assert!(session.jit_optimised());
    /// ```
    pub fn finish_tier_up(&mut self) {
        self.runner.finish_tier_up(self.program);
    }

    /// Waits for a search of [`SessionOptions::memory_refinement`] under way, or, when the last
    /// frame's structure has not been searched yet (and refinement is not `Off`), runs its first
    /// attempt now instead of waiting for the structure to repeat; the next frame of the same
    /// structure then uses the searched plan if it holds fewer transient bytes. Returns whether
    /// it will. Nothing happens when the last frame failed. Later attempts come as the structure
    /// lasts. For a host that would rather pay for the search at load time, and for tests.
    ///
    /// ```
    /// let program = rpsl::Program::from_source("s.rpsl", "export void main() {}").unwrap();
    /// let mut session = rpsl::Session::new(&program, None, Default::default()).unwrap();
    /// let args = rpsl::EntryArgs::defaults(session.entry());
    /// session.run_frame(&args).unwrap();
    /// // An empty frame holds no memory: nothing to gain.
    /// assert!(!session.finish_memory_refinement());
    /// ```
    pub fn finish_memory_refinement(&mut self) -> bool {
        self.runner.finish_memory_refinement()
    }

    /// The index the next frame gets (frames count from 0, failed ones included).
    pub fn next_frame_index(&self) -> u64 {
        self.runner.next_frame_index()
    }

    /// The graph builder (its last recorded graph, declarations, cross-frame storage).
    pub fn builder(&self) -> &GraphBuilder {
        self.runner.builder()
    }

    /// Makes the resources called `names` outputs of every following frame, so that the host can
    /// read them after the frame (`rpsl run --out NAME=FILE`): like an `out` parameter, such a
    /// resource is created by the backend under its name, its writers are never culled and it is
    /// never aliased. A name is a resource's name as [`RecordedGraph::resource_name`] shows it
    /// (`texture hdr = create_tex2d(..)` is `hdr`); when several resources of a frame share it,
    /// the last one created is meant. Names no resource has are ignored.
    ///
    /// ```
    /// let program = rpsl::Program::from_source(
    ///     "k.rpsl",
    ///     "export void main() { texture hdr = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 4, 4); clear(hdr, float4(1, 0, 0, 1)); }",
    /// ).unwrap();
    /// let mut session = rpsl::Session::new(&program, None, rpsl::SessionOptions::default()).unwrap();
    /// session.keep_resources(["hdr".to_string()]);
    /// let frame = session.run_frame(&rpsl::EntryArgs::defaults(session.entry())).unwrap();
    /// assert!(frame.graph.resources[0].external); // kept: its clear is not culled
    /// assert_eq!(frame.compiled.culled.len(), 0);
    /// ```
    pub fn keep_resources(&mut self, names: impl IntoIterator<Item = String>) {
        self.runner.keep_resources(names);
    }

    /// How many frames ran the script: frames that [`Session::run_frame`] repeated
    /// ([`SessionOptions::reuse_unchanged_frames`]) are not counted, failed ones are.
    ///
    /// ```
    /// let program = rpsl::Program::from_source(
    ///     "s.rpsl",
    ///     "graphics node Draw(rtv rt, uint i);\n\
    ///      export void main(texture bb, uint n) { Draw(bb, n); }\n",
    /// ).unwrap();
    /// let mut session = rpsl::Session::new(&program, None, Default::default()).unwrap();
    /// let args = rpsl::EntryArgs::parse(&program, session.entry(), ["n=1"]).unwrap();
    /// for _ in 0..3 {
    ///     session.run_frame(&args).unwrap();
    /// }
    /// assert_eq!(session.recordings(), 1); // frames 1 and 2 repeat frame 0
    /// let args = rpsl::EntryArgs::parse(&program, session.entry(), ["n=2"]).unwrap();
    /// assert_eq!(session.run_frame(&args).unwrap().graph.frame_index, 3);
    /// assert_eq!(session.recordings(), 2);
    /// ```
    pub fn recordings(&self) -> u64 {
        self.runner.recordings()
    }

    /// Records every call of the script's node `name` through `expansion` from the next frame
    /// on ([`rpsl::runtime::NodeExpansion`]: the nodes and resources it records stand in for
    /// the call, e.g. the passes of a MagpieFX effect bound to the node). Returns whether the
    /// program declares a node of that name (built-ins excluded).
    ///
    /// ```
    /// # use std::sync::Arc;
    /// # use rpsl::runtime::*;
    /// #[derive(Debug)]
    /// struct Nothing;
    /// impl NodeExpansion for Nothing {
    ///     fn declarations(&self) -> Vec<NodeDeclDesc> {
    ///         vec![NodeDeclDesc::new("Inner", QueueClass::Graphics, Vec::new())]
    ///     }
    ///     fn expand(&self, b: &mut GraphBuilder, c: &ExpansionCall<'_>) -> Result<NodeId, BuildError> {
    ///         b.call_node(c.decls[0], &[], c.flags, c.identity_key)
    ///     }
    /// }
    /// let program = rpsl::Program::from_source(
    ///     "e.rpsl",
    ///     "node Outer(uint x);\nexport void main() { Outer(1); }\n",
    /// ).unwrap();
    /// let mut session = rpsl::Session::new(&program, None, Default::default()).unwrap();
    /// assert!(session.expand_node("Outer", Arc::new(Nothing)));
    /// let graph = session.record_frame(&rpsl::EntryArgs::defaults(session.entry())).unwrap();
    /// assert_eq!(graph.decls[graph.nodes[0].decl.index()].name, "Inner");
    /// ```
    pub fn expand_node(
        &mut self,
        name: &str,
        expansion: std::sync::Arc<dyn rpsl_runtime::NodeExpansion>,
    ) -> bool {
        expand_node(self.program, &mut self.runner, name, expansion)
    }

    /// Runs the script for the next frame and returns the recorded graph (not compiled; never
    /// a repeated frame).
    pub fn record_frame(&mut self, args: &EntryArgs) -> Result<&RecordedGraph, FrameError> {
        self.runner.record_frame(self.program, args)
    }

    /// Runs the script for the next frame, then compiles the recorded graph; or repeats the last
    /// frame when nothing the script can see has changed
    /// ([`SessionOptions::reuse_unchanged_frames`]).
    pub fn run_frame(&mut self, args: &EntryArgs) -> Result<Frame<'_>, FrameError> {
        self.runner.run_frame(self.program, args)
    }
}

/// Makes `runner` record every call of `program`'s node `name` through `expansion` (see
/// [`Session::expand_node`]); whether the program declares that node.
pub(crate) fn expand_node(
    program: &Program,
    runner: &mut Runner,
    name: &str,
    expansion: std::sync::Arc<dyn rpsl_runtime::NodeExpansion>,
) -> bool {
    let Some(index) = program
        .node_declarations()
        .iter()
        .position(|decl| decl.name == name && !decl.is_builtin())
    else {
        return false;
    };
    runner
        .builder_mut()
        .set_node_expansion(rpsl_runtime::DeclId::from_index(index), expansion);
    true
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
