//! The interactive session behind `rpsl repl`: load a script, then type declarations and
//! statements; after each input the frame runs again (JIT, null backend) and the session shows
//! the nodes the input added and the compiled frame's figures.
//!
//! Declarations (nodes, functions, structs, statics, `#define`s) join the script; statements
//! join the body of a synthesized entry point,
//! `export void __repl([readonly(present)] texture backbuffer, uint frameIndex)`, which may call
//! the loaded script's functions and entry points. An input that does not compile or whose frame
//! fails is reported and dropped, so the session always holds a script that runs.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use rpsl::frontend::preprocess::{
    read_source_file, FileLoader, FsLoader, LoadError, LoadRequest, SourceLimits,
};
use rpsl::runtime::{CompiledFrame, RecordedGraph};

use rpsl::{EntryArgs, Program, Session, SessionOptions};

use crate::cli::effect_nodes::EffectNodes;
use crate::cli::output::{Destination, Output, OutputError};
use crate::cli::run_vulkan::{
    file_name_of, script_node_names, shader_dir_of, NamedOutput, VulkanRunOptions, VulkanRunner,
};

mod complete;
mod describe;
mod input_kind;

use complete::ReplHelper;
use rustyline::history::FileHistory;

use describe::{pretty_json, schedule, summary};
use input_kind::{needs_more, part_of, Part};

/// The entry point the typed statements form.
pub const REPL_ENTRY: &str = "__repl";

/// The file name typed inputs are reported under. With a script loaded it lies beside the
/// script (`scripts/<repl>`), so `#include`s typed or loaded resolve as they would in the script.
const REPL_FILE: &str = "<repl>";

/// What one input produced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reply {
    /// False when the input was refused (it is not kept).
    pub ok: bool,
    /// What to show (diagnostics for a refused input).
    pub text: String,
    /// The user asked to leave.
    pub quit: bool,
}

impl Reply {
    fn ok(text: String) -> Reply {
        Reply {
            ok: true,
            text,
            quit: false,
        }
    }

    fn refused(text: String) -> Reply {
        Reply {
            ok: false,
            text,
            quit: false,
        }
    }
}

/// A script loaded with `:load`: the text read then (an edit of the file shows after the next
/// `:load`) and what its includes read from disk.
#[derive(Debug)]
struct LoadedScript {
    path: PathBuf,
    /// The file as canonicalized when it was loaded: the `#include` of the session's text
    /// resolves to it.
    canonical: PathBuf,
    /// Its file name, as the session's `#include` names it.
    include_name: String,
    text: String,
}

impl LoadedScript {
    fn new(path: &Path, text: String) -> Result<LoadedScript, String> {
        let refuse = |reason: &str| format!("error: {}: {reason}\n", path.display());
        let include_name = path
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
            .filter(|name| !name.contains(['"', '\n', '\r']))
            .ok_or_else(|| {
                refuse("the REPL loads only files whose names have no quotes or line breaks")
            })?;
        let canonical = std::fs::canonicalize(path).map_err(|error| refuse(&error.to_string()))?;
        Ok(LoadedScript {
            path: path.to_path_buf(),
            canonical,
            include_name,
            text,
        })
    }
}

/// The session's `#include` of the loaded script gets the text read at `:load`; the script's own
/// includes come from disk under the usual rules.
impl FileLoader for LoadedScript {
    fn load(&self, request: &LoadRequest<'_>) -> Result<String, LoadError> {
        if std::fs::canonicalize(request.path).is_ok_and(|path| path == self.canonical) {
            return Ok(self.text.clone());
        }
        FsLoader.load(request)
    }
}

/// The state of an interactive session.
#[derive(Debug, Default)]
pub struct Repl {
    /// The loaded script.
    file: Option<LoadedScript>,
    /// Typed inputs, in order.
    inputs: Vec<(Part, String)>,
    /// Entry arguments (`backbuffer=1920x1080`).
    args: Vec<String>,
    options: SessionOptions,
    /// Nodes of the last frame that ran: later frames of the same entry show only the nodes
    /// past these.
    shown_nodes: usize,
    /// The entry of the last frame that ran.
    shown_entry: String,
}

