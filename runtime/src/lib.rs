//! The render graph of rpsl: graph builder and frame compiler.
