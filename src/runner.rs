//! [`Runner`]: the per-entry state behind a [`Session`](crate::Session) and a
//! [`HotScript`](crate::HotScript), independent of how the program is held. It owns the graph
//! builder (with the program's node declarations registered once), the frame compiler and the
//! executor chosen by [`Mode`]; per frame it fills the I/O block, imports external resources, runs
//! the script through [`BuilderHost`], finishes the recorded graph and compiles it.

use std::fmt;

use rpsl_frontend::hir::{ParamDirection, ScalarKind, Type};
use rpsl_runtime::{FrameCompiler, GraphBuilder, RecordedGraph, ResourceId};
use rpsl_vm::host::NULL_VIEW;
use rpsl_vm::jit::{JitError, JitModule, JitOptions};
use rpsl_vm::lower::EntryInfo;
use rpsl_vm::{FuncId, Host, Interpreter, Limits, RuntimeError, Value, VerifiedModule};

use crate::args::{default_resource, leaves_of, ArgValue, EntryArgs, Leaf, LeafKind, Scalar};
use crate::decls::access_desc;
use crate::host_adapter::{default_view_bytes, BuilderHost};
use crate::program::Program;
use crate::session::{Frame, FrameError, Mode, SessionError, SessionOptions};

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
    /// The executor for `mode`. The JIT compiles only `entry` and the functions it reaches.
    fn new(
        mode: Mode,
        module: &VerifiedModule,
        entry: FuncId,
        limits: Limits,
    ) -> Result<Executor, JitError> {
        Ok(match mode {
            Mode::Jit => {
                let options = JitOptions {
                    entries: Some(vec![entry]),
                    ..JitOptions::default()
                };
                let mut jit = JitModule::compile_with(module, &options)?;
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
        let executor = Executor::new(options.mode, program.bytecode(), entry.func, options.limits)
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
        Ok(Runner {
            entry_index,
            leaves,
            builder,
            compiler: FrameCompiler::new(options.compile),
            executor,
            io: vec![0; entry.io_size as usize],
            next_frame: first_frame,
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

    /// The index the next frame gets (frames count from 0, failed ones included).
    pub(crate) fn next_frame_index(&self) -> u64 {
        self.next_frame
    }

    /// The graph builder (its last recorded graph, declarations, cross-frame storage).
    pub(crate) fn builder(&self) -> &GraphBuilder {
        &self.builder
    }

    /// Runs the script for the next frame and returns the recorded graph (not compiled).
    pub(crate) fn record_frame(
        &mut self,
        program: &Program,
        args: &EntryArgs,
    ) -> Result<&RecordedGraph, FrameError> {
        let entry = self.entry(program);
        let frame = self.next_frame;
        self.next_frame += 1;
        self.builder.begin_frame(frame);
        self.fill_io(program, args, frame)?;
        let result = {
            let mut host = BuilderHost::new(&mut self.builder);
            self.executor.run(
                program.bytecode(),
                entry.func,
                &mut self.io,
                &mut host,
            )
        };
        if let Err(error) = result {
            let rendered = program.render_runtime_error(&error);
            return Err(FrameError::Runtime { error, rendered });
        }
        self.mark_out_resources(program);
        self.builder.finish().map_err(FrameError::Build)
    }

    /// Runs the script for the next frame, then compiles the recorded graph.
    pub(crate) fn run_frame(
        &mut self,
        program: &Program,
        args: &EntryArgs,
    ) -> Result<Frame<'_>, FrameError> {
        self.record_frame(program, args)?;
        let graph = self.builder.graph();
        let compiled = self.compiler.compile(graph).map_err(FrameError::Compile)?;
        Ok(Frame { graph, compiled })
    }

    fn fill_io(&mut self, program: &Program, args: &EntryArgs, frame: u64) -> Result<(), FrameError> {
        self.io.fill(0);
        let entry = self.entry(program);
        let function = program.entry_function(entry);
        for (index, param) in entry.params.iter().enumerate() {
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
    fn mark_out_resources(&mut self, program: &Program) {
        let entry = self.entry(program);
        let function = program.entry_function(entry);
        for (index, param) in entry.params.iter().enumerate() {
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

