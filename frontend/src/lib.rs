//! The RPSL frontend: preprocessor, pest grammar, name resolution and HLSL-style type checking.
//!
//! **Architecture Invariant**: this crate knows nothing of the VM, the render graph or Vulkan; its
//! output is a typed, resolved module (HIR) plus diagnostics.

pub mod ast;
pub mod diagnostic;
pub mod hir;
pub mod parse;
pub mod preprocess;
pub mod sema;
pub mod source;
pub mod types;
