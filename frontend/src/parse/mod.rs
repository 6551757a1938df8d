//! The pest grammar of RPSL and the lowering of pest pairs into the AST.
