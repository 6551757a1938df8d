//! [`HotScript`]: a script file an engine runs every frame and edits while it runs. It owns its
//! [`Program`] and session state, notices when the script or any file it includes changed on
//! disk, and swaps in the recompiled program (checked, lowered, JIT-compiled) between frames.
//! A script that no longer compiles leaves the previous program running and reports why.
//! A [`SessionSetup`] callback prepares every session it builds (node expansions, e.g.
//! MagpieFX effects bound to nodes) and names more files to watch.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

use rpsl_frontend::preprocess::IncludePolicy;
use rpsl_runtime::{GraphBuilder, NodeExpansion};
use rpsl_vm::lower::EntryInfo;

use crate::args::{ArgError, EntryArgs};
use crate::program::{Program, ProgramError};
use crate::runner::Runner;
use crate::session::{Frame, FrameError, Mode, SessionError, SessionOptions};

/// Why a [`HotScript`] could not be opened or reloaded. After a failed reload the previous
/// program keeps running.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReloadError {
    /// The script has errors (rendered diagnostics).
    Program(ProgramError),
    /// The entry point is missing, or the JIT failed.
    Session(SessionError),
    /// The stored `NAME=VALUE` arguments no longer fit the entry point.
    Args(ArgError),
    /// The session setup ([`HotScript::set_session_setup`]) refused the program (its rendered
    /// message).
    Setup(String),
}

impl std::fmt::Display for ReloadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReloadError::Program(error) => write!(f, "{error}"),
            ReloadError::Session(error) => write!(f, "{error}"),
            ReloadError::Args(error) => write!(f, "{}", error.message),
            ReloadError::Setup(message) => f.write_str(message.trim_end()),
        }
    }
}

impl std::error::Error for ReloadError {}

/// What a file looked like when the running program was built from it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Stamp {
    path: PathBuf,
    modified: Option<SystemTime>,
    len: u64,
    text: String,
}

impl Stamp {
    /// Whether the file on disk differs from the text the program was built from (a file that
    /// went missing counts as changed; one missing then and now does not).
    fn changed(&self) -> bool {
        match std::fs::metadata(&self.path) {
            Ok(meta) if meta.modified().ok() == self.modified && meta.len() == self.len => false,
            Ok(_) => std::fs::read_to_string(&self.path).map_or(true, |text| text != self.text),
            Err(_) => self.modified.is_some(),
        }
    }
}

/// What a [`HotScript`]'s setup callback ([`HotScript::set_session_setup`]) can do to each
/// session the script builds, before its first frame: bind node expansions and name more files
/// whose edits reload the script.
pub struct SessionSetup<'a> {
    program: &'a Program,
    runner: &'a mut Runner,
    watched: Vec<PathBuf>,
}

impl SessionSetup<'_> {
    /// The program the session runs.
    pub fn program(&self) -> &Program {
        self.program
    }

    /// Records every call of the program's node `name` through `expansion` (as
    /// [`crate::Session::expand_node`]); whether the program declares that node.
    pub fn expand_node(&mut self, name: &str, expansion: Arc<dyn NodeExpansion>) -> bool {
        crate::session::expand_node(self.program, self.runner, name, expansion)
    }

    /// Watches `path` besides the script and its includes: a later edit of it reloads the
    /// script (and runs the setup again). Also files read by a setup that then failed: their
    /// next edit tries again.
    pub fn watch_file(&mut self, path: impl Into<PathBuf>) {
        let path = path.into();
        if !self.watched.contains(&path) {
            self.watched.push(path);
        }
    }
}

