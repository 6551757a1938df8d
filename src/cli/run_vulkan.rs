//! `rpsl run --backend vulkan`: executes each compiled frame on the Vulkan backend (external
//! resources for the entry's texture/buffer and `out` parameters are created by the backend),
//! then writes the last frame's external textures as PNGs (`--out DIR`) and the resources named
//! by `--out NAME=FILE` (kept as outputs of every frame by the session), and prints per-node GPU
//! times (`--timings`). Backend failures (no device, validation messages, device loss, ...)
//! print `error: vulkan: ...` and exit 3.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use rpsl::runtime::{Backend, BackendError, QueueClass, RecordedGraph};
use rpsl::Frame;
use rpsl_vulkan::shader_node::{bind_shader_nodes, ShaderNodeOptions};
use rpsl_vulkan::{FrameTimings, VulkanBackend, VulkanOptions};

/// How long one shader may take to compile before its child process is killed.
const SHADER_COMPILE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(60);

use super::frames::EXIT_RUNTIME;
use super::output::{self, Destination};

/// What `rpsl run` asks of the Vulkan backend.
#[derive(Clone, Debug, Default)]
pub struct VulkanRunOptions {
    /// Validation layer with synchronization validation; any message fails the run.
    pub validate: bool,
    /// Nodes without an implementation run as empty passes.
    pub allow_unbound: bool,
    /// Where the last frame's external textures go as `<param>.png`.
    pub out: Option<PathBuf>,
    /// Resources of the last frame written to files of their own (`--out NAME=FILE`); the
    /// session must keep them ([`rpsl::Session::keep_resources`]).
    pub named_out: Vec<NamedOutput>,
    /// Print GPU time per node (timestamp queries).
    pub timings: bool,
    /// Where shader-bound nodes find `Name.comp`, `Name.frag`, ... (see docs/shaders.md).
    pub shader_dir: PathBuf,
    /// The script's own (not built-in) node names: those with shader files get bound.
    pub node_names: Vec<String>,
}

/// A resource `--out NAME=FILE` writes after the last frame: a texture as PNG, a buffer as its
/// bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NamedOutput {
    /// The resource's name in the frame.
    pub name: String,
    /// The file to write.
    pub file: PathBuf,
}

/// One external texture of the last frame: its parameter name.
#[derive(Clone, Debug)]
struct OutputTexture {
    name: String,
}

/// Drives frames through a [`VulkanBackend`].
pub struct VulkanRunner {
    backend: VulkanBackend,
    options: VulkanRunOptions,
    outputs: Vec<OutputTexture>,
    /// Per `--out NAME=FILE`, whether the last frame had it as a texture (`Some(true)`), a
    /// buffer (`Some(false)`), or not at all.
    named_kinds: Vec<Option<bool>>,
    frame_times_ns: Vec<f64>,
    last_timings: Option<FrameTimings>,
    /// The node names bound to shader files.
    bound: Vec<String>,
}

/// Shader-bound nodes compile in a child `rpsl` process (a crash or hang of the compiler on a
/// bad shader is an error, not the end of this process).
fn shader_options(shader_dir: &Path) -> Result<ShaderNodeOptions, ExitCode> {
    ShaderNodeOptions::new(shader_dir)
        .in_child_process(SHADER_COMPILE_TIMEOUT)
        .map_err(|error| {
            diagln!("error: shaders: {error}");
            ExitCode::from(EXIT_RUNTIME)
        })
}

/// Prints a backend error as `error: vulkan: ...` and returns exit code 3.
fn backend_failure(error: &BackendError) -> ExitCode {
    diagln!("error: vulkan: {error}");
    ExitCode::from(EXIT_RUNTIME)
}

impl VulkanRunner {
    /// Creates the device (validation, timestamps and unbound nodes as asked).
    pub fn new(options: VulkanRunOptions) -> Result<VulkanRunner, ExitCode> {
        let backend = VulkanBackend::new(VulkanOptions {
            validate: options.validate,
            allow_unbound: options.allow_unbound,
            timestamps: options.timings,
            frames_in_flight: 2,
            ..VulkanOptions::default()
        })
        .map_err(|error| backend_failure(&error))?;
        VulkanRunner::with_backend(backend, options)
    }

