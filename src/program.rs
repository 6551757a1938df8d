//! [`Program`]: a script checked, lowered to bytecode and verified, with its source files kept so
//! that runtime faults render as located diagnostics.

use std::fmt;
use std::path::Path;
use std::sync::Arc;

use rpsl_frontend::diagnostic::{render_all, Diagnostic};
use rpsl_frontend::hir;
use rpsl_frontend::preprocess::{FileLoader, IncludePolicy};
use rpsl_frontend::source::{SourceFiles, Span};
use rpsl_frontend::Compilation;
use rpsl_runtime::{CompileError, NodeDeclDesc, RecordedGraph};
use rpsl_vm::lower::{lower_module, EntryInfo};
use rpsl_vm::{CallSite, LocId, RuntimeError, VerifiedModule};

use crate::decls::node_declarations;
use crate::session::FrameError;

/// Why a script could not be turned into a runnable [`Program`]: its diagnostics, rendered as
/// `PATH:LINE:COL: error: MESSAGE` with source excerpts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProgramError {
    /// The rendered diagnostics (errors and warnings), one after the other.
    pub rendered: String,
    /// Number of errors among them.
    pub error_count: usize,
}

impl fmt::Display for ProgramError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.rendered.trim_end())
    }
}

impl std::error::Error for ProgramError {}

/// The chosen entry point does not exist, or none was chosen and the choice is ambiguous.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EntryError {
    /// What is wrong, listing the exported entry points.
    pub message: String,
}

impl fmt::Display for EntryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for EntryError {}

/// A checked, lowered and verified script, ready to run every frame.
///
/// ```
/// let program = rpsl::Program::from_source(
///     "inline.rpsl",
///     "graphics node Draw(rtv rt);\nexport void main(texture bb) { Draw(bb); }\n",
/// ).unwrap();
/// assert_eq!(program.entry(None).unwrap().name, "main");
/// assert!(program.disassembly().contains("call_node"));
/// ```
#[derive(Debug)]
pub struct Program {
    files: SourceFiles,
    hir: hir::Module,
    verified: VerifiedModule,
    locs: Vec<Span>,
    entries: Vec<EntryInfo>,
    decls: Vec<NodeDeclDesc>,
    warnings: String,
    /// Resource names by the location of the instruction that creates the resource.
    site_names: Arc<Vec<Option<String>>>,
}

impl Program {
    /// Loads, checks, lowers and verifies the script at `path` (includes come from the file
    /// system, only from inside the script's directory: the default [`IncludePolicy`]).
    pub fn from_file(path: impl AsRef<Path>) -> Result<Program, ProgramError> {
        Program::from_file_with(path, &IncludePolicy::default())
    }

    /// Loads, checks, lowers and verifies the script at `path`; its includes come from the file
    /// system under `policy` (include directories, size and inclusion limits).
    pub fn from_file_with(
        path: impl AsRef<Path>,
        policy: &IncludePolicy,
    ) -> Result<Program, ProgramError> {
        Program::from_compilation(rpsl_frontend::check_file_with(path.as_ref(), policy))
    }

    /// Checks, lowers and verifies a script held in memory; `path` names it in diagnostics.
    pub fn from_source(path: &str, text: &str) -> Result<Program, ProgramError> {
        Program::from_compilation(rpsl_frontend::check_source(path, text))
    }