/// One `:` command: its name, its arguments and what it does (for `:help` and completion).
pub struct Command {
    /// The name after `:`.
    pub name: &'static str,
    /// Its arguments as `:help` shows them.
    pub args: &'static str,
    /// What it does.
    pub about: &'static str,
}

/// Every `:` command.
pub const COMMANDS: &[Command] = &[
    Command { name: "load", args: "FILE", about: "load a script and run its entry with default arguments" },
    Command { name: "list", args: "", about: "the typed inputs" },
    Command { name: "undo", args: "", about: "drop the last input" },
    Command { name: "reset", args: "", about: "drop every input (the loaded script stays)" },
    Command { name: "arg", args: "NAME=VALUE", about: "an argument of the entry (`:arg backbuffer=1920x1080`)" },
    Command { name: "schedule", args: "", about: "the compiled frame: order, barriers (subresources, stages, accesses), memory" },
    Command { name: "dot", args: "", about: "the frame as Graphviz dot" },
    Command { name: "json", args: "", about: "the frame's JSON graph dump, pretty-printed" },
    Command { name: "run", args: "[FRAMES] [DIR]", about: "run the entry on Vulkan (CPU driver without a GPU); externals and named resources to DIR (default repl-out)" },
    Command { name: "save", args: "FILE", about: "write the session as a script (entry `__repl`)" },
    Command { name: "help", args: "", about: "this text" },
    Command { name: "quit", args: "", about: "leave (also Ctrl-D)" },
];

/// The `:help` text.
fn help() -> String {
    let mut text = String::from(
        "Type RPSL declarations (node, struct, functions, static, #define) or statements; each input
runs the frame again and shows the nodes it added. Statements form the body of
`export void __repl([readonly(present)] texture backbuffer, uint frameIndex)`.
An input continues on the next line while brackets are open; Tab completes names.
",
    );
    for command in COMMANDS {
        let usage = format!(":{} {}", command.name, command.args);
        let _ = writeln!(text, "  {usage:<22}{}", command.about);
    }
    text
}

impl Repl {
    /// An empty session (no script loaded).
    pub fn new() -> Repl {
        Repl::default()
    }

    /// The loaded script's text, if a script is loaded.
    pub fn loaded_text(&self) -> Option<&str> {
        self.file.as_ref().map(|loaded| loaded.text.as_str())
    }

    /// Handles one complete input: a `:command`, a declaration or a statement.
    pub fn input(&mut self, text: &str) -> Reply {
        let trimmed = text.trim();
        if trimmed.is_empty() {
            return Reply::ok(String::new());
        }
        if let Some(command) = trimmed.strip_prefix(':') {
            return self.command(command.trim());
        }
        let part = part_of(trimmed);
        let mut text = trimmed.to_string();
        let struct_without_semicolon = text.starts_with("struct") && text.ends_with('}');
        // A statement or a declaration (a node, a typedef, ...) typed without its `;` gets one;
        // a function body, a preprocessor line and a finished struct need none.
        let open_ended = !text.ends_with(';') && !text.ends_with('}') && !text.starts_with('#');
        if struct_without_semicolon || open_ended {
            text.push(';');
        }
        self.inputs.push((part, text));
        match self.run() {
            Ok((graph_text, _)) => Reply::ok(graph_text),
            Err(error) => {
                self.inputs.pop();
                Reply::refused(error)
            }
        }
    }

    /// The typed inputs, one per line (statements as they are kept, with their `;`).
    pub fn listing(&self) -> String {
        self.inputs
            .iter()
            .map(|(_, text)| format!("{text}\n"))
            .collect()
    }

