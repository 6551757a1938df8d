//! Frame slots the optimised JIT keeps in variables (`jit/promote.rs`): views copied whole
//! between slots, into them from memory and out of them into memory, across blocks and loop
//! iterations, show exactly the bytes the interpreter has, in node argument blocks, in memory
//! read back later and through a callee that reads its caller's frame. All engines must agree
//! ([`common::run_module`]: interpreter, quick and optimised JIT).

mod common;

use common::{build, run_module, verified};
use rpsl_vm::host::HostEvent;
use rpsl_vm::{
    BinaryOp, FuncId, Inst, Limits, Module, NodeDeclId, Reg, Signature, Type, Value, VerifiedModule,
};

fn mem_zero(b: &mut rpsl_vm::FunctionBuilder, addr: Reg, size: u32) {
    b.ins(Inst::MemZero { addr, size });
}

/// `f(n)`: a ring of two 40-byte views at frame 0, slots `a` (80) and `b` (120) that are only
/// copied whole, an argument block at 160 and a temporary `t` at 240. Iteration `i` of `n`
/// builds `t` = (3i + 1, 0, i, 0, ...), copies it to `b`, copies ring[i % 2] to `a`, calls node
/// 1 with `a, b`, then stores `b` into ring[(i + 1) % 2]; the result is word 0 of ring[0] plus
/// 1000 times word 2 of ring[1], read through exact addresses after the loop.
fn ring_loop() -> VerifiedModule {
    let mut module = Module::new();
    module.add_function(build("f", Signature::new([Type::U32], [Type::U32]), |b| {
        let n = b.param(0);
        b.alloc_frame(280, 16);
        let i = b.new_reg(Type::U32);
        let zero = b.iconst_u32(0);
        b.assign(i, zero);
        let (header, body, exit) = (b.create_block(), b.create_block(), b.create_block());
        b.jump(header);
        b.switch_to_block(header);
        let more = b.binary(BinaryOp::LtU32, i, n);
        b.branch(more, body, exit);

        b.switch_to_block(body);
        let (ring, a, slot_b) = (b.frame_addr(0), b.frame_addr(80), b.frame_addr(120));
        let (args, t) = (b.frame_addr(160), b.frame_addr(240));
        mem_zero(b, t, 40);
        let three = b.iconst_u32(3);
        let one = b.iconst_u32(1);
        let two = b.iconst_u32(2);
        let word0 = b.binary(BinaryOp::MulU32, i, three);
        let word0 = b.binary(BinaryOp::AddU32, word0, one);
        b.store(t, 0, word0);
        b.store(t, 8, i);
        b.mem_copy(slot_b, t, 40);
        let this = b.binary(BinaryOp::RemU32, i, two);
        let from = b.index_addr(ring, this, 40, 2);
        b.mem_copy(a, from, 40);
        b.mem_copy(args, a, 40);
        let second = b.addr_add(args, 40);
        b.mem_copy(second, slot_b, 40);
        b.call_node(NodeDeclId::from_u32(1), args, 80, 0);
        let next = b.binary(BinaryOp::AddU32, i, one);
        let other = b.binary(BinaryOp::RemU32, next, two);
        let to = b.index_addr(ring, other, 40, 2);
        b.mem_copy(to, slot_b, 40);
        b.assign(i, next);
        b.loop_jump(header);

        b.switch_to_block(exit);
        let ring = b.frame_addr(0);
        let first = b.load(Type::U32, ring, 0);
        let second = b.load(Type::U32, ring, 48);
        let thousand = b.iconst_u32(1000);
        let second = b.binary(BinaryOp::MulU32, second, thousand);
        let sum = b.binary(BinaryOp::AddU32, first, second);
        b.ret(&[sum]);
    }));
    verified(module)
}

/// The 40 bytes of the view iteration `i` builds.
fn view(i: u32) -> Vec<u8> {
    let mut words = [0u32; 10];
    words[0] = 3 * i + 1;
    words[2] = i;
    words.iter().flat_map(|word| word.to_le_bytes()).collect()
}

#[test]
fn slots_in_variables_reach_node_calls_and_memory_exactly() {
    let module = ring_loop();
    for n in [0u32, 1, 2, 3, 6] {
        let (result, host) = run_module(&module, &[Value::U32(n)], &mut [], Limits::default());
        // ring[i % 2] holds the view of iteration i - 1 (zeroes before any).
        let ring_view = |slot: u32| -> Option<u32> { (0..n).rev().find(|&i| (i + 1) % 2 == slot) };
        let first = ring_view(0).map_or(0, |i| 3 * i + 1);
        let second = ring_view(1).unwrap_or(0);
        assert_eq!(
            result,
            Ok(vec![Value::U32(first + 1000 * second)]),
            "n = {n}"
        );
        let calls: Vec<Vec<u8>> = host
            .events
            .iter()
            .map(|event| match event {
                HostEvent::CallNode { decl, args, .. } => {
                    assert_eq!(*decl, NodeDeclId::from_u32(1));
                    args.clone()
                }
                other => panic!("unexpected host event {other:?}"),
            })
            .collect();
        let expected: Vec<Vec<u8>> = (0..n)
            .map(|i| {
                let mut args = if i == 0 { vec![0; 40] } else { view(i - 1) };
                args.extend(view(i));
                args
            })
            .collect();
        assert_eq!(calls, expected, "n = {n}");
    }
}