    /// Checks, lowers and verifies a script held in memory whose includes come from `loader`
    /// (an embedding's virtual file system, such as a pak file) under `policy`: includes
    /// resolve only inside `path`'s directory and the policy's include directories.
    ///
    /// ```
    /// use rpsl::frontend::preprocess::{IncludePolicy, MemoryLoader, SourceLimits};
    /// let pak = MemoryLoader::new()
    ///     .with("common/nodes.rpsli", "graphics node Draw(rtv rt);\n")
    ///     .with("frames/secret.txt", "not for scripts\n");
    /// let policy = IncludePolicy::default()
    ///     .with_include_dir("common")
    ///     .with_limits(SourceLimits { max_inclusions: 8, ..SourceLimits::default() });
    /// let text = "#include <nodes.rpsli>\nexport void main(texture bb) { Draw(bb); }\n";
    /// let program = rpsl::Program::from_source_with("scenes/main.rpsl", text, &pak, &policy).unwrap();
    /// assert_eq!(program.entry(None).unwrap().name, "main");
    ///
    /// let text = "#include \"../frames/secret.txt\"\n";
    /// let error = rpsl::Program::from_source_with("scenes/main.rpsl", text, &pak, &policy).unwrap_err();
    /// assert!(error.rendered.starts_with(
    ///     "scenes/main.rpsl:1:10: error: cannot include `../frames/secret.txt`: \
    ///      it lies outside the include directories\n"
    /// ));
    /// ```
    pub fn from_source_with(
        path: &str,
        text: &str,
        loader: &dyn FileLoader,
        policy: &IncludePolicy,
    ) -> Result<Program, ProgramError> {
        Program::from_compilation(rpsl_frontend::check_with(
            path,
            text.to_string(),
            loader,
            policy,
        ))
    }

    /// Lowers and verifies an already checked script.
    pub fn from_compilation(compilation: Compilation) -> Result<Program, ProgramError> {
        let Compilation {
            files,
            module,
            diagnostics,
        } = compilation;
        let warnings = render_all(&diagnostics, &files);
        let error_count = diagnostics.iter().filter(|d| d.is_error()).count();
        let module = match module {
            Some(module) if error_count == 0 => module,
            _ => {
                return Err(ProgramError {
                    rendered: warnings,
                    error_count: error_count.max(1),
                })
            }
        };
        let failed = |diagnostics: Vec<Diagnostic>| ProgramError {
            rendered: render_all(&diagnostics, &files),
            error_count: diagnostics.len(),
        };
        let lowered = match lower_module(&module) {
            Ok(lowered) => lowered,
            Err(errors) => {
                return Err(failed(
                    errors
                        .into_iter()
                        .map(|error| Diagnostic::error(error.span, error.message))
                        .collect(),
                ))
            }
        };
        let decls = match node_declarations(&module) {
            Ok(decls) => decls,
            Err(error) => return Err(failed(vec![Diagnostic::error(error.span, error.message)])),
        };
        let verified = match lowered.module.verify() {
            Ok(verified) => verified,
            Err(errors) => {
                // The lowering reports every limit of the bytecode itself; a finding here is a
                // bug, shown at the function it is about (helper copies of entry points come
                // after the module's functions: those fall back to the first entry point).
                let span = errors
                    .0
                    .first()
                    .and_then(|error| module.functions.get(error.func.index()))
                    .map(|f| f.span)
                    .or_else(|| module.entries.first().map(|&f| module.function(f).span))
                    .unwrap_or(Span::new(rpsl_frontend::source::FileId(0), 0, 0));
                let message = format!("internal error: bytecode fails verification: {errors}");
                return Err(failed(vec![Diagnostic::error(span, message)]));
            }
        };
        let mut site_names = vec![None; lowered.locs.len()];
        for (loc, name) in lowered.resource_names {
            if let Some(slot) = site_names.get_mut(loc as usize) {
                *slot = Some(name);
            }
        }
        Ok(Program {
            files,
            hir: module,
            verified,
            site_names: Arc::new(site_names),
            locs: lowered.locs,
            entries: lowered.entries,
            decls,
            warnings,
        })
    }

    /// The variable names resources are created for, by creating location: what the graph
    /// builder names resources after ([`rpsl_runtime::GraphBuilder::set_site_names`]).
    pub(crate) fn site_names(&self) -> &Arc<Vec<Option<String>>> {
        &self.site_names
    }

    /// The exported entry points, in source order.
    pub fn entries(&self) -> &[EntryInfo] {
        &self.entries
    }

    /// The entry point called `name`; without a name, `main`, else the only export.
    pub fn entry(&self, name: Option<&str>) -> Result<&EntryInfo, EntryError> {
        let names = || {
            let list: Vec<String> = self
                .entries
                .iter()
                .map(|e| format!("`{}`", e.name))
                .collect();
            if list.is_empty() {
                "the script exports no entry point".to_string()
            } else {
                format!("exported: {}", list.join(", "))
            }
        };
        match name {
            Some(name) => self
                .entries
                .iter()
                .find(|e| e.name == name)
                .ok_or_else(|| EntryError {
                    message: format!("no exported entry point `{name}` ({})", names()),
                }),
            None => {
                if let Some(main) = self.entries.iter().find(|e| e.name == "main") {
                    return Ok(main);
                }
                match self.entries.as_slice() {
                    [only] => Ok(only),
                    _ => Err(EntryError {
                        message: format!(
                            "no `main` entry point; choose one with --entry ({})",
                            names()
                        ),
                    }),
                }
            }
        }
    }

