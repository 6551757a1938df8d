//! `rpsl run FILE --watch`: renders, then waits for an edit of the script, one of its includes
//! or a file of the shader directory, and renders again — rewriting the `--out` files — until
//! Ctrl-C. A script edit that does not compile prints its diagnostic and keeps the last good
//! pictures; the next edit is tried again. Each render prints one line with the time from the
//! edit (the edited file's modification time) to the pictures written.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, SystemTime};

use rpsl::HotScript;

use std::io::Write as _;

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

/// Runs `rpsl run --watch`.
pub fn watch(args: &RunArgs) -> ExitCode {
    let (out_dir, named_out) = match parse_outs(&args.out) {
        Ok(outs) => outs,
        Err(message) => return frames::usage_error(&message),
    };
    if args.dump.is_some() || args.dump_html.is_some() {
        return frames::usage_error("`--dump` and `--dump-html` do not go with `--watch`");
    }
    let options = match frames::session_options(&args.options) {
        Ok(options) => options,
        Err(code) => return code,
    };
    let policy = frames::include_policy(&args.options.include_dirs);
    let mut script = match HotScript::open_with(
        &args.options.file,
        args.options.entry.as_deref(),
        options,
        &args.options.args,
        policy,
    ) {
        Ok(script) => script,
        Err(error) => {
            diag!("{error}");
            return ExitCode::from(1);
        }
    };
    script.keep_resources(named_out.iter().map(|out| out.name.clone()));
    let mut vulkan = None;
    if args.backend == Backend::Vulkan {
        let options = vulkan_options(args, script.program(), out_dir, named_out);
        match VulkanRunner::new(options) {
            Ok(runner) => vulkan = Some(runner),
            Err(code) => return code,
        }
    }
    let mut log = match Output::open("the watch log", Destination::Stdout) {
        Ok(log) => log,
        Err(error) => return error.report(ExitCode::SUCCESS),
    };
    match watch_loop(args, &mut script, vulkan.as_mut(), &mut log) {
        Ok(never) => match never {},
        Err(code) => code,
    }
}

/// Renders, then renders again after every edit; returns only on a failure.
fn watch_loop(
    args: &RunArgs,
    script: &mut HotScript,
    mut vulkan: Option<&mut VulkanRunner>,
    log: &mut Output,
) -> Result<std::convert::Infallible, ExitCode> {
    let shader_dir = args.shader_dir();
    let mut shaders = folder_stamps(&shader_dir);
    // When the change happened: the newest modification time of the edited files.
    let mut changed_at = SystemTime::now();
    let mut why = "start".to_string();
    loop {
        render(
            script,
            vulkan.as_deref_mut(),
            log,
            args.frames,
            changed_at,
            &why,
        )?;
        // Wait for the next edit.
        loop {
            std::thread::sleep(POLL);
            match script.reload_if_changed() {
                Ok(true) => {
                    changed_at = newest(script.watched_files().map(Path::to_path_buf));
                    why = "script edit".to_string();
                    if let Some(runner) = vulkan.as_deref_mut() {
                        runner.bind_nodes(script_node_names(script.program()))?;
                    }
                    break;
                }
                Ok(false) => {}
                Err(error) => keep_last_frame(&error.to_string()),
            }
            let now = folder_stamps(&shader_dir);
            if now != shaders {
                changed_at = newest(now.iter().map(|(path, _, _)| path.clone()));
                shaders = now;
                why = "shader edit".to_string();
                if let Some(runner) = vulkan.as_deref_mut() {
                    // A node whose shader file just appeared.
                    runner.bind_nodes(script_node_names(script.program()))?;
                }
                break;
            }
        }
    }
}

/// Runs `frames` frames of the script (on Vulkan when there is a runner, writing its outputs)
/// and prints one line: what changed and how long the new pictures took.
fn render(
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
    let elapsed = SystemTime::now()
        .duration_since(changed_at)
        .unwrap_or_default()
        .as_secs_f64()
        * 1000.0;
    let line = format!(
        "rendered ({why}): {nodes} nodes, {elapsed:.1} ms from the change to the written frame\n"
    );
    log.write_str(&line)
        .and_then(|()| log.writer().flush().map_err(|error| log.failed(error)))
        .map_err(|error| error.report(ExitCode::from(EXIT_RUNTIME)))?;
    Ok(())
}

/// Prints why the new program did not render (its diagnostic) and that the last good frame
/// stays.
fn keep_last_frame(diagnostic: &str) {
    diagln!(
        "{}\n(the last good frame stays; waiting for the next edit)",
        diagnostic.trim_end()
    );
}
