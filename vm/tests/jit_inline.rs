//! Small leaf callees translated into their callers by the optimised JIT tier: results, step
//! budget, call depth, memory limit and growth, and faults inside the inlined body stay the
//! interpreter's, located where the interpreter locates them. Every run goes through
//! [`common::run_module`], which runs the interpreter, the quick JIT tier and the optimised tier
//! (which inlines) and asserts that they agree.

mod common;

use common::{build, run_module, verified};
use rpsl_vm::{
    BinaryOp, FuncId, Limits, LocId, Module, RuntimeError, RuntimeErrorKind, Signature, Type,
    Value, VerifiedModule,
};

/// `leaf(x, out)`: even `x` stores `3x` at `out` and returns `x + 1`; odd `x` stores `x` at
/// `out + 4` and returns 7. Two returns, a parameter address into the caller's frame.
fn branching_leaf() -> rpsl_vm::Function {
    build(
        "leaf",
        Signature::new([Type::U32, Type::Addr], [Type::U32]),
        |b| {
            let (x, out) = (b.param(0), b.param(1));
            let two = b.iconst_u32(2);
            let parity = b.binary(BinaryOp::RemU32, x, two);
            let zero = b.iconst_u32(0);
            let even = b.binary(BinaryOp::EqU32, parity, zero);
            let (even_block, odd_block) = (b.create_block(), b.create_block());
            b.branch(even, even_block, odd_block);
            b.switch_to_block(even_block);
            let three = b.iconst_u32(3);
            let tripled = b.binary(BinaryOp::MulU32, x, three);
            b.store(out, 0, tripled);
            let one = b.iconst_u32(1);
            let next = b.binary(BinaryOp::AddU32, x, one);
            b.ret(&[next]);
            b.switch_to_block(odd_block);
            b.store(out, 4, x);
            let seven = b.iconst_u32(7);
            b.ret(&[seven]);
        },
    )
}

/// `main`: calls the branching leaf with 4 and 5 (at loc 5), then returns the sum of both
/// results and both words the leaf wrote into `main`'s frame.
fn caller_of_branching_leaf() -> VerifiedModule {
    let leaf_sig = Signature::new([Type::U32, Type::Addr], [Type::U32]);
    let mut module = Module::new();
    module.add_function(build("main", Signature::new([], [Type::U32]), |b| {
        let slot = b.alloc_frame(8, 4);
        let out = b.frame_addr(slot);
        b.set_loc(LocId::from_u32(5));
        let four = b.iconst_u32(4);
        let first = b.call(FuncId::from_u32(1), &leaf_sig, &[four, out]);
        let five = b.iconst_u32(5);
        let second = b.call(FuncId::from_u32(1), &leaf_sig, &[five, out]);
        b.set_loc(LocId::from_u32(6));
        let sum = b.binary(BinaryOp::AddU32, first[0], second[0]);
        let low = b.load(Type::U32, out, 0);
        let high = b.load(Type::U32, out, 4);
        let sum = b.binary(BinaryOp::AddU32, sum, low);
        let sum = b.binary(BinaryOp::AddU32, sum, high);
        b.ret(&[sum]);
    }));
    module.add_function(branching_leaf());
    verified(module)
}

#[test]
fn an_inlined_leaf_returns_from_each_path_and_writes_through_its_parameter() {
    // 5 + 7 + 12 + 5.
    let (result, _) = run_module(&caller_of_branching_leaf(), &[], &mut [], Limits::default());
    assert_eq!(result, Ok(vec![Value::U32(29)]));
}

#[test]
fn the_call_depth_limit_faults_at_an_inlined_call() {
    let limits = Limits {
        max_call_depth: 1,
        ..Limits::default()
    };
    let (result, _) = run_module(&caller_of_branching_leaf(), &[], &mut [], limits);
    assert_eq!(
        result,
        Err(RuntimeError {
            kind: RuntimeErrorKind::CallDepthExceeded { limit: 1 },
            loc: Some(LocId::from_u32(5)),
        })
    );
}

