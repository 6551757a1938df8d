//! The RPSL frontend: preprocessor, pest grammar, name resolution and HLSL-style type checking.
//!
//! **Architecture Invariant**: this crate knows nothing of the VM, the render graph or Vulkan; its
//! output is a typed, resolved module (HIR) plus diagnostics.

pub mod access;
pub mod ast;
pub mod builtins;
pub mod diagnostic;
pub mod driver;
pub mod hir;
pub mod intrinsics;
pub mod parse;
pub mod preprocess;
pub mod sema;
pub mod source;
pub mod types;

#[cfg(test)]
mod test_support;

pub use driver::{
    check_file, check_file_with, check_source, check_with, check_with_loader, Compilation,
};
