//! Frame bytes the JIT knows within a block (zeroed temporaries patched with constants, copies
//! of them), whose stores it may hold back and whose loads it may leave out: every read sees
//! the bytes the interpreter has there, whether it comes through an exact frame address, an
//! indexed one, a comparison, a host call's argument block or a later block, and every write
//! through an address not known exactly makes the JIT forget what it knew. All engines must
//! agree ([`common::run_module`]: interpreter, quick and optimised JIT).

mod common;

use common::{build, run_module, verified};
use rpsl_vm::host::HostEvent;
use rpsl_vm::{
    BinaryOp, Inst, Limits, LocId, Module, NodeDeclId, Reg, Signature, Type, Value, VerifiedModule,
};

fn mem_zero(b: &mut rpsl_vm::FunctionBuilder, addr: Reg, size: u32) {
    b.ins(Inst::MemZero { addr, size });
}

fn mem_eq(b: &mut rpsl_vm::FunctionBuilder, a: Reg, x: Reg, size: u32) -> Reg {
    let dst = b.new_reg(Type::Bool);
    b.ins(Inst::MemEq { dst, a, b: x, size });
    dst
}

/// `f(i)`: builds a constant 40-byte view in a temporary `t` (zeroed, then words 0 and 2 set),
/// copies it to `a`, compares, writes `99` into word `i % 10` of `a` through an indexed address,
/// compares again, copies `a` to `c`, builds a second constant view `d` right after `c`, calls
/// node 3 with `c` and `d` as its argument block, and returns
/// `eq1 + 2 * eq2 + word (i % 10) of c + word 2 of t read through an indexed address + word 0
/// of a read in the next block + word 1 of d read through an indexed address`.
fn temporaries() -> VerifiedModule {
    let mut module = Module::new();
    module.add_function(build("f", Signature::new([Type::U32], [Type::U32]), |b| {
        let i = b.param(0);
        b.alloc_frame(176, 16);
        let (t, a, c) = (b.frame_addr(0), b.frame_addr(48), b.frame_addr(96));
        mem_zero(b, t, 40);
        let all_ones = b.iconst_u32(u32::MAX);
        b.store(t, 0, all_ones);
        let seven = b.iconst_u32(7);
        b.store(t, 8, seven);
        b.mem_copy(a, t, 40);
        let eq1 = mem_eq(b, a, t, 40);
        let ten = b.iconst_u32(10);
        let word = b.binary(BinaryOp::RemU32, i, ten);
        let in_a = b.index_addr(a, word, 4, 10);
        let ninety_nine = b.iconst_u32(99);
        b.store(in_a, 0, ninety_nine);
        let eq2 = mem_eq(b, a, t, 40);
        b.mem_copy(c, a, 40);
        let d = b.frame_addr(136);
        mem_zero(b, d, 40);
        let forty_two = b.iconst_u32(42);
        b.store(d, 4, forty_two);
        // Read while `d` may still be held back: through an indexed address.
        let one = b.iconst_u32(1);
        let in_d = b.index_addr(d, one, 4, 10);
        let d_word = b.load(Type::U32, in_d, 0);
        b.set_loc(LocId::from_u32(4));
        b.call_node(NodeDeclId::from_u32(3), c, 80, 0);
        let in_c = b.index_addr(c, word, 4, 10);
        let changed = b.load(Type::U32, in_c, 0);
        let two = b.iconst_u32(2);
        let in_t = b.index_addr(t, two, 4, 10);
        let t_word = b.load(Type::U32, in_t, 0);
        let eq1 = b.convert(Type::U32, eq1);
        let eq2 = b.convert(Type::U32, eq2);
        let eq2 = b.binary(BinaryOp::MulU32, eq2, two);
        let sum = b.binary(BinaryOp::AddU32, eq1, eq2);
        let sum = b.binary(BinaryOp::AddU32, sum, changed);
        let sum = b.binary(BinaryOp::AddU32, sum, t_word);
        let sum = b.binary(BinaryOp::AddU32, sum, d_word);
        let next = b.create_block();
        b.jump(next);
        b.switch_to_block(next);
        let a_word = b.load(Type::U32, a, 0);
        let sum = b.binary(BinaryOp::AddU32, sum, a_word);
        b.ret(&[sum]);
    }));
    verified(module)
}

/// The 80 bytes of the two views `f(i)` passes to its node call.
fn expected_args(i: u32) -> Vec<u8> {
    let mut words = [0u32; 20];
    words[0] = u32::MAX;
    words[2] = 7;
    words[(i % 10) as usize] = 99;
    words[11] = 42;
    words.iter().flat_map(|word| word.to_le_bytes()).collect()
}

