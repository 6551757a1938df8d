//! JIT-specific behaviour: one compiled module serves many runs, a panicking host becomes an
//! error instead of an abort, faults in callees keep their location, float corner cases and
//! integer division corner cases match the interpreter bit for bit.

mod common;

use common::{build, run_module, verified};
use rpsl_vm::jit::JitModule;
use rpsl_vm::{
    BinaryOp, CallSite, FuncId, Host, HostError, Interpreter, Limits, LocId, MarkerKind, Module,
    NodeDeclId, RecordingHost, RpslResourceDesc, RuntimeErrorKind, Signature, Type, UnaryOp, Value,
    ViewBytes,
};

/// A host that panics on every call.
struct PanickingHost;

impl Host for PanickingHost {
    fn create_resource(
        &mut self,
        _: CallSite,
        _: &RpslResourceDesc,
    ) -> Result<ViewBytes, HostError> {
        panic!("create_resource")
    }
    fn describe_resource(
        &mut self,
        _: CallSite,
        _: &ViewBytes,
    ) -> Result<RpslResourceDesc, HostError> {
        panic!("describe_resource")
    }
    fn call_node(
        &mut self,
        _: CallSite,
        _: NodeDeclId,
        _: &[u8],
        _: u32,
    ) -> Result<u32, HostError> {
        panic!("call_node")
    }
    fn marker(&mut self, _: CallSite, _: MarkerKind, _: u32) -> Result<(), HostError> {
        panic!("marker")
    }
}

fn marker_module() -> rpsl_vm::VerifiedModule {
    let mut module = Module::new();
    module.add_function(build("m", Signature::new([], []), |b| {
        b.set_loc(LocId::from_u32(5));
        b.marker(MarkerKind::SchBarrier, 0);
        b.ret(&[]);
    }));
    verified(module)
}

#[test]
fn panicking_host_becomes_a_located_error() {
    let module = marker_module();
    let jit = JitModule::compile(&module).expect("compiles");
    let err = jit
        .run(FuncId::from_u32(0), &[], &mut [], &mut PanickingHost)
        .unwrap_err();
    assert_eq!(
        err.kind,
        RuntimeErrorKind::Host(HostError::new("host call panicked"))
    );
    assert_eq!(err.loc, Some(LocId::from_u32(5)));
    // The module still runs afterwards.
    let mut host = RecordingHost::new();
    assert_eq!(
        jit.run(FuncId::from_u32(0), &[], &mut [], &mut host),
        Ok(vec![])
    );
    assert_eq!(host.events.len(), 1);
}

/// `f(n) = n == 0 ? 0 : n + f(n - 1)`, through real calls.
fn recursive_sum() -> rpsl_vm::VerifiedModule {
    let sig = Signature::new([Type::I32], [Type::I32]);
    let mut module = Module::new();
    let sig_for_body = sig.clone();
    module.add_function(build("sum", sig, move |b| {
        let n = b.param(0);
        let zero = b.iconst_i32(0);
        let is_zero = b.binary(BinaryOp::EqI32, n, zero);
        let (base, step) = (b.create_block(), b.create_block());
        b.branch(is_zero, base, step);
        b.switch_to_block(base);
        b.ret(&[zero]);
        b.switch_to_block(step);
        b.set_loc(LocId::from_u32(9));
        let one = b.iconst_i32(1);
        let smaller = b.binary(BinaryOp::SubI32, n, one);
        let rest = b.call(FuncId::from_u32(0), &sig_for_body, &[smaller]);
        let total = b.binary(BinaryOp::AddI32, n, rest[0]);
        b.ret(&[total]);
    }));
    verified(module)
}