/// `main`: builds a view with 7 in word 9 in a temporary `t` (frame 40, written in part, so
/// not a slot), copies it whole into slot `s` (frame 0), then calls `peek`, which reads word 9
/// of its caller's frame through an address it computes below its own frame (as a decoded
/// module may); returns what `peek` saw. `main`'s frame is 80 bytes, so `peek`'s frame starts
/// 80 bytes above it.
fn peek_below() -> VerifiedModule {
    let returns_u32 = Signature::new([], [Type::U32]);
    let mut module = Module::new();
    let sig = returns_u32.clone();
    module.add_function(build("main", returns_u32.clone(), move |b| {
        b.alloc_frame(80, 16);
        let (s, t) = (b.frame_addr(0), b.frame_addr(40));
        mem_zero(b, t, 40);
        let seven = b.iconst_u32(7);
        b.store(t, 36, seven);
        b.mem_copy(s, t, 40);
        let seen = b.call(FuncId::from_u32(1), &sig, &[]);
        b.ret(&seen);
    }));
    module.add_function(build("peek", returns_u32, |b| {
        b.alloc_frame(16, 16);
        let own = b.frame_addr(0);
        let below = b.addr_add(own, (80u32 - 36).wrapping_neg());
        let word = b.load(Type::U32, below, 0);
        b.ret(&[word]);
    }));
    verified(module)
}

#[test]
fn a_callee_reading_below_its_frame_sees_the_callers_slot() {
    let module = peek_below();
    let (result, _) = run_module(&module, &[], &mut [], Limits::default());
    assert_eq!(result, Ok(vec![Value::U32(7)]));
}

/// `main(i)`: calls `fill(p, i)`, which writes a view (i, i + 1, 0, ...) through its address
/// parameter into `main`'s temporary `r`; `main` copies `r` into slot `o`, `o` into slot `p`,
/// and passes `p` to node 2, twice, the second time after a second `fill` into `r` with
/// `i + 10`. `fill` first adds 1 to `i` `padding` times (enough makes it too large to be
/// translated into `main`: a native call).
fn fill_through_parameter(padding: u32) -> VerifiedModule {
    let fill_sig = Signature::new([Type::Addr, Type::U32], []);
    let mut module = Module::new();
    let sig = fill_sig.clone();
    module.add_function(build("main", Signature::new([Type::U32], []), move |b| {
        let i = b.param(0);
        b.alloc_frame(160, 16);
        let (r, o, p, args) = (
            b.frame_addr(0),
            b.frame_addr(40),
            b.frame_addr(80),
            b.frame_addr(120),
        );
        let ten = b.iconst_u32(10);
        let later = b.binary(BinaryOp::AddU32, i, ten);
        for value in [i, later] {
            b.call(FuncId::from_u32(1), &sig, &[r, value]);
            b.mem_copy(o, r, 40);
            b.mem_copy(p, o, 40);
            b.mem_copy(args, p, 40);
            b.call_node(NodeDeclId::from_u32(2), args, 40, 0);
        }
        b.ret(&[]);
    }));
    module.add_function(build("fill", fill_sig, move |b| {
        let (out, value) = (b.param(0), b.param(1));
        b.alloc_frame(40, 16);
        let one = b.iconst_u32(1);
        let mut value = value;
        for _ in 0..padding {
            value = b.binary(BinaryOp::AddU32, value, one);
        }
        let minus = b.iconst_u32(padding.wrapping_neg());
        let value = b.binary(BinaryOp::AddU32, value, minus);
        let own = b.frame_addr(0);
        mem_zero(b, own, 40);
        let next = b.binary(BinaryOp::AddU32, value, one);
        b.store(own, 0, value);
        b.store(own, 4, next);
        b.mem_copy(out, own, 40);
        b.ret(&[]);
    }));
    verified(module)
}

#[test]
fn a_view_written_through_a_callees_parameter_flows_through_slots() {
    // Inlined in the optimised tier, and too large for that (a native call).
    for (module, i) in [0, 300]
        .into_iter()
        .map(fill_through_parameter)
        .flat_map(|module| [0u32, 5, u32::MAX].map(|i| (module.clone(), i)))
    {
        let (result, host) = run_module(&module, &[Value::U32(i)], &mut [], Limits::default());
        assert_eq!(result, Ok(vec![]));
        let args: Vec<Vec<u8>> = host
            .events
            .iter()
            .map(|event| match event {
                HostEvent::CallNode { args, .. } => args.clone(),
                other => panic!("unexpected host event {other:?}"),
            })
            .collect();
        let view = |value: u32| {
            let mut bytes = vec![0u8; 40];
            bytes[..4].copy_from_slice(&value.to_le_bytes());
            bytes[4..8].copy_from_slice(&value.wrapping_add(1).to_le_bytes());
            bytes
        };
        assert_eq!(args, vec![view(i), view(i.wrapping_add(10))], "i = {i}");
    }
}