    /// Loads a script; the typed inputs stay and run against it. It is read and its includes
    /// resolved under the default include policy (a regular file within the size limit; includes
    /// only inside its directory), as `rpsl check` would.
    pub fn load(&mut self, path: &Path) -> Reply {
        let max_bytes = SourceLimits::default().max_file_bytes;
        let text = match read_source_file(path, max_bytes) {
            Ok(text) => text,
            Err(error) => {
                let reason = error.reason(max_bytes);
                return Reply::refused(format!("error: {}: {reason}\n", path.display()));
            }
        };
        let loaded = match LoadedScript::new(path, text) {
            Ok(loaded) => loaded,
            Err(error) => return Reply::refused(error),
        };
        let previous = self.file.replace(loaded);
        match self.run() {
            Ok((summary, program)) => {
                let entries: Vec<&str> = program
                    .entries()
                    .iter()
                    .map(|entry| entry.name.as_str())
                    .filter(|name| *name != REPL_ENTRY)
                    .collect();
                Reply::ok(format!(
                    "loaded {} (entry points: {})\n{summary}",
                    path.display(),
                    if entries.is_empty() {
                        "none".to_string()
                    } else {
                        entries.join(", ")
                    }
                ))
            }
            Err(error) => {
                self.file = previous;
                Reply::refused(error)
            }
        }
    }

    fn command(&mut self, command: &str) -> Reply {
        let (name, rest) = command
            .split_once(char::is_whitespace)
            .map_or((command, ""), |(name, rest)| (name, rest.trim()));
        match name {
            "q" | "quit" | "exit" => Reply {
                ok: true,
                text: String::new(),
                quit: true,
            },
            "h" | "help" => Reply::ok(help()),
            "load" if !rest.is_empty() => self.load(Path::new(rest)),
            "list" => Reply::ok(self.listing()),
            "undo" => match self.inputs.pop() {
                Some((_, text)) => match self.run() {
                    Ok((summary, _)) => Reply::ok(format!("dropped `{text}`\n{summary}")),
                    Err(error) => Reply::refused(error),
                },
                None => Reply::refused("nothing to undo\n".to_string()),
            },
            "reset" => {
                self.inputs.clear();
                self.shown_nodes = 0;
                Reply::ok("every input dropped\n".to_string())
            }
            "arg" if rest.contains('=') => {
                let key = rest
                    .split('=')
                    .next()
                    .unwrap_or_default()
                    .trim()
                    .to_string();
                let previous = self.args.clone();
                self.args
                    .retain(|arg| arg.split('=').next().map(str::trim) != Some(&key));
                self.args.push(rest.to_string());
                match self.run() {
                    Ok((summary, _)) => Reply::ok(summary),
                    Err(error) => {
                        self.args = previous;
                        Reply::refused(error)
                    }
                }
            }
            "schedule" | "dot" | "json" => self.show(name),
            "save" if !rest.is_empty() => self.save(Path::new(rest)),
            "run" => self.run_on_vulkan(rest),
            _ => Reply::refused(format!("unknown command `:{command}` (:help lists them)\n")),
        }
    }

    /// The script the session holds: an `#include` of the loaded file, the typed declarations,
    /// then the entry with the typed statements. Diagnostics of typed inputs point into this
    /// text (`<repl>`), those of the loaded script into the script.
    fn source(&self) -> String {
        let mut text = String::new();
        if let Some(loaded) = &self.file {
            let _ = writeln!(text, "#include \"{}\"", loaded.include_name);
        }
        for (part, input) in &self.inputs {
            if *part == Part::Declaration {
                text.push_str(input);
                text.push('\n');
            }
        }
        let _ = writeln!(
            text,
            "export void {REPL_ENTRY}([readonly(present)] texture backbuffer, uint frameIndex)\n{{"
        );
        for (part, input) in &self.inputs {
            if *part == Part::Statement {
                text.push_str(input);
                text.push('\n');
            }
        }
        text.push_str("}\n");
        text
    }

    fn program(&self) -> Result<Program, String> {
        let text = self.source();
        let compilation = match &self.file {
            // The typed inputs sit beside the loaded script: its includes resolve next to it, and
            // only inside its directory.
            Some(loaded) => {
                let repl_path = loaded.path.with_file_name(REPL_FILE);
                rpsl::frontend::check_with_loader(&repl_path.to_string_lossy(), text, loaded)
            }
            None => rpsl::frontend::check_source(REPL_FILE, &text),
        };
        Program::from_compilation(compilation).map_err(|error| error.rendered)
    }

