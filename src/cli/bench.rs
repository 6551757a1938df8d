//! `rpsl bench FILE`: per-phase timings of a script on the null backend, as a table or (with
//! `--json`) one JSON object with the figures of `docs/cli.md`: source to native code, graph
//! building under the JIT and the interpreter, frame compilation with and without the cache, and
//! the quality of the compiled frame (barrier batches, transitions, transient memory).
//!
//! Every per-frame figure is the median over the frames run; `jit_compile_us` is the median of
//! several complete compilations (read, preprocess, parse, check, lower, verify, Cranelift).

use std::path::Path;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::Args;
use rpsl::runtime::{CompileOptions, CompiledFrame, FrameCompiler, SchedulePreference};
use rpsl::{EntryArgs, FrameError, Mode, Program, Session, SessionError, SessionOptions};

use super::frames::{self, FrameOptions, EXIT_RUNTIME, EXIT_SCRIPT};
use super::output::{self, Destination};

/// Options of `rpsl bench`.
#[derive(Args, Debug)]
pub struct BenchArgs {
    #[command(flatten)]
    options: FrameOptions,
    /// Frames measured per phase (after one warm-up frame).
    #[arg(long, default_value_t = 50)]
    frames: u32,
    /// Complete source-to-native compilations timed for `jit_compile_us`.
    #[arg(long, default_value_t = 5)]
    compiles: u32,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    json: bool,
}

/// The figures `rpsl bench` reports.
#[derive(Debug, Default)]
struct Figures {
    nodes: usize,
    scheduled_nodes: usize,
    frames: u32,
    jit_compile_us: f64,
    build_us_per_frame_jit: f64,
    build_us_per_frame_interp: f64,
    compile_us_per_frame: f64,
    cached_compile_us: f64,
    cached_frame_us: f64,
    cache_hits: u32,
    run_frame_us: f64,
    repeated_frames: u32,
    batches: u32,
    transitions: u32,
    transient_bytes: u64,
    unaliased_bytes: u64,
    lower_bound_bytes: u64,
    /// The plan a steady frame ends with under memory refinement: the last graph compiled
    /// once under the searched schedule, and that compile's time.
    searched_compile_us: f64,
    searched_batches: u32,
    searched_transient_bytes: u64,
}

/// Runs the command.
pub fn run(args: &BenchArgs) -> ExitCode {
    let session_options = match frames::session_options(&args.options) {
        Ok(options) => options,
        Err(code) => return code,
    };
    if args.frames == 0 || args.compiles == 0 {
        return frames::usage_error("`--frames` and `--compiles` must be at least 1");
    }
    match measure(args, session_options) {
        Ok(figures) => {
            let text = if args.json {
                to_json(&figures) + "\n"
            } else {
                to_table(&figures)
            };
            match output::write_whole("the benchmark figures", Destination::Stdout, &text) {
                Ok(()) => ExitCode::SUCCESS,
                Err(error) => error.report(ExitCode::SUCCESS),
            }
        }
        Err(code) => code,
    }
}

