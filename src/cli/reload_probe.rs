//! `rpsl run --measure-reload N` (with `--watch` behaviour, headless or `--window`): measures
//! the edit-to-new-frame latency. After each new frame it makes the next edit itself, one
//! script edit then one shader edit (a trailing comment, different each time, so the file really
//! changes, and never to a text an earlier run wrote: each shader edit really compiles), times
//! from the write to the next new frame (written, or presented in the window),
//! and after N edits of each kind prints the figures, puts the files back as they were and ends.
//! The shader edited is the first shader file of the shader folder named after a node of the
//! script; without one only the script is edited.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use rpsl::HotScript;

use super::frames::EXIT_RUNTIME;
use super::output::Output;
use super::run::RunArgs;
use super::run_vulkan::script_node_names;
use super::watch::{write_line, EditWatcher};

/// A file the probe edits, with the text it is put back to.
struct Edited {
    path: PathBuf,
    original: String,
    /// Latencies of its edits, in milliseconds.
    latencies: Vec<f64>,
}

/// The running measurement.
pub(super) struct ReloadProbe {
    /// Edits of each kind to make.
    edits: usize,
    script: Edited,
    shader: Option<Edited>,
    /// The file edited last (0: script, 1: shader) and when, until its frame is there.
    pending: Option<(usize, Instant)>,
    /// Edits made so far (numbers the comments).
    made: usize,
    /// Makes this run's comments its own (the process id and start time), so no edit finds its
    /// text in the shader cache from an earlier run.
    run_tag: String,
    restored: bool,
}

impl ReloadProbe {
    /// A probe making `edits` edits of the script of `args` and of its first shader.
    pub fn new(
        args: &RunArgs,
        script: &HotScript,
        watcher: &EditWatcher,
        edits: u32,
    ) -> ReloadProbe {
        let nodes = script_node_names(script.program());
        let shader = watcher
            .shader_files()
            .find(|path| {
                let stem = path
                    .file_name()
                    .and_then(|name| name.to_str())
                    .and_then(|name| name.split('.').next())
                    .unwrap_or_default();
                nodes.iter().any(|node| node == stem)
            })
            .and_then(|path| Edited::of(path.to_path_buf()));
        let script = Edited::of(args.options.file.clone()).unwrap_or(Edited {
            path: args.options.file.clone(),
            original: String::new(),
            latencies: Vec::new(),
        });
        ReloadProbe {
            edits: edits as usize,
            script,
            shader,
            pending: None,
            made: 0,
            run_tag: format!(
                "{}-{}",
                std::process::id(),
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .unwrap_or_default()
                    .as_nanos()
            ),
            restored: false,
        }
    }

    fn files(&mut self) -> [Option<&mut Edited>; 2] {
        [Some(&mut self.script), self.shader.as_mut()]
    }

    /// Called when a new frame is there (written or presented): takes the time of the edit it
    /// shows, then makes the next edit; `Ok(true)` once every edit was measured (the figures
    /// are printed and the files put back).
    pub fn rendered(&mut self, log: &mut Output) -> Result<bool, ExitCode> {
        if let Some((file, at)) = self.pending.take() {
            let elapsed = at.elapsed().as_secs_f64() * 1000.0;
            if let Some(edited) = &mut self.files()[file] {
                edited.latencies.push(elapsed);
            }
        }
        let kinds = if self.shader.is_some() { 2 } else { 1 };
        if self.made == self.edits * kinds {
            self.restore()?;
            write_line(log, &self.summary())?;
            return Ok(true);
        }
        let file = self.made % kinds;
        let comment = format!("\n// rpsl reload probe {} {}\n", self.run_tag, self.made);
        self.made += 1;
        let Some(edited) = &mut self.files()[file] else {
            return Ok(true);
        };
        let text = format!("{}{comment}", edited.original);
        let path = edited.path.clone();
        std::fs::write(&path, text).map_err(|error| {
            diagln!("error: cannot edit `{}`: {error}", path.display());
            ExitCode::from(EXIT_RUNTIME)
        })?;
        self.pending = Some((file, Instant::now()));
        Ok(false)
    }

    /// Puts the edited files back as they were.
    fn restore(&mut self) -> Result<(), ExitCode> {
        self.restored = true;
        for edited in self.files().into_iter().flatten() {
            std::fs::write(&edited.path, &edited.original).map_err(|error| {
                diagln!("error: cannot restore `{}`: {error}", edited.path.display());
                ExitCode::from(EXIT_RUNTIME)
            })?;
        }
        Ok(())
    }

    /// `reload latency (edit to new frame, N edits each): script edit median ...`.
    fn summary(&self) -> String {
        let mut parts = vec![figures("script edit", &self.script.latencies)];
        match &self.shader {
            Some(shader) => parts.push(figures("shader edit", &shader.latencies)),
            None => parts.push("no shader edit (no shader file of a node)".to_string()),
        }
        format!(
            "reload latency (edit to new frame, {} edits each): {}\n",
            self.edits,
            parts.join("; ")
        )
    }
}

impl Drop for ReloadProbe {
    fn drop(&mut self) {
        // Ended early (Ctrl-C in the window, a failure): the files are put back all the same.
        if !self.restored {
            let _ = self.restore();
        }
    }
}

impl Edited {
    fn of(path: PathBuf) -> Option<Edited> {
        let original = std::fs::read_to_string(&path).ok()?;
        Some(Edited {
            path,
            original,
            latencies: Vec::new(),
        })
    }
}

/// `KIND median M ms (min A, max B)` of `latencies` (milliseconds).
fn figures(kind: &str, latencies: &[f64]) -> String {
    let mut sorted = latencies.to_vec();
    sorted.sort_by(f64::total_cmp);
    match (sorted.first(), sorted.last()) {
        (Some(min), Some(max)) => format!(
            "{kind} median {:.1} ms (min {min:.1}, max {max:.1})",
            sorted[sorted.len() / 2]
        ),
        _ => format!("{kind}: none measured"),
    }
}

#[cfg(test)]
mod tests {
    use super::figures;

    #[test]
    fn figures_give_the_median_and_range() {
        assert_eq!(
            figures("script edit", &[30.0, 10.0, 20.0]),
            "script edit median 20.0 ms (min 10.0, max 30.0)"
        );
        assert_eq!(figures("shader edit", &[]), "shader edit: none measured");
    }
}