#[test]
fn known_temporaries_read_back_through_every_kind_of_address() {
    let module = temporaries();
    for i in [0, 1, 2, 5, 19] {
        let (result, host) = run_module(&module, &[Value::U32(i)], &mut [], Limits::default());
        // eq1 is 1; eq2 is 0 (word i % 10 became 99, which no word of t is); t's word 2 is 7;
        // d's word 1 is 42.
        let a_word0 = if i % 10 == 0 { 99 } else { u32::MAX };
        let expected = 1u32
            .wrapping_add(99)
            .wrapping_add(7)
            .wrapping_add(a_word0)
            .wrapping_add(42);
        assert_eq!(result, Ok(vec![Value::U32(expected)]), "i = {i}");
        match &host.events[..] {
            [HostEvent::CallNode { decl, args, .. }] => {
                assert_eq!(*decl, NodeDeclId::from_u32(3));
                assert_eq!(args, &expected_args(i), "i = {i}");
            }
            events => panic!("unexpected host events {events:?}"),
        }
    }
}

#[test]
fn a_copy_of_known_bytes_over_a_partly_written_region_keeps_the_rest() {
    // `a` gets 40 bytes of 5s through an unknown-looking address, then a known 16-byte
    // temporary is copied over its middle: the bytes around the copy stay 5s.
    let mut module = Module::new();
    module.add_function(build("g", Signature::new([Type::U32], [Type::U32]), |b| {
        let i = b.param(0);
        b.alloc_frame(96, 16);
        let (t, a) = (b.frame_addr(0), b.frame_addr(32));
        let five = b.iconst_u32(5);
        // Zero, but not a constant the facts know: the indexed addresses are not exact.
        let zero = b.iconst_u32(0);
        let zero = b.binary(BinaryOp::MulU32, i, zero);
        for word in 0..10 {
            let index = b.iconst_u32(word);
            let index = b.binary(BinaryOp::AddU32, index, zero);
            let at = b.index_addr(a, index, 4, 10);
            b.store(at, 0, five);
        }
        mem_zero(b, t, 16);
        let six = b.iconst_u32(6);
        b.store(t, 4, six);
        let middle = b.addr_add(a, 12);
        b.mem_copy(middle, t, 16);
        let mut sum = b.iconst_u32(0);
        for word in 0..10 {
            let value = b.load(Type::U32, a, 4 * word);
            let weight = b.iconst_u32(word + 1);
            let weighted = b.binary(BinaryOp::MulU32, value, weight);
            sum = b.binary(BinaryOp::AddU32, sum, weighted);
        }
        b.ret(&[sum]);
    }));
    let module = verified(module);
    let (result, _) = run_module(&module, &[Value::U32(3)], &mut [], Limits::default());
    // Words 3..7 are the temporary (0, 6, 0, 0); the others 5.
    let words = [5, 5, 5, 0, 6, 0, 0, 5, 5, 5];
    let expected: u32 = words
        .iter()
        .enumerate()
        .map(|(index, word)| word * (index as u32 + 1))
        .sum();
    assert_eq!(result, Ok(vec![Value::U32(expected)]));
}

#[test]
fn held_back_bytes_reach_later_blocks_and_later_iterations() {
    // block0: a temporary `t` (zeroed, word 0 = 5) copied to `a`; `t` is read nowhere else.
    // loop (3 times): adds `a`'s word 0 and `u`'s word 0 (the previous iteration's counter,
    // written after the read), then writes `u` = counter + 1 as a zeroed temporary patched.
    // exit: rewrites `t` and reads it back in the same block.
    let mut module = Module::new();
    module.add_function(build("h", Signature::new([], [Type::U32]), |b| {
        b.alloc_frame(96, 16);
        let (t, a, u) = (b.frame_addr(0), b.frame_addr(32), b.frame_addr(64));
        mem_zero(b, t, 16);
        let five = b.iconst_u32(5);
        b.store(t, 0, five);
        b.mem_copy(a, t, 16);
        let (acc, i) = (b.new_reg(Type::U32), b.new_reg(Type::U32));
        let zero = b.iconst_u32(0);
        b.assign(acc, zero);
        b.assign(i, zero);
        let (head, body, exit) = (b.create_block(), b.create_block(), b.create_block());
        b.jump(head);
        b.switch_to_block(head);
        let three = b.iconst_u32(3);
        let more = b.binary(BinaryOp::LtU32, i, three);
        b.branch(more, body, exit);
        b.switch_to_block(body);
        let from_a = b.load(Type::U32, a, 0);
        let from_u = b.load(Type::U32, u, 0);
        b.binary_into(BinaryOp::AddU32, acc, acc, from_a);
        b.binary_into(BinaryOp::AddU32, acc, acc, from_u);
        let one = b.iconst_u32(1);
        b.binary_into(BinaryOp::AddU32, i, i, one);
        mem_zero(b, u, 16);
        b.store(u, 0, i);
        b.loop_jump(head);
        b.switch_to_block(exit);
        mem_zero(b, t, 16);
        let nine = b.iconst_u32(9);
        b.store(t, 4, nine);
        let from_t = b.load(Type::U32, t, 4);
        let total = b.binary(BinaryOp::AddU32, acc, from_t);
        b.ret(&[total]);
    }));
    let (result, _) = run_module(&verified(module), &[], &mut [], Limits::default());
    // a: 5 three times; u: 0, 1, 2; then 9.
    assert_eq!(result, Ok(vec![Value::U32(15 + 3 + 9)]));
}

