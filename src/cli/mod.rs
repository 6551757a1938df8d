//! Argument parsing and dispatch of the `rpsl` subcommands.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod bench;
mod check;
mod frames;
mod graph;
mod graph_html;
mod repl;
mod run;
mod run_vulkan;

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
    /// Interactive session: load a script, then type declarations and statements; each input
    /// runs the frame again and shows the nodes it added (`:help` lists the commands).
    Repl {
        /// A script to load first.
        file: Option<PathBuf>,
    },
    /// Time each phase (source to native code, graph building under JIT and interpreter, frame
    /// compilation with and without the cache) on the null backend.
    Bench(bench::BenchArgs),
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
        Command::Bench(args) => bench::run(&args),
        Command::Repl { file } => repl::run(file.as_deref()),
    }
}
