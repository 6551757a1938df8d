//! `rpsl run FILE --window`: a live window. Every frame runs the script and presents its
//! presented texture (the entry's first texture parameter, or `--present NAME`), sized to the
//! window. Edits of the script, its includes or the shader folder are picked up as `--watch`
//! picks them up ([`EditWatcher`]); a broken edit prints its diagnostic and the last good frame
//! stays. The title shows the frame's CPU times (record + compile, submit) and its GPU time.
//! Closing the window, Ctrl-C or `--frames N` presented frames end it with exit code 0.
//!
//! The window acts as an engine: it makes the instance, surface, device and swapchain
//! ([`device`], [`swapchain`]) and runs rpsl's backend on them
//! ([`rpsl_vulkan::VulkanBackend::on_device`]), importing each acquired swapchain image as the
//! presented parameter and chaining the frame between the acquisition and the present with
//! semaphores.

mod device;
mod interrupt;
mod surface;
mod swapchain;

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant, SystemTime};

use rpsl::frontend::hir::{ParamDirection, Type};
use rpsl::runtime::{BackendError, Format, ResourceDesc};
use rpsl::HotScript;
use rpsl_vulkan::ash::vk;
use rpsl_vulkan::{ImportedImage, ResourceState, VulkanBackend, VulkanOptions};
use winit::application::ApplicationHandler;
use winit::dpi::PhysicalSize;
use winit::event::WindowEvent;
use winit::event_loop::{ActiveEventLoop, ControlFlow, EventLoop};
use winit::raw_window_handle::{HasDisplayHandle, HasWindowHandle};
use winit::window::{Window, WindowId};

use super::effect_nodes::HotEffects;
use super::frames::{self, Backend, EXIT_RUNTIME};
use super::output::{Destination, Output};
use super::reload_probe::ReloadProbe;
use super::run::{vulkan_options, RunArgs};
use super::run_vulkan::VulkanRunner;
use super::watch::{
    bind_reloaded, keep_last_frame, open_script, report_render, write_line, Edit, EditWatcher,
};
use device::WindowDevice;
use swapchain::{Acquired, Swapchain};

/// The window's size when the presented parameter has no `--arg`.
const DEFAULT_SIZE: (u32, u32) = (1280, 720);
/// How often the title's figures are renewed.
const TITLE_EVERY: Duration = Duration::from_millis(500);

/// Runs `rpsl run FILE --window`.
pub fn run(args: &RunArgs) -> ExitCode {
    if args.backend != Backend::Vulkan {
        return frames::usage_error("`--window` needs `--backend vulkan`");
    }
    let refused = [
        (args.dump.is_some(), "--dump"),
        (args.dump_html.is_some(), "--dump-html"),
        (!args.out.is_empty(), "--out"),
        (args.timings, "--timings"),
        (args.watch, "--watch"),
    ];
    if let Some((_, flag)) = refused.iter().find(|(given, _)| *given) {
        return frames::usage_error(&format!(
            "`{flag}` does not go with `--window` (the window shows the frames as they \
             change; `--window-capture DIR` writes them)"
        ));
    }
    let (script, effects) = match open_script(args, true) {
        Ok(opened) => opened,
        Err(code) => return code,
    };
    let present = match presented_parameter(&script, args.present.as_deref()) {
        Ok(name) => name,
        Err(message) => return frames::usage_error(&message),
    };
    let (size, requested) = requested_texture(&args.options.args, &present);
    // The presented parameter's `--arg` gives only the first size and the format: from now on
    // the window supplies it (a host argument, which an edit renaming the parameter does not
    // break).
    let script_args: Vec<&String> = args
        .options
        .args
        .iter()
        .filter(|text| text.split_once('=').map(|(name, _)| name) != Some(present.as_str()))
        .collect();
    let mut script = script;
    if let Err(error) = script.set_args(&script_args) {
        return frames::usage_error(&error.message);
    }
    if let Some(dir) = &args.window_capture {
        if let Err(error) = std::fs::create_dir_all(dir) {
            diagln!("error: cannot create `{}`: {error}", dir.display());
            return ExitCode::from(EXIT_RUNTIME);
        }
    }
    let log = match Output::open("the window log", Destination::Stdout) {
        Ok(log) => log,
        Err(error) => return error.report(ExitCode::SUCCESS),
    };
    if std::env::var_os("DISPLAY").is_none() {
        diagln!(
            "error: cannot open a window: DISPLAY is not set (an X server is needed; \
             `xvfb-run -a rpsl run ...` gives a virtual one)"
        );
        return ExitCode::from(EXIT_RUNTIME);
    }
    let event_loop = match EventLoop::new() {
        Ok(event_loop) => event_loop,
        Err(error) => {
            diagln!("error: cannot open a window: {error}");
            return ExitCode::from(EXIT_RUNTIME);
        }
    };
    event_loop.set_control_flow(ControlFlow::Poll);
    interrupt::install();
    let watcher = EditWatcher::new(args.shader_dir());
    let probe = args
        .measure_reload
        .map(|edits| ReloadProbe::new(args, &script, &watcher, edits));
    let mut app = WindowApp {
        args,
        script,
        effects,
        watcher,
        probe,
        log,
        present,
        requested,
        initial_size: size,
        live: None,
        failure: None,
        presented: 0,
        renders: 0,
        pending: Some(Edit {
            why: "start",
            changed_at: SystemTime::now(),
        }),
        broken: false,
        figures: Figures::default(),
    };
    if let Err(error) = event_loop.run_app(&mut app) {
        diagln!("error: the window's event loop failed: {error}");
        app.failure.get_or_insert(ExitCode::from(EXIT_RUNTIME));
    }
    app.finish()
}

