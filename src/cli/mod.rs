//! Argument parsing and dispatch of the `rpsl` subcommands.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// `eprint!` that cannot panic: a diagnostic stderr cannot take is dropped (there is nowhere
/// left to report it). Results go through `output::Output`.
macro_rules! diag {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = write!(std::io::stderr(), $($arg)*);
    }};
}

/// `eprintln!` that cannot panic (see `diag!`).
macro_rules! diagln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

mod bench;
mod check;
mod effect;
mod effect_nodes;
mod frames;
mod graph;
mod graph_page;
mod output;
mod reload_probe;
mod repl;
mod run;
mod run_vulkan;
mod watch;
mod window;

/// rpsl: a fast implementation of RPSL, the render-graph language of AMD's Render Pipeline Shaders.
#[derive(Parser, Debug)]
#[command(name = "rpsl", version, about)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Preprocess, parse, type-check and lower scripts to bytecode; exit 0 when clean, 1 with errors.
    Check {
        /// Scripts to check.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Print an intermediate form of each clean script instead of only checking it.
        #[arg(long, value_enum)]
        emit: Option<check::Emit>,
        /// Treat warnings as errors.
        #[arg(long)]
        deny_warnings: bool,
        /// A directory `#include` may read from besides each script's own (searched after it,
        /// in order; repeatable).
        #[arg(short = 'I', long = "include-dir", value_name = "DIR")]
        include_dirs: Vec<PathBuf>,
    },
    /// Run an entry point for N frames on a backend and optionally dump every frame's graph.
    Run(run::RunArgs),
    /// Print the compiled render graph of frame 0 as JSON, Graphviz dot or an HTML page.
    Graph(graph::GraphArgs),
    /// Apply MagpieFX effects (a chain) on Vulkan to an image or a folder of images.
    Effect(effect::EffectArgs),
    /// Interactive session: load a script, then type declarations and statements; each input
    /// runs the frame again and shows the nodes it added (`:help` lists the commands).
    Repl {
        /// A script to load first.
        file: Option<PathBuf>,
        /// Steps each frame may take, weighted by work (default: 400000000).
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
        step_budget: Option<u64>,
    },
    /// Time each phase (source to native code, graph building under JIT and interpreter, frame
    /// compilation with and without the cache) on the null backend.
    Bench(bench::BenchArgs),
}

/// What a command line clap did not accept becomes: a usage error on stderr (exit 2), or the
/// help or version text it asked for on stdout (exit 0; 3 when stdout cannot take it).
pub fn not_parsed(error: clap::Error) -> ExitCode {
    let usage_error = error.use_stderr();
    match error.print() {
        Ok(()) => ExitCode::from(if usage_error { 2 } else { 0 }),
        Err(_) if usage_error => ExitCode::from(2),
        Err(io_error) => {
            output::OutputError::new("the help", output::Destination::Stdout, io_error)
                .report(ExitCode::SUCCESS)
        }
    }
}

/// Runs a parsed command line and returns the process exit code.
pub fn run(cli: Cli) -> ExitCode {
    match cli.command {
        Command::Check {
            files,
            emit,
            deny_warnings,
            include_dirs,
        } => check::run(&files, emit, deny_warnings, &include_dirs),
        Command::Run(args) => run::run(&args),
        Command::Graph(args) => graph::run(&args),
        Command::Effect(args) => effect::run(&args),
        Command::Bench(args) => bench::run(&args),
        Command::Repl { file, step_budget } => repl::run(file.as_deref(), step_budget),
    }
}
