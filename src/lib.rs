//! rpsl: the embedding API of the RPSL render-graph language.
//!
//! Today it checks scripts; running them every frame (bytecode VM, JIT, frame compiler, backends)
//! arrives with the next issues.
//!
//! ```
//! let compilation = rpsl::check_source("inline.rpsl", "export void main() { uint a = 1; }\n");
//! assert!(!compilation.has_errors(), "{}", compilation.render_diagnostics());
//! ```

pub use rpsl_frontend as frontend;
pub use rpsl_frontend::{check_file, check_source, Compilation};
