//! Run tests: bytecode built with the builder, executed on every engine, with exact results.

mod common;

use common::{build, run_fn, run_module, verified};
use rpsl_vm::host::{view_offsets, NULL_VIEW};
use rpsl_vm::{
    BinaryOp, CallSite, FunctionBuilder, HostEvent, Inst, Limits, LocId, MarkerKind, Module,
    NodeDeclId, RpslResourceDesc, RuntimeErrorKind, Signature, Type, Value, VectorOp, VectorShape,
};

/// `sum = 0; for (i = 0; i < n; i++) sum += i * i; return sum;`
fn sum_of_squares(b: &mut FunctionBuilder) {
    let n = b.param(0);
    let sum = b.iconst_i32(0);
    let i = b.iconst_i32(0);
    let header = b.create_block();
    let body = b.create_block();
    let exit = b.create_block();
    b.jump(header);
    b.switch_to_block(header);
    let more = b.binary(BinaryOp::LtI32, i, n);
    b.branch(more, body, exit);
    b.switch_to_block(body);
    let square = b.binary(BinaryOp::MulI32, i, i);
    b.binary_into(BinaryOp::AddI32, sum, sum, square);
    let one = b.iconst_i32(1);
    b.binary_into(BinaryOp::AddI32, i, i, one);
    b.loop_jump(header);
    b.switch_to_block(exit);
    b.ret(&[sum]);
}

#[test]
fn loop_with_branches() {
    let f = build(
        "squares",
        Signature::new([Type::I32], [Type::I32]),
        sum_of_squares,
    );
    assert_eq!(
        run_fn(f.clone(), &[Value::I32(10)]),
        Ok(vec![Value::I32(285)])
    );
    assert_eq!(run_fn(f, &[Value::I32(0)]), Ok(vec![Value::I32(0)]));
}

#[test]
fn step_budget_charges_each_iteration_the_instructions_of_its_loop() {
    let f = build(
        "squares",
        Signature::new([Type::I32], [Type::I32]),
        sum_of_squares,
    );
    let mut module = Module::new();
    module.add_function(f);
    let module = verified(module);
    // Each back-edge charges the loop's 7 instructions (header: `lt`, `br`; body: `mul`, `add`,
    // `const`, `add`, `jump.loop`), so 10 iterations take exactly 70 steps.
    let limits = Limits {
        step_budget: 70,
        ..Limits::default()
    };
    let (ok, _) = run_module(&module, &[Value::I32(10)], &mut [], limits);
    assert_eq!(ok, Ok(vec![Value::I32(285)]));
    let (err, _) = run_module(&module, &[Value::I32(11)], &mut [], limits);
    let err = err.unwrap_err();
    assert_eq!(
        err.kind,
        RuntimeErrorKind::StepBudgetExhausted { budget: 70 }
    );
    assert_eq!(err.loc, Some(LocId::from_u32(0)));
    assert_eq!(
        err.to_string(),
        "step budget of 70 steps exhausted (endless loop?)"
    );
    let short = Limits {
        step_budget: 69,
        ..Limits::default()
    };
    let (err, _) = run_module(&module, &[Value::I32(10)], &mut [], short);
    assert_eq!(
        err.unwrap_err().kind,
        RuntimeErrorKind::StepBudgetExhausted { budget: 69 }
    );
}

