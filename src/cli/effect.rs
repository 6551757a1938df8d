//! `rpsl effect FILE... --in IMAGE|DIR --out IMAGE|DIR [--scale S | --size WxH]
//! [--param NAME=VALUE]... [--validate] [--timings] [--fp16] [--bit-depth 8|16]
//! [--out-format png|exr] [--backend vulkan|null]`: applies a chain of MagpieFX effects on the
//! Vulkan backend to one image, or to every image of a folder (with a progress bar; the
//! compiled graph and pipelines are reused across images of one size), written as PNG (8 or 16
//! bits) or OpenEXR (a file's extension, or `--out-format` for a folder); with
//! `--backend null`, prints each image's compiled frame as a JSON dump instead. Exit codes: 1
//! for an effect that is missing, invalid or does not compile; 2 for a usage error (flags,
//! parameters, sizes, an unreadable input image); 3 for a Vulkan or output error.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use clap::Args;
use rpsl::runtime::DumpWriter;
use rpsl::vulkan::shader_node::shaders::{
    default_cache_dir, ChildConfig, CompilerOptions, Isolation, ShaderCompiler,
};
use rpsl::vulkan::{VulkanBackend, VulkanOptions};
use rpsl_effects::{
    load_source_image, parse_effect_file, prepare_effect, EffectLink, EffectRunner, RgbaImage,
};

use super::frames::{Backend, EXIT_RUNTIME, EXIT_SCRIPT, EXIT_USAGE};
use super::graph::GraphFormat;
use super::output::{Destination, Output};

/// The longest one pass may take to compile (in the child process) before it fails.
const COMPILE_TIMEOUT: Duration = Duration::from_secs(120);

/// Input image extensions a folder run picks up.
const IMAGE_EXTENSIONS: [&str; 4] = ["png", "jpg", "jpeg", "bmp"];

/// Options of `rpsl effect`.
#[derive(Args, Debug)]
pub struct EffectArgs {
    /// Effect files (MagpieFX, format version 4), applied in order.
    files: Vec<PathBuf>,
    /// Another effect, applied after the FILEs (repeatable).
    #[arg(long = "effect", value_name = "FILE")]
    effects: Vec<PathBuf>,
    /// The input image (PNG, JPEG, BMP), or a folder of them.
    #[arg(long = "in", value_name = "IMAGE|DIR")]
    input: PathBuf,
    /// The output image (`.exr`: OpenEXR, 32-bit float RGBA; anything else: PNG), or a folder
    /// (created) for a folder input. Needed with `--backend vulkan`.
    #[arg(long = "out", value_name = "IMAGE|DIR")]
    output: Option<PathBuf>,
    /// The format of the images a folder run writes (default png; a single output's format
    /// comes from its extension).
    #[arg(long, value_enum, value_name = "png|exr")]
    out_format: Option<ImageFormat>,
    /// Bits per channel of PNG output (default: 8 when the last effect's OUTPUT has 8-bit
    /// channels, 16 otherwise, e.g. for float formats).
    #[arg(long, value_name = "8|16", value_parser = ["8", "16"])]
    bit_depth: Option<String>,
    /// Where the chain runs: `vulkan` writes images; `null` builds and compiles each image's
    /// graph and prints every frame's JSON dump (as `rpsl run --backend null --dump -`).
    #[arg(long, value_enum, default_value = "vulkan")]
    backend: super::frames::Backend,
    /// Output size as a multiple of the input's, made by the last effect without a fixed size.
    #[arg(long, value_name = "S", conflicts_with = "size")]
    scale: Option<f64>,
    /// Output size, made by the last effect without a fixed size.
    #[arg(long, value_name = "WxH")]
    size: Option<String>,
    /// A parameter value, for every effect of the chain that has it (repeatable).
    #[arg(long = "param", value_name = "NAME=VALUE")]
    params: Vec<String>,
    /// Run under the Vulkan validation layer with synchronization validation.
    #[arg(long)]
    validate: bool,
    /// Print the GPU time of each pass of each image.
    #[arg(long)]
    timings: bool,
    /// The half-precision variant of effects that have one.
    #[arg(long)]
    fp16: bool,
}

