//! `#include "file"` in COMMON and PASS blocks: resolved next to the including file, confined to
//! the effect's folder, expanded in place between `#line` directives (so compiler messages name
//! the right file and line). Includes of `StubDefs.hlsli` are dropped: that file only declares
//! the predefined names for editors, and every pass gets the real definitions.

use std::path::{Path, PathBuf};

use rpsl_frontend::diagnostic::Diagnostic;
use rpsl_frontend::source::{FileId, Span};

use super::lines::{split_lines, Directive, Line};
use super::{read_text_file, Parser};

/// The deepest chain of nested includes.
pub const MAX_INCLUDE_DEPTH: usize = 16;

/// File names of the editor stub that effects include (and whose includes are dropped).
const STUB_FILE_NAMES: [&str; 2] = ["StubDefs.hlsli", "StubDefs.hlsl"];

/// The file whose lines are being expanded.
pub struct IncludingFile {
    /// Its id in the parser's source files.
    pub file: FileId,
    /// Its folder, canonical (`None`: unknown, so no include resolves).
    pub folder: Option<PathBuf>,
    /// The canonical paths of the files being included around it (cycle detection).
    pub stack: Vec<PathBuf>,
}

/// The file named by an `#include` line, with its byte range in the file.
fn include_target(line: &Line<'_>) -> Option<(String, (usize, usize))> {
    let code = line.code.as_str();
    let after_hash = code.trim_start().strip_prefix('#')?;
    let after_keyword = after_hash.trim_start().strip_prefix("include")?;
    let quoted = after_keyword.trim_start();
    let close = match quoted.chars().next()? {
        '"' => '"',
        '<' => '>',
        _ => return None,
    };
    let name_start = code.len() - quoted.len() + 1;
    let name_len = quoted[1..].find(close)?;
    let name = code[name_start..name_start + name_len].to_string();
    Some((
        name,
        (line.start + name_start, line.start + name_start + name_len),
    ))
}

/// Whether `line` includes the editor stub (`StubDefs.hlsli`), which is dropped.
pub fn is_stub_include(line: &Line<'_>) -> bool {
    include_target(line).is_some_and(|(name, _)| is_stub(&name))
}

fn is_stub(name: &str) -> bool {
    let file_name = name.rsplit(['/', '\\']).next().unwrap_or(name);
    STUB_FILE_NAMES.contains(&file_name)
}

/// `path` as a `#line` directive's file name (forward slashes, no quotes).
fn line_directive_name(path: &Path) -> String {
    path.display()
        .to_string()
        .replace('\\', "/")
        .replace('"', "'")
}