/// The texture parameter the window presents: `--present NAME`, else the entry's first
/// texture parameter.
fn presented_parameter(script: &HotScript, asked: Option<&str>) -> Result<String, String> {
    let entry = script.entry();
    let textures: Vec<&str> = entry
        .params
        .iter()
        .filter(|param| param.ty == Type::Texture && param.direction == ParamDirection::In)
        .map(|param| param.name.as_str())
        .collect();
    match asked {
        Some(name) if textures.contains(&name) => Ok(name.to_string()),
        Some(name) => Err(format!(
            "`--present {name}`: entry point `{}` has no texture parameter `{name}` \
             (texture parameters: {})",
            entry.name,
            if textures.is_empty() {
                "none".to_string()
            } else {
                textures.join(", ")
            }
        )),
        None => textures
            .first()
            .map(|name| name.to_string())
            .ok_or_else(|| {
                format!(
                    "`--window`: entry point `{}` has no texture parameter to present",
                    entry.name
                )
            }),
    }
}

/// The size and format `--arg NAME=WxH[:FORMAT]` asks for the presented parameter (the
/// window's first size; the format picks the swapchain's), else 1280x720 R8G8B8A8_UNORM.
fn requested_texture(arg_texts: &[String], present: &str) -> ((u32, u32), Option<Format>) {
    let desc = arg_texts
        .iter()
        .rev()
        .filter_map(|text| text.split_once('='))
        .filter(|(name, _)| *name == present)
        .find_map(|(name, value)| rpsl::args::parse_texture(name, value).ok());
    match desc {
        Some(desc) => (
            (desc.width as u32, desc.height),
            arg_texts
                .iter()
                .any(|text| text.starts_with(&format!("{present}=")) && text.contains(':'))
                .then_some(desc.format),
        ),
        None => (DEFAULT_SIZE, None),
    }
}

/// Running figures for the title.
#[derive(Default)]
struct Figures {
    frames: u32,
    record_ms: f64,
    submit_ms: f64,
    gpu_ms: Option<f64>,
    since: Option<Instant>,
}

/// What lives while the window is open, torn down in this order by [`Live::close`].
struct Live {
    swapchain: Option<Swapchain>,
    runner: Option<VulkanRunner>,
    device: WindowDevice,
    window: Window,
    /// The presented parameter's size as the script sees it now.
    size_arg: Option<vk::Extent2D>,
    /// The window's inner size (from its creation, then its `Resized` events: asking the X
    /// server every frame would fail, in winit, with a panic once the connection is gone).
    size: (u32, u32),
}

impl Live {
    /// Destroys the swapchain, the backend, the device and the window, in that order; any
    /// validation message of the teardown fails the run.
    fn close(mut self) -> Result<(), String> {
        if let (Some(swapchain), Some(runner)) = (self.swapchain.take(), self.runner.as_mut()) {
            swapchain.destroy(runner.backend_mut());
        }
        drop(self.runner.take());
        let messages = self.device.take_messages();
        drop(self.device);
        drop(self.window);
        validation_result(messages)
    }
}

