//! NaN payloads through the JIT, which canonicalises NaNs only where their bits can be seen
//! (`store`, `bitcast`, `ret`, call arguments, `move`, `select`): every case runs on both
//! engines and compares results and the I/O block bit for bit, and the expected bits are
//! spelled out.

mod common;

use common::{build, run_module, verified};
use rpsl_vm::{
    BinaryOp, FuncId, Inst, Limits, Module, Signature, Type, UnaryOp, Value, VectorOp, VectorShape,
};

/// A quiet NaN with a payload (not the canonical `0x7FC0_0000`).
const PAYLOAD_NAN: u32 = 0x7FC0_1234;
const CANONICAL_F32: u32 = 0x7FC0_0000;
const CANONICAL_F64: u64 = 0x7FF8_0000_0000_0000;

/// Runs function 0 of a one-function module with `args` on both engines and returns the bits
/// of its results and the I/O block after the run.
fn run_bits(
    signature: Signature,
    args: &[Value],
    io_len: usize,
    body: impl FnOnce(&mut rpsl_vm::FunctionBuilder),
) -> (Vec<u64>, Vec<u8>) {
    let mut module = Module::new();
    module.add_function(build("f", signature, body));
    let mut io = vec![0u8; io_len];
    let (result, _) = run_module(&verified(module), args, &mut io, Limits::default());
    let bits = result
        .expect("runs")
        .iter()
        .map(|value| value.to_bits())
        .collect();
    (bits, io)
}

fn word(io: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(io[at..at + 4].try_into().expect("4 bytes"))
}

#[test]
fn arithmetic_nans_are_canonical_where_seen_and_copies_stay_exact() {
    let nan = Value::F32(f32::from_bits(PAYLOAD_NAN));
    let signature = Signature::new([Type::Addr, Type::F32], [Type::F32, Type::U32, Type::F32]);
    let (results, io) = run_bits(signature, &[Value::Addr(0), nan], 16, |b| {
        let (io, x) = (b.param(0), b.param(1));
        let one = b.fconst_f32(1.0);
        // Arithmetic results: canonical wherever they are seen.
        let sum = b.binary(BinaryOp::AddF32, x, one);
        b.store(io, 0, sum);
        let negated = b.unary(UnaryOp::NegF32, x);
        let as_bits = b.bitcast(Type::U32, negated);
        let product = b.binary(BinaryOp::MulF32, x, one);
        let moved = b.new_reg(Type::F32);
        b.assign(moved, product);
        // Bit-exact copies of the payload NaN: the parameter, a load of it, a move of it.
        b.store(io, 4, x);
        let loaded = b.load(Type::F32, io, 4);
        b.store(io, 8, loaded);
        let copy = b.new_reg(Type::F32);
        b.assign(copy, loaded);
        b.store(io, 12, copy);
        b.ret(&[moved, as_bits, x]);
    });
    assert_eq!(
        results,
        vec![
            CANONICAL_F32 as u64,
            CANONICAL_F32 as u64,
            PAYLOAD_NAN as u64
        ]
    );
    assert_eq!(word(&io, 0), CANONICAL_F32);
    assert_eq!(word(&io, 4), PAYLOAD_NAN);
    assert_eq!(word(&io, 8), PAYLOAD_NAN);
    assert_eq!(word(&io, 12), PAYLOAD_NAN);
}

#[test]
fn unobserved_intermediates_still_give_canonical_or_payload_free_results() {
    let nan = Value::F32(f32::from_bits(PAYLOAD_NAN));
    let signature = Signature::new([Type::F32], [Type::Bool, Type::I32, Type::F64, Type::F32]);
    let (results, _) = run_bits(signature, &[nan], 0, |b| {
        let x = b.param(0);
        let two = b.fconst_f32(2.0);
        let half = b.binary(BinaryOp::MulF32, x, two);
        let abs = b.unary(UnaryOp::AbsF32, half);
        // Seen only by a comparison, a conversion to an integer and a widening conversion.
        let is_equal = b.binary(BinaryOp::EqF32, abs, abs);
        let int = b.convert(Type::I32, abs);
        let wide = b.convert(Type::F64, abs);
        // Through an evaluator (`frac`), whose result is canonical.
        let frac = b.unary(UnaryOp::FracF32, abs);
        b.ret(&[is_equal, int, wide, frac]);
    });
    assert_eq!(results, vec![0, 0, CANONICAL_F64, CANONICAL_F32 as u64]);
}

