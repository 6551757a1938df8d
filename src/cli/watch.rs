//! `rpsl run FILE --watch`: renders, then waits for an edit of the script, one of its includes
//! or a file of the shader directory, and renders again — rewriting the `--out` files — until
//! Ctrl-C. A script edit that does not compile prints its diagnostic and keeps the last good
//! pictures; the next edit is tried again. Each render prints one line with the time from the
//! edit (the edited file's modification time) to the pictures written.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, SystemTime};

use rpsl::HotScript;

use super::reload_probe::ReloadProbe;

use std::io::Write as _;

use super::effect_nodes::HotEffects;
use super::frames::{self, Backend, EXIT_RUNTIME};
use super::output::{Destination, Output};
use super::run::{parse_outs, vulkan_options, RunArgs};
use super::run_vulkan::{script_node_names, VulkanRunner};

/// How often the files are looked at.
const POLL: Duration = Duration::from_millis(25);

/// A file's modification time and size: a change of either is an edit.
type Stamp = (PathBuf, Option<SystemTime>, u64);

/// Extensions of shader sources and the headers they include: the files of the shader folder
/// an edit of which renders again (not the pictures or logs that may land there).
const SHADER_EXTENSIONS: &[&str] = &[
    "comp", "frag", "vert", "geom", "tesc", "tese", "hlsl", "hlsli", "glsl", "h", "inc",
];

/// The shader files of `dir` (not its subfolders) with their stamps, sorted.
fn folder_stamps(dir: &Path) -> Vec<Stamp> {
    let mut stamps: Vec<Stamp> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(|entry| entry.ok())
                .filter(|entry| {
                    entry
                        .path()
                        .extension()
                        .and_then(|ext| ext.to_str())
                        .is_some_and(|ext| SHADER_EXTENSIONS.contains(&ext))
                })
                .filter_map(|entry| {
                    let meta = entry.metadata().ok()?;
                    meta.is_file()
                        .then(|| (entry.path(), meta.modified().ok(), meta.len()))
                })
                .collect()
        })
        .unwrap_or_default();
    stamps.sort();
    stamps
}

/// The newest modification time of `files` (now when none can be read).
fn newest(files: impl Iterator<Item = PathBuf>) -> SystemTime {
    files
        .filter_map(|path| {
            std::fs::metadata(path)
                .and_then(|meta| meta.modified())
                .ok()
        })
        .max()
        .unwrap_or_else(SystemTime::now)
}

/// What changed on disk, found by [`EditWatcher::poll`].
#[derive(Clone, Debug)]
pub(super) struct Edit {
    /// `script edit`, `effect edit` (an effect file of a node, or one it includes) or
    /// `shader edit`.
    pub why: &'static str,
    /// When: the newest modification time of the edited files.
    pub changed_at: SystemTime,
}

/// Notices edits of a [`HotScript`]'s files (reloading it) and of the shader folder's files:
/// the one change detection of `--watch` and `--window`.
pub(super) struct EditWatcher {
    shader_dir: PathBuf,
    shaders: Vec<Stamp>,
    last_poll: Option<std::time::Instant>,
}

impl EditWatcher {
    /// Watches `shader_dir` (as it is now) besides the script's own files.
    pub fn new(shader_dir: PathBuf) -> EditWatcher {
        EditWatcher {
            shaders: folder_stamps(&shader_dir),
            shader_dir,
            last_poll: None,
        }
    }

    /// The shader files of the folder as last seen, sorted.
    pub fn shader_files(&self) -> impl Iterator<Item = &Path> {
        self.shaders.iter().map(|(path, _, _)| path.as_path())
    }

