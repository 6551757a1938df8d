//! The bytecode VM of rpsl: typed bytecode, verifier, interpreter and Cranelift JIT (coming with its issue).
