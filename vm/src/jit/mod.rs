//! The Cranelift JIT: compiles a whole [`VerifiedModule`] to native code once, then runs any of
//! its functions with exactly the interpreter's results, host calls and located faults.
//!
//! # Example
//! ```
//! use rpsl_vm::jit::JitModule;
//! use rpsl_vm::{BinaryOp, FuncId, FunctionBuilder, FunctionBuilderContext, LocId, Module,
//!     RecordingHost, Signature, Type, Value};
//!
//! let mut ctx = FunctionBuilderContext::new();
//! let mut b = FunctionBuilder::new(&mut ctx, "add", Signature::new([Type::I32, Type::I32], [Type::I32]));
//! let entry = b.create_block();
//! b.switch_to_block(entry);
//! b.set_loc(LocId::from_u32(0));
//! let (x, y) = (b.param(0), b.param(1));
//! let sum = b.binary(BinaryOp::AddI32, x, y);
//! b.ret(&[sum]);
//! let mut module = Module::new();
//! module.add_function(b.finish());
//! let jit = JitModule::compile(&module.verify().unwrap()).unwrap();
//! let result = jit.run(FuncId::from_u32(0), &[Value::I32(2), Value::I32(40)], &mut [], &mut RecordingHost::new());
//! assert_eq!(result, Ok(vec![Value::I32(42)]));
//! ```
//!
//! # Design
//! - Registers are Cranelift `Variable`s of their natural type (`bool`/`i32`/`u32`/`addr` as
//!   `i32`). Each bytecode function becomes one native function with one ABI (see
//!   [`codegen`]); bytecode calls are direct native calls, limited by the call-depth limit,
//!   except that the optimised tier translates small leaf callees into their callers (`inline`),
//!   with the same checks and faults.
//! - VM memory is the interpreter's: one byte vector (I/O block, then frames); every access is
//!   checked against the current frame top inline (unless it is a known offset inside the
//!   frame); small block ops (views, descriptors) are inline loads and stores, larger ones and
//!   host calls go through `extern "C"` helpers ([`context`]) that catch panics. Within a
//!   block, frame bytes of known constant content (zeroed temporaries patched with constants)
//!   are stored once, late, and copied or compared without loading them (`known`).
//! - Compilation favours compile time (P6 of the performance targets): Cranelift without
//!   optimisation and with its single-pass register allocator, functions compiled in parallel
//!   on worker threads, and optionally only the functions reachable from given entries
//!   ([`JitOptions`]).
//! - Ops whose exact bits Cranelift does not guarantee to share with Rust (transcendentals,
//!   float `min`/`max`/`%`, rounding) call the shared evaluators of [`crate::eval`].

mod accesses;
mod arith;
mod calls;
pub mod codegen;
mod compile;
pub mod context;
mod facts;
mod frame_init;
mod helpers;
mod inline;
mod known;
mod memops;
mod nan;
mod promote;

use crate::entities::{FuncId, LocId};
use crate::function::VerifiedModule;
use crate::host::{Host, HostError};
use crate::interp::{Limits, RuntimeError, RuntimeErrorKind};
use crate::types::{Type, Value};
pub use compile::{JitOptions, DUMP_ENV};
use context::{HostFns, RunContext, SiteCounts};
use cranelift_jit::JITModule;
use std::fmt;
use std::sync::Mutex;

/// Why a module could not be compiled.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum JitError {
    /// The host machine is not supported by Cranelift or the flags were rejected.
    Target(String),
    /// Cranelift rejected a function (a JIT bug; the message names the function).
    Codegen {
        /// The bytecode function's name.
        function: String,
        /// Cranelift's message.
        message: String,
    },
}

impl fmt::Display for JitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JitError::Target(message) => write!(f, "JIT target setup failed: {message}"),
            JitError::Codegen { function, message } => {
                write!(f, "JIT compilation of `{function}` failed: {message}")
            }
        }
    }
}

impl std::error::Error for JitError {}

/// Most locations a run's host-call counts cover up front (a module with more grows the table
/// when a host call comes from a later one).
const MAX_SITE_LOCS: usize = 1 << 16;