/// `Err` with every validation message, if there are any.
fn validation_result(messages: Vec<String>) -> Result<(), String> {
    if messages.is_empty() {
        Ok(())
    } else {
        Err(format!("validation: {}", messages.join("\n")))
    }
}

/// The window's event handler: it owns the script, the watcher and, once the window is up,
/// the device, backend and swapchain.
struct WindowApp<'a> {
    args: &'a RunArgs,
    script: HotScript,
    /// The script's effect nodes (bound on the runner after each reload).
    effects: HotEffects,
    watcher: EditWatcher,
    probe: Option<ReloadProbe>,
    log: Output,
    present: String,
    /// The format `--arg` asked for, if any (else R8G8B8A8_UNORM's choice, without a note).
    requested: Option<Format>,
    initial_size: (u32, u32),
    live: Option<Live>,
    failure: Option<ExitCode>,
    /// Frames presented.
    presented: u64,
    /// New frames after a start or an edit (numbers the captures).
    renders: u64,
    /// The edit the next presented frame is the first to show.
    pending: Option<Edit>,
    /// The running program's frame failed: no frames until the next edit.
    broken: bool,
    figures: Figures,
}

impl WindowApp<'_> {
    /// Makes the window, the device, the backend and the swapchain.
    fn open(&mut self, event_loop: &ActiveEventLoop) -> Result<Live, String> {
        let title = format!("rpsl {}", self.args.options.file.display());
        let attributes = Window::default_attributes()
            .with_title(title)
            .with_inner_size(PhysicalSize::new(self.initial_size.0, self.initial_size.1));
        let window = event_loop
            .create_window(attributes)
            .map_err(|error| format!("cannot open a window: {error}"))?;
        let display = window
            .display_handle()
            .map_err(|error| format!("the window has no display handle: {error}"))?
            .as_raw();
        let handle = window
            .window_handle()
            .map_err(|error| format!("the window has no handle: {error}"))?
            .as_raw();
        // SAFETY: the window lives in `Live` next to the device and is dropped after it.
        let device = unsafe { WindowDevice::new(display, handle, self.args.validate) }?;
        let size = inner_size(&window);
        let requested = self.requested.unwrap_or(Format::R8G8B8A8_UNORM);
        let swapchain = Swapchain::new(&device, requested, size)?;
        if self
            .requested
            .is_some_and(|format| format != swapchain.format())
        {
            diagln!(
                "note: `{}` is presented as {} (the window's format)",
                self.present,
                swapchain.format().name().unwrap_or("?")
            );
        }
        let backend = make_backend(&device, self.args.allow_unbound)
            .map_err(|error| format!("vulkan: {error}"))?;
        let options = vulkan_options(self.args, self.script.program(), None, Vec::new());
        let mut runner = VulkanRunner::with_backend(backend, options)
            .map_err(|_| "the shader-bound nodes cannot be set up".to_string())?;
        self.effects.bind_new(runner.backend_mut());
        Ok(Live {
            swapchain: Some(swapchain),
            runner: Some(runner),
            device,
            window,
            size_arg: None,
            size,
        })
    }

    /// One turn of the loop: picks up edits, then renders and presents a frame unless the
    /// running program is broken. `Ok(true)`: the run is over (`--frames`, `--measure-reload`).
    fn frame(&mut self) -> Result<bool, ExitCode> {
        let Some(live) = self.live.as_mut() else {
            return Ok(false);
        };
        let Some(runner) = live.runner.as_mut() else {
            return Ok(false);
        };
        if let Some(edit) = self.watcher.poll(&mut self.script) {
            bind_reloaded(runner, &self.script, &self.effects)?;
            self.pending = Some(edit);
            self.broken = false;
            // The edited entry point may present another parameter (or none).
            match presented_parameter(&self.script, self.args.present.as_deref()) {
                Ok(name) if name == self.present => {}
                Ok(name) => {
                    runner.backend_mut().remove_import(&self.present);
                    self.present = name;
                    live.size_arg = None;
                }
                Err(message) => {
                    keep_last_frame(&format!("error: {message}"));
                    self.broken = true;
                }
            }
        }
        if self.broken {
            return Ok(false);
        }
        let size = live.size;
        if size.0 == 0 || size.1 == 0 {
            return Ok(false);
        }
        let Some(swapchain) = live.swapchain.as_mut() else {
            return Ok(false);
        };
        let ready = swapchain
            .prepare(runner.backend_mut(), size)
            .map_err(|message| window_failure(&message))?;
        if !ready {
            return Ok(false);
        }
        let extent = swapchain.extent();
        if live.size_arg != Some(extent) {
            let format = swapchain.format().name().unwrap_or("B8G8R8A8_UNORM");
            let size = format!(
                "{}={}x{}:{format}",
                self.present, extent.width, extent.height
            );
            if let Err(error) = self.script.set_host_args(&[size]) {
                // The presented parameter takes no texture now: wait for the next edit.
                keep_last_frame(&format!("error: {}", error.message));
                self.broken = true;
                return Ok(false);
            }
            live.size_arg = Some(extent);
        }
        let started = Instant::now();
        let frame = match self.script.run_frame() {
            Ok(frame) => frame,
            Err(error) => {
                // Nothing new is presented: the window keeps the last good frame until the
                // next edit.
                keep_last_frame(&error.render());
                self.broken = true;
                return Ok(false);
            }
        };
        let record_ms = started.elapsed().as_secs_f64() * 1000.0;
        let nodes = frame.graph.nodes.len();
        let acquired = swapchain
            .acquire()
            .map_err(|message| window_failure(&message))?;
        let Some(acquired) = acquired else {
            // Out of date: the swapchain is made again and the next turn records again.
            return Ok(false);
        };
        let capture = match (&self.pending, &self.args.window_capture) {
            (Some(_), Some(dir)) => Some(capture_path(dir, self.renders)),
            _ => None,
        };
        let backend = runner.backend_mut();
        import_presented(backend, &self.present, &acquired, swapchain)?;
        let sync = swapchain.frame_sync(&acquired, capture.is_some());
        backend.set_frame_sync(sync);
        let submit_started = Instant::now();
        runner.execute(frame)?;
        let submit_ms = submit_started.elapsed().as_secs_f64() * 1000.0;
        swapchain
            .present(acquired, capture.as_deref())
            .map_err(|message| window_failure(&message))?;
        validation_result(live.device.take_messages())
            .map_err(|message| window_failure(&message))?;
        self.presented += 1;
        let gpu_ns = runner.newest_gpu_ns();
        self.figures.add(record_ms, submit_ms, gpu_ns);
        if let Some(title) = self.figures.title(&self.args.options.file, extent) {
            live.window.set_title(&title);
        }
        if let Some(edit) = self.pending.take() {
            report_render(&mut self.log, edit.why, nodes, edit.changed_at, "presented")?;
            self.renders += 1;
            if let Some(probe) = self.probe.as_mut() {
                if probe.rendered(&mut self.log)? {
                    return Ok(true);
                }
            }
        }
        Ok(self
            .args
            .frames
            .is_some_and(|frames| self.presented >= frames))
    }

    /// Tears down what is open and prints `presented N frames`; the exit code.
    fn finish(mut self) -> ExitCode {
        if let Some(live) = self.live.take() {
            if let Err(message) = live.close() {
                diagln!("error: vulkan: {message}");
                self.failure.get_or_insert(ExitCode::from(EXIT_RUNTIME));
            }
        }
        // A failure before the window opened printed its error; the count is printed anyway.
        let line = format!("presented {} frames\n", self.presented);
        if let Err(code) = write_line(&mut self.log, &line) {
            self.failure.get_or_insert(code);
        }
        self.failure.take().unwrap_or(ExitCode::SUCCESS)
    }
}

