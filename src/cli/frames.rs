//! Options shared by `run` and `graph` (entry, arguments, mode, scheduling) and the steps they
//! share: loading the program, choosing the entry, parsing `--arg`s, making a session.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, ValueEnum};
use rpsl::frontend::preprocess::IncludePolicy;
use rpsl::runtime::{CompileOptions, SchedulePreference};
use rpsl::{EntryArgs, MemoryRefinement, Mode, Program, Session, SessionError, SessionOptions};

/// Exit code of a script error (diagnostics on stderr).
pub const EXIT_SCRIPT: u8 = 1;
/// Exit code of a usage error.
pub const EXIT_USAGE: u8 = 2;
/// Exit code of a runtime or backend error.
pub const EXIT_RUNTIME: u8 = 3;

/// Where the graph is executed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Backend {
    /// No GPU: record and compile only.
    Null,
    /// Vulkan: a GPU, or Mesa's CPU driver (lavapipe) when there is none.
    Vulkan,
}

/// How the script executes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ModeArg {
    /// Native code through Cranelift (the default).
    Jit,
    /// The bytecode interpreter.
    Interp,
}

/// Scheduling preference.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ScheduleArg {
    /// Batch barriers, group queues, then save memory.
    Default,
    /// Keep call order.
    ProgramOrder,
    /// Minimise live transient memory.
    Memory,
    /// The default schedule, then up to 5% more batches spent on lowering memory.
    Balanced,
    /// The balanced schedule's batches, with levels and placement searched for least memory
    /// (slow: for a compile that is kept).
    Searched,
}

/// When a steady frame's plan is searched for less memory (`--memory-refinement`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum RefinementArg {
    /// Never.
    Off,
    /// On a background thread; a later frame takes the result.
    Background,
    /// On the frame thread, so the result arrives at a fixed frame.
    Blocking,
}

/// Options common to `run` and `graph`.
#[derive(Args, Debug)]
pub struct FrameOptions {
    /// The script.
    pub file: PathBuf,
    /// A directory `#include` may read from besides the script's own (searched after it, in
    /// order; repeatable).
    #[arg(short = 'I', long = "include-dir", value_name = "DIR")]
    pub include_dirs: Vec<PathBuf>,
    /// Exported function to run (default: `main`, else the only export).
    #[arg(long)]
    pub entry: Option<String>,
    /// An entry argument NAME=VALUE; repeatable (see docs/cli.md).
    #[arg(long = "arg", value_name = "NAME=VALUE")]
    pub args: Vec<String>,
    /// How the script executes (default: jit).
    #[arg(long, value_enum)]
    pub mode: Option<ModeArg>,
    /// Scheduling preference.
    #[arg(long, value_enum, default_value = "default")]
    pub schedule: ScheduleArg,
    /// Keep nodes whose results nobody uses.
    #[arg(long)]
    pub no_cull: bool,
    /// Run `async` nodes on the graphics queue too (one queue; compare GPU timings with and
    /// without to see what async compute overlaps).
    #[arg(long)]
    pub no_async: bool,
    /// Steps the script may take per frame, weighted by work (about one per bytecode
    /// instruction); a frame that needs more fails at the loop or call that passes it
    /// (default: 400000000, see docs/semantics.md, "Limits").
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub step_budget: Option<u64>,
    /// Run the script and compile every frame, even when nothing it can see has changed since
    /// the last frame (by default such a frame repeats the last one; see docs/semantics.md,
    /// "Frame reuse").
    #[arg(long)]
    pub no_frame_reuse: bool,
    /// When a graph structure has repeated for 30 frames, compile it again with the searched
    /// schedule and use that plan from then on if it needs less transient memory, then again
    /// every 30 frames with other seeds, 8 attempts at most (default: blocking, so the same run
    /// always gives the same frames; `background` with --window or --watch).
    #[arg(long, value_enum, value_name = "WHEN")]
    pub memory_refinement: Option<RefinementArg>,
}