/// The native entry of a compiled function (see [`codegen`] for the ABI).
type NativeFn = unsafe extern "C" fn(*mut u8, i64, i64, *mut u64, *mut u64) -> i32;

/// What the runner needs to know about each function.
struct FnInfo {
    name: String,
    params: Vec<Type>,
    returns: Vec<Type>,
    frame_size: u32,
    first_loc: Option<LocId>,
    /// `None` when the function was not compiled ([`JitOptions::entries`]).
    code: Option<NativeFn>,
}

/// A compiled module: native code for every function of a [`VerifiedModule`]. Compile once,
/// run every frame.
pub struct JitModule {
    module: Option<JITModule>,
    functions: Vec<FnInfo>,
    limits: Limits,
    scratch: Mutex<Scratch>,
    /// Locations a run's host-call counts cover up front ([`SiteCounts::start_run`]).
    site_locs: usize,
}

/// What a run borrows from the module and gives back, so that runs reuse its allocations: VM
/// memory and the per-location host-call counts.
#[derive(Default)]
struct Scratch {
    memory: Vec<u8>,
    site_counts: SiteCounts,
}

impl JitModule {
    /// Compiles every function of `module` with the default [`JitOptions`], with
    /// [`Limits::default`] for later runs.
    pub fn compile(module: &VerifiedModule) -> Result<JitModule, JitError> {
        JitModule::compile_with(module, &JitOptions::default())
    }

    /// Compiles the functions of `module` that `options` selects, with [`Limits::default`]
    /// for later runs.
    ///
    /// ```
    /// # use rpsl_vm::jit::{JitModule, JitOptions};
    /// # use rpsl_vm::{FuncId, Module};
    /// // Nothing to compile: running any function is a `BadEntry`.
    /// let options = JitOptions { entries: Some(vec![]), ..JitOptions::default() };
    /// let jit = JitModule::compile_with(&Module::new().verify().unwrap(), &options).unwrap();
    /// assert!(jit.run(FuncId::from_u32(0), &[], &mut [], &mut rpsl_vm::RecordingHost::new()).is_err());
    /// ```
    pub fn compile_with(
        module: &VerifiedModule,
        options: &JitOptions,
    ) -> Result<JitModule, JitError> {
        let linked = compile::compile_module(module, options)?;
        let functions = module
            .functions
            .iter()
            .zip(&linked.code)
            .map(|(function, &code)| FnInfo {
                name: function.name.clone(),
                params: function.signature.params.clone(),
                returns: function.signature.returns.clone(),
                frame_size: function.frame_size,
                first_loc: function.locs.first().copied(),
                // SAFETY: the code was compiled with the `NativeFn` signature (see `codegen`).
                code: code.map(|code| unsafe { std::mem::transmute::<*const u8, NativeFn>(code) }),
            })
            .collect();
        let site_locs = module
            .functions
            .iter()
            .flat_map(|function| &function.locs)
            .map(|loc| loc.as_u32() as usize + 1)
            .max()
            .unwrap_or(0)
            .min(MAX_SITE_LOCS);
        Ok(JitModule {
            module: Some(linked.module),
            functions,
            site_locs,
            limits: Limits::default(),
            scratch: Mutex::new(Scratch::default()),
        })
    }

    /// The limits of each run.
    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// Changes the limits of later runs.
    pub fn set_limits(&mut self, limits: Limits) {
        self.limits = limits;
    }