#[test]
fn the_memory_limit_faults_when_entering_an_inlined_frame() {
    // main's frame is [0, 8); the leaf's 64 bytes start at the next 16-byte boundary.
    let leaf_sig = Signature::new([], [Type::U32]);
    let mut module = Module::new();
    module.add_function(build("main", Signature::new([], [Type::U32]), |b| {
        b.alloc_frame(8, 4);
        b.set_loc(LocId::from_u32(3));
        let result = b.call(FuncId::from_u32(1), &leaf_sig, &[]);
        b.ret(&result);
    }));
    module.add_function(build("leaf", leaf_sig.clone(), |b| {
        let slot = b.alloc_frame(64, 4);
        let addr = b.frame_addr(slot);
        let old = b.load(Type::U32, addr, 60);
        b.ret(&[old]);
    }));
    let module = verified(module);
    let limit = |max_memory| Limits {
        max_memory,
        ..Limits::default()
    };
    // The leaf's frame is [16, 80).
    let (result, _) = run_module(&module, &[], &mut [], limit(80));
    assert_eq!(result, Ok(vec![Value::U32(0)]));
    let (result, _) = run_module(&module, &[], &mut [], limit(79));
    assert_eq!(
        result,
        Err(RuntimeError {
            kind: RuntimeErrorKind::OutOfMemory { limit: 79 },
            loc: Some(LocId::from_u32(3)),
        })
    );
}

#[test]
fn an_inlined_frame_that_grows_memory_keeps_reading_and_writing_the_moved_memory() {
    // The first call grows memory for the leaf's 400-byte frame (the memory may move); the leaf
    // writes the caller's frame through its parameter and its own frame, and the caller reads
    // its frame afterwards. Later calls find memory long enough and zero the frame inline.
    let leaf_sig = Signature::new([Type::U32, Type::Addr], [Type::U32]);
    let mut module = Module::new();
    module.add_function(build("main", Signature::new([], [Type::U32]), |b| {
        let slot = b.alloc_frame(4, 4);
        let out = b.frame_addr(slot);
        let mut total = b.iconst_u32(0);
        for value in [11, 22, 33] {
            let value = b.iconst_u32(value);
            let result = b.call(FuncId::from_u32(1), &leaf_sig, &[value, out]);
            let written = b.load(Type::U32, out, 0);
            total = b.binary(BinaryOp::AddU32, total, result[0]);
            total = b.binary(BinaryOp::AddU32, total, written);
        }
        b.ret(&[total]);
    }));
    module.add_function(build("leaf", leaf_sig.clone(), |b| {
        let (value, out) = (b.param(0), b.param(1));
        let slot = b.alloc_frame(400, 4);
        let frame = b.frame_addr(slot);
        // Reads zero (a fresh frame), then leaves `value` there for nobody.
        let old = b.load(Type::U32, frame, 396);
        b.store(frame, 396, value);
        let doubled = b.binary(BinaryOp::AddU32, value, value);
        b.store(out, 0, doubled);
        let result = b.binary(BinaryOp::AddU32, old, value);
        b.ret(&[result]);
    }));
    let (result, _) = run_module(&verified(module), &[], &mut [], Limits::default());
    // Each call: value (returned) + 2 * value (written) = 3 * value.
    assert_eq!(result, Ok(vec![Value::U32(3 * (11 + 22 + 33))]));
}

#[test]
fn a_memory_fault_inside_an_inlined_body_is_located_in_the_callee() {
    // The leaf writes 4 bytes at `out + 100`, past its own frame's top (main: 8 bytes at 0,
    // leaf: 16 bytes at 16, so the top is 32).
    let leaf_sig = Signature::new([Type::Addr], []);
    let mut module = Module::new();
    module.add_function(build("main", Signature::new([], []), |b| {
        let slot = b.alloc_frame(8, 4);
        let out = b.frame_addr(slot);
        b.set_loc(LocId::from_u32(1));
        b.call(FuncId::from_u32(1), &leaf_sig, &[out]);
        b.ret(&[]);
    }));
    module.add_function(build("leaf", leaf_sig.clone(), |b| {
        let out = b.param(0);
        b.alloc_frame(16, 4);
        b.set_loc(LocId::from_u32(9));
        let value = b.iconst_u32(1);
        b.store(out, 100, value);
        b.ret(&[]);
    }));
    let (result, _) = run_module(&verified(module), &[], &mut [], Limits::default());
    assert_eq!(
        result,
        Err(RuntimeError {
            kind: RuntimeErrorKind::MemoryOutOfBounds { addr: 100, size: 4 },
            loc: Some(LocId::from_u32(9)),
        })
    );
}

