//! The frontend driver: preprocess the prelude and a script with one preprocessor (the prelude's
//! macros stay defined), parse both, check them together, and hand back the files, the module and
//! the diagnostics sorted by position.
//!
//! ```
//! let compilation = rpsl_frontend::check_source(
//!     "a.rpsl",
//!     "node draw(rtv target : SV_Target0);\nexport void main(texture t) { draw(t); }\n",
//! );
//! assert!(!compilation.has_errors(), "{}", compilation.render_diagnostics());
//! let module = compilation.module.unwrap();
//! assert_eq!(module.function(module.entry("main").unwrap()).name, "main");
//! ```

use std::path::Path;
use std::sync::OnceLock;

use crate::ast;
use crate::builtins::{PRELUDE, PRELUDE_PATH};
use crate::diagnostic::{render_all, Diagnostic};
use crate::hir;
use crate::parse::parse_module;
use crate::preprocess::{FileLoader, FsLoader, MemoryLoader, Preprocessor};
use crate::sema::{self, SourceUnit};
use crate::source::{FileId, SourceFiles, Span};

/// The result of checking one script.
#[derive(Debug)]
pub struct Compilation {
    /// All files involved: the prelude (always `FileId(0)`), the script, its includes.
    pub files: SourceFiles,
    /// The checked module; `None` when there are errors.
    pub module: Option<hir::Module>,
    /// Errors and warnings, sorted by file and position.
    pub diagnostics: Vec<Diagnostic>,
}

impl Compilation {
    /// Whether any diagnostic is an error.
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }

    /// The first error, if any.
    pub fn first_error(&self) -> Option<&Diagnostic> {
        self.diagnostics.iter().find(|d| d.is_error())
    }

    /// All diagnostics rendered as `PATH:LINE:COL: error: MESSAGE` plus source excerpts.
    pub fn render_diagnostics(&self) -> String {
        render_all(&self.diagnostics, &self.files)
    }
}

/// Checks the script at `path`, loading it and its includes from the file system.
pub fn check_file(path: &Path) -> Compilation {
    match FsLoader.load(path) {
        Ok(text) => check_with_loader(&path.display().to_string(), text, &FsLoader),
        Err(err) => {
            let mut files = SourceFiles::new();
            let file = files.add(path, String::new());
            let message = format!("cannot read `{}`: {err}", path.display());
            Compilation {
                files,
                module: None,
                diagnostics: vec![Diagnostic::error(Span::new(file, 0, 0), message)],
            }
        }
    }
}

/// Checks a script held in memory (`#include`s of it fail: use [`check_with_loader`] for those).
pub fn check_source(path: &str, text: &str) -> Compilation {
    check_with_loader(path, text.to_string(), &MemoryLoader::new())
}

/// Checks a script held in memory, loading its includes through `loader`.
pub fn check_with_loader(path: &str, text: String, loader: &dyn FileLoader) -> Compilation {
    let (files, module, diagnostics) = run(path, text, loader);
    let has_errors = diagnostics.iter().any(Diagnostic::is_error);
    Compilation {
        files,
        module: (!has_errors).then_some(module),
        diagnostics,
    }
}

/// All the steps; the module is returned even when there are errors (for tests and dumps).
pub(crate) fn run(
    path: &str,
    text: String,
    loader: &dyn FileLoader,
) -> (SourceFiles, hir::Module, Vec<Diagnostic>) {
    let mut files = SourceFiles::new();
    let mut diagnostics = Vec::new();
    let mut preprocessor = Preprocessor::new();

    // The prelude is always file 0, so its parsed form can be shared by every compilation.
    let prelude_file = files.add(PRELUDE_PATH, PRELUDE.to_string());
    debug_assert_eq!(prelude_file, FileId(0));
    let (prelude_expanded, prelude_pp_diags) = preprocessor.run(&mut files, prelude_file, loader);
    diagnostics.extend(prelude_pp_diags);
    let prelude = prelude_module(|| {
        let mut parse_diags = Vec::new();
        let module = parse_module(&prelude_expanded, &mut parse_diags);
        (module, parse_diags)
    });
    diagnostics.extend(prelude.1.iter().cloned());

    let script_file = files.add(path, text);
    let (expanded, pp_diags) = preprocessor.run(&mut files, script_file, loader);
    diagnostics.extend(pp_diags);
    let script = parse_module(&expanded, &mut diagnostics);

    let units = [
        SourceUnit {
            module: &prelude.0,
            is_prelude: true,
        },
        SourceUnit {
            module: &script,
            is_prelude: false,
        },
    ];
    let module = sema::check(&units, &mut diagnostics);
    for diagnostic in &mut diagnostics {
        note_macro_expansion(diagnostic, &expanded.map, &files);
    }

    diagnostics.sort_by_key(|d| (d.span.file, d.span.start));
    (files, module, diagnostics)
}

/// The parsed prelude and its parse diagnostics, parsed once per process.
fn prelude_module(
    parse: impl FnOnce() -> (ast::Module, Vec<Diagnostic>),
) -> &'static (ast::Module, Vec<Diagnostic>) {
    static PRELUDE_AST: OnceLock<(ast::Module, Vec<Diagnostic>)> = OnceLock::new();
    PRELUDE_AST.get_or_init(parse)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prelude_checks_clean() {
        let compilation = check_source("empty.rpsl", "");
        assert!(
            compilation.diagnostics.is_empty(),
            "{}",
            compilation.render_diagnostics()
        );
        assert!(compilation.module.is_some());
    }

    #[test]
    fn missing_file_is_a_diagnostic() {
        let compilation = check_file(Path::new("/nonexistent/dir/x.rpsl"));
        assert!(compilation.has_errors());
        assert!(compilation.diagnostics[0]
            .message
            .starts_with("cannot read `/nonexistent/dir/x.rpsl`"));
    }

    #[test]
    fn includes_resolve_through_the_loader() {
        let loader =
            MemoryLoader::new().with("inc/common.rpsli", "node draw(rtv t : SV_Target0);\n");
        let text =
            "#include \"common.rpsli\"\nexport void main(texture t) { draw(t); }\n".to_string();
        let compilation = check_with_loader("inc/main.rpsl", text, &loader);
        assert!(
            !compilation.has_errors(),
            "{}",
            compilation.render_diagnostics()
        );
    }
}

/// A diagnostic about text that a macro produced points at the macro's invocation; say which macro
/// it was and where it is defined, so the user can find the faulty body.
fn note_macro_expansion(diagnostic: &mut Diagnostic, map: &crate::preprocess::SourceMap, files: &SourceFiles) {
    let Some(expansion) = map.expansions().iter().find(|e| e.invocation == diagnostic.span) else {
        return;
    };
    diagnostic.notes.push(format!(
        "in expansion of macro `{}` defined at {}",
        expansion.macro_name,
        files.location(expansion.definition)
    ));
}
