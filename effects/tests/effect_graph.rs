//! Effects recorded as render graphs and compiled by rpsl-runtime's frame compiler.

use std::path::Path;

use rpsl_effects::{
    parse_effect_file, pass_declarations, record_effect, resolve_sizes, Effect, EffectBindings,
    EffectGraphError, RecordedEffect,
};
use rpsl_runtime::{
    AccessFlags, AccessMode, CompileOptions, Format, FrameCompiler, GraphBuilder, NodeId,
    RecordedGraph, ResourceDesc,
};

fn parse(name: &str) -> Effect {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/effects")
        .join(name);
    parse_effect_file(&path).unwrap_or_else(|errors| panic!("{errors}"))
}

/// Records `effect` for an input of `input` (and `output` when the effect takes any size), with
/// the source textures imported as externals of `source_size`.
fn record(
    effect: &Effect,
    input: [u32; 2],
    output: Option<[u32; 2]>,
    source_size: [u32; 2],
) -> (GraphBuilder, Result<RecordedEffect, EffectGraphError>) {
    let mut builder = GraphBuilder::new();
    let decls: Vec<_> = pass_declarations(effect)
        .into_iter()
        .map(|decl| builder.declare_node(decl))
        .collect();
    let sizes = resolve_sizes(effect, input, output).unwrap();
    builder.begin_frame(0);
    let tex = |size: [u32; 2]| ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, size[0], size[1]);
    let bindings = EffectBindings {
        input: builder.import_external("INPUT", tex(input)).unwrap(),
        output: builder
            .import_external("OUTPUT", tex(sizes.output))
            .unwrap(),
        sources: effect
            .textures
            .iter()
            .enumerate()
            .filter(|(_, t)| t.source.is_some())
            .map(|(index, t)| {
                (
                    index,
                    builder.import_external(&t.name, tex(source_size)).unwrap(),
                )
            })
            .collect(),
        constants: builder
            .import_external("constants", ResourceDesc::buffer(256))
            .unwrap(),
    };
    let recorded = record_effect(&mut builder, effect, &decls, &sizes, &bindings, 7);
    (builder, recorded)
}

/// (node, resource name, mode, flags) of every access, in recording order.
fn accesses(graph: &RecordedGraph) -> Vec<(u32, String, AccessMode, AccessFlags)> {
    graph
        .accesses
        .iter()
        .map(|access| {
            (
                access.node.0,
                graph.resources[access.resource.index()]
                    .name
                    .clone()
                    .unwrap_or_default(),
                access.access.mode,
                access.access.flags,
            )
        })
        .collect()
}

#[test]
fn multi_pass_effect_becomes_three_nodes_and_three_transients() {
    let effect = parse("Mrt.hlsl");
    let (mut builder, recorded) = record(&effect, [5, 3], None, [1, 1]);
    let recorded = recorded.unwrap();
    assert_eq!(recorded.nodes, vec![NodeId(0), NodeId(1), NodeId(2)]);
    let graph = builder.finish().unwrap().clone();
    let resources: Vec<_> = graph
        .resources
        .iter()
        .map(|r| {
            (
                r.name.clone().unwrap(),
                r.desc.format,
                r.desc.width,
                r.desc.height,
                r.external,
            )
        })
        .collect();
    assert_eq!(
        resources,
        vec![
            ("INPUT".to_string(), Format::R8G8B8A8_UNORM, 5, 3, true),
            ("OUTPUT".to_string(), Format::R8G8B8A8_UNORM, 10, 6, true),
            ("constants".to_string(), Format::UNKNOWN, 256, 1, true),
            ("luma".to_string(), Format::R16G16B16A16_FLOAT, 5, 3, false),
            (
                "chroma".to_string(),
                Format::from_name("R8G8_UNORM").unwrap(),
                5,
                3,
                false
            ),
            (
                "detail".to_string(),
                Format::from_name("R11G11B10_FLOAT").unwrap(),
                6,
                4,
                false
            ),
        ]
    );
    let names: Vec<_> = graph.decls.iter().map(|decl| decl.name.as_str()).collect();
    assert_eq!(names, ["Mrt.Pass1", "Mrt.Pass2", "Mrt.Pass3"]);
    let found = accesses(&graph);
    let read = AccessMode::ReadOnly;
    let write = AccessMode::ReadWrite;
    let cs = AccessFlags::CS;
    let constants = AccessFlags::CB | AccessFlags::CS;
    let expected: Vec<(u32, String, AccessMode, AccessFlags)> = [
        (0, "constants", read),
        (0, "INPUT", read),
        (0, "luma", write),
        (0, "chroma", write),
        (1, "constants", read),
        (1, "INPUT", read),
        (1, "luma", read),
        (1, "detail", write),
        (2, "constants", read),
        (2, "INPUT", read),
        (2, "chroma", read),
        (2, "detail", read),
        (2, "OUTPUT", write),
    ]
    .into_iter()
    .map(|(node, name, mode)| {
        let flags = if name == "constants" { constants } else { cs };
        (node, name.to_string(), mode, flags)
    })
    .collect();
    assert_eq!(found, expected);
    // The frame compiler orders the passes by their data dependencies and culls none.
    let mut compiler = FrameCompiler::new(CompileOptions::default());
    let frame = compiler.compile(&graph).unwrap();
    assert_eq!(frame.order, vec![NodeId(0), NodeId(1), NodeId(2)]);
    assert!(frame.culled.is_empty());
}

#[test]
fn source_textures_need_a_resource() {
    let effect = parse("Lut.hlsl");
    let mut builder = GraphBuilder::new();
    let decls: Vec<_> = pass_declarations(&effect)
        .into_iter()
        .map(|decl| builder.declare_node(decl))
        .collect();
    let sizes = resolve_sizes(&effect, [4, 4], Some([4, 4])).unwrap();
    builder.begin_frame(0);
    let desc = ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, 4, 4);
    let bindings = EffectBindings {
        input: builder.import_external("INPUT", desc).unwrap(),
        output: builder.import_external("OUTPUT", desc).unwrap(),
        sources: Vec::new(),
        constants: builder
            .import_external("constants", ResourceDesc::buffer(64))
            .unwrap(),
    };
    let error = record_effect(&mut builder, &effect, &decls, &sizes, &bindings, 1).unwrap_err();
    assert_eq!(
        error.to_string(),
        "no resource was given for the source texture `lut`"
    );
    let error = record_effect(&mut builder, &effect, &[], &sizes, &bindings, 1).unwrap_err();
    assert_eq!(
        error,
        EffectGraphError::WrongDeclarations {
            passes: 1,
            given: 0
        }
    );
}

#[test]
fn source_texture_is_read_by_its_pass() {
    let effect = parse("Lut.hlsl");
    let (mut builder, recorded) = record(&effect, [4, 4], Some([8, 8]), [2, 2]);
    let recorded = recorded.unwrap();
    let graph = builder.finish().unwrap();
    assert_eq!(recorded.nodes.len(), 1);
    let lut = &graph.resources[recorded.textures[2].index()];
    assert_eq!(
        (lut.name.as_deref(), lut.desc.width, lut.external),
        (Some("lut"), 2, true)
    );
    let half = &graph.resources[recorded.textures[3].index()];
    assert_eq!(half.name.as_deref(), Some("lutHalf"));
    let read_by_the_pass: Vec<_> = graph
        .accesses
        .iter()
        .map(|access| {
            graph.resources[access.resource.index()]
                .name
                .clone()
                .unwrap()
        })
        .collect();
    assert_eq!(
        read_by_the_pass,
        ["constants", "INPUT", "lut", "lutHalf", "OUTPUT"]
    );
}