    /// A runner on a backend made elsewhere (on the window's device, `--window`).
    pub fn with_backend(
        mut backend: VulkanBackend,
        options: VulkanRunOptions,
    ) -> Result<VulkanRunner, ExitCode> {
        // Shaders compile in a child `rpsl` process (a crash or hang of the compiler on a bad
        // shader is an error, not the end of this process).
        let shader_options = shader_options(&options.shader_dir)?;
        let bound = bind_shader_nodes(&mut backend, shader_options, options.node_names.clone());
        if let Some(dir) = &options.out {
            if let Err(error) = std::fs::create_dir_all(dir) {
                diagln!("error: cannot create `{}`: {error}", dir.display());
                return Err(ExitCode::from(EXIT_RUNTIME));
            }
        }
        Ok(VulkanRunner {
            backend,
            options,
            outputs: Vec::new(),
            named_kinds: Vec::new(),
            frame_times_ns: Vec::new(),
            last_timings: None,
            bound,
        })
    }

    /// The backend (to bind more nodes on it, e.g. effect-bound ones, or to import images).
    pub fn backend_mut(&mut self) -> &mut VulkanBackend {
        &mut self.backend
    }

    /// Binds the shaders of those of `names` not bound yet (the nodes a reloaded script added,
    /// or whose shader files appeared since).
    pub fn bind_nodes(&mut self, names: Vec<String>) -> Result<(), ExitCode> {
        let new: Vec<String> = names
            .into_iter()
            .filter(|name| !self.bound.contains(name))
            .collect();
        if new.is_empty() {
            return Ok(());
        }
        let options = shader_options(&self.options.shader_dir)?;
        self.bound
            .extend(bind_shader_nodes(&mut self.backend, options, new));
        Ok(())
    }

    /// Executes one compiled frame.
    pub fn execute(&mut self, frame: Frame<'_>) -> Result<(), ExitCode> {
        self.backend
            .execute_frame(frame.graph, frame.compiled)
            .map_err(|error| backend_failure(&error))?;
        self.outputs = external_textures(frame.graph);
        self.named_kinds = self
            .options
            .named_out
            .iter()
            .map(|out| {
                frame
                    .graph
                    .resources
                    .iter()
                    .find(|r| r.external && r.name.as_deref() == Some(out.name.as_str()))
                    .map(|r| r.desc.kind.is_texture())
            })
            .collect();
        self.collect_timings();
        Ok(())
    }

    /// The GPU time of the newest frame completed since the last call, in nanoseconds (with
    /// timestamps on).
    pub fn newest_gpu_ns(&mut self) -> Option<f64> {
        let before = self.frame_times_ns.len();
        self.collect_timings();
        self.frame_times_ns[before..].last().copied()
    }

    fn collect_timings(&mut self) {
        for timings in self.backend.take_timings() {
            self.frame_times_ns.push(timings.frame_ns);
            self.last_timings = Some(timings);
        }
    }

    /// Waits for the last frames, writes `--out` PNGs and prints `--timings`.
    pub fn finish(mut self) -> Result<(), ExitCode> {
        self.write_outputs()?;
        if self.options.timings {
            match &self.last_timings {
                Some(timings) => {
                    let table = timing_table(timings, &self.frame_times_ns);
                    output::write_whole("the GPU timings", Destination::Stdout, &table)
                        .map_err(|error| error.report(ExitCode::SUCCESS))?;
                }
                None => diagln!("warning: no GPU timings were collected"),
            }
        }
        Ok(())
    }

    /// Waits for the frames in flight, then writes the last frame's `--out` files (the device
    /// stays open for more frames).
    pub fn write_outputs(&mut self) -> Result<(), ExitCode> {
        self.backend
            .wait_idle()
            .map_err(|error| backend_failure(&error))?;
        self.collect_timings();
        if let Some(dir) = self.options.out.clone() {
            for output in std::mem::take(&mut self.outputs) {
                self.write_png(&dir, &output)?;
            }
        }
        for (out, kind) in self
            .options
            .named_out
            .clone()
            .iter()
            .zip(std::mem::take(&mut self.named_kinds))
        {
            self.write_named(out, kind)?;
        }
        Ok(())
    }