#[test]
fn one_compiled_module_serves_many_runs_with_limits() {
    let module = recursive_sum();
    let mut jit = JitModule::compile(&module).expect("compiles");
    for n in 0..40 {
        let result = jit.run(
            FuncId::from_u32(0),
            &[Value::I32(n)],
            &mut [],
            &mut RecordingHost::new(),
        );
        assert_eq!(result, Ok(vec![Value::I32(n * (n + 1) / 2)]));
    }
    jit.set_limits(Limits {
        max_call_depth: 10,
        ..Limits::default()
    });
    let err = jit
        .run(
            FuncId::from_u32(0),
            &[Value::I32(20)],
            &mut [],
            &mut RecordingHost::new(),
        )
        .unwrap_err();
    assert_eq!(err.kind, RuntimeErrorKind::CallDepthExceeded { limit: 10 });
    assert_eq!(err.loc, Some(LocId::from_u32(9)));
    jit.set_limits(Limits {
        step_budget: 5,
        ..Limits::default()
    });
    let err = jit
        .run(
            FuncId::from_u32(0),
            &[Value::I32(20)],
            &mut [],
            &mut RecordingHost::new(),
        )
        .unwrap_err();
    assert_eq!(
        err.kind,
        RuntimeErrorKind::StepBudgetExhausted { budget: 5 }
    );
    // Both engines agree on every limit.
    for limits in [
        Limits::default(),
        Limits {
            max_call_depth: 7,
            ..Limits::default()
        },
        Limits {
            step_budget: 3,
            ..Limits::default()
        },
    ] {
        let (result, _) = run_module(&module, &[Value::I32(12)], &mut [], limits);
        assert!(result.is_ok() || limits != Limits::default());
    }
}

#[test]
fn callee_frames_are_zeroed_and_memory_limit_checked_in_callees() {
    // The callee stores to its frame, then the next call reads the same bytes: they must be zero
    // again, as in the interpreter.
    let mut module = Module::new();
    module.add_function(build("main", Signature::new([], [Type::U32]), |b| {
        let first = b.call(FuncId::from_u32(1), &Signature::new([], [Type::U32]), &[]);
        let second = b.call(FuncId::from_u32(1), &Signature::new([], [Type::U32]), &[]);
        let sum = b.binary(BinaryOp::AddU32, first[0], second[0]);
        b.ret(&[sum]);
    }));
    module.add_function(build("leaf", Signature::new([], [Type::U32]), |b| {
        let offset = b.alloc_frame(4096, 4);
        let addr = b.frame_addr(offset);
        let old = b.load(Type::U32, addr, 100);
        let marker = b.iconst_u32(77);
        b.store(addr, 100, marker);
        b.ret(&[old]);
    }));
    let module = verified(module);
    let (result, _) = run_module(&module, &[], &mut [], Limits::default());
    assert_eq!(result, Ok(vec![Value::U32(0)]));
    let (result, _) = run_module(
        &module,
        &[],
        &mut [],
        Limits {
            max_memory: 4000,
            ..Limits::default()
        },
    );
    assert_eq!(
        result.unwrap_err().kind,
        RuntimeErrorKind::OutOfMemory { limit: 4000 }
    );
}

#[test]
fn small_callee_frames_entered_inline_are_zeroed_and_limit_checked() {
    // Frames of at most 512 bytes are zeroed by generated code when memory already reaches
    // their end: a second call to the same depth finds its frame zeroed again, and a frame
    // that would pass the memory limit still faults.
    let leaf_sig = Signature::new([Type::U32], [Type::U32]);
    let mut module = Module::new();
    module.add_function(build("main", Signature::new([], [Type::U32]), |b| {
        let seven = b.iconst_u32(7);
        let first = b.call(
            FuncId::from_u32(1),
            &Signature::new([Type::U32], [Type::U32]),
            &[seven],
        );
        let nine = b.iconst_u32(9);
        let second = b.call(
            FuncId::from_u32(1),
            &Signature::new([Type::U32], [Type::U32]),
            &[nine],
        );
        let sum = b.binary(BinaryOp::AddU32, first[0], second[0]);
        b.ret(&[sum]);
    }));
    module.add_function(build("leaf", leaf_sig, |b| {
        let value = b.param(0);
        let offset = b.alloc_frame(500, 4);
        let addr = b.frame_addr(offset);
        // Every word of the frame must read zero on entry: sum the first and last ones.
        let old_first = b.load(Type::U32, addr, 0);
        let old_last = b.load(Type::U32, addr, 496);
        let old = b.binary(BinaryOp::AddU32, old_first, old_last);
        b.store(addr, 0, value);
        b.store(addr, 496, value);
        b.ret(&[old]);
    }));
    let module = verified(module);
    let (result, _) = run_module(&module, &[], &mut [], Limits::default());
    assert_eq!(result, Ok(vec![Value::U32(0)]));
    let limit = |max_memory| Limits {
        max_memory,
        ..Limits::default()
    };
    // main's frame is empty: the leaf's 500 bytes start at 0.
    let (result, _) = run_module(&module, &[], &mut [], limit(500));
    assert_eq!(result, Ok(vec![Value::U32(0)]));
    let (result, _) = run_module(&module, &[], &mut [], limit(499));
    assert_eq!(
        result.unwrap_err().kind,
        RuntimeErrorKind::OutOfMemory { limit: 499 }
    );
}