    /// Compiles the script, runs one frame and describes it: the nodes of the last input's
    /// statements (those past the previous frame's count) and the frame's figures.
    fn run(&mut self) -> Result<(String, Program), String> {
        let (last_entry, shown) = (self.shown_entry.clone(), self.shown_nodes);
        let ((text, nodes, entry), program) = self.with_frame(|entry, graph, compiled| {
            // Past the nodes shown before, unless the frame is another entry's or shrank.
            let first = if entry == last_entry && shown <= graph.nodes.len() {
                shown
            } else {
                0
            };
            let mut text = summary(graph, compiled, first);
            if entry != REPL_ENTRY {
                text = format!("running `{entry}` (default arguments, and :arg values)\n{text}");
            }
            (text, graph.nodes.len(), entry.to_string())
        })?;
        self.shown_nodes = nodes;
        self.shown_entry = entry;
        Ok((text, program))
    }

    fn show(&mut self, what: &str) -> Reply {
        let shown = self.with_frame(|entry, graph, compiled| match what {
            "dot" => super::graph::dot(entry, graph, compiled),
            "json" => pretty_json(&rpsl::runtime::dump_frame_json(
                entry,
                graph,
                Some(compiled),
            )),
            _ => schedule(graph, compiled),
        });
        match shown {
            Ok((text, _)) => Reply::ok(text),
            Err(error) => Reply::refused(error),
        }
    }

    /// `:run [FRAMES] [DIR]`: runs the current entry for FRAMES frames (default 1) on Vulkan
    /// (a GPU, or the CPU driver), nodes without shaders as empty passes, and writes the last
    /// frame's external textures to DIR (default `repl-out`) as PNGs. Vulkan errors are printed
    /// as `rpsl run` prints them; the session goes on.
    fn run_on_vulkan(&mut self, rest: &str) -> Reply {
        let mut frames = 1u32;
        let mut dir = PathBuf::from("repl-out");
        for word in rest.split_whitespace() {
            match word.parse::<u32>() {
                Ok(count) if (1..=10_000).contains(&count) => frames = count,
                Ok(_) => return Reply::refused("error: FRAMES must be 1 to 10000\n".to_string()),
                Err(_) => dir = PathBuf::from(word),
            }
        }
        let program = match self.program() {
            Ok(program) => program,
            Err(error) => return Reply::refused(error),
        };
        let (entry, mut session, args, effects) = match self.start(&program) {
            Ok(started) => started,
            Err(error) => return Reply::refused(error),
        };
        // Effect nodes compile before the device is made (an error is the session's reply).
        let effects = match effects.compile(&program) {
            Ok(compiled) => compiled,
            Err(error) => return Reply::refused(error),
        };
        // Every named resource of the frame besides the externals (`scene`, `chain`) is kept
        // (not culled or aliased) and written too: textures as PNG, buffers as raw bytes.
        let named = match self.with_frame(|_, graph, _| named_resources(graph)) {
            Ok((named, _)) => named,
            Err(error) => return Reply::refused(error),
        };
        session.keep_resources(named.iter().map(|(name, _)| name.clone()));
        let named_out = named
            .iter()
            .map(|(name, texture)| NamedOutput {
                name: name.clone(),
                file: dir.join(format!(
                    "{}.{}",
                    file_name_of(name),
                    if *texture { "png" } else { "bin" }
                )),
            })
            .collect();
        // The runner prints its own errors (`error: vulkan: ...`).
        let Ok(mut runner) = VulkanRunner::new(VulkanRunOptions {
            allow_unbound: true,
            out: Some(dir.clone()),
            named_out,
            shader_dir: self.shader_dir(),
            node_names: script_node_names(&program),
            ..VulkanRunOptions::default()
        }) else {
            return Reply::refused(String::new());
        };
        effects.bind(runner.backend_mut());
        for _ in 0..frames {
            let frame = match session.run_frame(&args) {
                Ok(frame) => frame,
                Err(error) => return Reply::refused(error.render()),
            };
            if runner.execute(frame).is_err() {
                return Reply::refused(String::new());
            }
        }
        if runner.finish().is_err() {
            return Reply::refused(String::new());
        }
        let mut written: Vec<String> = std::fs::read_dir(&dir)
            .map(|entries| {
                entries
                    .filter_map(|entry| entry.ok())
                    .map(|entry| entry.file_name().to_string_lossy().into_owned())
                    .filter(|name| name.ends_with(".png") || name.ends_with(".bin"))
                    .collect()
            })
            .unwrap_or_default();
        written.sort();
        let plural = if frames == 1 { "" } else { "s" };
        Reply::ok(format!(
            "ran `{entry}` for {frames} frame{plural} on Vulkan; {}: {}\n",
            dir.display(),
            if written.is_empty() {
                "no PNG".to_string()
            } else {
                written.join(", ")
            }
        ))
    }