/// `main(n)`: calls `count(n)` (a loop of `n` iterations, back-edge at loc 20) at loc 10, twice,
/// and returns the sum of the results.
fn caller_of_looping_leaf() -> VerifiedModule {
    let leaf_sig = Signature::new([Type::U32], [Type::U32]);
    let mut module = Module::new();
    module.add_function(build(
        "main",
        Signature::new([Type::U32], [Type::U32]),
        |b| {
            let n = b.param(0);
            b.set_loc(LocId::from_u32(10));
            let first = b.call(FuncId::from_u32(1), &leaf_sig, &[n]);
            let second = b.call(FuncId::from_u32(1), &leaf_sig, &[n]);
            b.set_loc(LocId::from_u32(11));
            let sum = b.binary(BinaryOp::AddU32, first[0], second[0]);
            b.ret(&[sum]);
        },
    ));
    module.add_function(build("count", leaf_sig.clone(), |b| {
        let n = b.param(0);
        let i = b.new_reg(Type::U32);
        let zero = b.iconst_u32(0);
        b.assign(i, zero);
        let (head, body, done) = (b.create_block(), b.create_block(), b.create_block());
        b.jump(head);
        b.switch_to_block(head);
        b.set_loc(LocId::from_u32(19));
        let more = b.binary(BinaryOp::LtU32, i, n);
        b.branch(more, body, done);
        b.switch_to_block(body);
        let one = b.iconst_u32(1);
        b.binary_into(BinaryOp::AddU32, i, i, one);
        b.set_loc(LocId::from_u32(20));
        b.loop_jump(head);
        b.switch_to_block(done);
        b.set_loc(LocId::from_u32(21));
        b.ret(&[i]);
    }));
    verified(module)
}

#[test]
fn the_step_budget_runs_out_at_the_same_instruction_inside_and_around_inlined_bodies() {
    let module = caller_of_looping_leaf();
    let mut fault_locs = Vec::new();
    // Every budget from none to enough: all engines agree on each (run_module asserts it).
    for budget in 0..80 {
        let limits = Limits {
            step_budget: budget,
            ..Limits::default()
        };
        let (result, _) = run_module(&module, &[Value::U32(5)], &mut [], limits);
        match result {
            Ok(values) => assert_eq!(values, vec![Value::U32(10)], "budget {budget}"),
            Err(error) => {
                assert_eq!(
                    error.kind,
                    RuntimeErrorKind::StepBudgetExhausted { budget },
                    "budget {budget}"
                );
                fault_locs.push(error.loc);
            }
        }
    }
    // Some budgets end at a call, some inside the inlined loop, and the largest suffice.
    assert!(fault_locs.contains(&Some(LocId::from_u32(10))));
    assert!(fault_locs.contains(&Some(LocId::from_u32(20))));
    assert!(fault_locs.len() < 80);
}

#[test]
fn a_parameter_address_past_the_callers_frame_reaches_the_inlined_frame() {
    // main's frame is [0, 8), the leaf's [16, 32): the leaf writes through its parameter (main's
    // frame address 0) at offset 20, which is its own frame's word 4, and reads that word back.
    let leaf_sig = Signature::new([Type::Addr], [Type::U32]);
    let mut module = Module::new();
    module.add_function(build("main", Signature::new([], [Type::U32]), |b| {
        let slot = b.alloc_frame(8, 4);
        let out = b.frame_addr(slot);
        let result = b.call(FuncId::from_u32(1), &leaf_sig, &[out]);
        b.ret(&result);
    }));
    module.add_function(build("leaf", leaf_sig.clone(), |b| {
        let out = b.param(0);
        let slot = b.alloc_frame(16, 4);
        let frame = b.frame_addr(slot);
        let seven = b.iconst_u32(7);
        b.store(out, 20, seven);
        let word = b.load(Type::U32, frame, 4);
        b.ret(&[word]);
    }));
    let (result, _) = run_module(&verified(module), &[], &mut [], Limits::default());
    assert_eq!(result, Ok(vec![Value::U32(7)]));
}