#[test]
fn endless_loop_ends_with_default_budget_then_next_run_works() {
    let endless = build("spin", Signature::new([], []), |b| {
        let spin = b.create_block();
        b.jump(spin);
        b.switch_to_block(spin);
        b.set_loc(LocId::from_u32(5));
        b.loop_jump(spin);
    });
    let mut module = Module::new();
    module.add_function(endless);
    module.add_function(build(
        "squares",
        Signature::new([Type::I32], [Type::I32]),
        sum_of_squares,
    ));
    let module = verified(module);
    let mut interp = rpsl_vm::Interpreter::new(Limits {
        step_budget: 1_000_000,
        ..Limits::default()
    });
    let mut host = rpsl_vm::RecordingHost::new();
    let err = interp
        .run(
            &module,
            rpsl_vm::FuncId::from_u32(0),
            &[],
            &mut [],
            &mut host,
        )
        .unwrap_err();
    assert_eq!(
        err.kind,
        RuntimeErrorKind::StepBudgetExhausted { budget: 1_000_000 }
    );
    assert_eq!(err.loc, Some(LocId::from_u32(5)));
    let ok = interp.run(
        &module,
        rpsl_vm::FuncId::from_u32(1),
        &[Value::I32(3)],
        &mut [],
        &mut host,
    );
    assert_eq!(ok, Ok(vec![Value::I32(5)]));
}

/// Fills `int a[8]` with `a[i] = i * 3`, then returns `a[k]` (bounds-checked).
fn array_program(b: &mut FunctionBuilder) {
    let k = b.param(0);
    let array = b.alloc_frame(32, 4);
    let base = b.frame_addr(array);
    let i = b.iconst_u32(0);
    let len = b.iconst_u32(8);
    let header = b.create_block();
    let body = b.create_block();
    let exit = b.create_block();
    b.jump(header);
    b.switch_to_block(header);
    let more = b.binary(BinaryOp::LtU32, i, len);
    b.branch(more, body, exit);
    b.switch_to_block(body);
    let elem = b.index_addr(base, i, 4, 8);
    let three = b.iconst_u32(3);
    let value = b.binary(BinaryOp::MulU32, i, three);
    b.store(elem, 0, value);
    let one = b.iconst_u32(1);
    b.binary_into(BinaryOp::AddU32, i, i, one);
    b.loop_jump(header);
    b.switch_to_block(exit);
    b.set_loc(LocId::from_u32(9));
    let elem = b.index_addr(base, k, 4, 8);
    let loaded = b.load(Type::U32, elem, 0);
    b.ret(&[loaded]);
}

#[test]
fn frame_memory_array_and_out_of_bounds() {
    let f = build(
        "array",
        Signature::new([Type::I32], [Type::U32]),
        array_program,
    );
    assert_eq!(
        run_fn(f.clone(), &[Value::I32(5)]),
        Ok(vec![Value::U32(15)])
    );
    let err = run_fn(f.clone(), &[Value::I32(8)]).unwrap_err();
    assert_eq!(
        err.kind,
        RuntimeErrorKind::IndexOutOfBounds { index: 8, len: 8 }
    );
    assert_eq!(err.loc, Some(LocId::from_u32(9)));
    let err = run_fn(f, &[Value::I32(-1)]).unwrap_err();
    assert_eq!(
        err.kind,
        RuntimeErrorKind::IndexOutOfBounds { index: -1, len: 8 }
    );
    assert_eq!(
        err.to_string(),
        "array index -1 is out of bounds for length 8"
    );
}

#[test]
fn struct_copy_has_value_semantics() {
    // struct S { int a; float b; }  S x = {7, 1.5}; S y = x; y.a = 9; return (x.a, y.a, y.b).
    let f = build(
        "copy",
        Signature::new([], [Type::I32, Type::I32, Type::F32]),
        |b| {
            let x_off = b.alloc_frame(8, 4);
            let y_off = b.alloc_frame(8, 4);
            let x = b.frame_addr(x_off);
            let y = b.frame_addr(y_off);
            let seven = b.iconst_i32(7);
            let half = b.fconst_f32(1.5);
            b.store(x, 0, seven);
            b.store(x, 4, half);
            b.mem_copy(y, x, 8);
            let nine = b.iconst_i32(9);
            b.store(y, 0, nine);
            let xa = b.load(Type::I32, x, 0);
            let ya = b.load(Type::I32, y, 0);
            let yb = b.load(Type::F32, y, 4);
            b.ret(&[xa, ya, yb]);
        },
    );
    assert_eq!(
        run_fn(f, &[]),
        Ok(vec![Value::I32(7), Value::I32(9), Value::F32(1.5)])
    );
}