    /// Looks at the files, at most once per [`POLL`] (`None` in between): a script edit that
    /// compiles is swapped in (`Some`), one that does not prints its diagnostic and keeps the
    /// last good program (`None`); a shader file added, removed or changed is an edit.
    pub fn poll(&mut self, script: &mut HotScript) -> Option<Edit> {
        let now = std::time::Instant::now();
        if self
            .last_poll
            .is_some_and(|last| now.duration_since(last) < POLL)
        {
            return None;
        }
        self.last_poll = Some(now);
        let reloaded = script.reload_if_changed();
        // Files of the folder the script watches (effect files and their includes) are its
        // edits, not shader edits, also when the reload failed.
        let stamps = folder_stamps(&self.shader_dir);
        let covered = |path: &Path| {
            script
                .watched_files()
                .chain(script.retry_files())
                .any(|watched| same_file(watched, path))
        };
        let shader_edits: Vec<PathBuf> = stamps
            .iter()
            .filter(|stamp| !self.shaders.contains(stamp))
            .chain(self.shaders.iter().filter(|stamp| !stamps.contains(stamp)))
            .map(|(path, _, _)| path.clone())
            .filter(|path| !covered(path))
            .collect();
        self.shaders = stamps;
        match reloaded {
            Ok(true) => return Some(reload_edit(script)),
            Ok(false) => {}
            Err(error) => keep_last_frame(&error.to_string()),
        }
        if shader_edits.is_empty() {
            return None;
        }
        Some(Edit {
            why: "shader edit",
            changed_at: newest(shader_edits.into_iter()),
        })
    }
}

/// Whether `a` and `b` name the same file (compared as written when either cannot be resolved).
fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

/// The edit a reload of `script` picked up: its newest file, an effect edit when that is not
/// a file of the program (the script or an include) but one the effect nodes watch.
fn reload_edit(script: &HotScript) -> Edit {
    let newest_file = script
        .watched_files()
        .filter_map(|path| {
            let modified = std::fs::metadata(path).and_then(|meta| meta.modified());
            Some((modified.ok()?, path))
        })
        .max_by_key(|(modified, _)| *modified);
    let Some((changed_at, path)) = newest_file else {
        return Edit {
            why: "script edit",
            changed_at: SystemTime::now(),
        };
    };
    let files = script.program().files();
    let of_program = (0..files.len() as u32)
        .any(|id| files.get(rpsl::frontend::source::FileId(id)).path == path);
    Edit {
        why: if of_program {
            "script edit"
        } else {
            "effect edit"
        },
        changed_at,
    }
}

/// Runs `rpsl run --watch`.
pub fn watch(args: &RunArgs) -> ExitCode {
    let (out_dir, named_out) = match parse_outs(&args.out) {
        Ok(outs) => outs,
        Err(message) => return frames::usage_error(&message),
    };
    if args.dump.is_some() || args.dump_html.is_some() {
        return frames::usage_error("`--dump` and `--dump-html` do not go with `--watch`");
    }
    let on_vulkan = args.backend == Backend::Vulkan;
    let (mut script, effects) = match open_script(args, on_vulkan) {
        Ok(opened) => opened,
        Err(code) => return code,
    };
    script.keep_resources(named_out.iter().map(|out| out.name.clone()));
    let mut vulkan = None;
    if on_vulkan {
        let options = vulkan_options(args, script.program(), out_dir, named_out);
        match VulkanRunner::new(options) {
            Ok(mut runner) => {
                effects.bind_new(runner.backend_mut());
                vulkan = Some(runner);
            }
            Err(code) => return code,
        }
    }
    let mut log = match Output::open("the watch log", Destination::Stdout) {
        Ok(log) => log,
        Err(error) => return error.report(ExitCode::SUCCESS),
    };
    match watch_loop(args, &mut script, &effects, vulkan.as_mut(), &mut log) {
        Ok(()) => ExitCode::SUCCESS,
        Err(code) => code,
    }
}

/// Opens the script of `rpsl run` as a [`HotScript`] with its effect nodes (their passes
/// compiled when `on_vulkan`; diagnostics printed: exit 1).
pub(super) fn open_script(
    args: &RunArgs,
    on_vulkan: bool,
) -> Result<(HotScript, HotEffects), ExitCode> {
    let mut options = frames::session_options(&args.options)?;
    // A window or a watched script keeps going: a search must not stall it.
    options.memory_refinement =
        frames::memory_refinement(args.options.memory_refinement, args.window || args.watch);
    let policy = frames::include_policy(&args.options.include_dirs);
    let mut script = HotScript::open_with(
        &args.options.file,
        args.options.entry.as_deref(),
        options,
        &args.options.args,
        policy,
    )
    .map_err(|error| {
        diag!("{error}");
        ExitCode::from(1)
    })?;
    let effects = HotEffects::install(&mut script, args.shader_dir(), on_vulkan)?;
    Ok((script, effects))
}

