//! Sessions from C: options (engine, limits), entry arguments from text, running frames, and the
//! last frame's results (counts, compiled order, node names, the JSON dump).

use std::ffi::{c_char, c_void};
use std::sync::Arc;

use rpsl::runtime::{CompileOptions, CompiledFrame, GraphLimits, RecordedGraph};
use rpsl::vm::Limits;
use rpsl::{EntryArgs, MemoryRefinement, Mode, Program, Session, SessionOptions};

use crate::handle::{self, Guarded, Handle};
use crate::program::RpslProgram;
use crate::status::{boundary, fail, Failure, Outcome, RpslStatus};
use crate::strings::{copy_out, optional_in_arg, optional_str_arg, out_arg, slice_out, str_arg};

/// A session (opaque): one entry point of a program run frame after frame, with its entry
/// arguments. Made by [`rpsl_session_create`], freed by [`rpsl_session_destroy`].
pub struct RpslSession {
    guarded: Guarded<SessionObject>,
}

impl Handle for RpslSession {
    type Inner = SessionObject;
    const TYPE_NAME: &'static str = "RpslSession";
    fn guarded(&self) -> &Guarded<SessionObject> {
        &self.guarded
    }
}

/// A session, its arguments and its last compiled frame. `session` borrows the program that
/// `program` keeps alive: it is declared first, so it is dropped first.
pub(crate) struct SessionObject {
    session: Session<'static>,
    pub args: EntryArgs,
    /// The last frame's compiled form; `None` before the first frame and after a failed one.
    compiled: Option<CompiledFrame>,
    program: Arc<Program>,
}

impl SessionObject {
    /// The program the session runs.
    pub fn program(&self) -> &Program {
        &self.program
    }

    /// The last frame, recorded and compiled, or why there is none.
    pub fn last_frame(&self) -> Outcome<(&RecordedGraph, &CompiledFrame)> {
        match &self.compiled {
            Some(compiled) => Ok((self.session.builder().graph(), compiled)),
            None => fail(
                RpslStatus::NotFound,
                "the session has no frame: run one with rpsl_session_run_frame (a failed frame \
                 leaves none)",
            ),
        }
    }

    /// The name of the entry point the session runs.
    pub fn entry_name(&self) -> &str {
        &self.session.entry().name
    }

    /// The entry point the session runs (its parameters, for typed arguments).
    pub fn entry(&self) -> &rpsl::vm::lower::EntryInfo {
        self.session.entry()
    }

    /// Sets argument `name` from text (as the CLI's `--arg NAME=VALUE`).
    pub fn set_arg_text(&mut self, name: &str, text: &str) -> Outcome {
        let entry = self.session.entry();
        self.args
            .set(&self.program, entry, name, text)
            .map_err(|error| Failure::new(RpslStatus::Argument, error.message))
    }
}

/// How scripts execute.
#[repr(u32)]
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RpslMode {
    /// Native code compiled by Cranelift (the default).
    Jit = 0,
    /// The bytecode interpreter.
    Interp = 1,
}

/// How a session runs frames. Fill it with [`rpsl_session_options_default`], then change what
/// you need.
#[repr(C)]
#[derive(Copy, Clone, Debug)]
pub struct RpslSessionOptions {
    /// An `RpslMode` value.
    pub mode: u32,
    /// JIT only: recompile with the optimiser in the background after the first frame.
    pub jit_tier_up: bool,
    /// Script steps per frame (about one per bytecode instruction) before it stops with an error.
    pub step_budget: u64,
    /// Deepest call nesting of the script.
    pub max_call_depth: u32,
    /// Bytes of script memory.
    pub max_memory: u32,
    /// Node calls per frame.
    pub max_nodes: u32,
    /// Resources per frame.
    pub max_resources: u32,
    /// Resource accesses per frame.
    pub max_accesses: u32,
    /// Cull nodes whose results nothing uses.
    pub cull: bool,
    /// Place `async` compute nodes on a separate compute queue.
    pub async_compute: bool,
    /// Repeat the last frame without running the script or the frame compiler when its inputs
    /// (entry arguments, external resource descriptions) did not change (docs/semantics.md,
    /// "Frame reuse"); false runs the script every frame.
    pub reuse_unchanged_frames: bool,
    /// An `RpslMemoryRefinement` value: when a steady frame's plan is searched for less
    /// transient memory (default: in the background).
    pub memory_refinement: u32,
    /// Frames of one graph structure after its first before the search starts (default 30;
    /// at least 1).
    pub memory_refinement_after_frames: u32,
}

