//! A quick interpreter throughput check: `cargo run --release -p rpsl-vm --example interp_loop`.

use rpsl_vm::{
    BinaryOp, FuncId, FunctionBuilder, FunctionBuilderContext, Interpreter, Limits, LocId, Module,
    RecordingHost, Signature, Type, Value,
};

fn main() {
    let mut ctx = FunctionBuilderContext::new();
    let mut b = FunctionBuilder::new(&mut ctx, "loop", Signature::new([Type::U32], [Type::U32]));
    let entry = b.create_block();
    b.switch_to_block(entry);
    b.set_loc(LocId::from_u32(0));
    let n = b.param(0);
    let acc = b.iconst_u32(0);
    let i = b.iconst_u32(0);
    let (header, body, exit) = (b.create_block(), b.create_block(), b.create_block());
    b.jump(header);
    b.switch_to_block(header);
    let more = b.binary(BinaryOp::LtU32, i, n);
    b.branch(more, body, exit);
    b.switch_to_block(body);
    let k = b.iconst_u32(2654435761);
    let hashed = b.binary(BinaryOp::MulU32, i, k);
    let seven = b.iconst_u32(7);
    let shifted = b.binary(BinaryOp::ShrU32, hashed, seven);
    b.binary_into(BinaryOp::XorU32, acc, acc, shifted);
    let one = b.iconst_u32(1);
    b.binary_into(BinaryOp::AddU32, i, i, one);
    b.loop_jump(header);
    b.switch_to_block(exit);
    b.ret(&[acc]);
    let mut module = Module::new();
    module.add_function(b.finish());
    let module = module.verify().expect("valid");
    let mut interp = Interpreter::new(Limits {
        step_budget: u64::MAX,
        ..Limits::default()
    });
    let iterations = 20_000_000u32;
    let start = std::time::Instant::now();
    let result = interp.run(
        &module,
        FuncId::from_u32(0),
        &[Value::U32(iterations)],
        &mut [],
        &mut RecordingHost::new(),
    );
    let elapsed = start.elapsed();
    let n_insts = iterations as f64 * 10.0;
    println!(
        "{result:?} in {elapsed:?}: {:.2} ns per instruction",
        elapsed.as_nanos() as f64 / n_insts
    );
}
