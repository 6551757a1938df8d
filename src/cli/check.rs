//! `rpsl check FILE...`: diagnostics on stderr (the frontend's, then the lowering's), exit 0
//! when every file is clean; `--emit hir`
//! or `--emit bytecode` prints an intermediate form of each clean file.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::ValueEnum;

/// Intermediate forms `rpsl check --emit` can print.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum Emit {
    /// The typed, resolved module.
    Hir,
    /// The disassembly of the lowered, verified bytecode.
    Bytecode,
}

pub fn run(
    files: &[PathBuf],
    emit: Option<Emit>,
    deny_warnings: bool,
    include_dirs: &[PathBuf],
) -> ExitCode {
    let policy = super::frames::include_policy(include_dirs);
    let mut failed = false;
    let stdout = std::io::stdout();
    let stderr = std::io::stderr();
    for path in files {
        let compilation = rpsl::frontend::check_file_with(path, &policy);
        let has_errors =
            compilation.has_errors() || (deny_warnings && !compilation.diagnostics.is_empty());
        if !compilation.diagnostics.is_empty() {
            let mut err = stderr.lock();
            let _ = write!(err, "{}", compilation.render_diagnostics());
        }
        failed |= has_errors;
        if has_errors {
            continue;
        }
        let mut out = stdout.lock();
        if let (Some(Emit::Hir), Some(module)) = (emit, &compilation.module) {
            let _ = write!(out, "{module}");
        }
        // Lowering finds what only whole functions show (a frame of locals past the VM's
        // limit): `check` reports everything `run` would refuse before the first frame.
        match rpsl::Program::from_compilation(compilation) {
            Ok(program) => {
                if let Some(Emit::Bytecode) = emit {
                    let _ = write!(out, "{}", program.disassembly());
                }
            }
            Err(error) => {
                let mut err = stderr.lock();
                let _ = write!(err, "{}", error.rendered);
                failed = true;
            }
        }
    }
    if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
