//! Shared helpers of the bytecode tests: build small functions and run them on every engine.
//!
//! Every run goes through [`engines`], which lists the interpreter and the Cranelift JIT, so
//! that every run test checks both (Cranelift filetests' `test interpret` plus `test run`) and
//! that they agree on results, host calls, I/O block and located errors.

#![allow(
    dead_code,
    reason = "each test binary uses a different subset of the helpers"
)]

use rpsl_vm::jit::{JitModule, JitOptions};
use rpsl_vm::{
    FuncId, Function, FunctionBuilder, FunctionBuilderContext, Host, Interpreter, Limits, LocId,
    Module, RecordingHost, RuntimeError, Signature, Value, VerifiedModule,
};

/// An engine that runs verified bytecode.
pub trait Engine {
    /// Name for assertion messages.
    fn name(&self) -> &'static str;
    /// Runs `func`.
    fn run(
        &mut self,
        module: &VerifiedModule,
        func: FuncId,
        args: &[Value],
        io: &mut [u8],
        host: &mut dyn Host,
    ) -> Result<Vec<Value>, RuntimeError>;
}

impl Engine for Interpreter {
    fn name(&self) -> &'static str {
        "interpreter"
    }
    fn run(
        &mut self,
        module: &VerifiedModule,
        func: FuncId,
        args: &[Value],
        io: &mut [u8],
        host: &mut dyn Host,
    ) -> Result<Vec<Value>, RuntimeError> {
        Interpreter::run(self, module, func, args, io, host)
    }
}

/// The Cranelift JIT as an engine: compiles the module on every run (test modules are small).
pub struct JitEngine {
    /// Limits of each run.
    pub limits: Limits,
    /// Compile as the optimised tier does (Cranelift's optimiser, small callees inlined).
    pub optimize: bool,
}

impl Engine for JitEngine {
    fn name(&self) -> &'static str {
        if self.optimize {
            "optimised jit"
        } else {
            "jit"
        }
    }
    fn run(
        &mut self,
        module: &VerifiedModule,
        func: FuncId,
        args: &[Value],
        io: &mut [u8],
        host: &mut dyn Host,
    ) -> Result<Vec<Value>, RuntimeError> {
        let options = JitOptions {
            optimize: self.optimize,
            ..JitOptions::default()
        };
        let mut jit = match JitModule::compile_with(module, &options) {
            Ok(jit) => jit,
            Err(error) => panic!("JIT compilation failed: {error}"),
        };
        jit.set_limits(self.limits);
        jit.run(func, args, io, host)
    }
}

/// One engine's outcome: result, host recording and the I/O block after the run.
type Outcome = (Result<Vec<Value>, RuntimeError>, RecordingHost, Vec<u8>);

/// A run's outcome with values as (type, register bits), so that NaNs compare by their bits.
pub fn exact(
    result: &Result<Vec<Value>, RuntimeError>,
) -> Result<Vec<(rpsl_vm::Type, u64)>, RuntimeError> {
    result
        .as_ref()
        .map(|values| values.iter().map(|v| (v.ty(), v.to_bits())).collect())
        .map_err(Clone::clone)
}

/// Every engine, with these limits: the interpreter, the quick JIT tier and the optimised one.
pub fn engines(limits: Limits) -> Vec<Box<dyn Engine>> {
    vec![
        Box::new(Interpreter::new(limits)),
        Box::new(JitEngine {
            limits,
            optimize: false,
        }),
        Box::new(JitEngine {
            limits,
            optimize: true,
        }),
    ]
}

/// Builds one function with `body`, which starts in a fresh entry block at `loc0`.
pub fn build(
    name: &str,
    signature: Signature,
    body: impl FnOnce(&mut FunctionBuilder),
) -> Function {
    let mut ctx = FunctionBuilderContext::new();
    let mut b = FunctionBuilder::new(&mut ctx, name, signature);
    let entry = b.create_block();
    b.switch_to_block(entry);
    b.set_loc(LocId::from_u32(0));
    body(&mut b);
    b.finish()
}

/// Verifies a module, panicking with the verifier's findings.
pub fn verified(module: Module) -> VerifiedModule {
    match module.verify() {
        Ok(module) => module,
        Err(errors) => panic!("verification failed:\n{errors}\n{}", errors),
    }
}

/// Runs function 0 of `module` on every engine with a fresh recording host; checks that all
/// engines agree (results, I/O block and host events) and returns the first engine's outcome.
pub fn run_module(
    module: &VerifiedModule,
    args: &[Value],
    io: &mut [u8],
    limits: Limits,
) -> (Result<Vec<Value>, RuntimeError>, RecordingHost) {
    let mut first: Option<Outcome> = None;
    for mut engine in engines(limits) {
        let mut host = RecordingHost::new();
        let mut engine_io = io.to_vec();
        let result = engine.run(module, FuncId::from_u32(0), args, &mut engine_io, &mut host);
        match &first {
            None => first = Some((result, host, engine_io)),
            Some((expected, expected_host, expected_io)) => {
                assert_eq!(
                    exact(&result),
                    exact(expected),
                    "{} disagrees",
                    engine.name()
                );
                assert_eq!(
                    &host.events,
                    &expected_host.events,
                    "{} host calls disagree",
                    engine.name()
                );
                assert_eq!(
                    &engine_io,
                    expected_io,
                    "{} I/O block disagrees",
                    engine.name()
                );
            }
        }
    }
    let (result, host, engine_io) = first.expect("at least one engine");
    io.copy_from_slice(&engine_io);
    (result, host)
}

/// Builds, verifies and runs a single function with default limits.
pub fn run_fn(function: Function, args: &[Value]) -> Result<Vec<Value>, RuntimeError> {
    let mut module = Module::new();
    module.add_function(function);
    run_module(&verified(module), args, &mut [], Limits::default()).0
}