#[test]
fn calls_with_out_params_and_results() {
    // void divmod(int a, int b, out int q, out int r) via addresses; int caller(a, b) = q * 100 + r.
    let mut module = Module::new();
    let caller_sig = Signature::new([Type::I32, Type::I32], [Type::I32]);
    let callee_sig = Signature::new([Type::I32, Type::I32, Type::Addr, Type::Addr], [Type::Bool]);
    let caller_id = module.declare_function("caller", caller_sig.clone());
    let callee_id = module.declare_function("divmod", callee_sig.clone());
    let caller = build("caller", caller_sig, |b| {
        let q_off = b.alloc_frame(4, 4);
        let r_off = b.alloc_frame(4, 4);
        let q_addr = b.frame_addr(q_off);
        let r_addr = b.frame_addr(r_off);
        let args = [b.param(0), b.param(1), q_addr, r_addr];
        let results = b.call(callee_id, &callee_sig, &args);
        assert_eq!(results.len(), 1);
        let q = b.load(Type::I32, q_addr, 0);
        let r = b.load(Type::I32, r_addr, 0);
        let hundred = b.iconst_i32(100);
        let scaled = b.binary(BinaryOp::MulI32, q, hundred);
        let sum = b.binary(BinaryOp::AddI32, scaled, r);
        b.ret(&[sum]);
    });
    let callee = build(
        "divmod",
        Signature::new([Type::I32, Type::I32, Type::Addr, Type::Addr], [Type::Bool]),
        |b| {
            b.set_loc(LocId::from_u32(3));
            let q = b.binary(BinaryOp::DivI32, b.param(0), b.param(1));
            let r = b.binary(BinaryOp::RemI32, b.param(0), b.param(1));
            b.store(b.param(2), 0, q);
            b.store(b.param(3), 0, r);
            let ok = b.bconst(true);
            b.ret(&[ok]);
        },
    );
    module.define_function(caller_id, caller);
    module.define_function(callee_id, callee);
    let module = verified(module);
    let (result, _) = run_module(
        &module,
        &[Value::I32(-17), Value::I32(5)],
        &mut [],
        Limits::default(),
    );
    assert_eq!(result, Ok(vec![Value::I32(-302)]));
    let (result, _) = run_module(
        &module,
        &[Value::I32(17), Value::I32(0)],
        &mut [],
        Limits::default(),
    );
    let err = result.unwrap_err();
    assert_eq!(err.kind, RuntimeErrorKind::DivisionByZero);
    assert_eq!(err.loc, Some(LocId::from_u32(3)));
    assert_eq!(err.to_string(), "integer division by zero");
}

#[test]
fn remainder_by_zero_faults() {
    let f = build(
        "rem",
        Signature::new([Type::U32, Type::U32], [Type::U32]),
        |b| {
            b.set_loc(LocId::from_u32(4));
            let r = b.binary(BinaryOp::RemU32, b.param(0), b.param(1));
            b.ret(&[r]);
        },
    );
    assert_eq!(
        run_fn(f.clone(), &[Value::U32(17), Value::U32(5)]),
        Ok(vec![Value::U32(2)])
    );
    let err = run_fn(f, &[Value::U32(17), Value::U32(0)]).unwrap_err();
    assert_eq!(
        (err.kind, err.loc),
        (RuntimeErrorKind::DivisionByZero, Some(LocId::from_u32(4)))
    );
}

#[test]
fn abort_reports_code_and_location() {
    let f = build("abort", Signature::new([], []), |b| {
        b.set_loc(LocId::from_u32(12));
        let code = b.iconst_i32(-3);
        b.abort(code);
    });
    let err = run_fn(f, &[]).unwrap_err();
    assert_eq!(err.kind, RuntimeErrorKind::Abort { code: -3 });
    assert_eq!(err.loc, Some(LocId::from_u32(12)));
    assert_eq!(err.to_string(), "script aborted with code -3");
}

