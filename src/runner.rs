//! [`Runner`]: the per-entry state behind a [`Session`](crate::Session) and a
//! [`HotScript`](crate::HotScript), independent of how the program is held. It owns the graph
//! builder (with the program's node declarations registered once), the frame compiler and the
//! executor chosen by [`Mode`]; per frame it fills the I/O block, imports external resources, runs
//! the script through [`BuilderHost`], finishes the recorded graph and compiles it.

use std::fmt;
use std::thread::JoinHandle;

use rpsl_frontend::access::AccessDesc;
use rpsl_frontend::hir::{ParamDirection, ScalarKind, Type};
use rpsl_runtime::{FrameCompiler, GraphBuilder, RecordedGraph, ResourceDesc, ResourceId};
use rpsl_vm::host::NULL_VIEW;
use rpsl_vm::jit::{JitError, JitModule, JitOptions};
use rpsl_vm::lower::EntryInfo;
use rpsl_vm::{FuncId, Host, Interpreter, Limits, RuntimeError, Value, VerifiedModule};

use crate::args::{default_resource, leaves_of, write_value, ArgValue, EntryArgs, Leaf, LeafKind};
use crate::host_adapter::{default_view_bytes, BuilderHost};
use crate::program::Program;
use crate::refinement::Refiner;
use crate::session::{Frame, FrameError, Mode, SessionError, SessionOptions};

/// The executor behind a [`Mode`].
enum Executor {
    Jit(Box<JitExecutor>),
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

/// Native code for one entry, and its optimised recompilation (see
/// [`SessionOptions::jit_tier_up`]).
struct JitExecutor {
    code: JitModule,
    /// `code` was compiled with the optimiser.
    optimised: bool,
    limits: Limits,
    tier_up: TierUp,
}

/// Where the optimising recompilation of a [`JitExecutor`] stands.
enum TierUp {
    /// Starts when a frame has been recorded.
    Waiting,
    /// Compiling on a background thread.
    Compiling(JoinHandle<Result<JitModule, JitError>>),
    /// The code is optimised, or stays as it is (tier-up off, or the recompilation failed).
    Finished,
}

impl JitExecutor {
    /// Called before each frame with the number of frames this runner started before it: after
    /// the first frame starts the optimising recompilation (a copy of `module`, `entry` and what
    /// it reaches, on one background thread), and once that is done swaps the code in.
    fn tier_up(&mut self, module: &VerifiedModule, entry: FuncId, frames_before: u64) {
        self.advance_tier_up(module, entry, frames_before >= 1, false);
    }

    /// Starts the optimising recompilation when `start` (and it has not started), and swaps the
    /// code in when it is done, waiting for it when `wait`.
    fn advance_tier_up(&mut self, module: &VerifiedModule, entry: FuncId, start: bool, wait: bool) {
        if start && matches!(self.tier_up, TierUp::Waiting) {
            self.start_tier_up(module, entry);
        }
        if let TierUp::Compiling(handle) = &self.tier_up {
            if !(wait || handle.is_finished()) {
                return;
            }
            let TierUp::Compiling(handle) = std::mem::replace(&mut self.tier_up, TierUp::Finished)
            else {
                return;
            };
            // A failed optimising compile (a Cranelift bug) keeps the working code.
            if let Ok(Ok(mut optimised)) = handle.join() {
                optimised.set_limits(self.limits);
                self.code = optimised;
                self.optimised = true;
            }
        }
    }