impl ApplicationHandler for WindowApp<'_> {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.live.is_some() || self.failure.is_some() {
            return;
        }
        match self.open(event_loop) {
            Ok(live) => self.live = Some(live),
            Err(message) => {
                diagln!("error: {message}");
                self.failure = Some(ExitCode::from(EXIT_RUNTIME));
                event_loop.exit();
            }
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _id: WindowId, event: WindowEvent) {
        match event {
            WindowEvent::CloseRequested => event_loop.exit(),
            WindowEvent::Resized(size) => {
                if let Some(live) = self.live.as_mut() {
                    live.size = (size.width, size.height);
                    if let Some(swapchain) = live.swapchain.as_mut() {
                        swapchain.resized();
                    }
                }
            }
            WindowEvent::RedrawRequested => match self.frame() {
                Ok(false) => {}
                Ok(true) => event_loop.exit(),
                Err(code) => {
                    self.failure = Some(code);
                    event_loop.exit();
                }
            },
            _ => {}
        }
    }

    fn about_to_wait(&mut self, event_loop: &ActiveEventLoop) {
        if interrupt::interrupted() {
            event_loop.exit();
        } else if let Some(live) = &self.live {
            live.window.request_redraw();
        }
    }
}

impl Figures {
    fn add(&mut self, record_ms: f64, submit_ms: f64, gpu_ns: Option<f64>) {
        self.frames += 1;
        self.record_ms += record_ms;
        self.submit_ms += submit_ms;
        if let Some(ns) = gpu_ns {
            self.gpu_ms = Some(ns / 1e6);
        }
    }