#[test]
fn call_depth_is_bounded() {
    // fn0 calls itself forever; the depth limit stops it before the step budget does.
    let mut module = Module::new();
    let id = module.declare_function("recurse", Signature::new([], []));
    let f = build("recurse", Signature::new([], []), |b| {
        b.set_loc(LocId::from_u32(2));
        b.call_into(id, &[], &[]);
        b.ret(&[]);
    });
    module.define_function(id, f);
    let module = verified(module);
    let (result, _) = run_module(
        &module,
        &[],
        &mut [],
        Limits {
            max_call_depth: 16,
            ..Limits::default()
        },
    );
    let err = result.unwrap_err();
    assert_eq!(err.kind, RuntimeErrorKind::CallDepthExceeded { limit: 16 });
    assert_eq!(err.loc, Some(LocId::from_u32(2)));
}

#[test]
fn calls_count_steps() {
    let mut module = Module::new();
    let main_id = module.declare_function("main", Signature::new([], []));
    let leaf_id = module.declare_function("leaf", Signature::new([], []));
    let main = build("main", Signature::new([], []), |b| {
        for _ in 0..3 {
            b.call_into(leaf_id, &[], &[]);
        }
        b.ret(&[]);
    });
    module.define_function(main_id, main);
    module.define_function(
        leaf_id,
        build("leaf", Signature::new([], []), |b| b.ret(&[])),
    );
    let module = verified(module);
    // Each call charges one step plus its callee's body (one `ret`): 3 calls take 6 steps.
    let (ok, _) = run_module(
        &module,
        &[],
        &mut [],
        Limits {
            step_budget: 6,
            ..Limits::default()
        },
    );
    assert_eq!(ok, Ok(vec![]));
    let (err, _) = run_module(
        &module,
        &[],
        &mut [],
        Limits {
            step_budget: 5,
            ..Limits::default()
        },
    );
    assert_eq!(
        err.unwrap_err().kind,
        RuntimeErrorKind::StepBudgetExhausted { budget: 5 }
    );
}

#[test]
fn io_block_carries_entry_arguments_and_outputs() {
    // The entry gets the address of a texture view in the I/O block and writes `.mips(2)` of it
    // to a second view slot (an `out` parameter).
    let f = build("edit", Signature::new([Type::Addr], []), |b| {
        let input = b.param(0);
        let output = b.addr_add(input, 40);
        b.mem_copy(output, input, 40);
        let two = b.iconst_u32(2);
        let one = b.iconst_u32(1);
        b.store(output, view_offsets::BASE_MIP, two);
        b.store(output, view_offsets::MIP_COUNT, one);
        b.ret(&[]);
    });
    let mut module = Module::new();
    module.add_function(f);
    let module = verified(module);
    let mut io = vec![0u8; 80];
    io[..40].copy_from_slice(&NULL_VIEW);
    io[0] = 7;
    let (result, _) = run_module(&module, &[Value::Addr(0)], &mut io, Limits::default());
    assert_eq!(result, Ok(vec![]));
    assert_eq!(&io[40..44], &[7, 0xFF, 0xFF, 0xFF]);
    assert_eq!(&io[56..64], &[2, 0, 0, 0, 1, 0, 0, 0]);
}

#[test]
fn bad_entry_arguments_are_reported_without_location() {
    let f = build(
        "squares",
        Signature::new([Type::I32], [Type::I32]),
        sum_of_squares,
    );
    let err = run_fn(f, &[Value::U32(3)]).unwrap_err();
    assert_eq!(err.loc, None);
    assert!(matches!(err.kind, RuntimeErrorKind::BadEntry(_)));
}

