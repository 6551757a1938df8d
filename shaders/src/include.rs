//! `#include` resolution shared by the compiler callback and the cache-key scanner:
//! `"x"` looks next to the including file first, then in the search dirs; `<x>` only in the dirs.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// How deep includes may nest before the scanner stops following them (glslang has its own limit).
const MAX_INCLUDE_DEPTH: usize = 64;

/// One resolved include file.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ResolvedFile {
    /// The path as resolved (the including file's directory or a search dir, joined with the name).
    pub path: PathBuf,
    /// Its text.
    pub content: String,
}

/// Resolves `requested` from the file `requesting` (a path, possibly bare): relative includes try
/// `requesting`'s directory first; both kinds then try `include_dirs` in order.
pub fn resolve_include(
    requested: &str,
    relative: bool,
    requesting: &str,
    include_dirs: &[PathBuf],
) -> Result<ResolvedFile, String> {
    let mut candidates = Vec::new();
    if relative {
        let parent = Path::new(requesting).parent().unwrap_or(Path::new(""));
        candidates.push(parent.join(requested));
    }
    candidates.extend(include_dirs.iter().map(|dir| dir.join(requested)));
    for candidate in candidates {
        if !candidate.is_file() {
            continue;
        }
        return match std::fs::read(&candidate) {
            Ok(bytes) => match String::from_utf8(bytes) {
                Ok(content) if content.contains('\0') => Err(format!(
                    "include file '{}' contains a NUL byte",
                    candidate.display()
                )),
                Ok(content) => Ok(ResolvedFile {
                    path: candidate,
                    content,
                }),
                Err(_) => Err(format!(
                    "include file '{}' is not UTF-8",
                    candidate.display()
                )),
            },
            Err(error) => Err(format!(
                "cannot read include file '{}': {error}",
                candidate.display()
            )),
        };
    }
    Err(format!("cannot find include file '{requested}'"))
}

/// The `#include` directives of `source`, as `(name, relative)` in source order. Directives inside
/// inactive `#if` blocks are listed too: the scan is conservative, for cache keys.
pub fn scan_includes(source: &str) -> Vec<(String, bool)> {
    let mut found = Vec::new();
    for line in source.lines() {
        let Some(rest) = line.trim_start().strip_prefix('#') else {
            continue;
        };
        let Some(rest) = rest.trim_start().strip_prefix("include") else {
            continue;
        };
        let rest = rest.trim_start();
        let (close, relative) = match rest.chars().next() {
            Some('"') => ('"', true),
            Some('<') => ('>', false),
            _ => continue,
        };
        if let Some(end) = rest[1..].find(close) {
            found.push((rest[1..1 + end].to_string(), relative));
        }
    }
    found
}

/// Every file `source` (at `path`) includes, transitively, in first-visit order; unresolvable
/// names are listed as `Err(name)` so that creating the file later changes the cache key.
pub fn collect_includes(
    source: &str,
    path: &str,
    include_dirs: &[PathBuf],
) -> Vec<Result<ResolvedFile, String>> {
    let mut visited = HashSet::new();
    let mut out = Vec::new();
    collect_into(source, path, include_dirs, 0, &mut visited, &mut out);
    out
}

fn collect_into(
    source: &str,
    path: &str,
    include_dirs: &[PathBuf],
    depth: usize,
    visited: &mut HashSet<PathBuf>,
    out: &mut Vec<Result<ResolvedFile, String>>,
) {
    if depth >= MAX_INCLUDE_DEPTH {
        return;
    }
    for (name, relative) in scan_includes(source) {
        match resolve_include(&name, relative, path, include_dirs) {
            Ok(file) => {
                if !visited.insert(file.path.clone()) {
                    continue;
                }
                let child_path = file.path.display().to_string();
                let content = file.content.clone();
                out.push(Ok(file));
                collect_into(&content, &child_path, include_dirs, depth + 1, visited, out);
            }
            Err(_) => out.push(Err(name)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scans_quoted_and_angled_includes() {
        let source = "#include \"a.glsl\"\n  #  include <b/c.h>\n#includex\n// #include \"no\"\n";
        assert_eq!(
            scan_includes(source),
            vec![("a.glsl".to_string(), true), ("b/c.h".to_string(), false)]
        );
    }

    #[test]
    fn resolves_next_to_the_includer_then_in_dirs() {
        let dir = tempfile::tempdir().unwrap();
        let sub = dir.path().join("sub");
        let lib = dir.path().join("lib");
        std::fs::create_dir_all(&sub).unwrap();
        std::fs::create_dir_all(&lib).unwrap();
        std::fs::write(sub.join("x.h"), "near").unwrap();
        std::fs::write(lib.join("x.h"), "far").unwrap();
        std::fs::write(lib.join("y.h"), "only far").unwrap();
        let includer = sub.join("main.comp").display().to_string();
        let dirs = vec![lib.clone()];
        assert_eq!(
            resolve_include("x.h", true, &includer, &dirs)
                .unwrap()
                .content,
            "near"
        );
        assert_eq!(
            resolve_include("x.h", false, &includer, &dirs)
                .unwrap()
                .content,
            "far"
        );
        assert_eq!(
            resolve_include("y.h", true, &includer, &dirs)
                .unwrap()
                .content,
            "only far"
        );
        assert_eq!(
            resolve_include("z.h", true, &includer, &dirs).unwrap_err(),
            "cannot find include file 'z.h'"
        );
    }

    #[test]
    fn collects_transitively_once_and_survives_cycles() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("a.h"),
            "#include \"b.h\"\n#include \"missing.h\"\n",
        )
        .unwrap();
        std::fs::write(dir.path().join("b.h"), "#include \"a.h\"\n").unwrap();
        let main = dir.path().join("m.comp").display().to_string();
        let found = collect_includes("#include \"a.h\"\n#include \"b.h\"\n", &main, &[]);
        let names: Vec<String> = found
            .iter()
            .map(|entry| match entry {
                Ok(file) => file
                    .path
                    .file_name()
                    .unwrap()
                    .to_string_lossy()
                    .into_owned(),
                Err(name) => format!("missing {name}"),
            })
            .collect();
        assert_eq!(names, vec!["a.h", "b.h", "missing missing.h"]);
    }
}