/// The file format of a folder run's outputs (`--out-format`).
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum ImageFormat {
    /// PNG, 8 or 16 bits per channel (`--bit-depth`).
    Png,
    /// OpenEXR, 32-bit float RGBA.
    Exr,
}

impl ImageFormat {
    /// The file extension of the format.
    fn extension(self) -> &'static str {
        match self {
            ImageFormat::Png => "png",
            ImageFormat::Exr => "exr",
        }
    }
}

/// How the output size is asked for.
#[derive(Clone, Copy, Debug, PartialEq)]
enum OutputSize {
    Same,
    Scale(f64),
    Fixed([u32; 2]),
}

impl OutputSize {
    fn for_input(self, width: u32, height: u32) -> Option<[u32; 2]> {
        match self {
            OutputSize::Same => None,
            OutputSize::Scale(scale) => Some([
                ((width as f64 * scale).round() as u32).max(1),
                ((height as f64 * scale).round() as u32).max(1),
            ]),
            OutputSize::Fixed(size) => Some(size),
        }
    }
}

fn usage(message: impl std::fmt::Display) -> ExitCode {
    diagln!("error: {message}");
    ExitCode::from(EXIT_USAGE)
}

/// `WxH` with both sides 1 to 16384.
fn parse_size(text: &str) -> Option<[u32; 2]> {
    let (width, height) = text.split_once('x')?;
    let size = [width.parse().ok()?, height.parse().ok()?];
    size.iter()
        .all(|side| (1..=16384).contains(side))
        .then_some(size)
}

fn output_size(args: &EffectArgs) -> Result<OutputSize, ExitCode> {
    if let Some(scale) = args.scale {
        if !(scale.is_finite() && scale > 0.0 && scale <= 16.0) {
            return Err(usage(format!(
                "--scale must be a number above 0 and at most 16, not {scale}"
            )));
        }
        return Ok(OutputSize::Scale(scale));
    }
    match &args.size {
        Some(text) => parse_size(text).map(OutputSize::Fixed).ok_or_else(|| {
            usage(format!(
                "--size must be WIDTHxHEIGHT with sides from 1 to 16384, not `{text}`"
            ))
        }),
        None => Ok(OutputSize::Same),
    }
}

/// `NAME=VALUE` pairs.
fn parse_params(texts: &[String]) -> Result<Vec<(String, f64)>, ExitCode> {
    texts
        .iter()
        .map(|text| {
            let parsed = text
                .split_once('=')
                .and_then(|(name, value)| Some((name.trim(), value.trim().parse::<f64>().ok()?)))
                .filter(|(name, value)| !name.is_empty() && value.is_finite());
            parsed
                .map(|(name, value)| (name.to_string(), value))
                .ok_or_else(|| usage(format!("--param must be NAME=NUMBER, not `{text}`")))
        })
        .collect()
}

/// The compiler of effect passes: HLSL in a child `rpsl` process (a crash or hang of the
/// compiler fails that effect, not this process), with the on-disk cache.
pub fn effect_compiler() -> Result<ShaderCompiler, ExitCode> {
    effect_compiler_or_message().map_err(|message| {
        diagln!("{message}");
        ExitCode::from(EXIT_RUNTIME)
    })
}

/// [`effect_compiler`], or the message saying why there is none (`error: shaders: ...`).
pub fn effect_compiler_or_message() -> Result<ShaderCompiler, String> {
    let config = ChildConfig::current_exe(COMPILE_TIMEOUT)
        .map_err(|error| format!("error: shaders: {error}"))?;
    Ok(ShaderCompiler::new(CompilerOptions {
        cache_dir: default_cache_dir(),
        isolation: Isolation::Child(config),
        ..CompilerOptions::default()
    }))
}

