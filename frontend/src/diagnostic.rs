//! Diagnostics: what every stage of the frontend (and later the VM's runtime faults) reports, and
//! their rendering as `PATH:LINE:COL: error: MESSAGE` followed by a source excerpt with a caret.
//!
//! Nothing but printable text reaches a terminal: control characters of the source, the message
//! or a path are shown as their Unicode control pictures (NUL as `␀`, ESC as `␛`, DEL as `␡`), C1
//! controls and bidirectional overrides as `�` ([`crate::source::escape_control`]); carets stay
//! under the characters they point at.

use std::fmt::Write as _;
use std::ops::Range;

use codespan_reporting::diagnostic as cs;
use codespan_reporting::files::{Error as FilesError, Files};
use codespan_reporting::term;

use crate::source::{escape_controls, FileId, SourceFiles, Span};

/// How bad a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// Compilation goes on and succeeds.
    Warning,
    /// The script is rejected.
    Error,
}

/// A secondary location that gives context ("previous definition here").
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Label {
    /// Where.
    pub span: Span,
    /// What to say there.
    pub message: String,
}

/// One message about a script, pointing at a primary location.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// The headline, without a trailing period.
    pub message: String,
    /// Where the fault is.
    pub span: Span,
    /// Text under the caret at the primary location (may be empty).
    pub label: String,
    /// Secondary locations.
    pub secondary: Vec<Label>,
    /// Free-form notes, such as "in expansion of macro `X`".
    pub notes: Vec<String>,
    /// A suggestion such as "did you mean `mips`?".
    pub help: Option<String>,
}

impl Diagnostic {
    /// An error at `span`.
    ///
    /// ```
    /// use rpsl_frontend::diagnostic::Diagnostic;
    /// use rpsl_frontend::source::{SourceFiles, Span};
    /// let mut files = SourceFiles::new();
    /// let file = files.add("a.rpsl", "export void main() { x = 1; }\n".to_string());
    /// let diag = Diagnostic::error(Span::new(file, 21, 22), "unknown name `x`")
    ///     .with_help("did you mean `y`?");
    /// let text = diag.render(&files);
    /// assert!(text.starts_with("a.rpsl:1:22: error: unknown name `x`\n"));
    /// ```
    pub fn error(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(Severity::Error, span, message)
    }

    /// A warning at `span`.
    pub fn warning(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(Severity::Warning, span, message)
    }

    fn new(severity: Severity, span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity,
            message: message.into(),
            span,
            label: String::new(),
            secondary: Vec::new(),
            notes: Vec::new(),
            help: None,
        }
    }

    /// Sets the text shown under the caret.
    pub fn with_label(mut self, label: impl Into<String>) -> Diagnostic {
        self.label = label.into();
        self
    }

    /// Adds a secondary location.
    pub fn with_secondary(mut self, span: Span, message: impl Into<String>) -> Diagnostic {
        self.secondary.push(Label {
            span,
            message: message.into(),
        });
        self
    }

    /// Adds a note.
    pub fn with_note(mut self, note: impl Into<String>) -> Diagnostic {
        self.notes.push(note.into());
        self
    }

    /// Sets the help line.
    pub fn with_help(mut self, help: impl Into<String>) -> Diagnostic {
        self.help = Some(help.into());
        self
    }

    /// Whether this is an error.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// The first line: `PATH:LINE:COL: error: MESSAGE`.
    pub fn headline(&self, files: &SourceFiles) -> String {
        let kind = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        format!("{}: {}: {}", files.location(self.span), kind, self.message)
    }

    /// The headline followed by a source excerpt with a caret, notes and help.
    pub fn render(&self, files: &SourceFiles) -> String {
        let mut out = self.headline(files);
        out.push('\n');
        let severity = match self.severity {
            Severity::Error => cs::Severity::Error,
            Severity::Warning => cs::Severity::Warning,
        };
        let range = |span: Span| display_range(files, span);
        let mut labels =
            vec![cs::Label::primary(self.span.file, range(self.span)).with_message(&self.label)];
        labels.extend(
            self.secondary
                .iter()
                .map(|l| cs::Label::secondary(l.span.file, range(l.span)).with_message(&l.message)),
        );
        let mut notes = self.notes.clone();
        if let Some(help) = &self.help {
            notes.push(format!("help: {help}"));
        }
        let excerpt = cs::Diagnostic::new(severity)
            .with_labels(labels)
            .with_notes(notes);
        let config = term::Config::default();
        match term::emit_into_string(&config, &FilesView(files), &excerpt) {
            // The excerpt renderer starts with its own (empty) headline; ours replaces it.
            Ok(text) => {
                for line in text.lines().skip(1) {
                    let _ = writeln!(out, "{line}");
                }
            }
            Err(_) => {
                for note in &self.notes {
                    let _ = writeln!(out, "  = {note}");
                }
            }
        }
        escape_controls(&out).into_owned()
    }
}

