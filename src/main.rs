//! The `rpsl` command line: `check` today; `run`, `graph`, `repl` and `bench` arrive with their issues.
//!
//! Exit codes follow `docs/cli.md`: 0 success, 1 script error, 2 usage error, 3 runtime/backend error.

use std::process::ExitCode;

use clap::Parser;
use mimalloc::MiMalloc;

mod cli;

#[global_allocator]
static GLOBAL: MiMalloc = MiMalloc;

fn main() -> ExitCode {
    let args = match cli::Cli::try_parse() {
        Ok(args) => args,
        Err(err) => {
            let usage_error = err.use_stderr();
            let _ = err.print();
            return ExitCode::from(if usage_error { 2 } else { 0 });
        }
    };
    cli::run(args)
}
