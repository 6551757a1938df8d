use std::sync::Arc;

use super::*;
use crate::args_writer::ArgsWriter;
use crate::decl::{ParamDesc, QueueClass, StructType};

fn scalar(kind: ScalarType) -> ValueType {
    ValueType::Scalar(kind)
}

fn light_type() -> Arc<StructType> {
    Arc::new(StructType::with_c_layout(
        "Light",
        vec![
            ("intensity".into(), scalar(ScalarType::F32)),
            ("color".into(), ValueType::Vector(ScalarType::F32, 4)),
        ],
    ))
}

/// `node shade(bool b, int i, uint u, int64_t l, uint64_t ul, float f, double d, float4 c,
/// uint2 size, float4x4 m, float2x3 n, Scene scene, float weights[3], texture t, node after)`
/// with `struct Scene { uint count; Light lights[2]; }`.
fn shade() -> NodeDeclDesc {
    let scene = Arc::new(StructType::with_c_layout(
        "Scene",
        vec![
            ("count".into(), scalar(ScalarType::U32)),
            (
                "lights".into(),
                ValueType::Array(Box::new(ValueType::Struct(light_type())), 2),
            ),
        ],
    ));
    NodeDeclDesc::new(
        "shade",
        QueueClass::Graphics,
        vec![
            ParamDesc::new("b", scalar(ScalarType::Bool)),
            ParamDesc::new("i", scalar(ScalarType::I32)),
            ParamDesc::new("u", scalar(ScalarType::U32)),
            ParamDesc::new("l", scalar(ScalarType::I64)),
            ParamDesc::new("ul", scalar(ScalarType::U64)),
            ParamDesc::new("f", scalar(ScalarType::F32)),
            ParamDesc::new("d", scalar(ScalarType::F64)),
            ParamDesc::new("c", ValueType::Vector(ScalarType::F32, 4)),
            ParamDesc::new("size", ValueType::Vector(ScalarType::U32, 2)),
            ParamDesc::new("m", ValueType::Matrix(ScalarType::F32, 4, 4)),
            ParamDesc::new("n", ValueType::Matrix(ScalarType::F32, 2, 3)),
            ParamDesc::new("scene", ValueType::Struct(scene)),
            ParamDesc::new(
                "weights",
                ValueType::Array(Box::new(scalar(ScalarType::F32)), 3),
            ),
            ParamDesc::new("t", ValueType::Texture),
            ParamDesc::new("after", ValueType::NodeHandle),
        ],
    )
}

fn param_index(decl: &NodeDeclDesc, name: &str) -> usize {
    decl.params.iter().position(|p| p.name == name).unwrap()
}

fn f32s(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// A block of `shade` with every argument set to a distinct value.
fn shade_block(decl: &NodeDeclDesc) -> Vec<u8> {
    let at = |name| param_index(decl, name);
    let mut block = ArgsWriter::new(decl);
    block
        .write_raw(at("b"), 0, &1u32.to_le_bytes())
        .write_raw(at("i"), 0, &(-7i32).to_le_bytes())
        .write_u32(at("u"), 42)
        .write_raw(at("l"), 0, &(-5_000_000_000i64).to_le_bytes())
        .write_raw(at("ul"), 0, &u64::MAX.to_le_bytes())
        .write_f32(at("f"), 0, 2.5)
        .write_raw(at("d"), 0, &0.125f64.to_le_bytes())
        .write_raw(at("c"), 0, &f32s(&[0.25, 0.5, 0.75, 1.0]))
        .write_raw(
            at("size"),
            0,
            &[640u32.to_le_bytes(), 480u32.to_le_bytes()].concat(),
        )
        .write_raw(
            at("m"),
            0,
            &f32s(&(0..16).map(|v| v as f32).collect::<Vec<_>>()),
        )
        .write_raw(at("n"), 0, &f32s(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]))
        .write_u32(at("scene"), 2)
        // Light is { float at 0, float4 at 4 }: 20 bytes, aligned to 4; so `lights` lies at 4
        // of Scene, `lights[1]` at 24 and its `color` at 28.
        .write_f32(at("scene"), 24, 3.0)
        .write_raw(at("scene"), 28, &f32s(&[0.1, 0.2, 0.3, 0.4]))
        .write_raw(at("weights"), 0, &f32s(&[0.5, 0.25, 0.125]))
        .write_texture(
            at("t"),
            &TextureView::whole(
                crate::ResourceId(9),
                &crate::ResourceDesc::tex2d(crate::Format::R8G8B8A8_UNORM, 4, 4),
            ),
        )
        .write_node(at("after"), NodeId(3));
    block.bytes().to_vec()
}

