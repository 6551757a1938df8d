//! JIT compile options and inline block ops: every option combination gives the interpreter's
//! results, only reachable functions are compiled when entries are given, and the inline
//! `mem_copy`/`mem_zero`/`mem_eq` (small sizes) and their helper versions (large sizes) agree
//! with the interpreter on data, overlap and faults.

mod common;

use common::{build, run_module, verified};
use rpsl_vm::jit::{JitModule, JitOptions};
use rpsl_vm::{
    BinaryOp, FuncId, Inst, Limits, Module, RecordingHost, RuntimeErrorKind, Signature, Type,
    Value, VerifiedModule,
};

/// `main(n)` calls `twice(n) + 1`; `unused` is never called.
fn three_functions() -> VerifiedModule {
    let sig = Signature::new([Type::I32], [Type::I32]);
    let mut module = Module::new();
    let call_sig = sig.clone();
    module.add_function(build("main", sig.clone(), |b| {
        let n = b.param(0);
        let doubled = b.call(FuncId::from_u32(1), &call_sig, &[n])[0];
        let one = b.iconst_i32(1);
        let result = b.binary(BinaryOp::AddI32, doubled, one);
        b.ret(&[result]);
    }));
    module.add_function(build("twice", sig.clone(), |b| {
        let n = b.param(0);
        let result = b.binary(BinaryOp::AddI32, n, n);
        b.ret(&[result]);
    }));
    module.add_function(build("unused", sig, |b| {
        let n = b.param(0);
        b.ret(&[n]);
    }));
    verified(module)
}

fn run(jit: &JitModule, func: u32, n: i32) -> Result<Vec<Value>, RuntimeErrorKind> {
    jit.run(
        FuncId::from_u32(func),
        &[Value::I32(n)],
        &mut [],
        &mut RecordingHost::new(),
    )
    .map_err(|error| error.kind)
}

#[test]
fn every_thread_count_and_optimisation_level_gives_the_same_results() {
    let module = three_functions();
    for optimize in [false, true] {
        for threads in [0, 1, 2, 8] {
            let options = JitOptions {
                optimize,
                threads,
                entries: None,
            };
            let jit = JitModule::compile_with(&module, &options).expect("compiles");
            assert_eq!(run(&jit, 0, 20), Ok(vec![Value::I32(41)]), "{options:?}");
            assert_eq!(run(&jit, 2, 5), Ok(vec![Value::I32(5)]), "{options:?}");
        }
    }
}

#[test]
fn entries_compile_only_reachable_functions() {
    let module = three_functions();
    let options = JitOptions {
        entries: Some(vec![FuncId::from_u32(0)]),
        ..JitOptions::default()
    };
    let jit = JitModule::compile_with(&module, &options).expect("compiles");
    assert_eq!(run(&jit, 0, 1), Ok(vec![Value::I32(3)]));
    assert_eq!(run(&jit, 1, 4), Ok(vec![Value::I32(8)]));
    assert_eq!(
        run(&jit, 2, 1),
        Err(RuntimeErrorKind::BadEntry(
            "`unused` was not compiled (not reachable from the JIT's entries)".into()
        ))
    );
    // Entries out of range are ignored rather than failing the compile.
    let options = JitOptions {
        entries: Some(vec![FuncId::from_u32(99)]),
        ..JitOptions::default()
    };
    let jit = JitModule::compile_with(&module, &options).expect("compiles");
    assert!(matches!(
        run(&jit, 0, 1),
        Err(RuntimeErrorKind::BadEntry(_))
    ));
}

/// Fills `io[0..size]` with 1, 2, 3, ..., then applies `op` and returns the I/O block.
fn block_op_outcome(
    io_len: usize,
    op: impl FnOnce(&mut rpsl_vm::FunctionBuilder, rpsl_vm::Reg) -> Option<rpsl_vm::Reg>,
) -> (Result<Vec<Value>, RuntimeErrorKind>, Vec<u8>) {
    let mut module = Module::new();
    module.add_function(build(
        "f",
        Signature::new([Type::Addr], [Type::Bool]),
        |b| {
            let io = b.param(0);
            let result = op(b, io).unwrap_or_else(|| b.bconst(false));
            b.ret(&[result]);
        },
    ));
    let mut io: Vec<u8> = (1..=io_len as u32).map(|i| i as u8).collect();
    let (result, _) = run_module(
        &verified(module),
        &[Value::Addr(0)],
        &mut io,
        Limits::default(),
    );
    (result.map_err(|error| error.kind), io)
}

#[test]
fn small_and_large_overlapping_copies_match_the_interpreter() {
    for size in [40u32, 13, 200] {
        let (result, io) = block_op_outcome(256, |b, io| {
            let dst = b.addr_add(io, 3);
            b.mem_copy(dst, io, size);
            None
        });
        assert_eq!(result, Ok(vec![Value::Bool(false)]));
        let mut expected: Vec<u8> = (1..=256u32).map(|i| i as u8).collect();
        expected.copy_within(0..size as usize, 3);
        assert_eq!(io, expected, "size {size}");
    }
}

#[test]
fn zeroing_and_comparing_blocks_match_the_interpreter() {
    for size in [40u32, 7, 100] {
        let (result, io) = block_op_outcome(256, |b, io| {
            let far = b.addr_add(io, 128);
            b.mem_copy(far, io, size);
            let equal_before = b.new_reg(Type::Bool);
            b.ins(Inst::MemEq {
                dst: equal_before,
                a: io,
                b: far,
                size,
            });
            let last = b.addr_add(io, size - 1);
            b.ins(Inst::MemZero {
                addr: last,
                size: 1,
            });
            b.ins(Inst::MemZero { addr: io, size });
            let equal_after = b.new_reg(Type::Bool);
            b.ins(Inst::MemEq {
                dst: equal_after,
                a: io,
                b: far,
                size,
            });
            let both = b.binary(BinaryOp::AndBool, equal_before, equal_after);
            let neither = b.binary(BinaryOp::OrBool, equal_before, equal_after);
            // equal before the zeroing, different after: `both` false, `neither` true.
            Some(b.binary(BinaryOp::XorBool, both, neither))
        });
        assert_eq!(result, Ok(vec![Value::Bool(true)]), "size {size}");
        assert!(io[..size as usize].iter().all(|&byte| byte == 0));
    }
}

#[test]
fn block_ops_past_the_frame_top_fault_like_the_interpreter() {
    for size in [40u32, 100] {
        // The I/O block is 64 bytes and the function has no frame: the copy's destination fits
        // below the top, its source (checked second) does not.
        let copied = size.min(64);
        let (result, _) = block_op_outcome(64, |b, io| {
            let src = b.addr_add(io, 40);
            b.mem_copy(io, src, copied);
            None
        });
        assert_eq!(
            result,
            Err(RuntimeErrorKind::MemoryOutOfBounds {
                addr: 40,
                size: copied
            })
        );
        let (result, _) = block_op_outcome(64, |b, io| {
            let dst = b.addr_add(io, 60);
            b.ins(Inst::MemZero { addr: dst, size });
            None
        });
        assert_eq!(
            result,
            Err(RuntimeErrorKind::MemoryOutOfBounds { addr: 60, size })
        );
    }
}