/// `cmp(k, v)`: `m` (frame 0, written in part, so in memory) is zero but for word `k % 10`,
/// which is `v`; slot `x` (48) is a copy of `m`, slot `y` (88) is zeroed. Returns
/// `(x == y) + 2 (x == m) + 4 (y == m)` (whole 40-byte comparisons).
fn compare_slots() -> VerifiedModule {
    let mut module = Module::new();
    let sig = Signature::new([Type::U32, Type::U32], [Type::U32]);
    module.add_function(build("cmp", sig, |b| {
        let (k, v) = (b.param(0), b.param(1));
        b.alloc_frame(128, 16);
        let (m, x, y) = (b.frame_addr(0), b.frame_addr(48), b.frame_addr(88));
        mem_zero(b, m, 40);
        let ten = b.iconst_u32(10);
        let word = b.binary(BinaryOp::RemU32, k, ten);
        let at = b.index_addr(m, word, 4, 10);
        b.store(at, 0, v);
        b.mem_copy(x, m, 40);
        mem_zero(b, y, 40);
        let next = b.create_block();
        b.jump(next);
        b.switch_to_block(next);
        let mut sum = b.iconst_u32(0);
        for (weight, (p, q)) in [(1u32, (x, y)), (2, (x, m)), (4, (y, m))] {
            let equal = b.new_reg(Type::Bool);
            b.ins(Inst::MemEq {
                dst: equal,
                a: p,
                b: q,
                size: 40,
            });
            let equal = b.convert(Type::U32, equal);
            let weight = b.iconst_u32(weight);
            let weighted = b.binary(BinaryOp::MulU32, equal, weight);
            sum = b.binary(BinaryOp::AddU32, sum, weighted);
        }
        b.ret(&[sum]);
    }));
    verified(module)
}

#[test]
fn comparisons_of_slots_in_variables_see_every_word() {
    let module = compare_slots();
    for k in 0..10u32 {
        for v in [0u32, 1, 0x8000_0000, u32::MAX] {
            let (result, _) = run_module(
                &module,
                &[Value::U32(k), Value::U32(v)],
                &mut [],
                Limits::default(),
            );
            let expected = if v == 0 { 7 } else { 2 };
            assert_eq!(result, Ok(vec![Value::U32(expected)]), "k = {k}, v = {v}");
        }
    }
}

/// `main(i)`: builds a view with word 0 `i` in temporary `t` (written in part, so in memory),
/// copies it whole into slot `s`, then returns `peek(s)`: `peek` copies the view through its
/// parameter into its own frame and returns word 0 plus 1, after `padding` additions that
/// cancel out (300 make it too large to be translated into `main`: a native call).
fn read_through_parameter(padding: u32) -> VerifiedModule {
    let peek_sig = Signature::new([Type::Addr], [Type::U32]);
    let mut module = Module::new();
    let sig = peek_sig.clone();
    module.add_function(build(
        "main",
        Signature::new([Type::U32], [Type::U32]),
        move |b| {
            let i = b.param(0);
            b.alloc_frame(80, 16);
            let (t, s) = (b.frame_addr(0), b.frame_addr(40));
            mem_zero(b, t, 40);
            b.store(t, 0, i);
            b.mem_copy(s, t, 40);
            let seen = b.call(FuncId::from_u32(1), &sig, &[s]);
            b.ret(&seen);
        },
    ));
    module.add_function(build("peek", peek_sig, move |b| {
        let view = b.param(0);
        b.alloc_frame(40, 16);
        let own = b.frame_addr(0);
        b.mem_copy(own, view, 40);
        let mut word = b.load(Type::U32, own, 0);
        let one = b.iconst_u32(1);
        for _ in 0..padding {
            word = b.binary(BinaryOp::AddU32, word, one);
        }
        let back = b.iconst_u32(padding.wrapping_neg().wrapping_add(1));
        let word = b.binary(BinaryOp::AddU32, word, back);
        b.ret(&[word]);
    }));
    verified(module)
}

#[test]
fn a_callee_reads_a_slot_given_to_it_inlined_or_native() {
    for padding in [0, 300] {
        let module = read_through_parameter(padding);
        for i in [0u32, 41, u32::MAX] {
            let (result, _) = run_module(&module, &[Value::U32(i)], &mut [], Limits::default());
            assert_eq!(
                result,
                Ok(vec![Value::U32(i.wrapping_add(1))]),
                "padding {padding}, i = {i}"
            );
        }
    }
}