/// The callback of [`HotScript::set_session_setup`]: `Err` is the rendered reason the program
/// cannot run (the last good one keeps running).
pub type SetupFn = dyn FnMut(&mut SessionSetup<'_>) -> Result<(), String> + Send;

/// A script file run every frame that picks up its own edits.
///
/// ```
/// # let dir = std::env::temp_dir().join(format!("rpsl-hot-doc-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir).unwrap();
/// let path = dir.join("frame.rpsl");
/// std::fs::write(&path, "graphics node A(rtv t);\nexport void main(texture bb) { A(bb); }\n").unwrap();
/// let mut script = rpsl::HotScript::open(&path, None, rpsl::SessionOptions::default(), &["bb=64x64"]).unwrap();
/// assert_eq!(script.run_frame().unwrap().graph.nodes.len(), 1);
///
/// // The script is edited while the engine runs: the next check swaps in the new program.
/// std::fs::write(&path, "graphics node A(rtv t);\nexport void main(texture bb) { A(bb); A(bb); }\n").unwrap();
/// assert_eq!(script.reload_if_changed(), Ok(true));
/// assert_eq!(script.run_frame().unwrap().graph.nodes.len(), 2);
///
/// // A broken edit is reported and the last good program keeps running.
/// std::fs::write(&path, "export void main(texture bb) { A(bb) }\n").unwrap();
/// assert!(script.reload_if_changed().is_err());
/// assert_eq!(script.run_frame().unwrap().graph.nodes.len(), 2);
/// ```
#[derive(Debug)]
pub struct HotScript {
    path: PathBuf,
    entry_name: Option<String>,
    options: SessionOptions,
    arg_texts: Vec<String>,
    /// Arguments the host supplies for parameters the entry point has (see
    /// [`HotScript::set_host_args`]).
    host_arg_texts: Vec<String>,
    program: Program,
    runner: Runner,
    args: EntryArgs,
    stamps: Vec<Stamp>,
    failed: Vec<Stamp>,
    reloads: u64,
    policy: IncludePolicy,
    /// Resources kept as outputs of every frame (see [`HotScript::keep_resources`]).
    kept: Vec<String>,
    /// Prepares every new session ([`HotScript::set_session_setup`]).
    setup: SetupSlot,
}

/// The setup callback of a [`HotScript`], if set (`Debug` shows only whether it is).
#[derive(Default)]
struct SetupSlot(Option<Box<SetupFn>>);

impl std::fmt::Debug for SetupSlot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() {
            "Some(setup)"
        } else {
            "None"
        })
    }
}

impl HotScript {
    /// Loads `path`, chooses the entry point (see [`Program::entry`]), compiles it for
    /// `options.mode` and parses `args` (`NAME=VALUE`, as the CLI's `--arg`).
    pub fn open<S: AsRef<str>>(
        path: impl AsRef<Path>,
        entry: Option<&str>,
        options: SessionOptions,
        args: &[S],
    ) -> Result<HotScript, ReloadError> {
        HotScript::open_with(path, entry, options, args, IncludePolicy::default())
    }

    /// [`HotScript::open`] with the include rules of `policy` (include directories, size and
    /// count limits; see SECURITY.md) for the first build and every reload. Files of the
    /// include directories are watched like the script's own.
    pub fn open_with<S: AsRef<str>>(
        path: impl AsRef<Path>,
        entry: Option<&str>,
        options: SessionOptions,
        args: &[S],
        policy: IncludePolicy,
    ) -> Result<HotScript, ReloadError> {
        let path = path.as_ref().to_path_buf();
        let arg_texts: Vec<String> = args.iter().map(|a| a.as_ref().to_string()).collect();
        let request = BuildRequest {
            path: &path,
            entry,
            options,
            arg_texts: &arg_texts,
            host_arg_texts: &[],
            first_frame: 0,
            policy: &policy,
        };
        let (program, runner, parsed, stamps) = build(&request, None).map_err(|f| f.error)?;
        Ok(HotScript {
            path,
            entry_name: entry.map(str::to_string),
            options,
            arg_texts,
            host_arg_texts: Vec::new(),
            program,
            runner,
            args: parsed,
            stamps,
            failed: Vec::new(),
            reloads: 0,
            policy,
            kept: Vec::new(),
            setup: SetupSlot::default(),
        })
    }