/// When a session searches a steady frame's plan for less transient memory (the Rust API's
/// `MemoryRefinement`).
#[repr(u32)]
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RpslMemoryRefinement {
    /// Never.
    Off = 0,
    /// On a background thread; the first frame after it is done takes the plan (the default).
    Background = 1,
    /// On the frame thread, so the plan arrives at a fixed frame.
    Blocking = 2,
}

impl RpslSessionOptions {
    fn from_rust(options: &SessionOptions) -> RpslSessionOptions {
        RpslSessionOptions {
            mode: match options.mode {
                Mode::Interp => RpslMode::Interp as u32,
                _ => RpslMode::Jit as u32,
            },
            jit_tier_up: options.jit_tier_up,
            step_budget: options.limits.step_budget,
            max_call_depth: options.limits.max_call_depth,
            max_memory: options.limits.max_memory,
            max_nodes: options.graph_limits.max_nodes,
            max_resources: options.graph_limits.max_resources,
            max_accesses: options.graph_limits.max_accesses,
            cull: options.compile.cull,
            async_compute: options.compile.async_compute,
            reuse_unchanged_frames: options.reuse_unchanged_frames,
            memory_refinement: match options.memory_refinement {
                MemoryRefinement::Off => RpslMemoryRefinement::Off as u32,
                MemoryRefinement::Background { .. } => RpslMemoryRefinement::Background as u32,
                MemoryRefinement::Blocking { .. } => RpslMemoryRefinement::Blocking as u32,
            },
            memory_refinement_after_frames: options.memory_refinement.after_frames(),
        }
    }

    fn to_rust(self) -> Outcome<SessionOptions> {
        let mode = match self.mode {
            m if m == RpslMode::Jit as u32 => Mode::Jit,
            m if m == RpslMode::Interp as u32 => Mode::Interp,
            other => {
                return fail(
                    RpslStatus::InvalidArgument,
                    format!("`options->mode` is {other}, not an RpslMode (0 JIT, 1 interpreter)"),
                )
            }
        };
        let after_frames = self.memory_refinement_after_frames.max(1);
        let memory_refinement = match self.memory_refinement {
            m if m == RpslMemoryRefinement::Off as u32 => MemoryRefinement::Off,
            m if m == RpslMemoryRefinement::Background as u32 => {
                MemoryRefinement::Background { after_frames }
            }
            m if m == RpslMemoryRefinement::Blocking as u32 => {
                MemoryRefinement::Blocking { after_frames }
            }
            other => {
                return fail(
                    RpslStatus::InvalidArgument,
                    format!(
                        "`options->memory_refinement` is {other}, not an RpslMemoryRefinement \
                         (0 off, 1 background, 2 blocking)"
                    ),
                )
            }
        };
        let defaults = SessionOptions::default();
        let options = SessionOptions {
            mode,
            jit_tier_up: self.jit_tier_up,
            limits: Limits {
                step_budget: self.step_budget,
                max_call_depth: self.max_call_depth,
                max_memory: self.max_memory,
            },
            graph_limits: GraphLimits {
                max_nodes: self.max_nodes,
                max_resources: self.max_resources,
                max_accesses: self.max_accesses,
                ..defaults.graph_limits
            },
            compile: CompileOptions {
                cull: self.cull,
                async_compute: self.async_compute,
                ..defaults.compile
            },
            reuse_unchanged_frames: self.reuse_unchanged_frames,
            memory_refinement,
        };
        Ok(options)
    }
}

/// Fills `options` with the defaults (JIT with tier-up, the default limits).
///
/// # Safety
/// `options` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn rpsl_session_options_default(
    options: *mut RpslSessionOptions,
) -> RpslStatus {
    boundary(|| {
        // SAFETY: the caller's contract.
        let options = unsafe { out_arg(options, "options") }?;
        *options = RpslSessionOptions::from_rust(&SessionOptions::default());
        Ok(())
    })
}