    /// Starts the optimising recompilation (a copy of `module`, `entry` and what it reaches) on
    /// one background thread.
    fn start_tier_up(&mut self, module: &VerifiedModule, entry: FuncId) {
        let module = module.clone();
        let options = JitOptions {
            optimize: true,
            threads: 1,
            entries: Some(vec![entry]),
        };
        let spawned = std::thread::Builder::new()
            .name("rpsl-jit-optimise".into())
            .spawn(move || JitModule::compile_with(&module, &options));
        // No thread only means no optimised code.
        self.tier_up = match spawned {
            Ok(handle) => TierUp::Compiling(handle),
            Err(_) => TierUp::Finished,
        };
    }
}

impl Executor {
    /// The executor for `mode`. The JIT compiles only `entry` and the functions it reaches.
    fn new(
        mode: Mode,
        module: &VerifiedModule,
        entry: FuncId,
        options: &SessionOptions,
    ) -> Result<Executor, JitError> {
        let limits = options.limits;
        Ok(match mode {
            Mode::Jit => {
                let jit_options = JitOptions {
                    entries: Some(vec![entry]),
                    ..JitOptions::default()
                };
                let mut code = JitModule::compile_with(module, &jit_options)?;
                code.set_limits(limits);
                let tier_up = if options.jit_tier_up {
                    TierUp::Waiting
                } else {
                    TierUp::Finished
                };
                Executor::Jit(Box::new(JitExecutor {
                    code,
                    optimised: false,
                    limits,
                    tier_up,
                }))
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
            Executor::Jit(jit) => jit.code.run(func, &args, io, host),
            Executor::Interp(interp) => interp.run(module, func, &args, io, host),
        }
    }
}

/// The state of one entry point run frame after frame.
#[derive(Debug)]
pub(crate) struct Runner {
    entry_index: usize,
    leaves: Vec<Vec<Leaf>>,
    builder: GraphBuilder,
    compiler: FrameCompiler,
    executor: Executor,
    io: Vec<u8>,
    next_frame: u64,
    /// Frames started by this runner.
    frames_started: u64,
    /// Resource names whose resource is an output of every frame ([`Runner::keep_resources`]).
    kept: Vec<String>,
    /// What the script of the frame being started sees ([`Runner::prepare_inputs`]).
    inputs: FrameInputs,
    /// What the script of the last recorded frame saw.
    last_inputs: FrameInputs,
    /// [`SessionOptions::reuse_unchanged_frames`].
    reuse_unchanged_frames: bool,
    /// The builder's graph and the compiler's frame are the last frame's, recorded from
    /// `last_inputs` and compiled without error, and nothing has changed what a frame records
    /// since: [`Runner::run_frame`] may repeat them.
    repeatable: bool,
    /// Frames whose script ran (repeated frames excluded).
    recordings: u64,
    /// The memory refinement of steady frames ([`SessionOptions::memory_refinement`]).
    refiner: Refiner,
}

/// Everything a frame's script can observe that is not fixed for the runner: the bytes of its
/// I/O block before the script runs (entry arguments, `frameIndex`) and the descriptions of the
/// external resources whose views the block receives. Equal inputs make the script make the
/// same host calls, which get the same answers.
#[derive(Debug, Default, PartialEq)]
struct FrameInputs {
    io: Vec<u8>,
    resources: Vec<ExternalInput>,
}

/// An external resource imported for a view leaf of an entry parameter.
#[derive(Debug, PartialEq)]
struct ExternalInput {
    /// The parameter's index.
    param: usize,
    /// The leaf's index among the parameter's leaves.
    leaf: usize,
    desc: ResourceDesc,
}

impl Runner {
    /// The state for entry `entry` of `program`; frames count from `first_frame`.
    pub(crate) fn new(
        program: &Program,
        entry: Option<&str>,
        options: SessionOptions,
        first_frame: u64,
    ) -> Result<Runner, SessionError> {
        let entry = program.entry(entry)?;
        let entry_index = program
            .entries()
            .iter()
            .position(|e| std::ptr::eq(e, entry))
            .expect("the entry comes from this program");
        let executor = Executor::new(options.mode, program.bytecode(), entry.func, &options)
            .map_err(|error: JitError| SessionError::Jit(error.to_string()))?;
        let mut builder = GraphBuilder::new();
        builder.set_limits(options.graph_limits);
        builder.set_site_names(std::sync::Arc::clone(program.site_names()));
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
        Ok(Runner {
            entry_index,
            leaves,
            builder,
            compiler: FrameCompiler::new(options.compile),
            executor,
            io: vec![0; entry.io_size as usize],
            next_frame: first_frame,
            frames_started: 0,
            kept: Vec::new(),
            inputs: FrameInputs::default(),
            last_inputs: FrameInputs::default(),
            reuse_unchanged_frames: options.reuse_unchanged_frames,
            repeatable: false,
            recordings: 0,
            refiner: Refiner::new(options.memory_refinement),
        })
    }

    /// The entry point this runner runs.
    pub(crate) fn entry<'p>(&self, program: &'p Program) -> &'p EntryInfo {
        &program.entries()[self.entry_index]
    }

    /// How this runner executes the script.
    pub(crate) fn mode(&self) -> Mode {
        match self.executor {
            Executor::Jit(_) => Mode::Jit,
            Executor::Interp(_) => Mode::Interp,
        }
    }

    /// Whether the script runs as optimised native code now (the JIT after its tier-up).
    pub(crate) fn jit_optimised(&self) -> bool {
        match &self.executor {
            Executor::Jit(jit) => jit.optimised,
            Executor::Interp(_) => false,
        }
    }

