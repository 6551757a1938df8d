//! Binary encoding: round trips of valid modules and rejection of malformed bytes.

mod common;

use common::build;
use rpsl_vm::{
    decode_module, encode_module, BinaryOp, DecodeError, LocId, Module, Signature, Type,
};

fn sample_module() -> Module {
    let mut module = Module::new();
    module.add_function(build(
        "sum",
        Signature::new([Type::I32, Type::I32], [Type::I32]),
        |b| {
            b.set_loc(LocId::from_u32(42));
            let sum = b.binary(BinaryOp::AddI32, b.param(0), b.param(1));
            let as_float = b.convert(Type::F32, sum);
            let back = b.convert(Type::I32, as_float);
            b.ret(&[back]);
        },
    ));
    module
}

#[test]
fn round_trip_is_exact() {
    let module = sample_module();
    let bytes = encode_module(&module);
    assert_eq!(&bytes[..8], b"RPSLBC01");
    let decoded = decode_module(&bytes).expect("decodes");
    assert_eq!(decoded, module);
    assert_eq!(encode_module(&decoded), bytes);
}

#[test]
fn malformed_bytes_are_rejected() {
    let bytes = encode_module(&sample_module());
    assert_eq!(decode_module(b"nope"), Err(DecodeError::BadMagic));
    assert_eq!(
        decode_module(&bytes[..bytes.len() - 1]),
        Err(DecodeError::UnexpectedEnd)
    );
    let mut trailing = bytes.clone();
    trailing.push(0);
    assert_eq!(decode_module(&trailing), Err(DecodeError::TrailingBytes));
    let mut huge_count = bytes.clone();
    huge_count[8..12].copy_from_slice(&u32::MAX.to_le_bytes());
    assert_eq!(decode_module(&huge_count), Err(DecodeError::BadLength));
    // Every truncation fails cleanly.
    for len in 0..bytes.len() {
        assert!(
            decode_module(&bytes[..len]).is_err(),
            "prefix of {len} bytes decoded"
        );
    }
    // Every single-byte corruption either fails to decode, fails to verify, or still runs.
    for index in 8..bytes.len() {
        for value in [0u8, 1, 7, 0x80, 0xFF] {
            let mut corrupt = bytes.clone();
            corrupt[index] = value;
            if let Ok(module) = decode_module(&corrupt) {
                if let Ok(verified) = module.verify() {
                    let mut interp = rpsl_vm::Interpreter::new(rpsl_vm::Limits {
                        step_budget: 1000,
                        ..Default::default()
                    });
                    let mut host = rpsl_vm::RecordingHost::new();
                    let args = [rpsl_vm::Value::I32(1), rpsl_vm::Value::I32(2)];
                    let _ = interp.run(
                        &verified,
                        rpsl_vm::FuncId::from_u32(0),
                        &args,
                        &mut [],
                        &mut host,
                    );
                }
            }
        }
    }
}
