//! The run-time checks the JIT leaves out where they cannot fail (index bounds proven by a
//! `rem`/`and` with a constant, frame accesses through registers that always hold a frame
//! address, divisions by a non-zero constant) and keeps everywhere else: every fault stays the
//! interpreter's, at the same location, and every result bit for bit the same.

mod common;

use common::{build, run_module, verified};
use rpsl_vm::{
    BinaryOp, Limits, LocId, Module, RuntimeError, RuntimeErrorKind, Signature, Type, Value,
};

/// Runs a one-function module on both engines (which must agree) and returns the result.
fn run(function: rpsl_vm::Function, args: &[Value]) -> Result<Vec<Value>, RuntimeError> {
    let mut module = Module::new();
    module.add_function(function);
    run_module(&verified(module), args, &mut [], Limits::default()).0
}

/// `ring[i % 16] = i; return ring[(i + 15) % 16] + ring[i % 16]` over a 16-entry `u32` array.
fn ring_of_16() -> rpsl_vm::Function {
    build("ring", Signature::new([Type::U32], [Type::U32]), |b| {
        let i = b.param(0);
        let ring = b.alloc_frame(64, 4);
        let base = b.frame_addr(ring);
        let sixteen = b.iconst_u32(16);
        let slot = b.binary(BinaryOp::RemU32, i, sixteen);
        let at = b.index_addr(base, slot, 4, 16);
        b.store(at, 0, i);
        let fifteen = b.iconst_u32(15);
        let before = b.binary(BinaryOp::AddU32, i, fifteen);
        let before = b.binary(BinaryOp::RemU32, before, sixteen);
        let other = b.index_addr(base, before, 4, 16);
        let old = b.load(Type::U32, other, 0);
        let mine = b.load(Type::U32, at, 0);
        let sum = b.binary(BinaryOp::AddU32, old, mine);
        b.ret(&[sum]);
    })
}

#[test]
fn index_proven_by_a_constant_remainder_runs_like_the_interpreter() {
    for (i, expected) in [
        (0, 0),
        (17, 17),
        (u32::MAX, u32::MAX),
        (1_000_003, 1_000_003),
    ] {
        assert_eq!(
            run(ring_of_16(), &[Value::U32(i)]),
            Ok(vec![Value::U32(expected)])
        );
    }
}

#[test]
fn a_mask_one_past_the_length_keeps_its_bounds_check() {
    // `i & 16` is 0 or 16: not provably below 16, so index 16 faults, located.
    let function = build("mask", Signature::new([Type::U32], [Type::U32]), |b| {
        let i = b.param(0);
        let array = b.alloc_frame(64, 4);
        let base = b.frame_addr(array);
        let mask = b.iconst_u32(16);
        let index = b.binary(BinaryOp::AndU32, i, mask);
        b.set_loc(LocId::from_u32(7));
        let at = b.index_addr(base, index, 4, 16);
        let value = b.load(Type::U32, at, 0);
        b.ret(&[value]);
    });
    assert_eq!(
        run(function.clone(), &[Value::U32(15)]),
        Ok(vec![Value::U32(0)])
    );
    let error = run(function, &[Value::U32(16)]).unwrap_err();
    assert_eq!(
        error.kind,
        RuntimeErrorKind::IndexOutOfBounds { index: 16, len: 16 }
    );
    assert_eq!(error.loc, Some(LocId::from_u32(7)));
}

#[test]
fn a_pointer_walking_off_the_frame_keeps_its_memory_check() {
    // `p = frame_addr 0; loop { store [p], i; p = p + 64 }` over a 256-byte frame: the fifth
    // store (at 256) faults, as in the interpreter.
    let function = build("walk", Signature::new([Type::U32], []), |b| {
        let n = b.param(0);
        b.alloc_frame(256, 4);
        let p = b.new_reg(Type::Addr);
        let start = b.frame_addr(0);
        b.assign(p, start);
        let i = b.new_reg(Type::U32);
        let zero = b.iconst_u32(0);
        b.assign(i, zero);
        let head = b.create_block();
        let body = b.create_block();
        let exit = b.create_block();
        b.jump(head);
        b.switch_to_block(head);
        let more = b.binary(BinaryOp::LtU32, i, n);
        b.branch(more, body, exit);
        b.switch_to_block(body);
        b.set_loc(LocId::from_u32(3));
        b.store(p, 0, i);
        let next = b.addr_add(p, 64);
        b.assign(p, next);
        let one = b.iconst_u32(1);
        b.binary_into(BinaryOp::AddU32, i, i, one);
        b.loop_jump(head);
        b.switch_to_block(exit);
        b.ret(&[]);
    });
    assert_eq!(run(function.clone(), &[Value::U32(4)]), Ok(vec![]));
    let error = run(function, &[Value::U32(5)]).unwrap_err();
    assert_eq!(
        error.kind,
        RuntimeErrorKind::MemoryOutOfBounds { addr: 256, size: 4 }
    );
    assert_eq!(error.loc, Some(LocId::from_u32(3)));
}