    /// `:save FILE`: the session's script, runnable with `rpsl run FILE --entry __repl`.
    fn save(&self, path: &Path) -> Reply {
        let mut text = format!(
            "// Saved by `rpsl repl`; run it with `rpsl run {} --entry {REPL_ENTRY}`.\n",
            path.display()
        );
        text.push_str(&self.source());
        if let Err(error) = std::fs::write(path, text) {
            return Reply::refused(format!(
                "error: cannot write `{}`: {error}\n",
                path.display()
            ));
        }
        let mut reply = format!("saved the session to {}\n", path.display());
        if let Some(loaded) = &self.file {
            let saved_dir = path.parent().and_then(|dir| {
                std::fs::canonicalize(if dir.as_os_str().is_empty() {
                    Path::new(".")
                } else {
                    dir
                })
                .ok()
            });
            let loaded_dir = loaded.canonical.parent().map(Path::to_path_buf);
            if saved_dir != loaded_dir {
                let dir = loaded
                    .path
                    .parent()
                    .filter(|dir| !dir.as_os_str().is_empty())
                    .unwrap_or(Path::new("."));
                let _ = writeln!(
                    reply,
                    "note: it includes `{}`: run it with `-I {}`",
                    loaded.include_name,
                    dir.display()
                );
            }
        }
        Reply::ok(reply)
    }

    /// The entry the session runs: the typed statements' `__repl` once there are any; before
    /// that the loaded script's own entry (`main`, or its only export), so a loaded script shows
    /// its frame at once.
    fn current_entry(&self, program: &Program) -> String {
        let typed_statements = self.inputs.iter().any(|(part, _)| *part == Part::Statement);
        let loaded_entry = || {
            let exports: Vec<&str> = program
                .entries()
                .iter()
                .map(|entry| entry.name.as_str())
                .filter(|name| *name != REPL_ENTRY)
                .collect();
            match exports.as_slice() {
                [only] => Some(only.to_string()),
                _ => exports.contains(&"main").then(|| "main".to_string()),
            }
        };
        match &self.file {
            Some(_) if !typed_statements => {
                loaded_entry().unwrap_or_else(|| REPL_ENTRY.to_string())
            }
            _ => REPL_ENTRY.to_string(),
        }
    }

    /// The `:arg` values that name parameters of `entry` (the others wait for an entry that
    /// has them).
    fn args_of(&self, entry: &rpsl::vm::lower::EntryInfo) -> Vec<String> {
        self.args
            .iter()
            .filter(|arg| {
                let name = arg.split('=').next().unwrap_or_default().trim();
                entry.params.iter().any(|param| param.name == name)
            })
            .cloned()
            .collect()
    }

    /// Where the script's nodes find their shaders and effects: the loaded script's folder, else
    /// the working directory.
    fn shader_dir(&self) -> PathBuf {
        match &self.file {
            Some(loaded) => shader_dir_of(&loaded.path),
            None => PathBuf::from("."),
        }
    }