#[test]
fn every_scalar_kind_reads_as_its_rust_type() {
    let decl = shade();
    let bytes = shade_block(&decl);
    let args = NodeArgs::new(&decl, &bytes);
    assert_eq!(args.get::<bool>("b"), Ok(true));
    assert_eq!(args.get::<i32>("i"), Ok(-7));
    assert_eq!(args.get::<u32>("u"), Ok(42));
    assert_eq!(args.get::<i64>("l"), Ok(-5_000_000_000));
    assert_eq!(args.get::<u64>("ul"), Ok(u64::MAX));
    assert_eq!(args.get::<f32>("f"), Ok(2.5));
    assert_eq!(args.get::<f64>("d"), Ok(0.125));
}

#[test]
fn vectors_and_matrices_read_as_arrays() {
    let decl = shade();
    let bytes = shade_block(&decl);
    let args = NodeArgs::new(&decl, &bytes);
    assert_eq!(args.get::<[f32; 4]>("c"), Ok([0.25, 0.5, 0.75, 1.0]));
    assert_eq!(args.get::<[u32; 2]>("size"), Ok([640, 480]));
    assert_eq!(
        args.get::<[[f32; 4]; 4]>("m"),
        Ok([
            [0.0, 1.0, 2.0, 3.0],
            [4.0, 5.0, 6.0, 7.0],
            [8.0, 9.0, 10.0, 11.0],
            [12.0, 13.0, 14.0, 15.0]
        ])
    );
    assert_eq!(
        args.get::<[[f32; 3]; 2]>("n"),
        Ok([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    );
}

#[test]
fn nested_struct_fields_and_array_elements_read_by_path() {
    let decl = shade();
    let bytes = shade_block(&decl);
    let args = NodeArgs::new(&decl, &bytes);
    assert_eq!(args.get::<u32>("scene.count"), Ok(2));
    assert_eq!(args.get::<f32>("scene.lights[1].intensity"), Ok(3.0));
    assert_eq!(
        args.get::<[f32; 4]>("scene.lights[1].color"),
        Ok([0.1, 0.2, 0.3, 0.4])
    );
    assert_eq!(args.get::<[f32; 4]>("scene.lights[0].color"), Ok([0.0; 4]));
    assert_eq!(args.get::<f32>("weights[2]"), Ok(0.125));
    assert_eq!(args.get::<[f32; 3]>("weights"), Ok([0.5, 0.25, 0.125]));
    assert_eq!(args.get::<Vec<f32>>("weights"), Ok(vec![0.5, 0.25, 0.125]));
    let texture = args.get::<TextureView>("t").unwrap();
    assert_eq!(texture.resource, 9);
    assert_eq!(args.get::<Option<NodeId>>("after"), Ok(Some(NodeId(3))));
}

#[test]
fn fields_give_type_offset_and_array_length() {
    let decl = shade();
    let bytes = shade_block(&decl);
    let args = NodeArgs::new(&decl, &bytes);
    let scene = param_index(&decl, "scene");
    let field = args.field("scene.lights").unwrap();
    assert_eq!(field.param, scene);
    assert_eq!(field.value_type.to_string(), "Light[2]");
    assert_eq!(field.offset, decl.params[scene].offset + 4);
    assert_eq!((field.size, field.array_len()), (40, Some(2)));
    let color = args.field("scene.lights[1].color").unwrap();
    assert_eq!(
        (color.value_type.to_string(), color.offset, color.size),
        ("float4".to_string(), decl.params[scene].offset + 28, 16)
    );
    assert_eq!(color.array_len(), None);
    let weights = args.field("weights").unwrap();
    assert_eq!(weights.array_len(), Some(3));
    assert_eq!(args.field("m").unwrap().value_type.to_string(), "float4x4");
    assert_eq!(
        args.raw("size").unwrap(),
        &[640u32.to_le_bytes(), 480u32.to_le_bytes()].concat()[..]
    );
}

#[test]
fn an_unsized_array_holds_what_the_block_holds() {
    let decl = NodeDeclDesc::new(
        "rects",
        QueueClass::Graphics,
        vec![
            ParamDesc::new("count", scalar(ScalarType::U32)),
            ParamDesc::new(
                "rects",
                ValueType::Array(Box::new(ValueType::Vector(ScalarType::I32, 4)), 0),
            ),
        ],
    );
    let mut bytes = 2u32.to_le_bytes().to_vec();
    for v in [1i32, 2, 3, 4, -1, -2, -3, -4] {
        bytes.extend(v.to_le_bytes());
    }
    let args = NodeArgs::new(&decl, &bytes);
    assert_eq!(
        args.get::<Vec<[i32; 4]>>("rects"),
        Ok(vec![[1, 2, 3, 4], [-1, -2, -3, -4]])
    );
    assert_eq!(args.field("rects").unwrap().array_len(), Some(2));
    assert_eq!(args.get::<[i32; 4]>("rects[1]"), Ok([-1, -2, -3, -4]));
    assert_eq!(
        args.get::<[i32; 4]>("rects[2]").unwrap_err().message,
        "`rects[2]` of node `rects` is out of range: `rects` (int4[]) has 2 elements"
    );
}

fn message<T: std::fmt::Debug>(result: Result<T, NodeArgError>) -> String {
    result.unwrap_err().message
}

#[test]
fn wrong_names_and_types_are_errors_naming_both_types() {
    let decl = shade();
    let bytes = shade_block(&decl);
    let args = NodeArgs::new(&decl, &bytes);
    assert_eq!(
        message(args.get::<u32>("radius")),
        "node `shade` has no parameter `radius` (parameters: `b`, `i`, `u`, `l`, `ul`, `f`, \
         `d`, `c`, `size`, `m`, `n`, `scene`, `weights`, `t`, `after`)"
    );
    assert_eq!(
        message(args.get::<f32>("u")),
        "`u` of node `shade` is `uint`, requested as `f32`"
    );
    assert_eq!(
        message(args.get::<[f32; 3]>("c")),
        "`c` of node `shade` is `float4`, requested as `[f32; 3]`"
    );
    assert_eq!(
        message(args.get::<[u32; 4]>("scene.lights[0].color")),
        "`scene.lights[0].color` of node `shade` is `float4`, requested as `[u32; 4]`"
    );
    assert_eq!(
        message(args.get::<[[f32; 4]; 4]>("n")),
        "`n` of node `shade` is `float2x3`, requested as `[[f32; 4]; 4]`"
    );
    assert_eq!(
        message(args.get::<bool>("i")),
        "`i` of node `shade` is `int`, requested as `bool`"
    );
    assert_eq!(
        message(args.get::<BufferView>("t")),
        "`t` of node `shade` is `texture`, requested as `BufferView`"
    );
    assert_eq!(
        message(args.get::<f32>("scene.lights[0].colour")),
        "`scene.lights[0]` (Light) of node `shade` has no field `colour` (fields: \
         `intensity`, `color`)"
    );
    assert_eq!(
        message(args.get::<f32>("f.x")),
        "`f` (float) of node `shade` has no field `x`: it is not a struct"
    );
    assert_eq!(
        message(args.get::<f32>("f[0]")),
        "`f` (float) of node `shade` has no element [0]: it is not an array"
    );
    assert_eq!(
        message(args.get::<f32>("weights[3]")),
        "`weights[3]` of node `shade` is out of range: `weights` (float[3]) has 3 elements"
    );
    for bad in [
        "",
        "weights[",
        "weights[x]",
        "scene..count",
        "2d",
        "scene.lights[0].",
    ] {
        assert_eq!(
            message(args.get::<f32>(bad)),
            format!(
                "bad argument name `{bad}` for node `shade` (expected NAME, NAME.FIELD or \
                 NAME[INDEX])"
            )
        );
    }
}

#[test]
fn a_block_shorter_than_the_declaration_is_an_error() {
    let decl = shade();
    let bytes = shade_block(&decl);
    let weights = decl.params[param_index(&decl, "weights")].offset;
    let args = NodeArgs::new(&decl, &bytes[..weights as usize + 8]);
    assert_eq!(args.get::<f32>("weights[1]"), Ok(0.25));
    assert_eq!(
        message(args.get::<f32>("weights[2]")),
        format!(
            "the argument block of node `shade` has {} bytes; `weights[2]` needs bytes {}..{}",
            weights + 8,
            weights + 8,
            weights + 12
        )
    );
}

#[test]
fn arguments_of_a_recorded_node() {
    let mut builder = crate::GraphBuilder::new();
    let decl = builder.declare_node(NodeDeclDesc::new(
        "count",
        QueueClass::Graphics,
        vec![ParamDesc::new("n", scalar(ScalarType::U32))],
    ));
    builder.begin_frame(0);
    let mut block = ArgsWriter::new(builder.decl(decl).unwrap());
    block.write_u32(0, 17);
    let node = builder
        .call_node(decl, block.bytes(), crate::CallFlags::default(), 1)
        .unwrap();
    let graph = builder.finish().unwrap();
    let args = NodeArgs::of_node(graph, node).unwrap();
    assert_eq!(args.decl().name, "count");
    assert_eq!(args.get::<u32>("n"), Ok(17));
    assert_eq!(
        NodeArgs::of_node(graph, NodeId(5)).unwrap_err().message,
        "the graph has no node 5 (it has 1)"
    );
}