    /// Sets the callback that prepares the running session now and every session a reload
    /// builds, before its first frame: node expansions it binds and files it watches last
    /// across reloads as long as the callback binds and watches them again. `Err`: the callback
    /// refused the running program (its message in [`ReloadError::Setup`]); it stays set and
    /// runs again at the next reload.
    ///
    /// ```
    /// # use std::sync::Arc;
    /// # use rpsl::runtime::*;
    /// # let dir = std::env::temp_dir().join(format!("rpsl-hot-setup-doc-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir).unwrap();
    /// #[derive(Debug)]
    /// struct Twice;
    /// impl NodeExpansion for Twice {
    ///     fn declarations(&self) -> Vec<NodeDeclDesc> {
    ///         vec![NodeDeclDesc::new("Half", QueueClass::Graphics, Vec::new())]
    ///     }
    ///     fn expand(&self, b: &mut GraphBuilder, c: &ExpansionCall<'_>) -> Result<NodeId, BuildError> {
    ///         b.call_node(c.decls[0], &[], c.flags, c.identity_key)?;
    ///         b.call_node(c.decls[0], &[], c.flags, c.identity_key ^ 1)
    ///     }
    /// }
    /// let path = dir.join("frame.rpsl");
    /// let settings = dir.join("settings.txt");
    /// std::fs::write(&settings, "1").unwrap();
    /// std::fs::write(&path, "node Step();\nexport void main() { Step(); }\n").unwrap();
    /// let mut script = rpsl::HotScript::open(&path, None, Default::default(), &[] as &[&str]).unwrap();
    /// let watched = settings.clone();
    /// script.set_session_setup(Box::new(move |setup: &mut rpsl::SessionSetup<'_>| {
    ///     setup.watch_file(&watched);
    ///     match std::fs::read_to_string(&watched).unwrap().as_str() {
    ///         "1" => { setup.expand_node("Step", Arc::new(Twice)); Ok(()) }
    ///         _ => Err("error: settings.txt is not 1".to_string()),
    ///     }
    /// })).unwrap();
    /// assert_eq!(script.run_frame().unwrap().graph.nodes.len(), 2);
    ///
    /// // An edit of the script builds a new session: the setup expands `Step` there too.
    /// std::fs::write(&path, "node Step();\nexport void main() { Step(); Step(); }\n").unwrap();
    /// assert_eq!(script.reload_if_changed(), Ok(true));
    /// assert_eq!(script.run_frame().unwrap().graph.nodes.len(), 4);
    ///
    /// // A watched file's edit reloads too; a setup that fails keeps the last good session.
    /// std::fs::write(&settings, "2").unwrap();
    /// assert!(matches!(script.reload_if_changed(), Err(rpsl::ReloadError::Setup(_))));
    /// assert_eq!(script.run_frame().unwrap().graph.nodes.len(), 4);
    /// ```
    pub fn set_session_setup(&mut self, mut setup: Box<SetupFn>) -> Result<(), ReloadError> {
        let applied = apply_setup(&mut setup, &self.program, &mut self.runner);
        self.setup = SetupSlot(Some(setup));
        match applied {
            Ok(watched) => {
                self.stamps.extend(watched);
                Ok(())
            }
            Err(failure) => {
                self.failed = failure.failed_stamps(&self.stamps);
                Err(failure.error)
            }
        }
    }

    /// Recompiles when the script or one of its includes changed on disk since the running
    /// program was built. `Ok(true)`: the new program runs from the next frame on (frame
    /// numbering continues; the graph builder and compiled-frame cache start afresh, as the
    /// node declarations may have changed). Persistent, temporal and external resources keep
    /// their storage and history when the new program creates them under the same variable
    /// (or parameter) name with the same description, temporal count included; any other
    /// resource starts without history (see [`rpsl_runtime::StorageHistory`]). `Err`: the edit does not
    /// compile; the previous program keeps running and the same broken files are not
    /// recompiled again until they change once more.
    pub fn reload_if_changed(&mut self) -> Result<bool, ReloadError> {
        // Files only a failed build read (e.g. a setup's broken file) count as well.
        let changed = self.stamps.iter().any(Stamp::changed)
            || self
                .failed
                .iter()
                .filter(|failed| !self.stamps.iter().any(|stamp| stamp.path == failed.path))
                .any(Stamp::changed);
        if !changed {
            return Ok(false);
        }
        if !self.failed.is_empty() && !self.failed.iter().any(Stamp::changed) {
            return Ok(false);
        }
        self.reload().map(|()| true)
    }