#[test]
fn loop_carried_and_merged_values_keep_each_paths_bits() {
    // acc = x; for i in 0..3 { acc = acc * x }; then a merge of the loop result (canonical) with
    // a loaded payload NaN (exact), stored.
    let nan = Value::F32(f32::from_bits(PAYLOAD_NAN));
    for take_loaded in [false, true] {
        let signature = Signature::new([Type::Addr, Type::F32, Type::Bool], [Type::F32]);
        let args = [Value::Addr(0), nan, Value::Bool(take_loaded)];
        let (results, io) = run_bits(signature, &args, 8, |b| {
            let (io, x, flag) = (b.param(0), b.param(1), b.param(2));
            b.store(io, 0, x);
            let acc = b.new_reg(Type::F32);
            b.assign(acc, x);
            let i = b.new_reg(Type::U32);
            let zero = b.iconst_u32(0);
            b.assign(i, zero);
            let (head, body, exit) = (b.create_block(), b.create_block(), b.create_block());
            b.jump(head);
            b.switch_to_block(head);
            let three = b.iconst_u32(3);
            let more = b.binary(BinaryOp::LtU32, i, three);
            b.branch(more, body, exit);
            b.switch_to_block(body);
            b.binary_into(BinaryOp::MulF32, acc, acc, x);
            let one = b.iconst_u32(1);
            b.binary_into(BinaryOp::AddU32, i, i, one);
            b.loop_jump(head);
            b.switch_to_block(exit);
            let (loaded_path, join) = (b.create_block(), b.create_block());
            let merged = b.new_reg(Type::F32);
            b.assign(merged, acc);
            b.branch(flag, loaded_path, join);
            b.switch_to_block(loaded_path);
            let loaded = b.load(Type::F32, io, 0);
            b.assign(merged, loaded);
            b.jump(join);
            b.switch_to_block(join);
            b.store(io, 4, merged);
            b.ret(&[acc]);
        });
        let expected = if take_loaded {
            PAYLOAD_NAN
        } else {
            CANONICAL_F32
        };
        assert_eq!(results, vec![CANONICAL_F32 as u64]);
        assert_eq!(word(&io, 4), expected, "take_loaded = {take_loaded}");
    }
}

#[test]
fn call_arguments_selects_and_vector_results_are_canonical() {
    let nan = Value::F32(f32::from_bits(PAYLOAD_NAN));
    let callee_sig = Signature::new([Type::F32], [Type::F32]);
    let mut module = Module::new();
    let main_sig = Signature::new([Type::F32, Type::Bool], [Type::F32, Type::F32, Type::F32]);
    let callee_sig_for_call = callee_sig.clone();
    module.add_function(build("main", main_sig, |b| {
        let (x, flag) = (b.param(0), b.param(1));
        let one = b.fconst_f32(1.0);
        let sum = b.binary(BinaryOp::SubF32, x, one);
        // The callee returns its argument unchanged.
        let passed = b.call(FuncId::from_u32(1), &callee_sig_for_call, &[sum])[0];
        let quotient = b.binary(BinaryOp::DivF32, x, one);
        let chosen = b.select(flag, quotient, one);
        let shape = VectorShape {
            op: VectorOp::Dot,
            ty: Type::F32,
            width: 2,
        };
        let dot = b.vector(shape, &[x, one, one, one])[0];
        b.ret(&[passed, chosen, dot]);
    }));
    module.add_function(build("identity", callee_sig, |b| {
        let x = b.param(0);
        b.ret(&[x]);
    }));
    let (result, _) = run_module(
        &verified(module),
        &[nan, Value::Bool(true)],
        &mut [],
        Limits::default(),
    );
    let bits: Vec<u64> = result.expect("runs").iter().map(|v| v.to_bits()).collect();
    assert_eq!(bits, vec![CANONICAL_F32 as u64; 3]);
}

