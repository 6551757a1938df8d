//! Entry arguments set from Rust values: each kind gives the values `--arg` strings give (the
//! same `EntryArgs` and the same recorded node argument block, read back by name), parts of a
//! parameter by path keep the rest, and wrong names, shapes and descriptions are exact errors.

use rpsl::runtime::{Format, NodeArgs, NodeId, ResourceDesc};
use rpsl::{EntryArgs, Program, Session, SessionOptions};

const SCRIPT: &str = "\
struct GBuffer { texture albedo; float scale; };
enum Mode { Off, Fast = 4, Slow };
struct Light { float intensity; float4 color; };
graphics node take(bool b, int i, uint u, int64_t l, uint64_t ul, half h, float f, double d,
                   Mode mode, float4 c, uint2 size, float4x4 m, float2x3 n, Light light,
                   float weights[3], srv bb, srv_buf data);
export void main(bool b, int i, uint u, int64_t l, uint64_t ul, half h, float f, double d,
                 Mode mode, float4 c, uint2 size, float4x4 m, float2x3 n, Light light,
                 float weights[3], texture bb, buffer data, GBuffer gbuf)
{
    take(b, i, u, l, ul, h, f, d, mode, c, size, m, n, light, weights, bb, data);
}
";

const MATRIX: [[f32; 4]; 4] = [
    [1.0, 2.0, 3.0, 4.0],
    [5.0, 6.0, 7.0, 8.0],
    [9.0, 10.0, 11.0, 12.0],
    [13.0, 14.0, 15.0, 16.0],
];

fn program() -> Program {
    Program::from_source("take.rpsl", SCRIPT).unwrap()
}

/// Every parameter from a Rust value.
fn from_values(program: &Program) -> EntryArgs {
    let entry = program.entry(None).unwrap();
    let mut args = EntryArgs::defaults(entry);
    let mut set = |name: &str, value: &dyn Fn(&mut EntryArgs) -> Result<(), rpsl::ArgError>| {
        value(&mut args).unwrap_or_else(|error| panic!("{name}: {error}"));
    };
    set("b", &|a| a.set_value(program, entry, "b", true));
    set("i", &|a| a.set_value(program, entry, "i", -7i32));
    set("u", &|a| a.set_value(program, entry, "u", 42u32));
    set("l", &|a| {
        a.set_value(program, entry, "l", -5_000_000_000i64)
    });
    set("ul", &|a| a.set_value(program, entry, "ul", u64::MAX));
    set("h", &|a| a.set_value(program, entry, "h", 0.5f32));
    set("f", &|a| a.set_value(program, entry, "f", 2.5f32));
    set("d", &|a| a.set_value(program, entry, "d", 0.125f64));
    set("mode", &|a| a.set_value(program, entry, "mode", 5i32));
    set("c", &|a| {
        a.set_value(program, entry, "c", [0.25f32, 0.5, 0.75, 1.0])
    });
    set("size", &|a| {
        a.set_value(program, entry, "size", [640u32, 480])
    });
    set("m", &|a| a.set_value(program, entry, "m", MATRIX));
    set("n", &|a| {
        a.set_value(program, entry, "n", [[1.0f32, 2.0, 3.0], [4.0, 5.0, 6.0]])
    });
    set("light.intensity", &|a| {
        a.set_value(program, entry, "light.intensity", 3.0f32)
    });
    set("light.color", &|a| {
        a.set_value(program, entry, "light.color", [0.1f32, 0.2, 0.3, 0.4])
    });
    set("weights", &|a| {
        a.set_value(program, entry, "weights", [0.5f32, 0.25, 0.125])
    });
    set("bb", &|a| {
        let desc = ResourceDesc::tex2d(Format::R16G16B16A16_FLOAT, 64, 32);
        a.set_resource(program, entry, "bb", desc)
    });
    set("data", &|a| {
        a.set_resource(program, entry, "data", ResourceDesc::buffer(256))
    });
    args
}