/// `main(n)`: `n` times, calls `small` (a 16-byte frame) at loc 5, then `big` (a 400-byte
/// frame) at loc 6; returns the sum of their results. `small` returns its frame word 0 (zero)
/// plus 1 after storing 9 there; `big` returns its word 99 (zero) plus 2 after storing 9 there.
/// Memory first reaches only `main`'s frame: the first `small` call grows it to `small`'s end,
/// the first `big` call to `big`'s, and later calls find it there.
fn small_then_big() -> VerifiedModule {
    let leaf_sig = Signature::new([], [Type::U32]);
    let mut module = Module::new();
    let sig = leaf_sig.clone();
    module.add_function(build(
        "main",
        Signature::new([Type::U32], [Type::U32]),
        move |b| {
            let n = b.param(0);
            b.alloc_frame(8, 4);
            let (sum, i) = (b.new_reg(Type::U32), b.new_reg(Type::U32));
            let zero = b.iconst_u32(0);
            b.assign(sum, zero);
            b.assign(i, zero);
            let (header, body, exit) = (b.create_block(), b.create_block(), b.create_block());
            b.jump(header);
            b.switch_to_block(header);
            let more = b.binary(BinaryOp::LtU32, i, n);
            b.branch(more, body, exit);
            b.switch_to_block(body);
            b.set_loc(LocId::from_u32(5));
            let small = b.call(FuncId::from_u32(1), &sig, &[])[0];
            b.set_loc(LocId::from_u32(6));
            let big = b.call(FuncId::from_u32(2), &sig, &[])[0];
            b.set_loc(LocId::from_u32(7));
            let both = b.binary(BinaryOp::AddU32, small, big);
            b.binary_into(BinaryOp::AddU32, sum, sum, both);
            let one = b.iconst_u32(1);
            b.binary_into(BinaryOp::AddU32, i, i, one);
            b.loop_jump(header);
            b.switch_to_block(exit);
            b.ret(&[sum]);
        },
    ));
    for (name, size, word, add) in [("small", 16u32, 0u32, 1u32), ("big", 400, 99, 2)] {
        module.add_function(build(name, leaf_sig.clone(), move |b| {
            let slot = b.alloc_frame(size, 4);
            let addr = b.frame_addr(slot);
            let old = b.load(Type::U32, addr, 4 * word);
            let nine = b.iconst_u32(9);
            b.store(addr, 4 * word, nine);
            let plus = b.iconst_u32(add);
            let result = b.binary(BinaryOp::AddU32, old, plus);
            b.ret(&[result]);
        }));
    }
    verified(module)
}

#[test]
fn calls_after_memory_grew_for_a_smaller_frame_still_check_the_larger_one() {
    let module = small_then_big();
    let limit = |max_memory| Limits {
        max_memory,
        ..Limits::default()
    };
    // `small`'s frame is [16, 32), `big`'s [16, 416): each call sees a zeroed frame.
    for n in [0u32, 1, 3] {
        let (result, _) = run_module(&module, &[Value::U32(n)], &mut [], limit(416));
        assert_eq!(result, Ok(vec![Value::U32(3 * n)]), "n = {n}");
    }
    // Memory may reach `small`'s end but not `big`'s: the first `big` call faults.
    let (result, _) = run_module(&module, &[Value::U32(3)], &mut [], limit(415));
    assert_eq!(
        result,
        Err(RuntimeError {
            kind: RuntimeErrorKind::OutOfMemory { limit: 415 },
            loc: Some(LocId::from_u32(6)),
        })
    );
    // One call level fits, two do not: every call faults on depth, the first one first.
    let shallow = Limits {
        max_call_depth: 1,
        ..Limits::default()
    };
    let (result, _) = run_module(&module, &[Value::U32(3)], &mut [], shallow);
    assert_eq!(
        result,
        Err(RuntimeError {
            kind: RuntimeErrorKind::CallDepthExceeded { limit: 1 },
            loc: Some(LocId::from_u32(5)),
        })
    );
}