    /// A session of `program` on the current entry (no JIT tier-up: a REPL frame is short-lived)
    /// with its arguments and its nodes bound to MagpieFX effects (installed): the entry's name,
    /// the session, the arguments and the effect nodes, or the error to show.
    fn start<'p>(&self, program: &'p Program) -> Result<Started<'p>, String> {
        let entry = self.current_entry(program);
        let options = SessionOptions {
            jit_tier_up: false,
            ..self.options
        };
        let mut session =
            Session::new(program, Some(&entry), options).map_err(|e| e.message() + "\n")?;
        let args = EntryArgs::parse(program, session.entry(), self.args_of(session.entry()))
            .map_err(|error| format!("error: {error}\n"))?;
        let effects = EffectNodes::find(program, &self.shader_dir()).map_err(|e| e.rendered)?;
        effects.install(&mut session);
        Ok((entry, session, args, effects))
    }

    /// Compiles the script, runs one frame of the current entry and describes it with
    /// `describe` (given the entry's name); the error to show when any step fails.
    fn with_frame<T>(
        &self,
        describe: impl FnOnce(&str, &RecordedGraph, &CompiledFrame) -> T,
    ) -> Result<(T, Program), String> {
        let program = self.program()?;
        let (entry, mut session, args, _) = self.start(&program)?;
        let described = match session.run_frame(&args) {
            Ok(frame) => describe(&entry, frame.graph, frame.compiled),
            Err(error) => return Err(error.render()),
        };
        drop(session);
        Ok((described, program))
    }
}

/// What [`Repl::start`] gives: the entry's name, its session, its arguments and the script's
/// effect nodes.
type Started<'p> = (String, Session<'p>, EntryArgs, EffectNodes);

/// `rpsl repl [FILE]`: reads inputs with line editing (plain lines when stdin is not a
/// terminal) until `:quit` or end of input. Exit code 0, or 1 when FILE does not load.
/// `step_budget` replaces the default step budget of every frame.
pub fn run(file: Option<&Path>, step_budget: Option<u64>) -> std::process::ExitCode {
    match session(file, step_budget) {
        Ok(code) => code,
        Err(error) => error.report(std::process::ExitCode::SUCCESS),
    }
}

/// Writes a reply on stdout now (the user is waiting for it).
fn say(out: &mut Output, text: &str) -> Result<(), OutputError> {
    out.write_str(text)?;
    out.writer().flush().map_err(|error| out.failed(error))
}

fn session(
    file: Option<&Path>,
    step_budget: Option<u64>,
) -> Result<std::process::ExitCode, OutputError> {
    let mut out = Output::open("the session's output", Destination::Stdout)?;
    let mut repl = Repl::new();
    repl.options.limits = crate::cli::frames::step_limits(step_budget);
    if let Some(path) = file {
        let reply = repl.load(path);
        if !reply.ok {
            diag!("{}", reply.text);
            return Ok(std::process::ExitCode::from(1));
        }
        say(&mut out, &reply.text)?;
    }
    let mut editor = match rustyline::Editor::<ReplHelper, FileHistory>::new() {
        Ok(editor) => editor,
        Err(error) => {
            diagln!("error: cannot read input: {error}");
            return Ok(std::process::ExitCode::from(2));
        }
    };
    let mut helper = ReplHelper::new();
    if let Some(text) = repl.loaded_text() {
        helper.learn(text);
    }
    editor.set_helper(Some(helper));
    let history = history_file();
    if let Some(path) = &history {
        // A first session has no history yet.
        let _ = editor.load_history(path);
    }
    say(
        &mut out,
        "rpsl repl: type :help for commands, :quit to leave\n",
    )?;
    let mut pending = String::new();
    loop {
        let prompt = if pending.is_empty() {
            "rpsl> "
        } else {
            "  ... "
        };
        let line = match editor.readline(prompt) {
            Ok(line) => line,
            Err(rustyline::error::ReadlineError::Interrupted) => {
                pending.clear();
                continue;
            }
            Err(_) => break,
        };
        if !pending.is_empty() {
            pending.push('\n');
        }
        pending.push_str(&line);
        if !pending.trim_start().starts_with(':') && needs_more(&pending) {
            continue;
        }
        let input = std::mem::take(&mut pending);
        if !input.trim().is_empty() {
            let _ = editor.add_history_entry(input.as_str());
        }
        let reply = repl.input(&input);
        if reply.ok {
            if let Some(helper) = editor.helper_mut() {
                helper.learn(&input);
                if let Some(text) = repl.loaded_text() {
                    helper.learn(text);
                }
            }
            say(&mut out, &reply.text)?;
        } else {
            diag!("{}", reply.text);
        }
        if reply.quit {
            break;
        }
    }
    if let Some(path) = &history {
        if let Some(dir) = path.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        if let Err(error) = editor.save_history(path) {
            diagln!(
                "warning: cannot save the history to `{}`: {error}",
                path.display()
            );
        }
    }
    out.finish()?;
    Ok(std::process::ExitCode::SUCCESS)
}

