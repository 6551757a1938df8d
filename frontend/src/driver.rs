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

use std::cell::RefCell;
use std::path::Path;
use std::sync::OnceLock;

use crate::ast;
use crate::builtins::{PRELUDE, PRELUDE_PATH};
use crate::diagnostic::{render_all, Diagnostic};
use crate::hir;
use crate::parse::parse_module;
use crate::preprocess::{
    read_source_file, Expanded, FileLoader, FsLoader, IncludePolicy, MemoryLoader, Preprocessor,
};
use crate::sema;
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

/// Checks the script at `path`, loading it and its includes from the file system under the
/// default [`IncludePolicy`] (includes only inside the script's directory).
pub fn check_file(path: &Path) -> Compilation {
    check_file_with(path, &IncludePolicy::default())
}

/// Checks the script at `path`, loading it and its includes from the file system under `policy`.
/// The script itself must be a regular file within the policy's size limit.
pub fn check_file_with(path: &Path, policy: &IncludePolicy) -> Compilation {
    let max_bytes = policy.limits.max_file_bytes;
    match read_source_file(path, max_bytes) {
        Ok(text) => check_with(&path.display().to_string(), text, &FsLoader, policy),
        Err(error) => {
            let reason = error.reason(max_bytes);
            let message = format!("cannot read `{}`: {reason}", path.display());
            unreadable(path, message)
        }
    }
}

/// A compilation that failed before reading anything: `path` stands as an empty file.
fn unreadable(path: impl Into<std::path::PathBuf>, message: String) -> Compilation {
    let mut files = SourceFiles::new();
    let file = files.add(path, String::new());
    Compilation {
        files,
        module: None,
        diagnostics: vec![Diagnostic::error(Span::new(file, 0, 0), message)],
    }
}

/// Checks a script held in memory (`#include`s of it fail: use [`check_with_loader`] for those).
pub fn check_source(path: &str, text: &str) -> Compilation {
    check_with_loader(path, text.to_string(), &MemoryLoader::new())
}

/// Checks a script held in memory, loading its includes through `loader` under the default
/// [`IncludePolicy`].
pub fn check_with_loader(path: &str, text: String, loader: &dyn FileLoader) -> Compilation {
    check_with(path, text, loader, &IncludePolicy::default())
}

/// Checks a script held in memory, loading its includes through `loader` (the disk, or an
/// embedding's virtual file system) under `policy`.
///
/// ```
/// use rpsl_frontend::preprocess::{IncludePolicy, MemoryLoader};
/// let pak = MemoryLoader::new()
///     .with("scripts/main.rpsl", "")
///     .with("shared/nodes.rpsli", "node draw(rtv target : SV_Target0);\n");
/// let policy = IncludePolicy::default().with_include_dir("shared");
/// let text = "#include \"nodes.rpsli\"\nexport void main(texture t) { draw(t); }\n";
/// let compilation =
///     rpsl_frontend::driver::check_with("scripts/main.rpsl", text.to_string(), &pak, &policy);
/// assert!(!compilation.has_errors(), "{}", compilation.render_diagnostics());
///
/// // Outside `scripts/` and `shared/`, nothing resolves.
/// let text = "#include \"../secret.rpsli\"\n".to_string();
/// let compilation = rpsl_frontend::driver::check_with("scripts/main.rpsl", text, &pak, &policy);
/// assert_eq!(
///     compilation.first_error().unwrap().message,
///     "cannot include `../secret.rpsli`: it lies outside the include directories"
/// );
/// ```
pub fn check_with(
    path: &str,
    text: String,
    loader: &dyn FileLoader,
    policy: &IncludePolicy,
) -> Compilation {
    let max_bytes = policy.limits.max_file_bytes;
    if text.len() > max_bytes {
        let message = format!("cannot check `{path}`: it is larger than {max_bytes} bytes");
        return unreadable(path, message);
    }
    let (files, module, diagnostics) = run(path, text, loader, policy);
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
    policy: &IncludePolicy,
) -> (SourceFiles, hir::Module, Vec<Diagnostic>) {
    // The prelude is always file 0, preprocessed, parsed and declared once (per thread for the
    // preprocessor state, per process for the rest) and shared by every compilation.
    let (after_prelude, prelude) = after_prelude(loader);
    let AfterPrelude {
        mut preprocessor,
        mut files,
        diagnostics: prelude_pp_diags,
    } = after_prelude;
    let mut diagnostics = prelude_pp_diags;
    diagnostics.extend(prelude.1.iter().cloned());

    let script_file = files.add(path, text);
    preprocessor.set_policy(policy.clone());
    let (expanded, pp_diags) = preprocessor.run(&mut files, script_file, loader);
    diagnostics.extend(pp_diags);
    // Text cut off at the size limit would only add parse errors about where it stops.
    let script = if expanded.truncated {
        parse_module(&Expanded::default(), &mut diagnostics)
    } else {
        parse_module(&expanded, &mut diagnostics)
    };

    let module = sema::check_after_prelude(&prelude.0, &script, &mut diagnostics);
    for diagnostic in &mut diagnostics {
        note_macro_expansion(diagnostic, &expanded.map, &files);
    }

    diagnostics.sort_by_key(|d| (d.span.file, d.span.start));
    (files, module, diagnostics)
}

/// What preprocessing the prelude leaves: the preprocessor (with the prelude's macros defined),
/// the files (the prelude alone, as file 0) and the prelude's preprocessing diagnostics.
#[derive(Clone)]
struct AfterPrelude {
    preprocessor: Preprocessor,
    files: SourceFiles,
    diagnostics: Vec<Diagnostic>,
}