/// Starts a session on entry point `entry` of `program` (null: `main`, else the only export)
/// with `options` (null: the defaults). Every parameter starts at its default (zero, the frame
/// counter for `uint frameIndex`, a 1280x720 RGBA8 texture). The session keeps what it needs of
/// the program.
///
/// # Safety
/// `entry` is null or a NUL-terminated string; `options` is null or valid for a read; `out` is
/// valid for a write (the new handle, or null on failure).
#[no_mangle]
pub unsafe extern "C" fn rpsl_session_create(
    program: *const RpslProgram,
    entry: *const c_char,
    options: *const RpslSessionOptions,
    out: *mut *mut RpslSession,
) -> RpslStatus {
    boundary(|| {
        // SAFETY: the caller's contract.
        let out = unsafe { out_arg(out, "out") }?;
        *out = std::ptr::null_mut();
        // SAFETY: the caller's contract.
        let entry = unsafe { optional_str_arg(entry, "entry") }?;
        // SAFETY: the caller's contract.
        let options = match unsafe { optional_in_arg(options) } {
            Some(options) => options.to_rust()?,
            None => SessionOptions::default(),
        };
        let program = handle::with(program, "program", |object| Ok(object.program.clone()))?;
        // SAFETY: the reference points into the `Arc`'s allocation, which `SessionObject`
        // keeps alive in `program` for longer than `session` (declared before it, so dropped
        // first); the program is never mutated.
        let borrowed: &'static Program = unsafe { &*Arc::as_ptr(&program) };
        let session = Session::new(borrowed, entry, options).map_err(|error| match error {
            rpsl::SessionError::Entry(error) => Failure::new(RpslStatus::Entry, error.message),
            other => Failure::new(RpslStatus::Panic, other.message()),
        })?;
        let args = EntryArgs::defaults(session.entry());
        *out = handle::register(RpslSession {
            guarded: Guarded::new(SessionObject {
                session,
                args,
                compiled: None,
                program,
            }),
        });
        Ok(())
    })
}

/// Destroys a session (null: nothing happens).
///
/// # Safety
/// `session` is null or a handle from rpsl (stale and foreign pointers are reported).
#[no_mangle]
pub unsafe extern "C" fn rpsl_session_destroy(session: *mut RpslSession) -> RpslStatus {
    boundary(|| handle::destroy(session, "session"))
}

/// Sets entry argument `name` from text, as the CLI's `--arg NAME=VALUE` (docs/cli.md): scalar
/// leaves comma separated (`3`, `1.5,-2`, `true`, enumerator names), a texture `WxH[:FORMAT]`,
/// a buffer its size in bytes. A bad value is `RPSL_STATUS_ARGUMENT` and keeps the old one.
///
/// # Safety
/// `name` and `value` are NUL-terminated strings.
#[no_mangle]
pub unsafe extern "C" fn rpsl_session_set_arg(
    session: *mut RpslSession,
    name: *const c_char,
    value: *const c_char,
) -> RpslStatus {
    boundary(|| {
        // SAFETY: the caller's contract.
        let name = unsafe { str_arg(name, "name") }?;
        // SAFETY: the caller's contract.
        let value = unsafe { str_arg(value, "value") }?;
        handle::with(session, "session", |object| {
            object.set_arg_text(name, value)
        })
    })
}

/// Makes the resource called `name` (a script variable's name: `texture hdr = ...` is `hdr`) an
/// output of every following frame, so that the Vulkan backend can read it back afterwards.
///
/// # Safety
/// `name` is a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn rpsl_session_keep_resource(
    session: *mut RpslSession,
    name: *const c_char,
) -> RpslStatus {
    boundary(|| {
        // SAFETY: the caller's contract.
        let name = unsafe { str_arg(name, "name") }?;
        handle::with(session, "session", |object| {
            object.session.keep_resources([name.to_string()]);
            Ok(())
        })
    })
}

