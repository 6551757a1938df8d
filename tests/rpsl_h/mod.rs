//! The rpsl.h feature sweep's groups that are not in `rpsl_h_features.rs`, and its helpers.

mod access;
mod nodes;
pub mod support;