/// Parses, checks and compiles every effect; parameters go to the effects that have them.
fn prepare_chain(
    files: &[PathBuf],
    params: &[(String, f64)],
    fp16: bool,
) -> Result<Vec<EffectLink>, ExitCode> {
    let compiler = effect_compiler()?;
    let mut used = vec![false; params.len()];
    let mut links = Vec::with_capacity(files.len());
    for file in files {
        let effect = match parse_effect_file(file) {
            Ok(effect) => effect,
            Err(errors) => {
                diagln!("{errors}");
                return Err(ExitCode::from(EXIT_SCRIPT));
            }
        };
        let mine: Vec<(String, f64)> = params
            .iter()
            .enumerate()
            .filter(|(_, (name, _))| effect.param(name).is_some())
            .map(|(index, param)| {
                used[index] = true;
                param.clone()
            })
            .collect();
        match prepare_effect(file, &mine, fp16, &compiler) {
            Ok(link) => links.push(link),
            Err(error) if error.0.contains("parameter `") => return Err(usage(error)),
            Err(error) => {
                diagln!("error: {error}");
                return Err(ExitCode::from(EXIT_SCRIPT));
            }
        }
    }
    if let Some(index) = used.iter().position(|used| !used) {
        return Err(usage(format!(
            "no effect of the chain has a parameter named `{}`",
            params[index].0
        )));
    }
    Ok(links)
}

/// Reads an input image as RGBA8 (16-bit images keep their high bytes).
fn read_input(path: &Path) -> Result<RgbaImage, String> {
    let image = load_source_image(path).map_err(|error| error.to_string())?;
    let pixels = if image.format == rpsl::runtime::Format::R8G8B8A8_UNORM {
        image.data
    } else if image.data.len() == image.width as usize * image.height as usize * 8 {
        image.data.chunks(2).map(|pair| pair[1]).collect()
    } else {
        return Err(format!("{}: not an RGBA image", path.display()));
    };
    Ok(RgbaImage {
        width: image.width,
        height: image.height,
        pixels,
    })
}

/// The images of a folder run, sorted by name.
fn folder_images(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let entries = std::fs::read_dir(dir)
        .map_err(|error| format!("cannot read {}: {error}", dir.display()))?;
    let mut images: Vec<PathBuf> = entries
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| {
            path.is_file()
                && path.extension().is_some_and(|ext| {
                    IMAGE_EXTENSIONS.contains(&ext.to_string_lossy().to_ascii_lowercase().as_str())
                })
        })
        .collect();
    images.sort();
    Ok(images)
}

/// Runs the command.
pub fn run(args: &EffectArgs) -> ExitCode {
    let files: Vec<PathBuf> = args.files.iter().chain(&args.effects).cloned().collect();
    if files.is_empty() {
        return usage("no effect file given (rpsl effect FILE... --in IMAGE --out IMAGE)");
    }
    let null = args.backend == Backend::Null;
    let vulkan_only = [
        (args.output.is_some(), "--out"),
        (args.validate, "--validate"),
        (args.timings, "--timings"),
        (args.bit_depth.is_some(), "--bit-depth"),
        (args.out_format.is_some(), "--out-format"),
    ];
    if let Some((_, flag)) = vulkan_only.iter().find(|(given, _)| null && *given) {
        return usage(format!("`{flag}` needs `--backend vulkan`"));
    }
    let output = match (&args.output, null) {
        (Some(output), _) => Some(output.clone()),
        (None, true) => None,
        (None, false) => {
            return usage("no --out given (rpsl effect FILE... --in IMAGE --out IMAGE)")
        }
    };
    let size = match output_size(args) {
        Ok(size) => size,
        Err(code) => return code,
    };
    let params = match parse_params(&args.params) {
        Ok(params) => params,
        Err(code) => return code,
    };
    let folder = args.input.is_dir();
    let inputs = if folder {
        match folder_images(&args.input) {
            Ok(images) if images.is_empty() => {
                return usage(format!(
                    "{} holds no PNG, JPEG or BMP image",
                    args.input.display()
                ))
            }
            Ok(images) => images,
            Err(message) => return usage(message),
        }
    } else if args.input.is_file() {
        vec![args.input.clone()]
    } else {
        return usage(format!(
            "input image {} does not exist",
            args.input.display()
        ));
    };
    let bit_depth = args
        .bit_depth
        .as_deref()
        .map(|depth| if depth == "16" { 16 } else { 8 });
    if args.out_format.is_some() && !folder {
        return usage(
            "--out-format is for a folder input (one output image's format comes from its \
             extension: .exr for OpenEXR, else PNG)",
        );
    }
    let folder_format = args.out_format.unwrap_or(ImageFormat::Png);
    if let (Some(target), Some(_)) = (&output, bit_depth) {
        if folder && folder_format == ImageFormat::Exr {
            return usage("--bit-depth applies to PNG output, not --out-format exr");
        }
        if !folder && is_exr(target) {
            return usage(format!(
                "--bit-depth applies to PNG output, not {}",
                target.display()
            ));
        }
    }
    let links = match prepare_chain(&files, &params, args.fp16) {
        Ok(links) => links,
        Err(code) => return code,
    };
    match output {
        None => dump_frames(&files, &links, &inputs, size),
        Some(output) => {
            let folder_format = folder.then_some(folder_format);
            run_vulkan(
                args,
                links,
                &inputs,
                folder_format,
                &output,
                size,
                bit_depth,
            )
        }
    }
}