/// Figures of a frame.
#[repr(C)]
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct RpslFrameInfo {
    /// The frame's index (frames count from 0, failed ones included).
    pub frame_index: u64,
    /// Node calls recorded.
    pub node_count: u32,
    /// Resources recorded (created and imported).
    pub resource_count: u32,
    /// Nodes in the compiled order (the recorded ones less the culled ones).
    pub scheduled_count: u32,
    /// Nodes culled.
    pub culled_count: u32,
    /// Barriers planned.
    pub barrier_count: u32,
}

fn frame_info(graph: &RecordedGraph, compiled: &CompiledFrame) -> RpslFrameInfo {
    RpslFrameInfo {
        frame_index: graph.frame_index,
        node_count: graph.nodes.len() as u32,
        resource_count: graph.resources.len() as u32,
        scheduled_count: compiled.order.len() as u32,
        culled_count: compiled.culled.len() as u32,
        barrier_count: compiled.barriers.len() as u32,
    }
}

/// Runs the script for the next frame and compiles the recorded graph (schedule, culling,
/// barriers, memory). `info` (may be null) gets the frame's figures. On `RPSL_STATUS_FRAME` the last
/// error message is the located diagnostic (`PATH:LINE:COL: error: MESSAGE`); the session stays
/// usable for the next frame.
///
/// # Safety
/// `info` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn rpsl_session_run_frame(
    session: *mut RpslSession,
    info: *mut RpslFrameInfo,
) -> RpslStatus {
    boundary(|| {
        handle::with(session, "session", |object| {
            object.compiled = None;
            let frame = object
                .session
                .run_frame(&object.args)
                .map_err(|error| Failure::new(RpslStatus::Frame, error.render()))?;
            let figures = frame_info(frame.graph, frame.compiled);
            object.compiled = Some(frame.compiled.clone());
            // SAFETY: the caller's contract.
            if let Some(info) = unsafe { info.as_mut() } {
                *info = figures;
            }
            Ok(())
        })
    })
}

/// The figures of the last frame.
///
/// # Safety
/// `info` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn rpsl_session_frame_info(
    session: *const RpslSession,
    info: *mut RpslFrameInfo,
) -> RpslStatus {
    boundary(|| {
        // SAFETY: the caller's contract.
        let info = unsafe { out_arg(info, "info") }?;
        handle::with(session, "session", |object| {
            let (graph, compiled) = object.last_frame()?;
            *info = frame_info(graph, compiled);
            Ok(())
        })
    })
}

/// The last frame's compiled order: the node indices (as recorded, from 0) in the order they
/// execute. `*count` gets their number; `nodes` (room for `capacity`) gets them, unless it is
/// null (a size query) or too small (`RPSL_STATUS_BUFFER_TOO_SMALL`).
///
/// # Safety
/// `nodes` is null or valid for `capacity` writes; `count` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn rpsl_session_frame_order(
    session: *const RpslSession,
    nodes: *mut u32,
    capacity: usize,
    count: *mut usize,
) -> RpslStatus {
    boundary(|| {
        // SAFETY: the caller's contract.
        let count = unsafe { out_arg(count, "count") }?;
        handle::with(session, "session", |object| {
            let (_, compiled) = object.last_frame()?;
            *count = compiled.order.len();
            if nodes.is_null() {
                return Ok(());
            }
            if capacity < compiled.order.len() {
                return fail(
                    RpslStatus::BufferTooSmall,
                    format!(
                        "`nodes` holds {capacity}; the order has {}",
                        compiled.order.len()
                    ),
                );
            }
            // SAFETY: the caller's contract.
            let nodes = unsafe { slice_out(nodes, capacity, "nodes") }?;
            for (slot, node) in nodes.iter_mut().zip(&compiled.order) {
                *slot = node.0;
            }
            Ok(())
        })
    })
}