/// The same arguments as `--arg` strings.
fn from_strings(program: &Program) -> EntryArgs {
    let entry = program.entry(None).unwrap();
    EntryArgs::parse(
        program,
        entry,
        [
            "b=true",
            "i=-7",
            "u=42",
            "l=-5000000000",
            "ul=18446744073709551615",
            "h=0.5",
            "f=2.5",
            "d=0.125",
            "mode=Slow",
            "c=0.25,0.5,0.75,1",
            "size=640,480",
            "m=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16",
            "n=1,2,3,4,5,6",
            "light=3,0.1,0.2,0.3,0.4",
            "weights=0.5,0.25,0.125",
            "bb=64x32:R16G16B16A16_FLOAT",
            "data=256",
        ],
    )
    .unwrap()
}

/// The argument block of the one node the script records with `args`.
fn recorded_block(program: &Program, args: &EntryArgs) -> Vec<u8> {
    let mut session = Session::new(program, None, SessionOptions::default()).unwrap();
    let graph = session.record_frame(args).unwrap();
    assert_eq!(graph.nodes.len(), 1);
    graph.node_args(NodeId(0)).to_vec()
}

#[test]
fn rust_values_give_what_strings_give() {
    let program = program();
    let values = from_values(&program);
    assert_eq!(values, from_strings(&program));
    let block = recorded_block(&program, &values);
    assert_eq!(block, recorded_block(&program, &from_strings(&program)));
    let decl = program
        .node_declarations()
        .iter()
        .find(|decl| decl.name == "take")
        .unwrap();
    let args = NodeArgs::new(decl, &block);
    assert_eq!(args.get::<bool>("b"), Ok(true));
    assert_eq!(args.get::<i32>("i"), Ok(-7));
    assert_eq!(args.get::<u32>("u"), Ok(42));
    assert_eq!(args.get::<i64>("l"), Ok(-5_000_000_000));
    assert_eq!(args.get::<u64>("ul"), Ok(u64::MAX));
    assert_eq!(args.get::<f32>("h"), Ok(0.5));
    assert_eq!(args.get::<f32>("f"), Ok(2.5));
    assert_eq!(args.get::<f64>("d"), Ok(0.125));
    assert_eq!(args.get::<i32>("mode"), Ok(5));
    assert_eq!(args.get::<[f32; 4]>("c"), Ok([0.25, 0.5, 0.75, 1.0]));
    assert_eq!(args.get::<[u32; 2]>("size"), Ok([640, 480]));
    assert_eq!(args.get::<[[f32; 4]; 4]>("m"), Ok(MATRIX));
    assert_eq!(
        args.get::<[[f32; 3]; 2]>("n"),
        Ok([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    );
    assert_eq!(args.get::<f32>("light.intensity"), Ok(3.0));
    assert_eq!(
        args.get::<[f32; 4]>("light.color"),
        Ok([0.1, 0.2, 0.3, 0.4])
    );
    assert_eq!(args.get::<f32>("weights[1]"), Ok(0.25));
    // The externals, imported in parameter order.
    let texture = args.get::<rpsl::runtime::TextureView>("bb").unwrap();
    let buffer = args.get::<rpsl::runtime::BufferView>("data").unwrap();
    assert_eq!((texture.resource, buffer.resource), (0, 1));
}

#[test]
fn a_part_set_by_path_keeps_the_rest_of_its_parameter() {
    let program = program();
    let entry = program.entry(None).unwrap();
    let mut args = EntryArgs::defaults(entry);
    args.set_value(&program, entry, "light.color", [1.0f32, 0.0, 0.0, 1.0])
        .unwrap();
    assert_eq!(
        args,
        EntryArgs::parse(&program, entry, ["light=0,1,0,0,1"]).unwrap()
    );
    args.set_value(&program, entry, "light.intensity", 2.0f32)
        .unwrap();
    args.set_value(&program, entry, "light.color.y", 0.5f32)
        .unwrap();
    args.set_value(&program, entry, "m[2]", [0.0f32, 0.0, 1.0, 0.0])
        .unwrap();
    args.set_value(&program, entry, "weights[2]", 4.0f32)
        .unwrap();
    let parsed = EntryArgs::parse(
        &program,
        entry,
        [
            "light=0,1,0,0,1",
            "light.intensity=2",
            "light.color.y=0.5",
            "m[2]=0,0,1,0",
            "weights[2]=4",
        ],
    )
    .unwrap();
    assert_eq!(args, parsed);
    assert_eq!(
        args,
        EntryArgs::parse(
            &program,
            entry,
            [
                "light=2,1,0.5,0,1",
                "m=0,0,0,0,0,0,0,0,0,0,1,0,0,0,0,0",
                "weights=0,0,4"
            ]
        )
        .unwrap()
    );
}

#[test]
fn wrong_names_shapes_and_descriptions_are_exact_errors() {
    let program = program();
    let entry = program.entry(None).unwrap();
    let mut args = EntryArgs::defaults(entry);
    let error = |result: Result<(), rpsl::ArgError>| result.unwrap_err().message;
    assert_eq!(
        error(args.set_value(&program, entry, "u", 1.0f32)),
        "`u` is `uint`, given a `f32`"
    );
    assert_eq!(
        error(args.set_value(&program, entry, "i", 1u32)),
        "`i` is `int`, given a `u32`"
    );
    assert_eq!(
        error(args.set_value(&program, entry, "c", [1.0f32, 0.0, 0.0])),
        "`c` is `float4`, given a `[f32; 3]`"
    );
    assert_eq!(
        error(args.set_value(&program, entry, "m", [[0.0f32; 4]; 3])),
        "`m` is `float4x4`, given a `[[f32; 4]; 3]`"
    );
    assert_eq!(
        error(args.set_value(&program, entry, "light", 1.0f32)),
        "`light` is `Light`, given a `f32`"
    );
    assert_eq!(
        error(args.set_value(&program, entry, "bb", 1u32)),
        "`bb` is `texture`, given a `u32`"
    );
    assert_eq!(
        error(args.set_value(&program, entry, "radius", 1u32)),
        "entry point `main` has no parameter `radius` (parameters: `b`, `i`, `u`, `l`, `ul`, \
         `h`, `f`, `d`, `mode`, `c`, `size`, `m`, `n`, `light`, `weights`, `bb`, `data`, \
         `gbuf`)"
    );
    assert_eq!(
        error(args.set_value(&program, entry, "light.colour", [0.0f32; 4])),
        "`light` (Light) has no field `colour` (fields: `intensity`, `color`)"
    );
    assert_eq!(
        error(args.set_value(&program, entry, "f.x", 0.0f32)),
        "`f` (float) has no field `x`"
    );
    assert_eq!(
        error(args.set_value(&program, entry, "weights[3]", 0.0f32)),
        "`weights[3]` is out of range: `weights` (float[3]) has 3 elements"
    );
    assert_eq!(
        error(args.set_value(&program, entry, "f[0]", 0.0f32)),
        "`f` (float) has no element [0]"
    );
    assert_eq!(
        error(args.set_value(&program, entry, "light..color", 0.0f32)),
        "bad argument name `light..color` (expected NAME, NAME.FIELD or NAME[INDEX])"
    );
    assert_eq!(
        error(args.set_resource(&program, entry, "bb", ResourceDesc::buffer(64))),
        "`bb` is a `texture`, given a buffer description"
    );
    assert_eq!(
        error(args.set_resource(&program, entry, "f", ResourceDesc::buffer(64))),
        "`f` is `float`, given a buffer description (only `texture` and `buffer` parameters \
         take resources)"
    );
    assert_eq!(
        error(args.set_resource(
            &program,
            entry,
            "bb",
            ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, 0, 4)
        )),
        "bad description for `bb`: resource size must not be zero"
    );
    let gbuf_albedo = "`gbuf.albedo` is a view inside parameter `gbuf` (GBuffer): only whole \
                       `texture` and `buffer` parameters take resources";
    assert_eq!(
        error(args.set_resource(
            &program,
            entry,
            "gbuf.albedo",
            ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, 4, 4)
        )),
        gbuf_albedo
    );
    assert_eq!(
        error(args.set(&program, entry, "gbuf.albedo", "4x4")),
        gbuf_albedo
    );
    // The string parser's errors, through the same resolution.
    assert_eq!(
        error(args.set(&program, entry, "light.color", "1,0,0")),
        "parameter `light.color` (float4) takes 4 values, got 3"
    );
    assert_eq!(
        error(args.set(&program, entry, "weights[5]", "1")),
        "`weights[5]` is out of range: `weights` (float[3]) has 3 elements"
    );
    // Nothing failed half-way: every parameter still has its default.
    assert_eq!(args, EntryArgs::defaults(entry));
}