/// Whether `path` names an OpenEXR file (`.exr`).
fn is_exr(path: &Path) -> bool {
    path.extension()
        .is_some_and(|ext| ext.eq_ignore_ascii_case("exr"))
}

/// `--backend null`: builds and compiles the chain's frame for each input image and prints the
/// frames as one JSON dump (`rpsl run --dump` form) on stdout.
fn dump_frames(
    files: &[PathBuf],
    links: &[EffectLink],
    inputs: &[PathBuf],
    size: OutputSize,
) -> ExitCode {
    let entry: Vec<String> = files
        .iter()
        .map(|file| {
            file.file_stem()
                .map(|stem| stem.to_string_lossy().into_owned())
                .unwrap_or_default()
        })
        .collect();
    let mut output = match Output::open("the graph dump", Destination::Stdout) {
        Ok(output) => output,
        Err(error) => return error.report(ExitCode::SUCCESS),
    };
    let mut dump = DumpWriter::streaming(&entry.join("+"), output.writer());
    for (index, input) in inputs.iter().enumerate() {
        let (width, height) = match image_size(input) {
            Ok(size) => size,
            Err(message) => return usage(message),
        };
        let frame = rpsl_effects::chain_frame_at(
            links,
            [width, height],
            size.for_input(width, height),
            index as u64,
        );
        match frame {
            Ok((graph, compiled)) => dump.add_frame(&graph, Some(&compiled)),
            Err(error) => {
                diagln!("error: {}: {error}", input.display());
                return ExitCode::from(EXIT_RUNTIME);
            }
        }
    }
    let closed = dump.close().map(|_| ());
    match closed
        .map_err(|error| output.failed(error))
        .and_then(|()| output.finish())
    {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => error.report(ExitCode::SUCCESS),
    }
}

/// The size of an input image (its header only).
fn image_size(path: &Path) -> Result<(u32, u32), String> {
    read_input(path).map(|image| (image.width, image.height))
}

/// Writes one result: OpenEXR for a `.exr` target, else a PNG of `bit_depth` bits (by default
/// 8 for 8-bit formats, 16 for the others).
fn write_result(
    target: &Path,
    image: &rpsl_effects::EffectImage,
    bit_depth: Option<u8>,
) -> Result<(), String> {
    if is_exr(target) {
        return image.write_exr(target);
    }
    let depth = bit_depth.unwrap_or(if image.is_eight_bit() { 8 } else { 16 });
    image.write_png(target, depth)
}

