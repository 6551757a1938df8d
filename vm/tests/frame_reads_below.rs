//! A callee that reads its caller's frame through an address it computes itself (a wrapping
//! `addr_add` below its own frame, which a decoded module may do) sees what the interpreter
//! shows there: the caller's frame as zeroed on entry, not what an earlier callee left in the
//! same memory. All engines must agree ([`common::run_module`]).

mod common;

use common::{build, run_module, verified};
use rpsl_vm::{FuncId, Limits, Module, Signature, Type, Value};

#[test]
fn a_callee_reading_below_its_frame_sees_the_zeroed_caller_frame() {
    let returns_u32 = Signature::new([], [Type::U32]);
    let mut module = Module::new();
    // main: calls `leave` (which leaves 0xDEAD in its frame), then `middle`, whose frame takes
    // the same memory; returns what `middle` returns.
    let sig = returns_u32.clone();
    module.add_function(build("main", returns_u32.clone(), move |b| {
        b.alloc_frame(16, 16);
        b.call(FuncId::from_u32(1), &sig, &[]);
        let seen = b.call(FuncId::from_u32(2), &sig, &[]);
        b.ret(&seen);
    }));
    // leave: stores 0xDEAD at its frame byte 0 and reads it back in a later block.
    module.add_function(build("leave", returns_u32.clone(), |b| {
        b.alloc_frame(16, 16);
        let at = b.frame_addr(0);
        let dead = b.iconst_u32(0xDEAD);
        b.store(at, 0, dead);
        let next = b.create_block();
        b.jump(next);
        b.switch_to_block(next);
        let back = b.load(Type::U32, at, 0);
        b.ret(&[back]);
    }));
    // middle: never touches its frame; returns what `below` reads.
    let sig = returns_u32.clone();
    module.add_function(build("middle", returns_u32.clone(), move |b| {
        b.alloc_frame(16, 16);
        let seen = b.call(FuncId::from_u32(3), &sig, &[]);
        b.ret(&seen);
    }));
    // below: reads the word 16 bytes below its frame: `middle`'s frame byte 0.
    module.add_function(build("below", returns_u32, |b| {
        b.alloc_frame(16, 16);
        let base = b.frame_addr(0);
        let under = b.addr_add(base, 16u32.wrapping_neg());
        let word = b.load(Type::U32, under, 0);
        b.ret(&[word]);
    }));
    let (result, _) = run_module(&verified(module), &[], &mut [], Limits::default());
    assert_eq!(result, Ok(vec![Value::U32(0)]));
}