/// A usage error: `error: MESSAGE` on stderr, exit 2.
pub fn usage_error(message: &str) -> ExitCode {
    diagln!("error: {message}");
    ExitCode::from(EXIT_USAGE)
}

/// Loads the program, printing diagnostics; `Err` carries the exit code.
pub fn load_program(options: &FrameOptions) -> Result<Program, ExitCode> {
    match Program::from_file_with(&options.file, &include_policy(&options.include_dirs)) {
        Ok(program) => {
            diag!("{}", program.warnings());
            Ok(program)
        }
        Err(error) => {
            diag!("{}", error.rendered);
            Err(ExitCode::from(EXIT_SCRIPT))
        }
    }
}

/// The include policy of `-I DIR` flags: those directories besides the script's own.
pub fn include_policy(include_dirs: &[PathBuf]) -> IncludePolicy {
    IncludePolicy {
        include_dirs: include_dirs.to_vec(),
        ..IncludePolicy::default()
    }
}

/// The session options of the command line.
pub fn session_options(options: &FrameOptions) -> Result<SessionOptions, ExitCode> {
    let mode = match options.mode {
        None | Some(ModeArg::Jit) => Mode::Jit,
        Some(ModeArg::Interp) => Mode::Interp,
    };
    let schedule = match options.schedule {
        ScheduleArg::Default => SchedulePreference::Default,
        ScheduleArg::ProgramOrder => SchedulePreference::ProgramOrder,
        ScheduleArg::Memory => SchedulePreference::Memory,
        ScheduleArg::Balanced => SchedulePreference::Balanced,
        ScheduleArg::Searched => SchedulePreference::Searched,
    };
    Ok(SessionOptions {
        mode,
        compile: CompileOptions {
            schedule,
            cull: !options.no_cull,
            async_compute: !options.no_async,
            ..CompileOptions::default()
        },
        limits: step_limits(options.step_budget),
        reuse_unchanged_frames: !options.no_frame_reuse,
        memory_refinement: memory_refinement(options.memory_refinement, false),
        ..SessionOptions::default()
    })
}

/// The memory refinement of `--memory-refinement`, when given; otherwise blocking (a run gives
/// the same frames every time), or in the background for a `window` that should not stall.
pub fn memory_refinement(choice: Option<RefinementArg>, window: bool) -> MemoryRefinement {
    let after_frames = MemoryRefinement::DEFAULT_AFTER_FRAMES;
    match choice {
        Some(RefinementArg::Off) => MemoryRefinement::Off,
        Some(RefinementArg::Background) => MemoryRefinement::Background { after_frames },
        Some(RefinementArg::Blocking) => MemoryRefinement::Blocking { after_frames },
        None if window => MemoryRefinement::Background { after_frames },
        None => MemoryRefinement::Blocking { after_frames },
    }
}

/// The script limits with the `--step-budget` of the command line, when given.
pub fn step_limits(step_budget: Option<u64>) -> rpsl::vm::Limits {
    let defaults = rpsl::vm::Limits::default();
    rpsl::vm::Limits {
        step_budget: step_budget.unwrap_or(defaults.step_budget),
        ..defaults
    }
}

/// Makes the session and parses the arguments of its entry point.
pub fn start<'p>(
    program: &'p Program,
    options: &FrameOptions,
) -> Result<(Session<'p>, EntryArgs), ExitCode> {
    let session_options = session_options(options)?;
    let session =
        Session::new(program, options.entry.as_deref(), session_options).map_err(|error| {
            match error {
                SessionError::Entry(error) => usage_error(&error.message),
                other => {
                    diagln!("error: {other}");
                    ExitCode::from(EXIT_RUNTIME)
                }
            }
        })?;
    let args = EntryArgs::parse(program, session.entry(), &options.args)
        .map_err(|error| usage_error(&error.message))?;
    Ok((session, args))
}
