//! Semantic analysis: name resolution, type checking, overloads, constant folding, flattening.