/// Renders a list of diagnostics, one after the other.
pub fn render_all(diagnostics: &[Diagnostic], files: &SourceFiles) -> String {
    diagnostics
        .iter()
        .map(|d| d.render(files))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The byte range of `span` in the text excerpts show (control characters escaped).
fn display_range(files: &SourceFiles, span: Span) -> Range<usize> {
    let shown = (span.file.0 as usize)
        .lt(&files.len())
        .then(|| files.get(span.file).display_text())
        .flatten();
    match shown {
        Some(shown) => shown.offset(span.start) as usize..shown.offset(span.end) as usize,
        None => span.start as usize..span.end as usize,
    }
}

struct FilesView<'a>(&'a SourceFiles);

impl<'a> Files<'a> for FilesView<'a> {
    type FileId = FileId;
    type Name = String;
    type Source = &'a str;

    fn name(&'a self, id: FileId) -> Result<String, FilesError> {
        self.check(id)?;
        Ok(self.0.get(id).path.display().to_string())
    }

    fn source(&'a self, id: FileId) -> Result<&'a str, FilesError> {
        self.check(id)?;
        let file = self.0.get(id);
        Ok(file.display_text().map_or(&file.text, |shown| &shown.text))
    }

    fn line_index(&'a self, id: FileId, byte_index: usize) -> Result<usize, FilesError> {
        self.check(id)?;
        let file = self.0.get(id);
        let starts = file.line_starts();
        let shown = file.display_text();
        let moved = |offset: u32| shown.map_or(offset, |s| s.offset(offset)) as usize;
        // Lines are the same in both texts; only their starts move with the escapes.
        Ok(starts
            .partition_point(|&start| moved(start) <= byte_index)
            .saturating_sub(1))
    }

    fn line_range(&'a self, id: FileId, line_index: usize) -> Result<Range<usize>, FilesError> {
        self.check(id)?;
        let file = self.0.get(id);
        let starts = file.line_starts();
        let shown = file.display_text();
        let moved = |offset: u32| shown.map_or(offset, |s| s.offset(offset)) as usize;
        let start = moved(*starts.get(line_index).ok_or(FilesError::LineTooLarge {
            given: line_index,
            max: starts.len() - 1,
        })?);
        let end = starts
            .get(line_index + 1)
            .map(|&e| moved(e))
            .unwrap_or(shown.map_or(file.text.len(), |s| s.text.len()));
        Ok(start..end)
    }
}

impl FilesView<'_> {
    fn check(&self, id: FileId) -> Result<(), FilesError> {
        if (id.0 as usize) < self.0.len() {
            Ok(())
        } else {
            Err(FilesError::FileMissing)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn excerpts_show_control_characters_as_pictures() {
        let mut files = SourceFiles::new();
        let file = files.add(
            "a\u{7}.rpsl",
            "a\0b \u{1b}[2J c\u{202e}d\r\nnext\r\n".to_string(),
        );
        let c = files.get(file).text.find('c').unwrap() as u32;
        let diag = Diagnostic::error(Span::new(file, c, c + 1), "unknown name `\u{1b}c`")
            .with_label("here\u{0}")
            .with_secondary(Span::new(file, 1, 2), "NUL");
        // Every control character shows as a picture; the carets stay under their characters.
        assert_eq!(
            diag.render(&files),
            "a␇.rpsl:1:10: error: unknown name `␛c`\n  \
             ┌─ a␇.rpsl:1:10\n  \
             │\n\
             1 │ a␀b ␛[2J c�d\n  \
             │  -       ^ here␀\n  \
             │  │        \n  \
             │  NUL\n\n"
        );
    }
}
