//! The `rpsl` command line: `check`, `run`, `graph`, `bench` and `repl` (see `docs/cli.md`).
//!
//! Exit codes follow `docs/cli.md`: 0 success, 1 script error, 2 usage error, 3 runtime/backend error.

use std::process::ExitCode;

use clap::Parser;
use mimalloc::MiMalloc;

mod cli;

#[global_allocator]
static GLOBAL: MiMalloc = MiMalloc;

fn main() -> ExitCode {
    // When started as the sandboxed shader compiler child of another `rpsl`, serve that request
    // and exit; untrusted shader sources never crash or hang the main process.
    rpsl_vulkan::shader_node::shaders::child::serve_if_requested();
    let args = match cli::Cli::try_parse() {
        Ok(args) => args,
        Err(err) => return cli::not_parsed(err),
    };
    cli::run(args)
}