impl Parser<'_> {
    /// Appends `line` (line `line_number` of `from`) to `out`, expanding an `#include`.
    pub(super) fn line_with_includes(
        &mut self,
        line: &Line<'_>,
        from: &IncludingFile,
        line_number: u32,
        out: &mut String,
    ) {
        let Some((name, range)) = include_target(line) else {
            out.push_str(line.text);
            out.push('\n');
            return;
        };
        if is_stub(&name) {
            out.push('\n');
            return;
        }
        let span = Span::new(from.file, range.0 as u32, range.1 as u32);
        match self.include(&name, from) {
            Ok((file, canonical)) => {
                let text = self.files.get(file).text.clone();
                out.push_str(&format!(
                    "#line 1 \"{}\"\n",
                    line_directive_name(&self.files.get(file).path)
                ));
                let mut stack = from.stack.clone();
                stack.push(canonical.clone());
                let inner = IncludingFile {
                    file,
                    folder: canonical.parent().map(Path::to_path_buf),
                    stack,
                };
                for (index, included_line) in split_lines(&text).iter().enumerate() {
                    self.line_with_includes(included_line, &inner, index as u32 + 1, out);
                }
                out.push_str(&format!(
                    "#line {} \"{}\"\n",
                    line_number + 1,
                    line_directive_name(&self.files.get(from.file).path)
                ));
            }
            Err(message) => {
                self.errors.push(Diagnostic::error(span, message));
                out.push('\n');
            }
        }
    }

    /// Resolves and loads the include `name` of `from`: its file id and canonical path.
    fn include(&mut self, name: &str, from: &IncludingFile) -> Result<(FileId, PathBuf), String> {
        let (Some(folder), Some(effect_folder)) = (&from.folder, &self.folder) else {
            return Err(format!(
                "cannot resolve include `{name}`: the effect's folder is unknown"
            ));
        };
        let candidate = folder.join(name);
        let canonical = std::fs::canonicalize(&candidate)
            .map_err(|_| format!("cannot find include file `{name}`"))?;
        let Ok(relative) = canonical.strip_prefix(effect_folder) else {
            return Err(format!(
                "include file `{name}` lies outside the effect's folder"
            ));
        };
        if from.stack.contains(&canonical) {
            return Err(format!("include file `{name}` includes itself"));
        }
        if from.stack.len() >= MAX_INCLUDE_DEPTH {
            return Err(format!(
                "includes nest deeper than {MAX_INCLUDE_DEPTH} files at `{name}`"
            ));
        }
        let display = self.display_folder.join(relative);
        if let Some(known) = self.files.find(&display) {
            return Ok((known, canonical));
        }
        let text = read_text_file(&canonical)
            .map_err(|message| format!("include file `{name}`: {message}"))?;
        Ok((self.files.add(display, text), canonical))
    }
}

/// The image formats `//!SOURCE` reads, by file extension.
pub const SOURCE_EXTENSIONS: [&str; 5] = ["png", "bmp", "jpg", "jpeg", "dds"];

impl Parser<'_> {
    /// The file of a `//!SOURCE` directive, resolved in the effect's folder and confined to it.
    pub(super) fn source_file(&mut self, sub: &Directive<'_>) -> Option<PathBuf> {
        let name = sub.args;
        let range = if name.is_empty() {
            sub.name_range
        } else {
            sub.args_range
        };
        let extension = Path::new(name)
            .extension()
            .and_then(|extension| extension.to_str())
            .map(str::to_ascii_lowercase);
        if !extension.is_some_and(|extension| SOURCE_EXTENSIONS.contains(&extension.as_str())) {
            self.error_on(
                range,
                format!("`//!SOURCE` reads PNG, BMP, JPG or DDS files, not `{name}`"),
            );
            return None;
        }
        let Some(folder) = self.folder.clone() else {
            self.error_on(
                range,
                format!("cannot find `{name}`: the effect's folder is unknown"),
            );
            return None;
        };
        let Ok(canonical) = std::fs::canonicalize(folder.join(name)) else {
            self.error_on(range, format!("cannot find texture file `{name}`"));
            return None;
        };
        if !canonical.starts_with(&folder) {
            self.error_on(
                range,
                format!("texture file `{name}` lies outside the effect's folder"),
            );
            return None;
        }
        if !canonical.is_file() {
            self.error_on(range, format!("texture file `{name}` is not a file"));
            return None;
        }
        Some(canonical)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn include_lines_are_recognised() {
        let lines = split_lines(
            "#include \"a.hlsli\"\n  #  include <sub/b.hlsli> // x\n// #include \"c\"\n#includes\n",
        );
        assert_eq!(
            include_target(&lines[0]),
            Some(("a.hlsli".to_string(), (10, 17)))
        );
        assert_eq!(include_target(&lines[1]).unwrap().0, "sub/b.hlsli");
        assert_eq!(include_target(&lines[2]), None);
        assert_eq!(include_target(&lines[3]), None);
        assert!(is_stub("../StubDefs.hlsli"));
        assert!(is_stub("..\\StubDefs.hlsli"));
        assert!(!is_stub("Defs.hlsli"));
    }
}