    /// Recompiles now, whether or not the files changed.
    pub fn reload(&mut self) -> Result<(), ReloadError> {
        let request = BuildRequest {
            path: &self.path,
            entry: self.entry_name.as_deref(),
            options: self.options,
            arg_texts: &self.arg_texts,
            host_arg_texts: &self.host_arg_texts,
            first_frame: self.runner.next_frame_index(),
            policy: &self.policy,
        };
        match build(&request, self.setup.0.as_mut()) {
            Ok((program, mut runner, args, stamps)) => {
                runner.keep_resources(self.kept.iter().cloned());
                runner.continue_history(self.runner.builder().storage_history());
                self.program = program;
                self.runner = runner;
                self.args = args;
                self.stamps = stamps;
                self.failed.clear();
                self.reloads += 1;
                Ok(())
            }
            Err(failure) => {
                self.failed = failure.failed_stamps(&self.stamps);
                Err(failure.error)
            }
        }
    }

    /// Replaces the entry arguments (`NAME=VALUE`); they are kept across reloads. A reload that
    /// failed is tried again at the next [`HotScript::reload_if_changed`], since the arguments
    /// may have been what did not fit.
    pub fn set_args<S: AsRef<str>>(&mut self, args: &[S]) -> Result<(), ArgError> {
        let texts: Vec<String> = args.iter().map(|a| a.as_ref().to_string()).collect();
        let entry = self.runner.entry(&self.program);
        let all = with_host_args(&texts, &self.host_arg_texts, entry);
        self.args = EntryArgs::parse(&self.program, entry, &all)?;
        self.arg_texts = texts;
        self.failed.clear();
        Ok(())
    }

    /// Sets arguments (`NAME=VALUE`) the host supplies where the entry point has a parameter of
    /// that name, now and after every reload, after those of [`HotScript::set_args`]; one
    /// naming a parameter the (edited) entry point lacks is left out instead of failing the
    /// reload. A window presenting a texture parameter passes its size this way, so that an
    /// edit renaming the parameter still reloads.
    pub fn set_host_args<S: AsRef<str>>(&mut self, args: &[S]) -> Result<(), ArgError> {
        let texts: Vec<String> = args.iter().map(|a| a.as_ref().to_string()).collect();
        let entry = self.runner.entry(&self.program);
        let all = with_host_args(&self.arg_texts, &texts, entry);
        self.args = EntryArgs::parse(&self.program, entry, &all)?;
        self.host_arg_texts = texts;
        self.failed.clear();
        Ok(())
    }

    /// Keeps the resources named `names` as outputs of every frame, across reloads too (see
    /// [`crate::Session::keep_resources`]): never culled or aliased, so they can be read back.
    pub fn keep_resources(&mut self, names: impl IntoIterator<Item = String>) {
        for name in names {
            if !self.kept.contains(&name) {
                self.kept.push(name);
            }
        }
        self.runner.keep_resources(self.kept.iter().cloned());
    }

    /// Runs the script for the next frame and compiles the recorded graph.
    pub fn run_frame(&mut self) -> Result<Frame<'_>, FrameError> {
        self.runner.run_frame(&self.program, &self.args)
    }

    /// The running program.
    pub fn program(&self) -> &Program {
        &self.program
    }

    /// The entry point being run.
    pub fn entry(&self) -> &EntryInfo {
        self.runner.entry(&self.program)
    }

    /// How the script executes.
    pub fn mode(&self) -> Mode {
        self.runner.mode()
    }

    /// The graph builder (its last recorded graph).
    pub fn builder(&self) -> &GraphBuilder {
        self.runner.builder()
    }

    /// How many times a changed script was swapped in.
    pub fn reloads(&self) -> u64 {
        self.reloads
    }

    /// The files whose next edit tries a failed reload again (those the running program was
    /// built from, and those the failed attempt read); none after a successful build.
    pub fn retry_files(&self) -> impl Iterator<Item = &Path> {
        self.failed.iter().map(|stamp| stamp.path.as_path())
    }

    /// The files the running program was built from (the script and its includes), then those
    /// the session setup watches ([`SessionSetup::watch_file`]).
    pub fn watched_files(&self) -> impl Iterator<Item = &Path> {
        self.stamps.iter().map(|stamp| stamp.path.as_path())
    }
}

