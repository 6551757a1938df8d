//! The typed, resolved module (HIR) that the bytecode lowering consumes.