#[test]
fn float_and_division_corner_cases_match_bit_for_bit() {
    let nan = f32::from_bits(0x7fc0_1234);
    let cases: Vec<(BinaryOp, Value, Value)> = vec![
        (BinaryOp::MinF32, Value::F32(nan), Value::F32(2.0)),
        (BinaryOp::MaxF32, Value::F32(-0.0), Value::F32(0.0)),
        (BinaryOp::MinF32, Value::F32(0.0), Value::F32(-0.0)),
        (BinaryOp::RemF32, Value::F32(-7.5), Value::F32(2.0)),
        (BinaryOp::DivF32, Value::F32(0.0), Value::F32(0.0)),
        (BinaryOp::DivI32, Value::I32(i32::MIN), Value::I32(-1)),
        (BinaryOp::RemI32, Value::I32(i32::MIN), Value::I32(-1)),
        (BinaryOp::DivI64, Value::I64(i64::MIN), Value::I64(-1)),
        (BinaryOp::RemI64, Value::I64(-7), Value::I64(2)),
        (BinaryOp::ShlU32, Value::U32(1), Value::U32(33)),
        (BinaryOp::ShrI64, Value::I64(-256), Value::I64(68)),
        (BinaryOp::DivU64, Value::U64(7), Value::U64(0)),
        (BinaryOp::PowF32, Value::F32(-2.0), Value::F32(0.5)),
        // Two NaN operands: which payload survives depends on operand order in machine code, so
        // both engines canonicalise NaN results.
        (
            BinaryOp::AddF32,
            Value::F32(f32::from_bits(0xFFFF_FFFF)),
            Value::F32(nan),
        ),
        (
            BinaryOp::MulF32,
            Value::F32(nan),
            Value::F32(f32::from_bits(0xFFFF_FFFF)),
        ),
        (
            BinaryOp::AddF64,
            Value::F64(f64::from_bits(u64::MAX)),
            Value::F64(f64::NAN),
        ),
    ];
    for (op, a, b) in cases {
        let ty = op.operand_type();
        let mut module = Module::new();
        module.add_function(build(
            "f",
            Signature::new([ty, ty], [op.result_type()]),
            |bld| {
                let (x, y) = (bld.param(0), bld.param(1));
                let r = bld.binary(op, x, y);
                bld.ret(&[r]);
            },
        ));
        let module = verified(module);
        let (result, _) = run_module(&module, &[a, b], &mut [], Limits::default());
        let jit = JitModule::compile(&module).expect("compiles");
        let jit_result = jit.run(
            FuncId::from_u32(0),
            &[a, b],
            &mut [],
            &mut RecordingHost::new(),
        );
        let interp = Interpreter::default().run(
            &module,
            FuncId::from_u32(0),
            &[a, b],
            &mut [],
            &mut RecordingHost::new(),
        );
        assert_eq!(format!("{jit_result:?}"), format!("{interp:?}"), "{op:?}");
        let bits = |r: &Result<Vec<Value>, rpsl_vm::RuntimeError>| {
            r.as_ref()
                .map(|v| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>())
                .ok()
        };
        assert_eq!(bits(&jit_result), bits(&interp), "{op:?}");
        assert_eq!(bits(&result), bits(&interp), "{op:?}");
        if let Ok([value]) = interp.as_deref() {
            if value.to_bits() != 0 && matches!(value, Value::F32(x) if x.is_nan()) {
                assert_eq!(
                    value.to_bits(),
                    0x7FC0_0000,
                    "{op:?} gives the canonical NaN"
                );
            }
        }
    }
    // Unary transcendental through the shared evaluator.
    let mut module = Module::new();
    module.add_function(build(
        "sin",
        Signature::new([Type::F32], [Type::F32]),
        |b| {
            let x = b.param(0);
            let r = b.unary(UnaryOp::SinF32, x);
            b.ret(&[r]);
        },
    ));
    let module = verified(module);
    for x in [0.5f32, 1e10, -3.25, f32::NAN, f32::INFINITY] {
        let (result, _) = run_module(&module, &[Value::F32(x)], &mut [], Limits::default());
        assert_eq!(
            result.map(|v| v[0].to_bits()),
            Ok(rpsl_vm::eval::canonical_nan(
                Type::F32,
                x.sin().to_bits() as u64
            ))
        );
    }
}