    /// The HIR function of an entry point.
    pub fn entry_function(&self, entry: &EntryInfo) -> &hir::Function {
        &self.hir.functions[entry.func.index()]
    }

    /// The checked module.
    pub fn hir(&self) -> &hir::Module {
        &self.hir
    }

    /// The verified bytecode.
    pub fn bytecode(&self) -> &VerifiedModule {
        &self.verified
    }

    /// The runtime node declarations, indexed like the HIR's node declarations.
    pub fn node_declarations(&self) -> &[NodeDeclDesc] {
        &self.decls
    }

    /// The source files (prelude, script, includes).
    pub fn files(&self) -> &SourceFiles {
        &self.files
    }

    /// Warnings found while checking, rendered (empty when there are none).
    pub fn warnings(&self) -> &str {
        &self.warnings
    }

    /// The bytecode disassembly.
    pub fn disassembly(&self) -> String {
        self.verified.module().to_string()
    }

    /// The source span of a bytecode location.
    pub fn span_of(&self, loc: LocId) -> Option<Span> {
        self.locs.get(loc.index()).copied()
    }

    /// An error diagnostic at a bytecode location (at the script's start when unknown).
    pub fn diagnostic_at(&self, loc: Option<LocId>, message: impl Into<String>) -> Diagnostic {
        let span = loc
            .and_then(|loc| self.span_of(loc))
            .unwrap_or_else(|| self.script_start());
        Diagnostic::error(span, message)
    }

    /// A runtime fault rendered as `PATH:LINE:COL: error: MESSAGE` with a source excerpt.
    pub fn render_runtime_error(&self, error: &RuntimeError) -> String {
        self.diagnostic_at(error.loc, error.kind.to_string())
            .render(&self.files)
    }

    /// A compile error of a graph this program recorded, as a [`FrameError::Compile`] located at
    /// the call of the node at fault. The node's identity key carries the location of its call
    /// instruction in its upper 32 bits (see [`rpsl_vm::CallSite`]); a key that does not name
    /// one of this program's locations (a graph built elsewhere) points at the script's start.
    ///
    /// ```
    /// let program = rpsl::Program::from_source(
    ///     "s.rpsl",
    ///     "graphics node Draw(rtv a : SV_Target0, rtv b : SV_Target1);\n\
    ///      export void main(texture bb) {\n\
    ///          texture small = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 8, 8);\n\
    ///          Draw(bb, small);\n\
    ///      }\n",
    /// ).unwrap();
    /// let mut session = rpsl::Session::new(&program, None, rpsl::SessionOptions::default()).unwrap();
    /// let args = rpsl::EntryArgs::defaults(session.entry());
    /// let error = session.run_frame(&args).unwrap_err();
    /// assert!(error.render().starts_with("s.rpsl:4:"), "{}", error.render());
    /// ```
    pub fn compile_error(&self, graph: &RecordedGraph, error: CompileError) -> FrameError {
        let CompileError::RenderPass { node, message } = &error;
        let loc = graph
            .nodes
            .get(node.index())
            .map(|record| CallSite::loc_of_key(record.identity_key));
        let name = graph
            .nodes
            .get(node.index())
            .and_then(|record| graph.decls.get(record.decl.index()))
            .map_or("?", |decl| decl.name.as_str());
        let rendered = self
            .diagnostic_at(loc, format!("render pass of node `{name}`: {message}"))
            .with_note(format!(
                "the frame compiler rejected node {} of the recorded graph",
                node.0
            ))
            .render(&self.files);
        FrameError::Compile { error, rendered }
    }

    fn script_start(&self) -> Span {
        let file = if self.files.len() > 1 { 1 } else { 0 };
        Span::new(rpsl_frontend::source::FileId(file), 0, 0)
    }
}
