//! rpsl: the embedding API of the RPSL render-graph language.
pub use rpsl_frontend as frontend;