/// Binds on `runner` what a reload of `script` brought: shaders of new nodes (or of nodes whose
/// shader file just appeared) and the effect nodes' new passes.
pub(super) fn bind_reloaded(
    runner: &mut VulkanRunner,
    script: &HotScript,
    effects: &HotEffects,
) -> Result<(), ExitCode> {
    runner.bind_nodes(script_node_names(script.program()))?;
    effects.bind_new(runner.backend_mut());
    Ok(())
}

/// Renders, then renders again after every edit; returns only on a failure, or when
/// `--measure-reload` has measured.
fn watch_loop(
    args: &RunArgs,
    script: &mut HotScript,
    effects: &HotEffects,
    mut vulkan: Option<&mut VulkanRunner>,
    log: &mut Output,
) -> Result<(), ExitCode> {
    let mut watcher = EditWatcher::new(args.shader_dir());
    let mut probe = args
        .measure_reload
        .map(|edits| ReloadProbe::new(args, script, &watcher, edits));
    let mut edit = Edit {
        why: "start",
        changed_at: SystemTime::now(),
    };
    loop {
        render(
            script,
            vulkan.as_deref_mut(),
            log,
            args.frames.unwrap_or(1),
            edit.changed_at,
            edit.why,
        )?;
        if let Some(probe) = probe.as_mut() {
            if probe.rendered(log)? {
                return Ok(());
            }
        }
        // Wait for the next edit.
        edit = loop {
            std::thread::sleep(POLL);
            if let Some(edit) = watcher.poll(script) {
                if let Some(runner) = vulkan.as_deref_mut() {
                    bind_reloaded(runner, script, effects)?;
                }
                break edit;
            }
        };
    }
}

/// Runs `frames` frames of the script (on Vulkan when there is a runner, writing its outputs)
/// and prints one line: what changed and how long the new pictures took.
pub(super) fn render(
    script: &mut HotScript,
    mut vulkan: Option<&mut VulkanRunner>,
    log: &mut Output,
    frames: u64,
    changed_at: SystemTime,
    why: &str,
) -> Result<(), ExitCode> {
    let mut nodes = 0;
    for _ in 0..frames.max(1) {
        match script.run_frame() {
            Ok(frame) => {
                nodes = frame.graph.nodes.len();
                if let Some(runner) = vulkan.as_deref_mut() {
                    runner.execute(frame)?;
                }
            }
            Err(error) => {
                // A fault of the new program: the pictures stay the last good ones.
                keep_last_frame(&error.render());
                return Ok(());
            }
        }
    }
    if let Some(runner) = vulkan {
        runner.write_outputs()?;
    }
    report_render(log, why, nodes, changed_at, "written")
}

/// Prints `rendered (WHY): N nodes, T ms from the change to the WHAT frame` (and flushes).
pub(super) fn report_render(
    log: &mut Output,
    why: &str,
    nodes: usize,
    changed_at: SystemTime,
    what: &str,
) -> Result<(), ExitCode> {
    let elapsed = SystemTime::now()
        .duration_since(changed_at)
        .unwrap_or_default()
        .as_secs_f64()
        * 1000.0;
    let line = format!(
        "rendered ({why}): {nodes} nodes, {elapsed:.1} ms from the change to the {what} frame\n"
    );
    write_line(log, &line)
}

/// Writes a line of the log and flushes it (a failure: exit 3).
pub(super) fn write_line(log: &mut Output, line: &str) -> Result<(), ExitCode> {
    log.write_str(line)
        .and_then(|()| log.writer().flush().map_err(|error| log.failed(error)))
        .map_err(|error| error.report(ExitCode::from(EXIT_RUNTIME)))
}

/// Prints why the new program did not render (its diagnostic) and that the last good frame
/// stays.
pub(super) fn keep_last_frame(diagnostic: &str) {
    diagln!(
        "{}\n(the last good frame stays; waiting for the next edit)",
        diagnostic.trim_end()
    );
}