    /// Runs `func` with `args`, exactly like [`crate::Interpreter::run`]: `io` is placed at VM
    /// address 0 and copied back after a successful run; faults come back located.
    pub fn run<H: Host + ?Sized>(
        &self,
        func: FuncId,
        args: &[Value],
        io: &mut [u8],
        host: &mut H,
    ) -> Result<Vec<Value>, RuntimeError> {
        let bad_entry = |message: String| RuntimeError {
            kind: RuntimeErrorKind::BadEntry(message),
            loc: None,
        };
        let info = self
            .functions
            .get(func.index())
            .ok_or_else(|| bad_entry(format!("no function {func}")))?;
        let code = info.code.ok_or_else(|| {
            bad_entry(format!(
                "`{}` was not compiled (not reachable from the JIT's entries)",
                info.name
            ))
        })?;
        if args.len() != info.params.len()
            || args
                .iter()
                .zip(&info.params)
                .any(|(arg, &ty)| arg.ty() != ty)
        {
            return Err(bad_entry(format!(
                "arguments do not match the signature of `{}`",
                info.name
            )));
        }
        let limits = self.limits;
        if io.len() > limits.max_memory as usize {
            return Err(bad_entry(format!(
                "I/O block exceeds {} bytes",
                limits.max_memory
            )));
        }
        let mem_base = io.len().div_ceil(16) * 16;
        let mem_top = mem_base + info.frame_size as usize;
        if mem_top > limits.max_memory as usize {
            return Err(RuntimeError {
                kind: RuntimeErrorKind::OutOfMemory {
                    limit: limits.max_memory,
                },
                loc: info.first_loc,
            });
        }
        let Scratch {
            mut memory,
            mut site_counts,
        } = self
            .scratch
            .try_lock()
            .map(|mut scratch| std::mem::take(&mut *scratch))
            .unwrap_or_default();
        site_counts.start_run(self.site_locs);
        memory.clear();
        memory.extend_from_slice(io);
        memory.resize(mem_top, 0);
        let mut slots = vec![0u64; info.params.len().max(info.returns.len()).max(1)];
        for (slot, arg) in slots.iter_mut().zip(args) {
            *slot = arg.to_bits();
        }
        // The host-call helpers reach the host through the address of this reference.
        let mut host: &mut H = host;
        let mut ctx = RunContext {
            mem_ptr: std::ptr::null_mut(),
            steps_left: limits.step_budget,
            max_call_depth: limits.max_call_depth as u64,
            mem_len: memory.len() as u64,
            memory,
            limits,
            fault: None,
            host: (&mut host as *mut &mut H).cast::<()>(),
            host_fns: HostFns::of::<H>(),
            site_counts,
            borrow: std::marker::PhantomData,
        };
        ctx.mem_ptr = ctx.memory.as_mut_ptr();
        let ctx_ptr = (&mut ctx as *mut RunContext<'_>).cast::<u8>();
        let slots_ptr = slots.as_mut_ptr();
        // SAFETY: `code` was compiled for this module with the `NativeFn` ABI; the context, the
        // memory it points to, the host reference it points to (used only by the helpers of
        // `HostFns::of::<H>`) and the slots outlive the call; generated code checks every
        // memory access against the frame top, which never exceeds `ctx.memory.len()`.
        let status = unsafe { code(ctx_ptr, mem_base as i64, 0, slots_ptr, slots_ptr) };
        let RunContext {
            memory,
            fault,
            site_counts,
            ..
        } = ctx;
        let outcome = if status == 0 {
            io.copy_from_slice(&memory[..io.len()]);
            Ok(info
                .returns
                .iter()
                .zip(&slots)
                .map(|(&ty, &bits)| {
                    let bits = if ty.is_32bit() {
                        bits & 0xFFFF_FFFF
                    } else {
                        bits
                    };
                    Value::from_bits(ty, bits)
                })
                .collect())
        } else {
            Err(fault.unwrap_or(RuntimeError {
                kind: RuntimeErrorKind::Host(HostError::new("JIT fault without a record")),
                loc: None,
            }))
        };
        if let Ok(mut scratch) = self.scratch.try_lock() {
            *scratch = Scratch {
                memory,
                site_counts,
            };
        }
        outcome
    }
}

impl Drop for JitModule {
    fn drop(&mut self) {
        if let Some(module) = self.module.take() {
            // SAFETY: the function pointers die with `self`; no run is in progress (runs borrow
            // `self`).
            unsafe { module.free_memory() };
        }
    }
}

impl fmt::Debug for JitModule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JitModule")
            .field("functions", &self.functions.len())
            .field("limits", &self.limits)
            .finish()
    }
}
