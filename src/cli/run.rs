//! `rpsl run FILE`: runs an entry point for N frames on a backend (`vulkan` by default, `null`
//! to record and compile only) and writes the JSON dump of every frame with `--dump PATH` (`-`
//! for stdout) and every frame into one graph explorer page with `--dump-html PATH`.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use rpsl::runtime::DumpWriter;

use super::effect_nodes::EffectNodes;
use super::frames::{self, Backend, FrameOptions, EXIT_RUNTIME};
use super::graph_page::ExplorerPage;
use super::output::{Destination, Output};
use super::run_vulkan::{
    script_node_names, shader_dir_of, NamedOutput, VulkanRunOptions, VulkanRunner,
};

/// Options of `rpsl run`.
#[derive(Args, Debug)]
pub struct RunArgs {
    #[command(flatten)]
    pub(super) options: FrameOptions,
    /// Where the graph runs.
    #[arg(long, value_enum, default_value = "vulkan")]
    pub(super) backend: Backend,
    /// Frames to run (default 1); frame i passes frameIndex = i. With `--window`: end after N
    /// presented frames (default: when the window is closed).
    #[arg(long, value_name = "N")]
    pub(super) frames: Option<u64>,
    /// Write the JSON graph dump of every frame here (`-` for stdout).
    #[arg(long)]
    pub(super) dump: Option<PathBuf>,
    /// Write every frame into one graph explorer page (HTML, docs/cli.md) here (`-` for stdout).
    #[arg(long, value_name = "PATH")]
    pub(super) dump_html: Option<PathBuf>,
    /// (vulkan) DIR: write every external texture of the last frame as DIR/<param>.png;
    /// NAME=FILE: write the last frame's resource NAME (any named texture or buffer, transients
    /// included) to FILE. Repeatable.
    #[arg(long, value_name = "DIR|NAME=FILE")]
    pub(super) out: Vec<String>,
    /// (vulkan) Khronos validation with synchronization validation; any message fails the run.
    #[arg(long)]
    pub(super) validate: bool,
    /// Nodes with no implementation run as empty passes instead of failing.
    #[arg(long)]
    pub(super) allow_unbound: bool,
    /// (vulkan) Print the GPU time of every node of the last frame (timestamp queries).
    #[arg(long)]
    pub(super) timings: bool,
    /// (vulkan) Where shader-bound nodes find their shaders (default: next to the script).
    #[arg(long, value_name = "DIR")]
    pub(super) shaders: Option<PathBuf>,
    /// Keep running: render again whenever the script, an include or a shader changes, and
    /// rewrite the `--out` files (a broken edit prints its diagnostic and keeps the last good
    /// pictures). Ends with Ctrl-C.
    #[arg(long)]
    pub(super) watch: bool,
    /// (vulkan) Present every frame in a window, re-rendering on every edit as `--watch` does;
    /// the title shows the frame's CPU and GPU times. Ends when the window is closed, on
    /// Ctrl-C or after `--frames N` presented frames.
    #[arg(long)]
    pub(super) window: bool,
    /// (window) The texture parameter to present (default: the entry's first texture
    /// parameter).
    #[arg(long, value_name = "NAME", requires = "window")]
    pub(super) present: Option<String>,
    /// (window, for tests) Write the first presented frame, and the first after each edit, as
    /// DIR/0.png, DIR/1.png, ... (read back from the presented image).
    #[arg(long, value_name = "DIR", requires = "window")]
    pub(super) window_capture: Option<PathBuf>,
    /// Measure the edit-to-new-frame latency: make N script edits and N shader edits (a
    /// trailing comment), each after the frame of the last, print the figures, put the files
    /// back and end. Works headless (as `--watch`) and with `--window`.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub(super) measure_reload: Option<u32>,
}

/// Splits the `--out` values into the one directory (`DIR`) and the named resources
/// (`NAME=FILE`: a value whose text before its first `=` is a resource name).
pub(super) fn parse_outs(values: &[String]) -> Result<(Option<PathBuf>, Vec<NamedOutput>), String> {
    let mut dir = None;
    let mut named: Vec<NamedOutput> = Vec::new();
    for value in values {
        let named_form = value.split_once('=').filter(|(name, _)| {
            !name.is_empty()
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "_.[]".contains(c))
        });
        match named_form {
            Some((_, "")) => return Err(format!("`--out {value}` names no file")),
            Some((name, file)) => {
                if named.iter().any(|out| out.name == name) {
                    return Err(format!("`--out` names `{name}` twice"));
                }
                named.push(NamedOutput {
                    name: name.to_string(),
                    file: PathBuf::from(file),
                });
            }
            None if dir.is_some() => {
                return Err("`--out DIR` is given twice (give one directory)".to_string())
            }
            None => dir = Some(PathBuf::from(value)),
        }
    }
    Ok((dir, named))
}

/// What `rpsl run`'s flags ask of the Vulkan backend for `program`.
pub(super) fn vulkan_options(
    args: &RunArgs,
    program: &rpsl::Program,
    out: Option<PathBuf>,
    named_out: Vec<NamedOutput>,
) -> VulkanRunOptions {
    VulkanRunOptions {
        validate: args.validate,
        allow_unbound: args.allow_unbound,
        out,
        named_out,
        timings: args.timings,
        shader_dir: args.shader_dir(),
        node_names: script_node_names(program),
    }
}