    /// With tier-up on, compiles the optimised code now (if it has not started) and waits for
    /// it, so the next frame runs it; nothing otherwise.
    pub(crate) fn finish_tier_up(&mut self, program: &Program) {
        let func = self.entry(program).func;
        if let Executor::Jit(jit) = &mut self.executor {
            jit.advance_tier_up(program.bytecode(), func, true, true);
        }
    }

    /// See [`crate::Session::finish_memory_refinement`].
    pub(crate) fn finish_memory_refinement(&mut self) -> bool {
        self.repeatable
            && self
                .refiner
                .finish(&mut self.compiler, self.builder.graph())
    }

    /// The index the next frame gets (frames count from 0, failed ones included).
    pub(crate) fn next_frame_index(&self) -> u64 {
        self.next_frame
    }

    /// The graph builder (its last recorded graph, declarations, cross-frame storage).
    pub(crate) fn builder(&self) -> &GraphBuilder {
        &self.builder
    }

    /// How many frames ran the script (frames repeated by [`Runner::run_frame`] excluded).
    pub(crate) fn recordings(&self) -> u64 {
        self.recordings
    }

    /// Continues the cross-frame storage of the runner this one replaces (a reload): see
    /// [`GraphBuilder::continue_history`].
    pub(crate) fn continue_history(&mut self, history: rpsl_runtime::StorageHistory) {
        self.builder.continue_history(history);
    }

    /// The graph builder, to set node expansions on ([`crate::Session::expand_node`]).
    pub(crate) fn builder_mut(&mut self) -> &mut GraphBuilder {
        &mut self.builder
    }

    /// Runs the script for the next frame and returns the recorded graph (not compiled).
    pub(crate) fn record_frame(
        &mut self,
        program: &Program,
        args: &EntryArgs,
    ) -> Result<&RecordedGraph, FrameError> {
        // The compiler's frame no longer matches the builder's graph.
        self.repeatable = false;
        let frame = self.next_frame;
        self.prepare_inputs(program, args, frame);
        self.record_prepared(program)
    }

    /// Records the next frame from the inputs [`Runner::prepare_inputs`] computed for it.
    fn record_prepared(&mut self, program: &Program) -> Result<&RecordedGraph, FrameError> {
        let entry = self.entry(program);
        let frame = self.next_frame;
        self.next_frame += 1;
        if let Executor::Jit(jit) = &mut self.executor {
            jit.tier_up(program.bytecode(), entry.func, self.frames_started);
        }
        self.frames_started += 1;
        self.recordings += 1;
        self.builder.begin_frame(frame);
        self.fill_io(program)?;
        std::mem::swap(&mut self.inputs, &mut self.last_inputs);
        let result = {
            let mut host = BuilderHost::new(&mut self.builder);
            self.executor
                .run(program.bytecode(), entry.func, &mut self.io, &mut host)
        };
        if let Err(error) = result {
            let rendered = program.render_runtime_error(&error);
            return Err(FrameError::Runtime { error, rendered });
        }
        self.mark_out_resources(program);
        self.mark_kept_resources();
        self.builder.finish().map_err(FrameError::Build)
    }

    /// Runs the script for the next frame, then compiles the recorded graph — or, when the
    /// script would see what the last frame's saw and the builder can repeat that frame
    /// ([`GraphBuilder::repeat_frame`]), repeats the last frame's graph and compiled frame
    /// without running or compiling anything (see [`SessionOptions::reuse_unchanged_frames`]).
    pub(crate) fn run_frame(
        &mut self,
        program: &Program,
        args: &EntryArgs,
    ) -> Result<Frame<'_>, FrameError> {
        let frame = self.next_frame;
        self.prepare_inputs(program, args, frame);
        self.refiner.before_frame(&mut self.compiler, false);
        // A refined plan waiting for its structure is taken in by a compile (which refreshes
        // its render passes' argument values), not by a repeat.
        let repeat = self.reuse_unchanged_frames
            && self.repeatable
            && !self.compiler.refined_pending()
            && self.inputs == self.last_inputs
            && self.builder.repeat_frame(frame);
        if repeat {
            self.next_frame += 1;
            let graph = self.builder.graph();
            self.refiner.after_frame(&mut self.compiler, graph);
            return Ok(Frame {
                graph,
                compiled: self.compiler.repeat_last(),
            });
        }
        self.repeatable = false;
        self.record_prepared(program)?;
        let graph = self.builder.graph();
        self.compiler
            .compile(graph)
            .map_err(|error| program.compile_error(graph, error))?;
        self.refiner.after_frame(&mut self.compiler, graph);
        self.repeatable = true;
        Ok(Frame {
            graph,
            compiled: self.compiler.last_frame(),
        })
    }