fn measure(args: &BenchArgs, base: SessionOptions) -> Result<Figures, ExitCode> {
    let mut figures = Figures {
        frames: args.frames,
        ..Figures::default()
    };
    let (program, jit_compile) = compile_timed(&args.options.file, args, base)?;
    figures.jit_compile_us = micros(jit_compile);

    // The JIT: graph building, then the same graph compiled by a caching and a non-caching
    // compiler (the session's own compiler is not used: it would mix the two).
    let (mut session, entry_args) = start(&program, args, base, Mode::Jit)?;
    let mut uncached = FrameCompiler::new(CompileOptions {
        cache: false,
        ..base.compile
    });
    let mut cached = FrameCompiler::new(CompileOptions {
        cache: true,
        ..base.compile
    });
    let mut build = Vec::new();
    let mut cached_frame = Vec::new();
    let mut cached_compile = Vec::new();
    let mut compile = Vec::new();
    for frame in 0..=args.frames {
        let start = Instant::now();
        record(&mut session, &entry_args)?;
        let recorded = start.elapsed();
        let graph = session.builder().graph();
        let hit_start = Instant::now();
        let hit = compile_checked(&program, &mut cached, graph)?.cache_hit;
        let after_cached = Instant::now();
        let compiled = compile_checked(&program, &mut uncached, graph)?;
        let compiled_time = after_cached.elapsed();
        if frame == 0 {
            continue; // warm-up
        }
        build.push(recorded);
        cached_frame.push(after_cached - start);
        cached_compile.push(after_cached - hit_start);
        compile.push(compiled_time);
        figures.cache_hits += u32::from(hit);
        figures.nodes = graph.nodes.len();
        take_quality(&mut figures, compiled);
    }
    figures.build_us_per_frame_jit = median_us(&mut build);
    figures.cached_frame_us = median_us(&mut cached_frame);
    figures.cached_compile_us = median_us(&mut cached_compile);
    figures.compile_us_per_frame = median_us(&mut compile);
    // The plan memory refinement gives a steady frame (docs/semantics.md, "Memory refinement").
    let mut searched = FrameCompiler::new(CompileOptions {
        schedule: SchedulePreference::Searched,
        cache: false,
        ..base.compile
    });
    let graph = session.builder().graph();
    let search_start = Instant::now();
    let refined = compile_checked(&program, &mut searched, graph)?;
    figures.searched_compile_us = micros(search_start.elapsed());
    figures.searched_batches = refined.batches;
    figures.searched_transient_bytes = refined.memory.transient_bytes;

    // Whole frames as an application runs them (`Session::run_frame`): with frame reuse on
    // (unless `--no-frame-reuse`), a frame whose script sees nothing new repeats the last one.
    let (mut session, entry_args) = start(&program, args, base, Mode::Jit)?;
    let mut whole = Vec::new();
    for frame in 0..=args.frames {
        let start = Instant::now();
        session.run_frame(&entry_args).map_err(report)?;
        if frame > 0 {
            whole.push(start.elapsed());
        }
    }
    figures.run_frame_us = median_us(&mut whole);
    let frames_run = u64::from(args.frames) + 1;
    figures.repeated_frames = (frames_run - session.recordings()) as u32;

    let (mut session, entry_args) = start(&program, args, base, Mode::Interp)?;
    let mut build = Vec::new();
    for frame in 0..=args.frames {
        let start = Instant::now();
        record(&mut session, &entry_args)?;
        if frame > 0 {
            build.push(start.elapsed());
        }
    }
    figures.build_us_per_frame_interp = median_us(&mut build);
    Ok(figures)
}

/// Compiles the script from its file to native code `args.compiles` times; the median time and
/// the last program.
fn compile_timed(
    path: &Path,
    args: &BenchArgs,
    base: SessionOptions,
) -> Result<(Program, Duration), ExitCode> {
    let mut times = Vec::new();
    let mut last = None;
    for round in 0..args.compiles {
        let start = Instant::now();
        let policy = frames::include_policy(&args.options.include_dirs);
        let program = match Program::from_file_with(path, &policy) {
            Ok(program) => program,
            Err(error) => {
                diag!("{}", error.rendered);
                return Err(ExitCode::from(EXIT_SCRIPT));
            }
        };
        let session = new_session(&program, args, base, Mode::Jit)?;
        let elapsed = start.elapsed();
        drop(session);
        if round == 0 {
            diag!("{}", program.warnings());
        }
        times.push(elapsed);
        last = Some(program);
    }
    let median = median(&mut times);
    Ok((last.expect("at least one compilation"), median))
}

/// A session of `program` in `mode` (the command line's entry, schedule and culling).
fn new_session<'p>(
    program: &'p Program,
    args: &BenchArgs,
    base: SessionOptions,
    mode: Mode,
) -> Result<Session<'p>, ExitCode> {
    let options = SessionOptions { mode, ..base };
    Session::new(program, args.options.entry.as_deref(), options).map_err(|error| match error {
        SessionError::Entry(error) => frames::usage_error(&error.message),
        other => {
            diagln!("error: {other}");
            ExitCode::from(EXIT_RUNTIME)
        }
    })
}

/// A session in `mode` and the parsed `--arg`s of its entry point.
fn start<'p>(
    program: &'p Program,
    args: &BenchArgs,
    base: SessionOptions,
    mode: Mode,
) -> Result<(Session<'p>, EntryArgs), ExitCode> {
    let session = new_session(program, args, base, mode)?;
    let entry_args = EntryArgs::parse(program, session.entry(), &args.options.args)
        .map_err(|error| frames::usage_error(&error.message))?;
    Ok((session, entry_args))
}

fn record(session: &mut Session<'_>, args: &EntryArgs) -> Result<(), ExitCode> {
    session.record_frame(args).map(|_| ()).map_err(report)
}

