//! `rpsl check FILE...`: diagnostics on stderr (the frontend's, then the lowering's), exit 0
//! when every file is clean; `--emit hir`
//! or `--emit bytecode` prints an intermediate form of each clean file.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::ValueEnum;

use super::output::{Destination, Output};

/// Intermediate forms `rpsl check --emit` can print.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum Emit {
    /// The typed, resolved module.
    Hir,
    /// The disassembly of the lowered, verified bytecode.
    Bytecode,
}

impl Emit {
    /// What the output holds, as write errors name it.
    fn what(self) -> &'static str {
        match self {
            Emit::Hir => "the HIR",
            Emit::Bytecode => "the bytecode",
        }
    }
}

pub fn run(
    files: &[PathBuf],
    emit: Option<Emit>,
    deny_warnings: bool,
    include_dirs: &[PathBuf],
) -> ExitCode {
    let policy = super::frames::include_policy(include_dirs);
    let mut failed = false;
    let mut output = match emit {
        Some(emit) => match Output::open(emit.what(), Destination::Stdout) {
            Ok(output) => Some(output),
            Err(error) => return error.report(ExitCode::SUCCESS),
        },
        None => None,
    };
    for path in files {
        let compilation = rpsl::frontend::check_file_with(path, &policy);
        let has_errors =
            compilation.has_errors() || (deny_warnings && !compilation.diagnostics.is_empty());
        if !compilation.diagnostics.is_empty() {
            diag!("{}", compilation.render_diagnostics());
        }
        failed |= has_errors;
        if has_errors {
            continue;
        }
        let mut emitted = String::new();
        if let (Some(Emit::Hir), Some(module)) = (emit, &compilation.module) {
            emitted = module.to_string();
        }
        // Lowering finds what only whole functions show (a frame of locals past the VM's
        // limit): `check` reports everything `run` would refuse before the first frame.
        match rpsl::Program::from_compilation(compilation) {
            Ok(program) => {
                if let Some(Emit::Bytecode) = emit {
                    emitted = program.disassembly();
                }
            }
            Err(error) => {
                diag!("{}", error.rendered);
                failed = true;
            }
        }
        if let Some(output) = output.as_mut() {
            if let Err(error) = output.write_str(&emitted) {
                return error.report(exit_code(failed));
            }
        }
    }
    if let Some(output) = output {
        if let Err(error) = output.finish() {
            return error.report(exit_code(failed));
        }
    }
    exit_code(failed)
}

fn exit_code(failed: bool) -> ExitCode {
    if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
