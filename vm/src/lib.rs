//! The bytecode VM of rpsl: typed register bytecode, builder, verifier, disassembler, binary
//! codec and interpreter (the Cranelift JIT comes with its own issue and reuses all of these).
//!
//! # Overview
//! - A [`Module`] holds [`Function`]s. A function has typed virtual registers ([`Reg`], one type
//!   each from [`Type`]: `bool`, `i32`, `u32`, `i64`, `u64`, `f32`, `f64`, `addr`), a frame of
//!   bytes for aggregates, and blocks of [`Inst`]s, each block ending in a terminator. Vectors are
//!   one register per lane. Registers are variables (not SSA), which maps one to one onto
//!   Cranelift `Variable`s.
//! - [`FunctionBuilder`] builds functions; [`Module::verify`] runs the [`verifier`] and yields a
//!   [`VerifiedModule`], the only thing [`Interpreter::run`] accepts.
//! - Host calls go through the [`Host`] trait; faults become a [`RuntimeError`] with a [`LocId`].
//! - [`lower`] turns the frontend's HIR into a module (the only part that knows the frontend).
//! - [`eval`] and [`intrinsics`] define the arithmetic once for the interpreter and the JIT;
//!   `docs/semantics.md` documents it.
//!
//! **Architecture Invariant**: this crate knows nothing of Vulkan or of the render-graph runtime;
//! it sees the graph builder only through [`Host`].
#![deny(missing_docs)]

pub mod builder;
pub mod codec;
pub mod display;
pub mod entities;
pub mod eval;
pub mod function;
pub mod host;
pub mod inst;
pub mod interp;
pub mod intrinsics;
pub mod jit;
pub mod lower;
pub mod ops;
pub mod step_cost;
pub mod types;
pub mod verifier;

pub use builder::{FunctionBuilder, FunctionBuilderContext};
pub use codec::{decode_module, encode_module, DecodeError};
pub use entities::{Block, FuncId, LocId, NodeDeclId, Reg, RegList};
pub use function::{BlockData, Function, Module, Signature, VerifiedModule};
pub use host::{CallSite, Host, HostError, HostEvent, RecordingHost, RpslResourceDesc, ViewBytes};
pub use inst::{ConstBits, Inst, Opcode, Operand, VectorShape};
pub use interp::{Interpreter, Limits, RuntimeError, RuntimeErrorKind};
pub use ops::{BinaryOp, MarkerKind, TernaryOp, UnaryOp, VectorOp};
pub use types::{Type, Value};
pub use verifier::{VerifyError, VerifyErrors};