#[test]
fn a_register_that_is_sometimes_a_foreign_address_keeps_its_memory_check() {
    // `q` is a frame address on one path and the caller's address on the other.
    let function = build(
        "either",
        Signature::new([Type::Bool, Type::Addr], [Type::U32]),
        |b| {
            let (foreign, address) = (b.param(0), b.param(1));
            b.alloc_frame(16, 4);
            let q = b.new_reg(Type::Addr);
            let local = b.frame_addr(4);
            b.assign(q, local);
            let take = b.create_block();
            let join = b.create_block();
            b.branch(foreign, take, join);
            b.switch_to_block(take);
            b.assign(q, address);
            b.jump(join);
            b.switch_to_block(join);
            b.set_loc(LocId::from_u32(9));
            let value = b.load(Type::U32, q, 0);
            b.ret(&[value]);
        },
    );
    let args = |foreign, address| [Value::Bool(foreign), Value::Addr(address)];
    assert_eq!(
        run(function.clone(), &args(false, 100_000)),
        Ok(vec![Value::U32(0)])
    );
    let error = run(function, &args(true, 100_000)).unwrap_err();
    assert_eq!(
        error.kind,
        RuntimeErrorKind::MemoryOutOfBounds {
            addr: 100_000,
            size: 4
        }
    );
    assert_eq!(error.loc, Some(LocId::from_u32(9)));
}

#[test]
fn divisions_by_constants_match_and_a_zero_constant_still_faults() {
    let divide = |divisor: u32, op: BinaryOp| {
        build("div", Signature::new([Type::U32], [Type::U32]), move |b| {
            let x = b.param(0);
            let d = b.iconst_u32(divisor);
            b.set_loc(LocId::from_u32(2));
            let q = b.binary(op, x, d);
            b.ret(&[q]);
        })
    };
    let x = 0xDEAD_BEEFu32;
    for divisor in [1, 3, 16, 1 << 31] {
        assert_eq!(
            run(divide(divisor, BinaryOp::DivU32), &[Value::U32(x)]),
            Ok(vec![Value::U32(x / divisor)])
        );
        assert_eq!(
            run(divide(divisor, BinaryOp::RemU32), &[Value::U32(x)]),
            Ok(vec![Value::U32(x % divisor)])
        );
    }
    for op in [BinaryOp::DivU32, BinaryOp::RemU32] {
        let error = run(divide(0, op), &[Value::U32(x)]).unwrap_err();
        assert_eq!(error.kind, RuntimeErrorKind::DivisionByZero);
        assert_eq!(error.loc, Some(LocId::from_u32(2)));
    }
}

/// A host call's memory block that runs past the frame top: `call_node` with `size` argument
/// bytes at frame byte `at`, or `create_resource` with its description (36 bytes) or its view
/// (40 bytes) there, in a 64-byte frame, at loc 4.
fn host_block_past_the_top(call: &str, at: u32, size: u32) -> Result<Vec<Value>, RuntimeError> {
    let call = call.to_string();
    run(
        build("f", Signature::new([], []), move |b| {
            b.alloc_frame(64, 16);
            let block = b.frame_addr(at);
            let inside = b.frame_addr(0);
            b.set_loc(LocId::from_u32(4));
            match call.as_str() {
                "call_node" => {
                    b.call_node(rpsl_vm::NodeDeclId::from_u32(0), block, size, 0);
                }
                "desc" => b.ins(rpsl_vm::Inst::CreateResource {
                    desc: block,
                    view_out: inside,
                }),
                _ => b.ins(rpsl_vm::Inst::CreateResource {
                    desc: inside,
                    view_out: block,
                }),
            }
            b.ret(&[]);
        }),
        &[],
    )
}

#[test]
fn host_call_blocks_past_the_frame_top_fault_like_the_interpreter() {
    // The function's frame starts at 0 (no I/O block): its top is 64.
    let fault = |addr, size| {
        Err(RuntimeError {
            kind: RuntimeErrorKind::MemoryOutOfBounds { addr, size },
            loc: Some(LocId::from_u32(4)),
        })
    };
    assert_eq!(host_block_past_the_top("call_node", 32, 40), fault(32, 40));
    assert_eq!(host_block_past_the_top("call_node", 24, 40), Ok(vec![]));
    assert_eq!(host_block_past_the_top("desc", 32, 36), fault(32, 36));
    assert_eq!(host_block_past_the_top("view", 32, 40), fault(32, 40));
}