impl RunArgs {
    /// Where shader-bound nodes find their shaders: `--shaders`, else next to the script.
    pub(super) fn shader_dir(&self) -> PathBuf {
        self.shaders
            .clone()
            .unwrap_or_else(|| shader_dir_of(&self.options.file))
    }
}

/// Runs the command.
pub fn run(args: &RunArgs) -> ExitCode {
    if args.backend == Backend::Null {
        let vulkan_only = [
            (!args.out.is_empty(), "--out"),
            (args.validate, "--validate"),
            (args.timings, "--timings"),
        ];
        if let Some((_, flag)) = vulkan_only.iter().find(|(given, _)| *given) {
            return frames::usage_error(&format!("`{flag}` needs `--backend vulkan`"));
        }
    }
    if let Err(code) = frames::session_options(&args.options) {
        return code;
    }
    if args.window {
        return super::window::run(args);
    }
    if args.watch || args.measure_reload.is_some() {
        return super::watch::watch(args);
    }
    let program = match frames::load_program(&args.options) {
        Ok(program) => program,
        Err(code) => return code,
    };
    let (out_dir, named_out) = match parse_outs(&args.out) {
        Ok(outs) => outs,
        Err(message) => return frames::usage_error(&message),
    };
    let effect_nodes = match EffectNodes::load(&program, &args.shader_dir()) {
        Ok(nodes) => nodes,
        Err(code) => return code,
    };
    let (mut session, entry_args) = match frames::start(&program, &args.options) {
        Ok(started) => started,
        Err(code) => return code,
    };
    effect_nodes.install(&mut session);
    session.keep_resources(named_out.iter().map(|out| out.name.clone()));
    let mut vulkan = None;
    if args.backend == Backend::Vulkan {
        match VulkanRunner::new(vulkan_options(args, &program, out_dir, named_out)) {
            Ok(mut runner) => {
                if let Err(code) = effect_nodes.bind(&program, runner.backend_mut()) {
                    return code;
                }
                vulkan = Some(runner);
            }
            Err(code) => return code,
        }
    }
    // The dump streams frame by frame into its file (opened before the first frame) or stdout.
    let mut dump_output = match &args.dump {
        Some(path) => match Output::open(
            "the graph dump",
            Destination::from_option(Some(path.as_path())),
        ) {
            Ok(output) => Some(output),
            Err(error) => return error.report(ExitCode::SUCCESS),
        },
        None => None,
    };
    let entry = session.entry().name.clone();
    let mut dump_writer = dump_output
        .as_mut()
        .map(|output| DumpWriter::streaming(&entry, output.writer()));
    // The explorer page is written after the run (it holds every frame), into a file opened
    // now: a path that cannot be written fails before any frame runs, as `--dump` does.
    let page_output = match &args.dump_html {
        Some(path) => match Output::open(
            "the explorer page",
            Destination::from_option(Some(path.as_path())),
        ) {
            Ok(output) => Some(output),
            Err(error) => return error.report(ExitCode::SUCCESS),
        },
        None => None,
    };
    let mut page = page_output.as_ref().map(|_| ExplorerPage::new(&entry));
    let mut failure = None;
    for _ in 0..args.frames.unwrap_or(1) {
        match session.run_frame(&entry_args) {
            Ok(frame) => {
                if let Some(page) = page.as_mut() {
                    page.add_frame(frame.graph, frame.compiled);
                }
                if let Some(dump) = dump_writer.as_mut() {
                    dump.add_frame(frame.graph, Some(frame.compiled));
                    if dump.error().is_some() {
                        // The dump cannot be written: stop (reported below).
                        break;
                    }
                }
                if let Some(runner) = vulkan.as_mut() {
                    if let Err(code) = runner.execute(frame) {
                        failure = Some(code);
                        break;
                    }
                }
            }
            Err(error) => {
                diag!("{}", error.render());
                failure = Some(ExitCode::from(EXIT_RUNTIME));
                break;
            }
        }
    }
    // The dump ends before `--timings` prints (both may go to stdout).
    let closed = dump_writer.map(|dump| dump.close().map(|_| ()));
    let dumped = match (closed, dump_output) {
        (Some(closed), Some(output)) => closed
            .map_err(|error| output.failed(error))
            .and_then(|()| output.finish()),
        _ => Ok(()),
    };
    if let Some(runner) = vulkan {
        // After a failure the device still drains (its own errors are secondary).
        let finished = if failure.is_none() {
            runner.finish()
        } else {
            drop(runner);
            Ok(())
        };
        if let Err(code) = finished {
            failure = Some(code);
        }
    }
    let outcome = failure.unwrap_or(ExitCode::SUCCESS);
    let outcome = match dumped {
        Ok(()) => outcome,
        Err(error) => error.report(outcome),
    };
    // The explorer page holds every frame that ran, also when a later one failed.
    match (page, page_output) {
        (Some(page), Some(output)) => write_page(page, output, outcome),
        _ => outcome,
    }
}

/// Writes the explorer page after the run; `outcome` is the run's exit code.
fn write_page(page: ExplorerPage, mut output: Output, outcome: ExitCode) -> ExitCode {
    match output
        .write_str(&page.finish())
        .and_then(|()| output.finish())
    {
        Ok(()) => outcome,
        Err(error) => error.report(outcome),
    }
}
