//! The one way the CLI writes its results: every write to stdout or to a file named on the
//! command line goes through an [`Output`], whose failures become
//! `error: cannot write WHAT to WHERE: IO ERROR` and exit 3 (see `docs/cli.md`, "Output").
//!
//! A closed pipe on the reading side (`rpsl graph x.rpsl | head -c 10`) is not an error: the
//! command stops writing, prints nothing more and exits as it would otherwise (0 on success).
//! Diagnostics go to stderr through `diag!` and `diagln!` (`cli/mod.rs`), which drop what
//! stderr cannot take (there is nowhere left to report it) instead of panicking.

use std::fmt;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use super::frames::EXIT_RUNTIME;

/// Where an output goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Destination {
    /// The process's standard output.
    Stdout,
    /// A file, created (or truncated) when the output opens.
    File(PathBuf),
}

impl Destination {
    /// `path` when one is given (`-` meaning stdout), else stdout.
    pub fn from_option(path: Option<&Path>) -> Destination {
        match path {
            Some(path) if path.as_os_str() != "-" => Destination::File(path.to_path_buf()),
            _ => Destination::Stdout,
        }
    }
}

impl fmt::Display for Destination {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Destination::Stdout => f.write_str("stdout"),
            Destination::File(path) => write!(f, "`{}`", path.display()),
        }
    }
}

/// A write that failed: what was being written, where, and the I/O error.
#[derive(Debug)]
pub struct OutputError {
    what: &'static str,
    destination: Destination,
    error: io::Error,
}

impl OutputError {
    /// The error of writing `what` to `destination`.
    pub fn new(what: &'static str, destination: Destination, error: io::Error) -> OutputError {
        OutputError {
            what,
            destination,
            error,
        }
    }

    /// Whether the reader of a pipe went away: the output ends quietly.
    pub fn is_closed_pipe(&self) -> bool {
        self.error.kind() == io::ErrorKind::BrokenPipe
    }

    /// Prints the error (nothing for a closed pipe) and returns the exit code: 3, or `otherwise`
    /// for a closed pipe (what the command returns when its output was not cut short).
    pub fn report(&self, otherwise: ExitCode) -> ExitCode {
        if self.is_closed_pipe() {
            return otherwise;
        }
        diagln!("{self}");
        ExitCode::from(EXIT_RUNTIME)
    }
}

impl fmt::Display for OutputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "error: cannot write {} to {}: {}",
            self.what, self.destination, self.error
        )
    }
}

/// A buffered output being written; [`Output::finish`] flushes it and reports the first error.
///
/// Writers (the JSON dump) write through [`Output::writer`] and hand their I/O error back with
/// [`Output::failed`]; text goes through [`Output::write_str`].
pub struct Output {
    what: &'static str,
    destination: Destination,
    writer: BufWriter<Box<dyn Write>>,
}

impl Output {
    /// Opens `destination` (creating a file) for `what` (`"the graph dump"`), as the error
    /// messages name it.
    pub fn open(what: &'static str, destination: Destination) -> Result<Output, OutputError> {
        let inner: Box<dyn Write> = match &destination {
            Destination::Stdout => Box::new(io::stdout()),
            Destination::File(path) => match File::create(path) {
                Ok(file) => Box::new(file),
                Err(error) => {
                    return Err(OutputError {
                        what,
                        destination,
                        error,
                    })
                }
            },
        };
        Ok(Output {
            what,
            destination,
            writer: BufWriter::with_capacity(64 * 1024, inner),
        })
    }

    /// The buffered writer, for code that writes and reports its own I/O errors.
    pub fn writer(&mut self) -> &mut BufWriter<Box<dyn Write>> {
        &mut self.writer
    }

    /// The error to report for an I/O error met while writing this output.
    pub fn failed(&self, error: io::Error) -> OutputError {
        OutputError {
            what: self.what,
            destination: self.destination.clone(),
            error,
        }
    }

    /// Writes text.
    pub fn write_str(&mut self, text: &str) -> Result<(), OutputError> {
        self.writer
            .write_all(text.as_bytes())
            .map_err(|error| self.failed(error))
    }

    /// Flushes everything written (a file is also closed).
    pub fn finish(mut self) -> Result<(), OutputError> {
        self.writer.flush().map_err(|error| self.failed(error))
    }
}

/// Writes `text` as the whole of an output: opened, written, flushed, each step checked.
pub fn write_whole(
    what: &'static str,
    destination: Destination,
    text: &str,
) -> Result<(), OutputError> {
    let mut output = Output::open(what, destination)?;
    output.write_str(text)?;
    output.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_output_the_place_and_the_error() {
        let error = OutputError {
            what: "the graph dump",
            destination: Destination::from_option(Some(Path::new("out/x.json"))),
            error: io::Error::from_raw_os_error(28),
        };
        assert_eq!(
            error.to_string(),
            "error: cannot write the graph dump to `out/x.json`: No space left on device (os error 28)"
        );
        assert!(!error.is_closed_pipe());
        assert_eq!(
            Destination::from_option(Some(Path::new("-"))),
            Destination::Stdout
        );
        assert_eq!(Destination::Stdout.to_string(), "stdout");
    }
}
