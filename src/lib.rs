//! rpsl: the embedding API of the RPSL render-graph language.
//!
//! A [`Program`] is a script checked, lowered to bytecode and verified; a [`Session`] runs one of
//! its entry points every frame in the chosen [`Mode`], recording the render graph through the
//! runtime's `GraphBuilder` and compiling it (schedule, culling, barriers, memory).
//! [`EntryArgs`] holds the entry point's arguments (parsed from the CLI's `--arg NAME=VALUE`).
//! A [`HotScript`] owns its program and swaps in a recompiled one when the script file (or an
//! include) changes on disk, which is what an engine embedding scripts in its configuration wants.
//! Runtime faults come back as [`FrameError`]s rendered `PATH:LINE:COL: error: MESSAGE`; the
//! session stays usable for the next frame.
//!
//! ```
//! let program = rpsl::Program::from_source(
//!     "inline.rpsl",
//!     "compute node Blur([readwrite(cs)] texture t, uint radius);\n\
//!      export void main(texture bb, uint radius) { Blur(bb, radius); }\n",
//! ).unwrap();
//! let mut session = rpsl::Session::new(&program, None, rpsl::SessionOptions::default()).unwrap();
//! let args = rpsl::EntryArgs::parse(&program, session.entry(), ["radius=3", "bb=64x64"]).unwrap();
//! let frame = session.run_frame(&args).unwrap();
//! let json = rpsl::runtime::dump_frame_json("main", frame.graph, Some(frame.compiled));
//! assert!(json.contains("\"name\":\"Blur\""));
//! ```
//!
//! Checking alone:
//! ```
//! let compilation = rpsl::check_source("inline.rpsl", "export void main() { uint a = 1; }\n");
//! assert!(!compilation.has_errors(), "{}", compilation.render_diagnostics());
//! ```

pub mod args;
mod decls;
pub mod host_adapter;
mod hot;
mod program;
mod refinement;
mod runner;
mod session;

pub use args::{ArgError, ArgValue, EntryArgs, EntryValue};
pub use hot::{HotScript, ReloadError, SessionSetup, SetupFn};
pub use program::{EntryError, Program, ProgramError};
pub use refinement::MemoryRefinement;
pub use rpsl_frontend as frontend;
pub use rpsl_frontend::{check_file, check_source, Compilation};
pub use rpsl_runtime as runtime;
pub use rpsl_types as types;
pub use rpsl_vm as vm;
/// The Vulkan backend (feature `vulkan`, on with the default `cli`).
#[cfg(feature = "vulkan")]
pub use rpsl_vulkan as vulkan;
/// The `ash` the Vulkan backend is built on, for handles an engine passes in (feature `vulkan`).
#[cfg(feature = "vulkan")]
pub use rpsl_vulkan::ash;
pub use session::{abort_code, Frame, FrameError, Mode, Session, SessionError, SessionOptions};

/// docs/embedding.md, whose `rust` code blocks run as doc tests.
#[cfg(all(doctest, feature = "vulkan"))]
#[doc = include_str!("../docs/embedding.md")]
pub struct EmbeddingGuide;