    /// Computes what the script of frame `frame` will see of the outside world into
    /// `self.inputs`: the I/O block with every data argument (and `frameIndex` when it follows
    /// the frame counter), `out` views null, and the description of every external resource.
    fn prepare_inputs(&mut self, program: &Program, args: &EntryArgs, frame: u64) {
        let entry = self.entry(program);
        let inputs = &mut self.inputs;
        inputs.io.clear();
        inputs.io.resize(self.io.len(), 0);
        inputs.resources.clear();
        for (index, param) in entry.params.iter().enumerate() {
            let leaves = &self.leaves[index];
            if param.direction == ParamDirection::Out {
                for leaf in leaves {
                    if matches!(leaf.kind, LeafKind::Texture | LeafKind::Buffer) {
                        write_bytes(&mut inputs.io, leaf.offset, &NULL_VIEW);
                    }
                }
                continue;
            }
            let value = args.value(index);
            let mut data = match value {
                Some(ArgValue::Data(values)) => Some(values.iter()),
                _ => None,
            };
            for (leaf_index, leaf) in leaves.iter().enumerate() {
                match leaf.kind {
                    LeafKind::Texture | LeafKind::Buffer => {
                        let desc = match value {
                            Some(ArgValue::Resource(desc)) => *desc,
                            _ => default_resource(&leaf.kind),
                        };
                        inputs.resources.push(ExternalInput {
                            param: index,
                            leaf: leaf_index,
                            desc,
                        });
                    }
                    _ => {
                        let scalar = match data.as_mut().and_then(|values| values.next()) {
                            Some(scalar) => Some(*scalar),
                            None if value.is_none()
                                && param.name == "frameIndex"
                                && param.ty == Type::Scalar(ScalarKind::Uint) =>
                            {
                                Some(Value::U32(frame as u32))
                            }
                            None => None,
                        };
                        if let Some(scalar) = scalar {
                            write_value(scalar, &mut inputs.io, leaf.offset as usize);
                        }
                    }
                }
            }
        }
    }

    /// Fills the I/O block from `self.inputs` ([`Runner::prepare_inputs`]), importing the
    /// external resources into the recording builder and writing their views.
    fn fill_io(&mut self, program: &Program) -> Result<(), FrameError> {
        self.io.copy_from_slice(&self.inputs.io);
        let function = program.entry_function(self.entry(program));
        for input in &self.inputs.resources {
            let leaf = &self.leaves[input.param][input.leaf];
            let access = function
                .params
                .get(input.param)
                .and_then(|p| p.access.as_ref())
                .map(AccessDesc::resolved);
            let resource = self
                .builder
                .import_external_with_access(&leaf.path, input.desc, access)
                .map_err(FrameError::Build)?;
            let view = default_view_bytes(&self.builder, resource).map_err(FrameError::Build)?;
            write_bytes(&mut self.io, leaf.offset, &view);
        }
        Ok(())
    }

    /// From the next frame on, the resource called `name` (as [`RecordedGraph::resource_name`]
    /// shows it; the last one the frame creates when several share it) is an output of every
    /// frame, like an `out` parameter: its writers are kept, it is never aliased, and a backend
    /// can read it after the frame by that name.
    pub(crate) fn keep_resources(&mut self, names: impl IntoIterator<Item = String>) {
        for name in names {
            if !self.kept.contains(&name) {
                self.kept.push(name);
                // The next frame marks one more output: it must be recorded.
                self.repeatable = false;
            }
        }
    }

    /// Marks the resources named by [`Runner::keep_resources`] as outputs of this frame.
    fn mark_kept_resources(&mut self) {
        for name in &self.kept {
            let graph = self.builder.graph_so_far();
            let found = (0..graph.resources.len())
                .rev()
                .map(ResourceId::from_index)
                .find(|&id| graph.resource_name(id) == Some(name.as_str()));
            let Some(id) = found else { continue };
            if graph.resources[id.index()].external {
                continue;
            }
            // The id comes from this frame's graph, so these cannot fail.
            let _ = self.builder.set_resource_name(id, name);
            let _ = self.builder.mark_output(id, None);
        }
    }