thread_local! {
    /// [`AfterPrelude`], computed once per thread (the preprocessor's state is not `Sync`).
    static AFTER_PRELUDE: RefCell<Option<AfterPrelude>> = const { RefCell::new(None) };
}

/// A copy of the state after preprocessing the prelude, and the parsed prelude. The state is
/// cached when the prelude read no other file (it never does: `loader` is not consulted).
fn after_prelude(
    loader: &dyn FileLoader,
) -> (AfterPrelude, &'static (ast::Module, Vec<Diagnostic>)) {
    let cached = AFTER_PRELUDE.with(|cell| cell.borrow().clone());
    if let (Some(state), Some(prelude)) = (cached, PRELUDE_AST.get()) {
        return (state, prelude);
    }
    let mut files = SourceFiles::new();
    let mut preprocessor = Preprocessor::new();
    let prelude_file = files.add(PRELUDE_PATH, PRELUDE.to_string());
    debug_assert_eq!(prelude_file, FileId(0));
    let (prelude_expanded, diagnostics) = preprocessor.run(&mut files, prelude_file, loader);
    let prelude = PRELUDE_AST.get_or_init(|| {
        let mut parse_diags = Vec::new();
        let module = parse_module(&prelude_expanded, &mut parse_diags);
        (module, parse_diags)
    });
    let state = AfterPrelude {
        preprocessor,
        files,
        diagnostics,
    };
    if state.files.len() == 1 {
        AFTER_PRELUDE.with(|cell| *cell.borrow_mut() = Some(state.clone()));
    }
    (state, prelude)
}

/// The parsed prelude and its parse diagnostics, parsed once per process.
static PRELUDE_AST: OnceLock<(ast::Module, Vec<Diagnostic>)> = OnceLock::new();

/// A diagnostic about text that a macro produced points at the macro's invocation; say which macro
/// it was and where it is defined, so the user can find the faulty body.
fn note_macro_expansion(
    diagnostic: &mut Diagnostic,
    map: &crate::preprocess::SourceMap,
    files: &SourceFiles,
) {
    let Some(expansion) = map
        .expansions()
        .iter()
        .find(|e| e.invocation == diagnostic.span)
    else {
        return;
    };
    diagnostic.notes.push(format!(
        "in expansion of macro `{}` defined at {}",
        expansion.macro_name,
        files.location(expansion.definition)
    ));
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

    /// Checks `text` from scratch: the prelude preprocessed, parsed and declared again, no cache.
    fn check_uncached(text: &str) -> (String, String) {
        let loader = MemoryLoader::new();
        let mut files = SourceFiles::new();
        let mut preprocessor = Preprocessor::new();
        let prelude_file = files.add(PRELUDE_PATH, PRELUDE.to_string());
        let (prelude_expanded, mut diagnostics) =
            preprocessor.run(&mut files, prelude_file, &loader);
        let prelude = parse_module(&prelude_expanded, &mut diagnostics);
        let script_file = files.add("a.rpsl", text.to_string());
        let (expanded, pp_diags) = preprocessor.run(&mut files, script_file, &loader);
        diagnostics.extend(pp_diags);
        let script = parse_module(&expanded, &mut diagnostics);
        let units = [
            sema::SourceUnit {
                module: &prelude,
                is_prelude: true,
            },
            sema::SourceUnit {
                module: &script,
                is_prelude: false,
            },
        ];
        let module = sema::check(&units, &mut diagnostics);
        diagnostics.sort_by_key(|d| (d.span.file, d.span.start));
        (module.to_string(), render_all(&diagnostics, &files))
    }

    #[test]
    fn the_cached_prelude_gives_what_a_fresh_one_gives() {
        let scripts = [
            "node draw(rtv target : SV_Target0);\n\
             struct P { float4 c; };\n\
             uint helper(uint x) { return x * 2u; }\n\
             export void main(texture t) { P p; p.c = float4(1, 0, 0, 1); draw(t); helper(3); }\n",
            "export void main(texture t) { clear(t, float4(0, 0, 0, 1)); uint u = missing; }\n",
            "#define TWICE(x) ((x) + (x))\nexport void main() { uint a = TWICE(RPS_FORMAT_UNKNOWN); }\n",
        ];
        for text in scripts {
            let (fresh_module, fresh_diagnostics) = check_uncached(text);
            for _ in 0..2 {
                let (files, module, diagnostics) = run(
                    "a.rpsl",
                    text.to_string(),
                    &MemoryLoader::new(),
                    &IncludePolicy::default(),
                );
                assert_eq!(module.to_string(), fresh_module, "{text}");
                assert_eq!(
                    render_all(&diagnostics, &files),
                    fresh_diagnostics,
                    "{text}"
                );
            }
        }
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
    fn a_script_over_the_size_limit_is_one_error() {
        let limits = crate::preprocess::SourceLimits {
            max_file_bytes: 8,
            ..Default::default()
        };
        let policy = IncludePolicy::default().with_limits(limits);
        let text = "export void main() {}\n".to_string();
        let compilation = check_with("big.rpsl", text, &MemoryLoader::new(), &policy);
        assert_eq!(
            compilation.render_diagnostics(),
            "big.rpsl:1:1: error: cannot check `big.rpsl`: it is larger than 8 bytes\n  \
             ┌─ big.rpsl:1:1\n  │\n1 │ \n  │ ^\n\n"
        );
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