/// `--backend vulkan`: runs the chain on every input and writes the results (into the output
/// folder as `folder_format` for a folder input).
fn run_vulkan(
    args: &EffectArgs,
    links: Vec<EffectLink>,
    inputs: &[PathBuf],
    folder_format: Option<ImageFormat>,
    output: &Path,
    size: OutputSize,
    bit_depth: Option<u8>,
) -> ExitCode {
    let folder = folder_format.is_some();
    if folder {
        if let Err(error) = std::fs::create_dir_all(output) {
            diagln!("error: cannot create {}: {error}", output.display());
            return ExitCode::from(EXIT_RUNTIME);
        }
    }
    let options = VulkanOptions {
        validate: args.validate,
        timestamps: args.timings,
        ..VulkanOptions::default()
    };
    let backend = match VulkanBackend::new(options) {
        Ok(backend) => backend,
        Err(error) => {
            diagln!("error: vulkan: {error}");
            return ExitCode::from(EXIT_RUNTIME);
        }
    };
    let mut runner = match EffectRunner::new(backend, links) {
        Ok(runner) => runner,
        Err(error) => {
            diagln!("error: {error}");
            return ExitCode::from(EXIT_RUNTIME);
        }
    };
    let progress = if folder {
        let bar = indicatif::ProgressBar::new(inputs.len() as u64);
        if let Ok(style) =
            indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} images {msg}")
        {
            bar.set_style(style);
        }
        Some(bar)
    } else {
        None
    };
    for input in inputs {
        let image = match read_input(input) {
            Ok(image) => image,
            Err(message) => return usage(message),
        };
        let result = match runner.run_image(&image, size.for_input(image.width, image.height)) {
            Ok(result) => result,
            Err(error) => {
                diagln!("error: {}: {error}", input.display());
                return ExitCode::from(EXIT_RUNTIME);
            }
        };
        let target = match folder_format {
            Some(format) => {
                let stem = input.file_stem().unwrap_or_default();
                output.join(stem).with_extension(format.extension())
            }
            None => output.to_path_buf(),
        };
        if let Err(error) = write_result(&target, &result, bit_depth) {
            diagln!("error: {error}");
            return ExitCode::from(EXIT_RUNTIME);
        }
        if args.timings {
            for frame in runner.take_timings() {
                diagln!("{}: {:.3} ms", input.display(), frame.frame_ns / 1e6);
                for node in &frame.nodes {
                    diagln!("  {}: {:.3} ms", node.name, node.ns / 1e6);
                }
            }
        }
        if let Some(bar) = &progress {
            bar.inc(1);
        }
    }
    if let Some(bar) = progress {
        bar.finish();
    }
    ExitCode::SUCCESS
}

/// Whether `path` is a MagpieFX effect (its first lines hold `//!MAGPIE EFFECT`), so that
/// `rpsl graph` shows the effect's graph rather than reading it as a script.
pub fn is_effect_file(path: &Path) -> bool {
    use std::io::Read as _;
    let mut head = Vec::new();
    let read = std::fs::File::open(path).and_then(|file| file.take(4096).read_to_end(&mut head));
    read.is_ok()
        && String::from_utf8_lossy(&head)
            .lines()
            .take(32)
            .any(|line| line.trim() == "//!MAGPIE EFFECT")
}

/// The input size `rpsl graph` sizes an effect for.
pub const GRAPH_INPUT_SIZE: [u32; 2] = [1920, 1080];

/// `rpsl graph EFFECT`: the effect's compiled frame for a 1920x1080 input.
pub fn graph(path: &Path, format: GraphFormat, output: Option<&Path>) -> ExitCode {
    let links = match prepare_chain(&[path.to_path_buf()], &[], false) {
        Ok(links) => links,
        Err(code) => return code,
    };
    match rpsl_effects::chain_frame(&links, GRAPH_INPUT_SIZE, None) {
        Ok((graph, compiled)) => {
            let name = path
                .file_stem()
                .map(|stem| stem.to_string_lossy().into_owned())
                .unwrap_or_default();
            super::graph::write_graph(&name, &graph, &compiled, format, output)
        }
        Err(error) => {
            diagln!("error: {error}");
            ExitCode::from(EXIT_SCRIPT)
        }
    }
}