    /// Marks the resources a script assigned to its `out` view parameters as outputs of the frame
    /// (kept by dead-node elimination, never aliased, left in the parameter's access state) and
    /// names them after the parameter.
    fn mark_out_resources(&mut self, program: &Program) {
        let entry = self.entry(program);
        let function = program.entry_function(entry);
        for (index, param) in entry.params.iter().enumerate() {
            if param.direction != ParamDirection::Out {
                continue;
            }
            let access = function
                .params
                .get(index)
                .and_then(|p| p.access.as_ref())
                .map(AccessDesc::resolved);
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
                let _ = self.builder.mark_output(ResourceId(resource), access);
                let _ = self
                    .builder
                    .set_resource_name(ResourceId(resource), &leaf.path);
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

#[cfg(test)]
mod tests {
    use crate::session::{Mode, Session, SessionOptions};
    use crate::{EntryArgs, Program};
    use rpsl_runtime::DumpWriter;
    use std::time::{Duration, Instant};

    /// Records frames of `session` until it runs optimised code; returns how many it recorded.
    fn record_until_optimised(session: &mut Session, args: &EntryArgs) -> u64 {
        let deadline = Instant::now() + Duration::from_secs(60);
        let mut frames = 0;
        while !session.jit_optimised() {
            assert!(Instant::now() < deadline, "no tier-up within a minute");
            // Frames may fail (the fault test): only their count matters here.
            let _ = session.record_frame(args);
            frames += 1;
            std::thread::sleep(Duration::from_millis(1));
        }
        frames
    }

    /// The JSON dump of the next recorded frame, or its rendered error.
    fn next_frame(session: &mut Session, args: &EntryArgs, entry: &str) -> String {
        match session.record_frame(args) {
            Ok(graph) => {
                let mut dump = DumpWriter::new(entry);
                dump.add_frame(graph, None);
                dump.finish()
            }
            Err(error) => error.render(),
        }
    }

    /// A tiered JIT session switches to optimised code and then records what the interpreter
    /// records after as many frames (graphs, and located faults), for 8 more frames; returns
    /// those frames' dumps or errors.
    fn assert_tier_up_matches_interpreter(
        program: &Program,
        entry: &str,
        args: &[&str],
    ) -> Vec<String> {
        let options = |mode| SessionOptions {
            mode,
            ..SessionOptions::default()
        };
        let mut jit = Session::new(program, Some(entry), options(Mode::Jit)).unwrap();
        let mut interp = Session::new(program, Some(entry), options(Mode::Interp)).unwrap();
        let parsed = EntryArgs::parse(program, jit.entry(), args).unwrap();
        assert!(!jit.jit_optimised());
        let frames = record_until_optimised(&mut jit, &parsed);
        assert!(frames >= 2, "the tier-up starts after the first frame");
        for _ in 0..frames {
            let _ = interp.record_frame(&parsed);
        }
        assert!(!interp.jit_optimised());
        (0..8)
            .map(|_| {
                let optimised = next_frame(&mut jit, &parsed, entry);
                let interpreted = next_frame(&mut interp, &parsed, entry);
                assert_eq!(optimised, interpreted, "{entry}");
                optimised
            })
            .collect()
    }

    #[test]
    fn optimised_code_records_the_interpreters_graphs() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/bench/rps_shapes.rpsl");
        let program = Program::from_file(path).unwrap();
        assert_tier_up_matches_interpreter(&program, "chain", &["N=40"]);
        assert_tier_up_matches_interpreter(&program, "lanes", &["N=41"]);
        assert_tier_up_matches_interpreter(&program, "script_heavy", &["N=5"]);
    }

    #[test]
    fn optimised_code_faults_where_the_interpreter_does() {
        let source = "graphics node Draw(rtv rt, uint i);\n\
                      export void main(texture bb, uint frameIndex)\n\
                      {\n\
                      \x20   uint values[4];\n\
                      \x20   values[frameIndex % 4] = frameIndex;\n\
                      \x20   Draw(bb, values[frameIndex % 8]);\n\
                      }\n";
        let program = Program::from_source("fault.rpsl", source).unwrap();
        let frames = assert_tier_up_matches_interpreter(&program, "main", &[]);
        // Half of the frames index past the array.
        let faults = frames
            .iter()
            .filter(|frame| frame.contains("fault.rpsl:6:"))
            .count();
        assert_eq!(faults, 4, "{frames:?}");
    }

    #[test]
    fn without_tier_up_the_code_stays_unoptimised() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/bench/rps_shapes.rpsl");
        let program = Program::from_file(path).unwrap();
        let options = SessionOptions {
            jit_tier_up: false,
            ..SessionOptions::default()
        };
        let mut session = Session::new(&program, Some("chain"), options).unwrap();
        let args = EntryArgs::parse(&program, session.entry(), ["N=20"]).unwrap();
        for _ in 0..5 {
            session.record_frame(&args).unwrap();
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(!session.jit_optimised());
    }
}