    /// The title with the means since the last one, once per [`TITLE_EVERY`].
    fn title(&mut self, file: &std::path::Path, extent: vk::Extent2D) -> Option<String> {
        let now = Instant::now();
        let since = *self.since.get_or_insert(now);
        let elapsed = now.duration_since(since);
        if elapsed < TITLE_EVERY || self.frames == 0 {
            return None;
        }
        let frames = self.frames as f64;
        let gpu = match self.gpu_ms {
            Some(ms) => format!("GPU {ms:.2} ms"),
            None => "GPU: no timestamps".to_string(),
        };
        let title = format!(
            "rpsl {} | {}x{} | CPU record+compile {:.2} ms, submit {:.2} ms | {gpu} | {:.0} fps",
            file.display(),
            extent.width,
            extent.height,
            self.record_ms / frames,
            self.submit_ms / frames,
            frames / elapsed.as_secs_f64()
        );
        *self = Figures {
            since: Some(now),
            gpu_ms: self.gpu_ms,
            ..Figures::default()
        };
        Some(title)
    }
}

/// The window's inner size in pixels.
fn inner_size(window: &Window) -> (u32, u32) {
    let size = window.inner_size();
    (size.width, size.height)
}

/// Prints `error: MESSAGE` and gives exit code 3.
fn window_failure(message: &str) -> ExitCode {
    diagln!("error: {message}");
    ExitCode::from(EXIT_RUNTIME)
}

/// The backend on the window's device, with timestamps (GPU times in the title) when the
/// device has them.
fn make_backend(device: &WindowDevice, allow_unbound: bool) -> Result<VulkanBackend, BackendError> {
    let options = |timestamps| VulkanOptions {
        allow_unbound,
        timestamps,
        frames_in_flight: swapchain::FRAMES_IN_FLIGHT as u32,
        ..VulkanOptions::default()
    };
    match VulkanBackend::on_device(device.engine(), options(true)) {
        Err(BackendError::MissingFeature(_)) => {
            VulkanBackend::on_device(device.engine(), options(false))
        }
        made => made,
    }
}

/// Imports the acquired swapchain image as the presented parameter: its contents undefined,
/// left for presenting after the frame.
fn import_presented(
    backend: &mut VulkanBackend,
    present: &str,
    acquired: &Acquired,
    swapchain: &Swapchain,
) -> Result<(), ExitCode> {
    let extent = swapchain.extent();
    let image = ImportedImage {
        image: acquired.image,
        desc: ResourceDesc::tex2d(swapchain.format(), extent.width, extent.height),
        usage: swapchain.usage(),
        state: ResourceState::UNDEFINED,
        final_state: Some(ResourceState::image(
            vk::ImageLayout::PRESENT_SRC_KHR,
            vk::PipelineStageFlags2::ALL_COMMANDS,
            vk::AccessFlags2::NONE,
        )),
        debug_name: Some(format!("swapchain image {}", acquired.index)),
    };
    backend
        .import_image(present, image)
        .map_err(|error| window_failure(&format!("vulkan: {error}")))
}

/// Where `--window-capture` writes: `DIR/N.png` for the N-th new frame (0: the first, then
/// one per edit).
fn capture_path(dir: &std::path::Path, render: u64) -> PathBuf {
    dir.join(format!("{render}.png"))
}
