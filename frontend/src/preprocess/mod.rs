//! The C-style preprocessor of RPSL: macros, conditionals, includes; maps expanded text back to
//! original file locations.
//!
//! (Placeholder interface; the full preprocessor replaces the internals, keeping these signatures.)

use crate::source::{FileId, Span};

/// Maps byte offsets of the expanded text back to original locations.
#[derive(Debug, Default, Clone)]
pub struct SourceMap {
    file: Option<FileId>,
}

impl SourceMap {
    /// The original span of the expanded-text range `start..end`. For text produced by a macro
    /// expansion this is the span of the macro invocation.
    pub fn span(&self, start: u32, end: u32) -> Span {
        Span::new(self.file.unwrap_or(FileId(0)), start, end)
    }
}

/// The output of preprocessing one translation unit.
#[derive(Debug, Default)]
pub struct Expanded {
    /// The expanded text that the parser reads.
    pub text: String,
    /// Where each part of `text` came from.
    pub map: SourceMap,
}