#[test]
fn memory_access_outside_frames_faults() {
    // An address computed past the frame: a verified lowering never does this, but it must not
    // crash the host either.
    let f = build("wild", Signature::new([], [Type::I32]), |b| {
        b.alloc_frame(16, 4);
        let base = b.frame_addr(0);
        b.set_loc(LocId::from_u32(1));
        let far = b.addr_add(base, 1 << 20);
        let value = b.load(Type::I32, far, 0);
        b.ret(&[value]);
    });
    let err = run_fn(f, &[]).unwrap_err();
    assert!(matches!(
        err.kind,
        RuntimeErrorKind::MemoryOutOfBounds { size: 4, .. }
    ));
    assert_eq!(err.loc, Some(LocId::from_u32(1)));
}

/// Creates a 2D texture, reads `.desc().Width`, calls a node with the view and a float, wraps
/// that in a subgraph and a barrier, and returns the width.
fn host_program(width: u32) -> Module {
    let f = build("graph", Signature::new([], [Type::U32, Type::U32]), |b| {
        let desc_off = b.alloc_frame(36, 4);
        let view_off = b.alloc_frame(40, 4);
        let args_off = b.alloc_frame(44, 4);
        let read_off = b.alloc_frame(36, 4);
        let desc = b.frame_addr(desc_off);
        let view = b.frame_addr(view_off);
        let args = b.frame_addr(args_off);
        let read = b.frame_addr(read_off);
        let words = [2, 1, 0, width, 720, 1, 1, 28, 1];
        for (i, word) in words.into_iter().enumerate() {
            let value = b.iconst_u32(word);
            b.store(desc, 4 * i as u32, value);
        }
        b.set_loc(LocId::from_u32(1));
        b.ins(Inst::CreateResource {
            desc,
            view_out: view,
        });
        b.set_loc(LocId::from_u32(2));
        b.ins(Inst::DescribeResource {
            view,
            desc_out: read,
        });
        let read_width = b.load(Type::U32, read, 12);
        b.set_loc(LocId::from_u32(3));
        b.marker(MarkerKind::SubgraphBegin, rpsl_vm::ops::SUBGRAPH_ATOMIC);
        b.mem_copy(args, view, 40);
        let scale = b.fconst_f32(0.5);
        b.store(args, 40, scale);
        let counter = b.iconst_u32(0);
        let header = b.create_block();
        let body = b.create_block();
        let exit = b.create_block();
        b.jump(header);
        b.switch_to_block(header);
        let two = b.iconst_u32(2);
        let more = b.binary(BinaryOp::LtU32, counter, two);
        b.branch(more, body, exit);
        b.switch_to_block(body);
        b.set_loc(LocId::from_u32(4));
        let node = b.call_node(
            NodeDeclId::from_u32(6),
            args,
            44,
            rpsl_vm::host::NODE_FLAG_ASYNC,
        );
        let one = b.iconst_u32(1);
        b.binary_into(BinaryOp::AddU32, counter, counter, one);
        b.loop_jump(header);
        b.switch_to_block(exit);
        b.set_loc(LocId::from_u32(5));
        b.marker(MarkerKind::SubgraphEnd, 0);
        b.marker(MarkerKind::SchBarrier, 0);
        let _ = node;
        b.ret(&[read_width, counter]);
    });
    let mut module = Module::new();
    module.add_function(f);
    module
}

#[test]
fn host_calls_are_recorded_with_stable_identity_keys() {
    let module = verified(host_program(1280));
    let (result, host) = run_module(&module, &[], &mut [], Limits::default());
    assert_eq!(result, Ok(vec![Value::U32(1280), Value::U32(2)]));
    let site = |loc: u32, n: u64| CallSite {
        loc: LocId::from_u32(loc),
        key: (loc as u64) << 32 | n,
    };
    let desc = RpslResourceDesc {
        ty: 2,
        temporal_layers: 1,
        flags: 0,
        width: 1280,
        height: 720,
        depth_or_array_size: 1,
        mip_levels: 1,
        format: 28,
        sample_count: 1,
    };
    let mut args = vec![0u8; 44];
    args[20..24].copy_from_slice(&1u32.to_le_bytes());
    args[28..32].copy_from_slice(&1u32.to_le_bytes());
    args[40..44].copy_from_slice(&0.5f32.to_le_bytes());
    let node = |n| HostEvent::CallNode {
        site: site(4, n),
        decl: NodeDeclId::from_u32(6),
        args: args.clone(),
        flags: rpsl_vm::host::NODE_FLAG_ASYNC,
    };
    assert_eq!(
        host.events,
        vec![
            HostEvent::CreateResource {
                site: site(1, 0),
                desc
            },
            HostEvent::DescribeResource {
                site: site(2, 0),
                resource: 0
            },
            HostEvent::Marker {
                site: site(3, 0),
                kind: MarkerKind::SubgraphBegin,
                arg: 1
            },
            node(0),
            node(1),
            HostEvent::Marker {
                site: site(5, 0),
                kind: MarkerKind::SubgraphEnd,
                arg: 0
            },
            HostEvent::Marker {
                site: site(5, 1),
                kind: MarkerKind::SchBarrier,
                arg: 0
            },
        ]
    );
}

