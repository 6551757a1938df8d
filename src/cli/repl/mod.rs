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

use crate::cli::output::{Destination, Output, OutputError};

mod describe;
mod input_kind;

use describe::{schedule, summary};
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
    /// Nodes of the last frame that ran: later frames show only the nodes past these.
    shown_nodes: usize,
}

const HELP: &str = "\
Type RPSL declarations (node, struct, functions, static, #define) or statements; each input
runs the frame again and shows the nodes it added. Statements form the body of
`export void __repl([readonly(present)] texture backbuffer, uint frameIndex)`.
An input continues on the next line while brackets are open.
  :load FILE        load a script (its declarations and entry points become callable)
  :list             the typed inputs
  :undo             drop the last input
  :reset            drop every input (the loaded script stays)
  :arg NAME=VALUE   an argument of the entry (`:arg backbuffer=1920x1080`)
  :schedule         the compiled frame: order, barrier batches, memory
  :dot | :json      the frame as Graphviz dot / the JSON graph dump
  :help             this text
  :quit             leave (also Ctrl-D)
";

impl Repl {
    /// An empty session (no script loaded).
    pub fn new() -> Repl {
        Repl::default()
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
            "h" | "help" => Reply::ok(HELP.to_string()),
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
        let shown = self.shown_nodes;
        let ((text, nodes), program) = self
            .with_frame(|graph, compiled| (summary(graph, compiled, shown), graph.nodes.len()))?;
        self.shown_nodes = nodes;
        Ok((text, program))
    }

    fn show(&mut self, what: &str) -> Reply {
        let shown = self.with_frame(|graph, compiled| match what {
            "dot" => super::graph::dot(REPL_ENTRY, graph, compiled),
            "json" => rpsl::runtime::dump_frame_json(REPL_ENTRY, graph, Some(compiled)),
            _ => schedule(graph, compiled),
        });
        match shown {
            Ok((text, _)) => Reply::ok(text),
            Err(error) => Reply::refused(error),
        }
    }

    /// Compiles the script, runs one frame of the repl's entry and describes it with
    /// `describe`; the error to show when any step fails.
    fn with_frame<T>(
        &self,
        describe: impl FnOnce(&RecordedGraph, &CompiledFrame) -> T,
    ) -> Result<(T, Program), String> {
        let program = self.program()?;
        let options = SessionOptions {
            jit_tier_up: false,
            ..self.options
        };
        let mut session =
            Session::new(&program, Some(REPL_ENTRY), options).map_err(|e| e.message() + "\n")?;
        let args = EntryArgs::parse(&program, session.entry(), self.args.iter())
            .map_err(|error| format!("error: {error}\n"))?;
        let described = match session.run_frame(&args) {
            Ok(frame) => describe(frame.graph, frame.compiled),
            Err(error) => return Err(error.render()),
        };
        drop(session);
        Ok((described, program))
    }
}

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
    let mut editor = match rustyline::DefaultEditor::new() {
        Ok(editor) => editor,
        Err(error) => {
            diagln!("error: cannot read input: {error}");
            return Ok(std::process::ExitCode::from(2));
        }
    };
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
            say(&mut out, &reply.text)?;
        } else {
            diag!("{}", reply.text);
        }
        if reply.quit {
            break;
        }
    }
    out.finish()?;
    Ok(std::process::ExitCode::SUCCESS)
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
            "+ node 0: Draw(rt = backbuffer)\nframe: 1 nodes (0 culled), 1 resources, 2 barrier \
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
