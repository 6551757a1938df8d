//! `rpsl run FILE`: runs an entry point for N frames on a backend (`null` today) and writes the
//! JSON dump of every frame with `--dump PATH` (`-` for stdout).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use rpsl::runtime::DumpWriter;

use super::frames::{self, Backend, FrameOptions, EXIT_RUNTIME};

/// Options of `rpsl run`.
#[derive(Args, Debug)]
pub struct RunArgs {
    #[command(flatten)]
    options: FrameOptions,
    /// Where the graph runs.
    #[arg(long, value_enum, default_value = "vulkan")]
    backend: Backend,
    /// Frames to run; frame i passes frameIndex = i.
    #[arg(long, default_value_t = 1)]
    frames: u64,
    /// Write the JSON graph dump of every frame here (`-` for stdout).
    #[arg(long)]
    dump: Option<PathBuf>,
}

/// Runs the command.
pub fn run(args: &RunArgs) -> ExitCode {
    if args.backend == Backend::Vulkan {
        return frames::usage_error(
            "the Vulkan backend is not available yet; use `--backend null`",
        );
    }
    if let Err(code) = frames::session_options(&args.options) {
        return code;
    }
    let program = match frames::load_program(&args.options.file) {
        Ok(program) => program,
        Err(code) => return code,
    };
    let (mut session, entry_args) = match frames::start(&program, &args.options) {
        Ok(started) => started,
        Err(code) => return code,
    };
    let mut dump = args
        .dump
        .as_ref()
        .map(|_| DumpWriter::new(&session.entry().name));
    let mut failed = false;
    for _ in 0..args.frames {
        match session.run_frame(&entry_args) {
            Ok(frame) => {
                if let Some(dump) = dump.as_mut() {
                    dump.add_frame(frame.graph, Some(frame.compiled));
                }
            }
            Err(error) => {
                eprint!("{}", error.render());
                failed = true;
                break;
            }
        }
    }
    if let (Some(path), Some(dump)) = (&args.dump, dump) {
        let text = dump.finish();
        let written = if path.as_os_str() == "-" {
            print!("{text}");
            Ok(())
        } else {
            std::fs::write(path, text)
        };
        if let Err(error) = written {
            eprintln!("error: cannot write `{}`: {error}", path.display());
            return ExitCode::from(EXIT_RUNTIME);
        }
    }
    if failed {
        ExitCode::from(EXIT_RUNTIME)
    } else {
        ExitCode::SUCCESS
    }
}