#[test]
fn host_errors_become_located_runtime_errors() {
    let module = verified(host_program(0));
    let (result, host) = run_module(&module, &[], &mut [], Limits::default());
    let err = result.unwrap_err();
    assert_eq!(err.loc, Some(LocId::from_u32(1)));
    assert_eq!(err.to_string(), "invalid resource description: width is 0");
    assert!(host.events.is_empty());
}

#[test]
fn vector_ops_and_select() {
    let f = build(
        "vec",
        Signature::new([Type::F32, Type::F32], [Type::F32, Type::F32, Type::F32]),
        |b| {
            let (x, y) = (b.param(0), b.param(1));
            let z = b.fconst_f32(2.0);
            let shape = VectorShape {
                op: VectorOp::Dot,
                ty: Type::F32,
                width: 3,
            };
            let dot = b.vector(shape, &[x, y, z, x, y, z]);
            let shape = VectorShape {
                op: VectorOp::Cross,
                ty: Type::F32,
                width: 3,
            };
            let zero = b.fconst_f32(0.0);
            let one = b.fconst_f32(1.0);
            let cross = b.vector(shape, &[one, zero, zero, zero, one, zero]);
            let shape = VectorShape {
                op: VectorOp::Length,
                ty: Type::F32,
                width: 2,
            };
            let length = b.vector(shape, &[x, y]);
            let bigger = b.binary(BinaryOp::GtF32, dot[0], length[0]);
            let chosen = b.select(bigger, cross[2], zero);
            b.ret(&[dot[0], length[0], chosen]);
        },
    );
    let result = run_fn(f, &[Value::F32(3.0), Value::F32(4.0)]);
    assert_eq!(
        result,
        Ok(vec![Value::F32(29.0), Value::F32(5.0), Value::F32(1.0)])
    );
}

#[test]
fn recursion_is_charged_the_callee_body_at_every_call() {
    // sum(n) = n == 0 ? 0 : n + sum(n - 1); its body has 9 instructions, so each call charges
    // 1 + 9 steps, and sum(20) makes 20 calls: 200 steps.
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
        b.set_loc(LocId::from_u32(4));
        let one = b.iconst_i32(1);
        let smaller = b.binary(BinaryOp::SubI32, n, one);
        let rest = b.call(rpsl_vm::FuncId::from_u32(0), &sig_for_body, &[smaller]);
        let total = b.binary(BinaryOp::AddI32, n, rest[0]);
        b.ret(&[total]);
    }));
    let module = verified(module);
    let limits = |step_budget| Limits {
        step_budget,
        ..Limits::default()
    };
    let (ok, _) = run_module(&module, &[Value::I32(20)], &mut [], limits(200));
    assert_eq!(ok, Ok(vec![Value::I32(210)]));
    let (err, _) = run_module(&module, &[Value::I32(20)], &mut [], limits(199));
    let err = err.unwrap_err();
    assert_eq!(
        err.kind,
        RuntimeErrorKind::StepBudgetExhausted { budget: 199 }
    );
    assert_eq!(err.loc, Some(LocId::from_u32(4)));
}
