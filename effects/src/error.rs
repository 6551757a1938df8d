//! Why an effect file was rejected: located diagnostics (`PATH:LINE:COL: error: MESSAGE` with a
//! source excerpt, the same rendering as RPSL scripts) over the effect and its includes.

use std::fmt;

use rpsl_frontend::diagnostic::{render_all, Diagnostic};
use rpsl_frontend::source::SourceFiles;

/// The errors of one effect file, with the sources they point into.
#[derive(Clone, Debug)]
pub struct EffectErrors {
    /// The effect file and every include read, for rendering.
    pub files: SourceFiles,
    /// At least one error.
    pub diagnostics: Vec<Diagnostic>,
}

impl EffectErrors {
    /// The first line of each diagnostic (`PATH:LINE:COL: error: MESSAGE`).
    pub fn headlines(&self) -> Vec<String> {
        self.diagnostics
            .iter()
            .map(|diagnostic| diagnostic.headline(&self.files))
            .collect()
    }

    /// Every diagnostic with its excerpt.
    pub fn render(&self) -> String {
        render_all(&self.diagnostics, &self.files)
    }
}

impl fmt::Display for EffectErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.render().trim_end())
    }
}

impl std::error::Error for EffectErrors {}