/// The declaration name of node `node` of the last frame, copied into `buffer` with its NUL
/// (`*needed` gets the bytes it takes; a null `buffer` only asks for that).
///
/// # Safety
/// `buffer` is null or valid for `capacity` writes; `needed` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn rpsl_session_node_name(
    session: *const RpslSession,
    node: u32,
    buffer: *mut c_char,
    capacity: usize,
    needed: *mut usize,
) -> RpslStatus {
    boundary(|| {
        handle::with(session, "session", |object| {
            let (graph, _) = object.last_frame()?;
            let Some(record) = graph.nodes.get(node as usize) else {
                return fail(
                    RpslStatus::NotFound,
                    format!(
                        "node {node} does not exist (the frame has {})",
                        graph.nodes.len()
                    ),
                );
            };
            let name = graph
                .decls
                .get(record.decl.index())
                .map_or("?", |decl| decl.name.as_str());
            // SAFETY: the caller's contract.
            unsafe { copy_out(name.as_bytes(), true, buffer.cast(), capacity, needed) }
        })
    })
}

/// The last frame as JSON (the dump of `rpsl run --dump`: nodes, resources, compiled order,
/// barriers), copied into `buffer` with a NUL (`*needed` gets the bytes it takes; a null
/// `buffer` only asks for that).
///
/// # Safety
/// `buffer` is null or valid for `capacity` writes; `needed` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn rpsl_session_frame_json(
    session: *const RpslSession,
    buffer: *mut c_char,
    capacity: usize,
    needed: *mut usize,
) -> RpslStatus {
    boundary(|| {
        handle::with(session, "session", |object| {
            let (graph, compiled) = object.last_frame()?;
            let json = rpsl::runtime::dump_frame_json(object.entry_name(), graph, Some(compiled));
            // SAFETY: the caller's contract.
            unsafe { copy_out(json.as_bytes(), true, buffer.cast(), capacity, needed) }
        })
    })
}

/// Receives bytes of a result streamed to the caller: `length` bytes at `bytes` (not
/// NUL-terminated). Return 0 to go on, anything else to stop (the call then fails with
/// `RPSL_STATUS_CALLBACK`).
pub type RpslWriteFn = Option<
    unsafe extern "C" fn(bytes: *const c_char, length: usize, user_data: *mut c_void) -> i32,
>;

/// Streams the last frame's JSON dump (as [`rpsl_session_frame_json`]) through `write` in
/// pieces, with `user_data` passed along.
///
/// # Safety
/// `write` is a function that may be called with `user_data`.
#[no_mangle]
pub unsafe extern "C" fn rpsl_session_write_frame_json(
    session: *const RpslSession,
    write: RpslWriteFn,
    user_data: *mut c_void,
) -> RpslStatus {
    boundary(|| {
        let Some(write) = write else {
            return fail(RpslStatus::NullPointer, "`write` is null");
        };
        handle::with(session, "session", |object| {
            let (graph, compiled) = object.last_frame()?;
            let sink = CallbackWriter {
                write,
                user_data,
                refused: None,
            };
            let result =
                rpsl::runtime::write_frame_json(sink, object.entry_name(), graph, Some(compiled));
            match result {
                Ok(_) => Ok(()),
                Err(error) => match error.get_ref().and_then(|e| e.downcast_ref::<Refused>()) {
                    Some(Refused(code)) => fail(
                        RpslStatus::Callback,
                        format!("the write callback returned {code}"),
                    ),
                    None => fail(RpslStatus::Io, error.to_string()),
                },
            }
        })
    })
}

/// A write callback's refusal to go on.
#[derive(Debug)]
struct Refused(i32);

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the write callback returned {}", self.0)
    }
}

impl std::error::Error for Refused {}

/// An `io::Write` over a C write callback.
struct CallbackWriter {
    write: unsafe extern "C" fn(*const c_char, usize, *mut c_void) -> i32,
    user_data: *mut c_void,
    refused: Option<i32>,
}

impl std::io::Write for CallbackWriter {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        if let Some(code) = self.refused {
            return Err(std::io::Error::other(Refused(code)));
        }
        // SAFETY: the caller of rpsl_session_write_frame_json vouched for `write` and
        // `user_data`; `bytes` is valid for its length during the call.
        let code = unsafe { (self.write)(bytes.as_ptr().cast(), bytes.len(), self.user_data) };
        if code != 0 {
            self.refused = Some(code);
            return Err(std::io::Error::other(Refused(code)));
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
