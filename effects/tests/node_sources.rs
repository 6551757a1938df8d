//! `//!SOURCE` textures of an effect bound to a script's node ([`EffectNode`]), recorded
//! through the graph builder over several frames: each image is a persistent texture, written
//! by its upload node only in the frame that creates the texture (the first, and again after a
//! frame without it), and read by the pass in every frame.

use std::path::Path;
use std::sync::Arc;

use rpsl_effects::{parse_effect_file, EffectNode};
use rpsl_runtime::{
    AccessDesc, AccessFlags, ArgsWriter, BuildError, CallFlags, CompileOptions, DeclId, Format,
    FrameCompiler, GraphBuilder, NodeDeclDesc, ParamDesc, QueueClass, ResourceDesc, ValueType,
};

/// The script's declaration of a node bound to the test effect Lut.
fn lut_declaration() -> NodeDeclDesc {
    NodeDeclDesc::new(
        "Lut",
        QueueClass::Compute,
        vec![
            ParamDesc::new("src", ValueType::Texture)
                .with_access(AccessDesc::readonly(AccessFlags::CS)),
            ParamDesc::new("dst", ValueType::Texture)
                .with_access(AccessDesc::readwrite(AccessFlags::CS)),
        ],
    )
}

/// The test effect Lut (a PNG and a DDS source texture) bound to `Lut`.
fn lut_node() -> EffectNode {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/effects/Lut.hlsl");
    let effect = parse_effect_file(&path).unwrap_or_else(|errors| panic!("{errors}"));
    EffectNode::new(&lut_declaration(), effect).unwrap()
}

/// A builder whose `Lut` calls expand to `node`; returns it and the declaration of `Lut`.
fn builder_with(node: EffectNode) -> (GraphBuilder, DeclId) {
    let mut builder = GraphBuilder::new();
    let lut = builder.declare_node(lut_declaration());
    builder.set_node_expansion(lut, Arc::new(node));
    (builder, lut)
}

/// Records frame `index`: `calls` calls of `Lut` from an 8x6 input to an output of its size.
fn record_frame(
    builder: &mut GraphBuilder,
    lut: DeclId,
    index: u64,
    calls: usize,
) -> Result<(), BuildError> {
    builder.begin_frame(index);
    let desc = ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, 8, 6);
    let input = builder.import_external("input", desc)?;
    let output = builder.import_external("output", desc)?;
    for call in 0..calls {
        let mut args = ArgsWriter::new(builder.decl(lut).unwrap());
        args.write_texture(0, &builder.default_texture_view(input)?)
            .write_texture(1, &builder.default_texture_view(output)?);
        builder.call_node(lut, args.bytes(), CallFlags::default(), 100 + call as u64)?;
    }
    builder.finish()?;
    Ok(())
}

/// The names of the last recorded frame's nodes, in call order.
fn node_names(builder: &GraphBuilder) -> Vec<String> {
    let graph = builder.graph();
    (0..graph.nodes.len())
        .map(|index| {
            graph
                .decl_of(rpsl_runtime::NodeId(index as u32))
                .name
                .clone()
        })
        .collect()
}

const UPLOADING: [&str; 4] = [
    "Lut.constants",
    "Lut.lut.upload",
    "Lut.lutHalf.upload",
    "Lut.Pass1",
];
const READING: [&str; 2] = ["Lut.constants", "Lut.Pass1"];

#[test]
fn sources_are_uploaded_in_the_frame_that_creates_their_texture() {
    let (mut builder, lut) = builder_with(lut_node().load_sources().unwrap());
    let mut compiler = FrameCompiler::new(CompileOptions::default());
    for (frame, calls, expected) in [
        (0, 1, UPLOADING.to_vec()),
        (1, 1, READING.to_vec()),
        (2, 1, READING.to_vec()),
        // A frame without the call ends the textures' history: the next call uploads again.
        (3, 0, Vec::new()),
        (4, 1, UPLOADING.to_vec()),
        // A second call in one frame has textures of its own.
        (5, 2, [&READING[..], &UPLOADING[..]].concat()),
        (6, 2, [&READING[..], &READING[..]].concat()),
    ] {
        record_frame(&mut builder, lut, frame, calls).unwrap();
        assert_eq!(node_names(&builder), expected, "frame {frame}");
        let graph = builder.graph();
        let persistent: Vec<(&str, u64)> = graph
            .resources
            .iter()
            .filter(|record| record.desc.is_persistent() && !record.external)
            .map(|record| (record.name.as_deref().unwrap_or(""), record.frames_alive))
            .collect();
        let alive = |first: u64| [("Lut.lut", first), ("Lut.lutHalf", first)];
        let expected_textures: Vec<(&str, u64)> = match frame {
            0..=2 => alive(frame).to_vec(),
            3 => Vec::new(),
            4 => alive(0).to_vec(),
            5 => [alive(1), alive(0)].concat(),
            _ => [alive(2), alive(1)].concat(),
        };
        assert_eq!(persistent, expected_textures, "frame {frame}");
        // Nothing is culled: the uploads write textures that outlive the frame.
        let compiled = compiler.compile(graph).unwrap();
        assert_eq!(compiled.culled, [], "frame {frame}");
        assert_eq!(compiled.order.len(), graph.nodes.len(), "frame {frame}");
    }
}

#[test]
fn the_source_textures_have_the_images_formats_and_sizes() {
    let (mut builder, lut) = builder_with(lut_node().load_sources().unwrap());
    record_frame(&mut builder, lut, 0, 1).unwrap();
    let textures: Vec<(String, Format, u64, u32)> = builder
        .graph()
        .resources
        .iter()
        .filter(|record| record.desc.is_persistent() && !record.external)
        .map(|record| {
            let desc = record.desc;
            (
                record.name.clone().unwrap(),
                desc.format,
                desc.width,
                desc.height,
            )
        })
        .collect();
    let half = Format::from_name("R16G16B16A16_FLOAT").unwrap();
    assert_eq!(
        textures,
        [
            ("Lut.lut".to_string(), Format::R8G8B8A8_UNORM, 2, 2),
            ("Lut.lutHalf".to_string(), half, 2, 2)
        ]
    );
}

#[test]
fn an_effect_node_whose_sources_were_not_loaded_fails_its_calls() {
    let (mut builder, lut) = builder_with(lut_node());
    let error = record_frame(&mut builder, lut, 0, 1).unwrap_err();
    assert_eq!(
        error.to_string(),
        "node `Lut`: the image of `lut` (//!SOURCE) was not loaded (EffectNode::load_sources)"
    );
}