    /// Writes `--out NAME=FILE`: a texture as PNG, a buffer as its bytes; `texture` says which
    /// the last frame had (`None`: no resource of that name).
    fn write_named(&mut self, out: &NamedOutput, texture: Option<bool>) -> Result<(), ExitCode> {
        let fail = |message: String| {
            diagln!(
                "error: --out {}={}: {message}",
                out.name,
                out.file.display()
            );
            ExitCode::from(EXIT_RUNTIME)
        };
        if let Some(parent) = out.file.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent)
                .map_err(|error| fail(format!("cannot create `{}`: {error}", parent.display())))?;
        }
        match texture {
            None => Err(fail(format!(
                "the last frame has no resource named `{}`",
                out.name
            ))),
            Some(true) => {
                let (width, height, pixels) = self
                    .backend
                    .read_rgba8(&out.name)
                    .map_err(|error| fail(error.to_string()))?;
                rpsl_vulkan::write_png(&out.file, width, height, &pixels)
                    .map_err(|error| fail(error.to_string()))
            }
            Some(false) => {
                let bytes = self
                    .backend
                    .read_external(&out.name)
                    .map_err(|error| fail(error.to_string()))?;
                std::fs::write(&out.file, bytes).map_err(|error| fail(error.to_string()))
            }
        }
    }

    fn write_png(&mut self, dir: &Path, output: &OutputTexture) -> Result<(), ExitCode> {
        let path = dir.join(format!("{}.png", file_name_of(&output.name)));
        let (width, height, pixels) = match self.backend.read_rgba8(&output.name) {
            Ok(image) => image,
            // A format PNG cannot show is skipped with a warning; real failures fail the run.
            Err(error @ BackendError::Unsupported(_)) => {
                diagln!("warning: `{}` is not written as PNG: {error}", output.name);
                return Ok(());
            }
            Err(error) => return Err(backend_failure(&error)),
        };
        rpsl_vulkan::write_png(&path, width, height, &pixels)
            .map_err(|error| backend_failure(&error))
    }
}

/// A resource name as a file name: characters other than letters, digits and `._-[]` become
/// `_`.
pub fn file_name_of(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "._-[]".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// Where shader-bound nodes of the script at `file` find their shaders by default: the
/// script's directory (`.` for a script in the current directory).
pub fn shader_dir_of(file: &Path) -> PathBuf {
    match file.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// The script's own node names (not the built-ins): those with shader files get bound.
pub fn script_node_names(program: &rpsl::Program) -> Vec<String> {
    program
        .hir()
        .nodes
        .iter()
        .filter(|node| !node.is_builtin)
        .map(|node| node.name.clone())
        .collect()
}

/// The named external textures of a frame (entry texture parameters and `out` parameters).
fn external_textures(graph: &RecordedGraph) -> Vec<OutputTexture> {
    graph
        .resources
        .iter()
        .filter(|record| record.external && record.desc.kind.is_texture())
        .filter_map(|record| record.name.clone())
        .map(|name| OutputTexture { name })
        .collect()
}

/// The `--timings` table: one row per node of the last frame, then the whole frame (last and
/// mean over the frames run).
fn timing_table(timings: &FrameTimings, frame_times_ns: &[f64]) -> String {
    use std::fmt::Write;
    let mut text = String::new();
    let _ = writeln!(
        text,
        "GPU timings of frame {} (microseconds)",
        timings.frame_index
    );
    let _ = writeln!(
        text,
        "{:>5}  {:>6}  {:<8}  {:>10}  node",
        "pos", "id", "queue", "gpu_us"
    );
    for node in &timings.nodes {
        let queue = match node.queue_class {
            QueueClass::Graphics => "graphics",
            QueueClass::Compute => "compute",
            QueueClass::Copy => "copy",
        };
        let _ = writeln!(
            text,
            "{:>5}  {:>6}  {:<8}  {:>10.3}  {}",
            node.position,
            node.node.0,
            queue,
            node.ns / 1000.0,
            node.name
        );
    }
    let _ = writeln!(
        text,
        "{:>5}  {:>6}  {:<8}  {:>10.3}  (whole frame)",
        "",
        "",
        "",
        timings.frame_ns / 1000.0
    );
    if !frame_times_ns.is_empty() {
        let mean = frame_times_ns.iter().sum::<f64>() / frame_times_ns.len() as f64;
        let _ = writeln!(
            text,
            "{:>5}  {:>6}  {:<8}  {:>10.3}  (whole frame, mean of {} frames)",
            "",
            "",
            "",
            mean / 1000.0,
            frame_times_ns.len()
        );
    }
    text
}
