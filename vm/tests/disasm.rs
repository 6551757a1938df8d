//! Disassembly snapshots: the text form is a contract (`rpsl check --emit bytecode`), so any
//! change to it shows up here.

mod common;

use common::build;
use rpsl_vm::{
    BinaryOp, Inst, LocId, MarkerKind, Module, NodeDeclId, Signature, Type, UnaryOp, VectorOp,
    VectorShape,
};

#[test]
fn loop_function_snapshot() {
    let f = build("count", Signature::new([Type::I32], [Type::I32]), |b| {
        let n = b.param(0);
        let i = b.iconst_i32(0);
        let header = b.create_block();
        let body = b.create_block();
        let exit = b.create_block();
        b.jump(header);
        b.switch_to_block(header);
        b.set_loc(LocId::from_u32(1));
        let more = b.binary(BinaryOp::LtI32, i, n);
        b.branch(more, body, exit);
        b.switch_to_block(body);
        b.set_loc(LocId::from_u32(2));
        let one = b.iconst_i32(1);
        b.binary_into(BinaryOp::AddI32, i, i, one);
        b.loop_jump(header);
        b.switch_to_block(exit);
        b.ret(&[i]);
    });
    let mut module = Module::new();
    module.add_function(f);
    assert_eq!(
        module.to_string(),
        r#"fn0 "count"(v0: i32) -> (i32)  frame 0
    regs v1:i32 v2:bool v3:i32
block0:
    v1 = const.i32 0                         ; loc0
    jump block1                              ; loc0
block1:
    v2 = lt.i32 v1, v0                       ; loc1
    br v2, block2, block3                    ; loc1
block2:
    v3 = const.i32 1                         ; loc2
    v1 = add.i32 v1, v3                      ; loc2
    jump.loop block1                         ; loc2
block3:
    ret v1                                   ; loc2
"#
    );
}

#[test]
fn every_operand_kind_snapshot() {
    let mut module = Module::new();
    let callee = module.declare_function(
        "helper",
        Signature::new([Type::F32], [Type::F32, Type::Bool]),
    );
    let f = build("all", Signature::new([Type::F32, Type::U32], []), |b| {
        let (x, k) = (b.param(0), b.param(1));
        let frame = b.alloc_frame(120, 8);
        let base = b.frame_addr(frame);
        let elem = b.index_addr(base, k, 40, 3);
        let field = b.addr_add(elem, 32);
        let loaded = b.load(Type::F32, field, 0);
        b.store(field, 4, loaded);
        let floor = b.unary(UnaryOp::FloorF32, x);
        let as_int = b.convert(Type::I32, floor);
        let bits = b.bitcast(Type::U32, x);
        let shape = VectorShape {
            op: VectorOp::Dot,
            ty: Type::F32,
            width: 2,
        };
        b.vector(shape, &[x, floor, x, floor]);
        let f64_value = b.constant(rpsl_vm::Value::F64(0.1));
        let nan = b.constant(rpsl_vm::Value::F32(f32::from_bits(0x7fc0_0001)));
        let _ = (as_int, bits, f64_value, nan);
        b.mem_copy(base, elem, 40);
        b.ins(Inst::MemZero {
            addr: base,
            size: 8,
        });
        let eq = b.new_reg(Type::Bool);
        b.ins(Inst::MemEq {
            dst: eq,
            a: base,
            b: elem,
            size: 40,
        });
        b.ins(Inst::CreateResource {
            desc: base,
            view_out: elem,
        });
        b.ins(Inst::DescribeResource {
            view: elem,
            desc_out: base,
        });
        b.call_node(NodeDeclId::from_u32(3), base, 44, 1);
        b.marker(MarkerKind::SubgraphBegin, 2);
        b.marker(MarkerKind::SchBarrier, 0);
        let results = b.call(
            callee,
            &Signature::new([Type::F32], [Type::F32, Type::Bool]),
            &[x],
        );
        let picked = b.select(results[1], results[0], x);
        let _ = picked;
        let code = b.iconst_i32(7);
        b.abort(code);
    });
    assert_eq!(
        rpsl_vm::display::DisplayFunction(rpsl_vm::FuncId::from_u32(1), &f).to_string(),
        r#"fn1 "all"(v0: f32, v1: u32) -> ()  frame 120
    regs v2:addr v3:addr v4:addr v5:f32 v6:f32 v7:i32 v8:u32 v9:f32 v10:f64 v11:f32 v12:bool v13:u32 v14:f32 v15:bool v16:f32 v17:i32
block0:
    v2 = frame_addr 0                        ; loc0
    v3 = index_addr v2, v1, stride 40, len 3 ; loc0
    v4 = addr_add v3, 32                     ; loc0
    v5 = load.f32 v4, offset 0               ; loc0
    store.f32 v4, offset 4, v5               ; loc0
    v6 = floor.f32 v0                        ; loc0
    v7 = convert.i32.f32 v6                  ; loc0
    v8 = bitcast.u32.f32 v0                  ; loc0
    v9 = dot.f32x2 v0, v6, v0, v6            ; loc0
    v10 = const.f64 0.1                      ; loc0
    v11 = const.f32 nan:0x7fc00001           ; loc0
    mem_copy v2, v3, size 40                 ; loc0
    mem_zero v2, size 8                      ; loc0
    v12 = mem_eq v2, v3, size 40             ; loc0
    create_resource v2, v3                   ; loc0
    describe_resource v3, v2                 ; loc0
    v13 = call_node decl3, v2, size 44, flags 1 ; loc0
    subgraph_begin 2                         ; loc0
    sch_barrier 0                            ; loc0
    v14, v15 = call fn0, v0                  ; loc0
    v16 = select v15, v14, v0                ; loc0
    v17 = const.i32 7                        ; loc0
    abort v17                                ; loc0
"#
    );
}