type Built = (Program, Runner, EntryArgs, Vec<Stamp>);

/// What [`build`] builds from.
struct BuildRequest<'a> {
    path: &'a Path,
    entry: Option<&'a str>,
    options: SessionOptions,
    arg_texts: &'a [String],
    host_arg_texts: &'a [String],
    first_frame: u64,
    policy: &'a IncludePolicy,
}

/// Why [`build`] failed, and the files the failed attempt read beyond the last good build's
/// (a setup's broken file): their next edit tries again.
struct BuildFailure {
    error: ReloadError,
    read: Vec<PathBuf>,
}

impl BuildFailure {
    fn new(error: ReloadError) -> BuildFailure {
        BuildFailure {
            error,
            read: Vec::new(),
        }
    }

    /// The files to look at before trying again: those of `stamps` and those read by the
    /// failed attempt, as they are now.
    fn failed_stamps(&self, stamps: &[Stamp]) -> Vec<Stamp> {
        let mut paths: Vec<&Path> = stamps.iter().map(|stamp| stamp.path.as_path()).collect();
        for path in &self.read {
            if !paths.contains(&path.as_path()) {
                paths.push(path);
            }
        }
        paths
            .into_iter()
            .map(|path| stamp_of(path, String::new()))
            .collect()
    }
}

fn build(
    request: &BuildRequest<'_>,
    setup: Option<&mut Box<SetupFn>>,
) -> Result<Built, BuildFailure> {
    let fail = |error| BuildFailure::new(error);
    let program = Program::from_file_with(request.path, request.policy)
        .map_err(|error| fail(ReloadError::Program(error)))?;
    let mut runner = Runner::new(
        &program,
        request.entry,
        request.options,
        request.first_frame,
    )
    .map_err(|error| fail(ReloadError::Session(error)))?;
    let entry_info = runner.entry(&program);
    let all = with_host_args(request.arg_texts, request.host_arg_texts, entry_info);
    let args = EntryArgs::parse(&program, entry_info, &all)
        .map_err(|error| fail(ReloadError::Args(error)))?;
    let files = program.files();
    let mut stamps: Vec<Stamp> = (0..files.len() as u32)
        .map(|id| files.get(rpsl_frontend::source::FileId(id)))
        .filter(|file| file.path.is_file())
        .map(|file| stamp_of(&file.path, file.text.clone()))
        .collect();
    // The setup runs last: once it accepts the program, the build has succeeded.
    if let Some(setup) = setup {
        stamps.extend(apply_setup(setup, &program, &mut runner)?);
    }
    Ok((program, runner, args, stamps))
}

/// Runs `setup` on the session of `program` held by `runner`: the stamps of the files it
/// watches.
fn apply_setup(
    setup: &mut Box<SetupFn>,
    program: &Program,
    runner: &mut Runner,
) -> Result<Vec<Stamp>, BuildFailure> {
    let mut session = SessionSetup {
        program,
        runner,
        watched: Vec::new(),
    };
    let outcome = setup(&mut session);
    let watched = session.watched;
    match outcome {
        Ok(()) => Ok(watched
            .iter()
            .map(|path| stamp_of(path, std::fs::read_to_string(path).unwrap_or_default()))
            .collect()),
        Err(message) => Err(BuildFailure {
            error: ReloadError::Setup(message),
            read: watched,
        }),
    }
}

/// `args`, then those of `host_args` naming a parameter of `entry` (see
/// [`HotScript::set_host_args`]).
fn with_host_args(args: &[String], host_args: &[String], entry: &EntryInfo) -> Vec<String> {
    let known = |text: &&String| {
        let name = text.split_once('=').map_or(text.as_str(), |(name, _)| name);
        entry.params.iter().any(|param| param.name == name)
    };
    args.iter()
        .chain(host_args.iter().filter(known))
        .cloned()
        .collect()
}

fn stamp_of(path: &Path, text: String) -> Stamp {
    let meta = std::fs::metadata(path).ok();
    Stamp {
        path: path.to_path_buf(),
        modified: meta.as_ref().and_then(|m| m.modified().ok()),
        len: meta.map_or(0, |m| m.len()),
        text,
    }
}