#[test]
fn an_entry_block_that_is_a_loop_header_reads_the_previous_iteration() {
    // block0 adds `t`'s word 0 to the sum, then writes `t` = 7 as a patched zeroed temporary;
    // block1 counts to 4 and loops back to block0: its reads see the previous iteration's `t`.
    let sig = Signature::new([Type::U32, Type::U32], [Type::U32]);
    let mut module = Module::new();
    module.add_function(build("loop0", sig, |b| {
        let (i, sum) = (b.param(0), b.param(1));
        b.alloc_frame(16, 16);
        let t = b.frame_addr(0);
        let old = b.load(Type::U32, t, 0);
        b.binary_into(BinaryOp::AddU32, sum, sum, old);
        mem_zero(b, t, 16);
        let seven = b.iconst_u32(7);
        b.store(t, 0, seven);
        let one = b.iconst_u32(1);
        b.binary_into(BinaryOp::AddU32, i, i, one);
        let (again, done) = (b.create_block(), b.create_block());
        let four = b.iconst_u32(4);
        let more = b.binary(BinaryOp::LtU32, i, four);
        b.branch(more, again, done);
        b.switch_to_block(again);
        b.loop_jump(rpsl_vm::Block::from_u32(0));
        b.switch_to_block(done);
        b.ret(&[sum]);
    }));
    let args = [Value::U32(0), Value::U32(0)];
    let (result, _) = run_module(&verified(module), &args, &mut [], Limits::default());
    // Four iterations read 0, 7, 7, 7.
    assert_eq!(result, Ok(vec![Value::U32(21)]));
}

/// `make(w)`: memory holds 5s at frame bytes 40..48 (written in the entry block); the next
/// block zeroes `zeroed` bytes at 0 (held back), builds a description of width `w` at 48 and
/// creates a resource with its view at 0; the last block returns view word 0 (the resource id),
/// word 5 (the mip count) plus 10 times word 11 and 100 times word 10 (bytes 40..48).
fn view_over_held_back_zeroes(zeroed: u32) -> VerifiedModule {
    let mut module = Module::new();
    module.add_function(build(
        "make",
        Signature::new([Type::U32], [Type::U32]),
        |b| {
            let w = b.param(0);
            b.alloc_frame(96, 16);
            let view = b.frame_addr(0);
            let five = b.iconst_u32(5);
            b.store(view, 40, five);
            b.store(view, 44, five);
            let create = b.create_block();
            b.jump(create);
            b.switch_to_block(create);
            let view = b.frame_addr(0);
            mem_zero(b, view, zeroed);
            let desc = b.frame_addr(48);
            mem_zero(b, desc, 36);
            let two = b.iconst_u32(2);
            b.store(desc, 0, two);
            b.store(desc, 12, w);
            b.set_loc(LocId::from_u32(9));
            b.ins(Inst::CreateResource {
                desc,
                view_out: view,
            });
            let read = b.create_block();
            b.jump(read);
            b.switch_to_block(read);
            let view = b.frame_addr(0);
            let id = b.load(Type::U32, view, 0);
            let mips = b.load(Type::U32, view, 20);
            let low = b.load(Type::U32, view, 40);
            let high = b.load(Type::U32, view, 44);
            let (ten, hundred) = (b.iconst_u32(10), b.iconst_u32(100));
            let high = b.binary(BinaryOp::MulU32, high, ten);
            let low = b.binary(BinaryOp::MulU32, low, hundred);
            let sum = b.binary(BinaryOp::AddU32, id, mips);
            let sum = b.binary(BinaryOp::AddU32, sum, high);
            let sum = b.binary(BinaryOp::AddU32, sum, low);
            b.ret(&[sum]);
        },
    ));
    verified(module)
}

#[test]
fn zeroes_held_back_for_a_created_view_give_way_to_the_hosts_view() {
    // The host's view: resource 0, one mip (word 5); the rest of its 40 bytes zero.
    let (result, host) = run_module(
        &view_over_held_back_zeroes(40),
        &[Value::U32(8)],
        &mut [],
        Limits::default(),
    );
    assert_eq!(result, Ok(vec![Value::U32(1 + 10 * 5 + 100 * 5)]));
    assert!(matches!(
        &host.events[..],
        [HostEvent::CreateResource { .. }]
    ));
    // Zeroes reaching past the view still reach memory.
    let (result, _) = run_module(
        &view_over_held_back_zeroes(48),
        &[Value::U32(8)],
        &mut [],
        Limits::default(),
    );
    assert_eq!(result, Ok(vec![Value::U32(1)]));
    // A failed creation ends the run at its location.
    let (result, _) = run_module(
        &view_over_held_back_zeroes(40),
        &[Value::U32(0)],
        &mut [],
        Limits::default(),
    );
    assert_eq!(
        result,
        Err(rpsl_vm::RuntimeError {
            kind: rpsl_vm::RuntimeErrorKind::Host(rpsl_vm::host::HostError::new(
                "invalid resource description: width is 0"
            )),
            loc: Some(LocId::from_u32(9)),
        })
    );
}