#[test]
fn f64_payloads_follow_the_same_rules() {
    let payload = 0x7FF8_0000_0000_4321u64;
    let nan = Value::F64(f64::from_bits(payload));
    let signature = Signature::new([Type::F64], [Type::F64, Type::F64, Type::U64]);
    let (results, _) = run_bits(signature, &[nan], 0, |b| {
        let x = b.param(0);
        let root = b.unary(UnaryOp::SqrtF64, x);
        let narrow = b.convert(Type::F32, x);
        let back = b.convert(Type::F64, narrow);
        let bits = b.bitcast(Type::U64, x);
        b.ret(&[root, back, bits]);
    });
    assert_eq!(results, vec![CANONICAL_F64, CANONICAL_F64, payload]);
}

#[test]
fn copies_pass_observation_back_to_the_arithmetic_that_made_the_value() {
    // quotient -> select -> move -> move -> store: only the store sees the bits.
    let nan = Value::F32(f32::from_bits(PAYLOAD_NAN));
    let signature = Signature::new([Type::Addr, Type::F32, Type::Bool], []);
    let (_, io) = run_bits(
        signature,
        &[Value::Addr(0), nan, Value::Bool(true)],
        4,
        |b| {
            let (io, x, flag) = (b.param(0), b.param(1), b.param(2));
            let three = b.fconst_f32(3.0);
            let quotient = b.binary(BinaryOp::DivF32, x, three);
            let chosen = b.select(flag, quotient, three);
            let (first, second) = (b.new_reg(Type::F32), b.new_reg(Type::F32));
            let (next, store_block) = (b.create_block(), b.create_block());
            b.assign(first, chosen);
            b.jump(next);
            b.switch_to_block(next);
            b.assign(second, first);
            b.jump(store_block);
            b.switch_to_block(store_block);
            b.store(io, 0, second);
            b.ret(&[]);
        },
    );
    assert_eq!(word(&io, 0), CANONICAL_F32);
}

#[test]
fn a_same_type_conversion_of_a_loop_value_is_canonical() {
    // acc = x; loop twice { acc = acc + x }; store convert.f32.f32(acc): the conversion reads
    // the loop's merged value, so the additions must already be canonical.
    let nan = Value::F32(f32::from_bits(PAYLOAD_NAN));
    let signature = Signature::new([Type::Addr, Type::F32], []);
    let (_, io) = run_bits(signature, &[Value::Addr(0), nan], 4, |b| {
        let (io, x) = (b.param(0), b.param(1));
        let acc = b.new_reg(Type::F32);
        b.assign(acc, x);
        let i = b.new_reg(Type::U32);
        let zero = b.iconst_u32(0);
        b.assign(i, zero);
        let (head, body, exit) = (b.create_block(), b.create_block(), b.create_block());
        b.jump(head);
        b.switch_to_block(head);
        let two = b.iconst_u32(2);
        let more = b.binary(BinaryOp::LtU32, i, two);
        b.branch(more, body, exit);
        b.switch_to_block(body);
        b.binary_into(BinaryOp::AddF32, acc, acc, x);
        let one = b.iconst_u32(1);
        b.binary_into(BinaryOp::AddU32, i, i, one);
        b.loop_jump(head);
        b.switch_to_block(exit);
        let same = b.convert(Type::F32, acc);
        b.store(io, 0, same);
        b.ret(&[]);
    });
    assert_eq!(word(&io, 0), CANONICAL_F32);
}

#[test]
fn a_moved_parameter_keeps_its_payload() {
    let signature = Signature::new([Type::F32], [Type::F32]);
    let nan = Value::F32(f32::from_bits(PAYLOAD_NAN));
    let (results, _) = run_bits(signature, &[nan], 0, |b| {
        let x = b.param(0);
        let dst = b.new_reg(Type::F32);
        b.ins(Inst::Move { dst, src: x });
        b.ret(&[dst]);
    });
    assert_eq!(results, vec![PAYLOAD_NAN as u64]);
}