fn compile_checked<'c>(
    program: &Program,
    compiler: &'c mut FrameCompiler,
    graph: &rpsl::runtime::RecordedGraph,
) -> Result<&'c CompiledFrame, ExitCode> {
    compiler
        .compile(graph)
        .map_err(|error| report(program.compile_error(graph, error)))
}

fn report(error: FrameError) -> ExitCode {
    diag!("{}", error.render());
    ExitCode::from(EXIT_RUNTIME)
}

fn take_quality(figures: &mut Figures, compiled: &CompiledFrame) {
    figures.scheduled_nodes = compiled.order.len();
    figures.batches = compiled.batches;
    figures.transitions = compiled.transitions;
    figures.transient_bytes = compiled.memory.transient_bytes;
    figures.unaliased_bytes = compiled.memory.unaliased_bytes;
    figures.lower_bound_bytes = compiled.memory.lower_bound_bytes;
}

fn median(times: &mut [Duration]) -> Duration {
    times.sort_unstable();
    match times.len() {
        0 => Duration::ZERO,
        n if n % 2 == 1 => times[n / 2],
        n => (times[n / 2 - 1] + times[n / 2]) / 2,
    }
}

fn median_us(times: &mut [Duration]) -> f64 {
    micros(median(times))
}

fn micros(duration: Duration) -> f64 {
    // Rounded to 0.01 us: below that the figure is noise.
    (duration.as_secs_f64() * 1e8).round() / 100.0
}

fn to_json(figures: &Figures) -> String {
    serde_json::json!({
        "nodes": figures.nodes,
        "scheduled_nodes": figures.scheduled_nodes,
        "frames": figures.frames,
        "jit_compile_us": figures.jit_compile_us,
        "build_us_per_frame_jit": figures.build_us_per_frame_jit,
        "build_us_per_frame_interp": figures.build_us_per_frame_interp,
        "compile_us_per_frame": figures.compile_us_per_frame,
        "cached_frame_us": figures.cached_frame_us,
        "cached_compile_us": figures.cached_compile_us,
        "cache_hits": figures.cache_hits,
        "run_frame_us": figures.run_frame_us,
        "repeated_frames": figures.repeated_frames,
        "batches": figures.batches,
        "transitions": figures.transitions,
        "transient_bytes": figures.transient_bytes,
        "unaliased_bytes": figures.unaliased_bytes,
        "lower_bound_bytes": figures.lower_bound_bytes,
        "searched_compile_us": figures.searched_compile_us,
        "searched_batches": figures.searched_batches,
        "searched_transient_bytes": figures.searched_transient_bytes,
    })
    .to_string()
}

fn to_table(f: &Figures) -> String {
    let ratio = if f.build_us_per_frame_jit > 0.0 {
        f.build_us_per_frame_interp / f.build_us_per_frame_jit
    } else {
        0.0
    };
    let mb = |bytes: u64| bytes as f64 / 1e6;
    format!(
        "nodes                      {} recorded, {} scheduled\n\
         frames measured            {}\n\
         source to native code      {:.1} us\n\
         graph building, JIT        {:.2} us/frame\n\
         graph building, interp     {:.2} us/frame ({ratio:.1}x the JIT)\n\
         frame compile (no cache)   {:.2} us/frame\n\
         cached frame               {:.2} us/frame (compile side {:.2} us, {} of {} hits)\n\
         run_frame                  {:.2} us/frame ({} of {} repeated unchanged)\n\
         barrier batches            {}\n\
         transitions                {}\n\
         transient memory           {:.2} MB (unaliased {:.2} MB, live-set bound {:.2} MB)\n\
         searched plan              {:.2} MB in {} batches (one searched compile: {:.0} us)\n",
        f.nodes,
        f.scheduled_nodes,
        f.frames,
        f.jit_compile_us,
        f.build_us_per_frame_jit,
        f.build_us_per_frame_interp,
        f.compile_us_per_frame,
        f.cached_frame_us,
        f.cached_compile_us,
        f.cache_hits,
        f.frames,
        f.run_frame_us,
        f.repeated_frames,
        f.frames,
        f.batches,
        f.transitions,
        mb(f.transient_bytes),
        mb(f.unaliased_bytes),
        mb(f.lower_bound_bytes),
        mb(f.searched_transient_bytes),
        f.searched_batches,
        f.searched_compile_us,
    )
}