/// The names of a frame's named resources other than the externals, each once, with whether
/// it is a texture.
fn named_resources(graph: &RecordedGraph) -> Vec<(String, bool)> {
    let mut named: Vec<(String, bool)> = Vec::new();
    for (index, record) in graph.resources.iter().enumerate() {
        let id = rpsl::runtime::ResourceId::from_index(index);
        let Some(name) = graph.resource_name(id).filter(|_| !record.external) else {
            continue;
        };
        if !named.iter().any(|(seen, _)| seen == name) {
            named.push((name.to_string(), record.desc.kind.is_texture()));
        }
    }
    named
}

/// Where the history lives between sessions: `$RPSL_REPL_HISTORY` (empty: no history), else
/// `$XDG_STATE_HOME/rpsl/repl_history`, else `~/.local/state/rpsl/repl_history`.
fn history_file() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("RPSL_REPL_HISTORY") {
        return (!path.is_empty()).then(|| PathBuf::from(path));
    }
    let state = std::env::var_os("XDG_STATE_HOME")
        .filter(|dir| !dir.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".local/state"))
        })?;
    Some(state.join("rpsl").join("repl_history"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_keeps_what_compiles_and_runs() {
        let mut repl = Repl::new();
        let reply = repl.input("graphics node Draw(rtv rt : SV_Target0, uint i);");
        assert!(reply.ok, "{}", reply.text);
        let reply = repl.input("Draw(backbuffer, 1)");
        assert!(reply.ok, "{}", reply.text);
        assert_eq!(
            reply.text,
            // Present -> color attachment before the draw, back to present after it.
            "+ node 0: Draw(rt = backbuffer, i = 1)\nframe: 1 nodes (0 culled), 1 resources, 2 barrier \
             batches, 2 transitions, 0 transient bytes\n"
        );
        let refused = repl.input("Draw(nothing, 1);");
        assert!(!refused.ok);
        assert!(refused.text.contains("nothing"), "{}", refused.text);
        assert_eq!(
            repl.listing(),
            "graphics node Draw(rtv rt : SV_Target0, uint i);\nDraw(backbuffer, 1);\n"
        );
        assert!(repl.input(":undo").ok);
        assert_eq!(
            repl.listing(),
            "graphics node Draw(rtv rt : SV_Target0, uint i);\n"
        );
        assert!(repl.input(":quit").quit);
    }

    #[test]
    fn a_node_declaration_without_its_semicolon_gets_one() {
        let mut repl = Repl::new();
        let reply = repl.input("graphics node Draw(rtv rt : SV_Target0, uint i)");
        assert!(reply.ok, "{}", reply.text);
        assert!(repl.input("Draw(backbuffer, 1)").ok);
        assert_eq!(
            repl.listing(),
            "graphics node Draw(rtv rt : SV_Target0, uint i);\nDraw(backbuffer, 1);\n"
        );
    }
}
