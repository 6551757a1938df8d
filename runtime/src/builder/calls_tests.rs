//! Tests of the direct call path: it records exactly what the general path records.

use super::*;
use crate::args_writer::ArgsWriter;
use crate::decl::{AccessFlags, ParamDesc, QueueClass, SemanticKind};
use crate::graph_limits::GraphLimits;
use crate::resource::ResourceDesc;

/// `draw(texture src, texture rt : SV_Target0)`.
fn draw_decl() -> NodeDeclDesc {
    NodeDeclDesc::new(
        "draw",
        QueueClass::Graphics,
        vec![
            ParamDesc::new("src", ValueType::Texture)
                .with_access(AccessDesc::readonly(AccessFlags::PS)),
            ParamDesc::new("rt", ValueType::Texture)
                .with_access(AccessDesc::readwrite(AccessFlags::RENDER_TARGET))
                .with_semantic(SemanticKind::Target, 0),
        ],
    )
}

/// What a run of [`record_frames`] gave: each call's result, the last frame's records, and
/// whether the last frame kept the previous frame's structure serial.
type Outcome = (
    Vec<Result<NodeId, BuildError>>,
    Vec<NodeRecord>,
    Vec<AccessRecord>,
    Vec<u8>,
    bool,
);

/// Records the same three frames of calls, through `call_node` (the direct path where it
/// applies) or through the general path only.
fn record_frames(general_only: bool) -> Outcome {
    let mut builder = GraphBuilder::new();
    let draw = builder.declare_node(draw_decl());
    let mut results = Vec::new();
    let mut serials = Vec::new();
    for frame in 0..3 {
        builder.set_limits(GraphLimits::default());
        builder.begin_frame(frame);
        let color = ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, 64, 64);
        let mips = ResourceDesc {
            mip_levels: 3,
            ..ResourceDesc::tex2d(Format::R32_FLOAT, 32, 32)
        };
        let history = ResourceDesc {
            temporal_layers: 2,
            ..color
        };
        let a = builder.create_resource(color, 1).unwrap();
        let b = builder.create_resource(mips, 2).unwrap();
        let c = builder.create_resource(history, 3).unwrap();
        let whole = |id| builder.default_texture_view(id).unwrap();
        let (view_a, view_b, view_c) = (whole(a), whole(b), whole(c));
        let mut partial = view_b;
        partial.base_mip_level = 1;
        partial.mip_level_count = 2;
        let mut older = view_c;
        older.temporal_layer = 1;
        let mut as_float = view_a;
        as_float.view_format = Format::R16G16B16A16_FLOAT.0;
        let mut unknown = view_a;
        unknown.resource = 99;
        let calls: [(TextureView, TextureView); 8] = [
            (view_a, view_b),
            (view_a, view_b),
            (partial, view_a),
            (TextureView::NULL, view_a),
            (older, view_a),
            (view_c, view_a),
            (unknown, view_a),
            (view_a, as_float),
        ];
        for (src, rt) in calls {
            let mut args = ArgsWriter::new(builder.decl(draw).unwrap());
            args.write_texture(0, &src).write_texture(1, &rt);
            let bytes = args.bytes().to_vec();
            let flags = CallFlags::default();
            results.push(if general_only {
                builder.call_general(draw, &bytes, flags, 7)
            } else {
                builder.call_node(draw, &bytes, flags, 7)
            });
        }
        // Too short an argument block, and a call one access past the bound.
        let mut args = ArgsWriter::new(builder.decl(draw).unwrap());
        args.write_texture(0, &view_a).write_texture(1, &view_b);
        let bytes = args.bytes().to_vec();
        let short = &bytes[..bytes.len() - 8];
        let accesses = builder.graph().accesses.len() as u32;
        builder.set_limits(GraphLimits {
            max_accesses: accesses + 1,
            ..GraphLimits::default()
        });
        for block in [short, &bytes[..]] {
            results.push(if general_only {
                builder.call_general(draw, block, CallFlags::default(), 8)
            } else {
                builder.call_node(draw, block, CallFlags::default(), 8)
            });
        }
        serials.push(builder.finish().unwrap().structure_serial());
    }
    let graph = builder.graph();
    (
        results,
        graph.nodes.clone(),
        graph.accesses.clone(),
        graph.args.clone(),
        serials[1] == serials[2],
    )
}

#[test]
fn direct_and_general_paths_record_the_same_calls_and_errors() {
    let direct = record_frames(false);
    let general = record_frames(true);
    assert_eq!(direct, general);
    let (results, nodes, accesses, args, unchanged) = direct;
    // Per frame: six calls recorded, an unknown resource, a format mismatch, a short block
    // and a passed access bound.
    let frame = &results[results.len() - 10..];
    let ids: Vec<_> = frame[..6].iter().map(|r| r.clone().unwrap().0).collect();
    assert_eq!(ids, [0, 1, 2, 3, 4, 5]);
    assert_eq!(
        frame[6],
        Err(BuildError::UnknownResource {
            param: "src".into(),
            resource: 99
        })
    );
    assert!(matches!(
        frame[7],
        Err(BuildError::InvalidViewFormat { .. })
    ));
    assert!(matches!(
        frame[8],
        Err(BuildError::ArgumentsTooShort { .. })
    ));
    assert!(matches!(
        frame[9],
        Err(BuildError::LimitExceeded {
            limit: GraphLimit::Accesses,
            ..
        })
    ));
    assert_eq!((nodes.len(), accesses.len(), args.len()), (6, 11, 6 * 80));
    // The partial view's range, the null view left out, the temporal view's slice (frame 2:
    // one frame back from `frames_alive` 2 is slice 1 of two).
    assert_eq!(
        accesses[4].range,
        AccessRange::Texture(TextureRange {
            base_mip: 1,
            mip_count: 2,
            base_layer: 0,
            layer_count: 1,
            planes: 1
        })
    );
    assert_eq!(
        (accesses[7].temporal_layer, accesses[7].temporal_slice),
        (1, 1)
    );
    assert_eq!(accesses[6].param, 1);
    // The temporal resource's slices rotate: no frame repeats the one before.
    assert!(!unchanged);
}

#[test]
fn same_argument_bytes_keep_the_structure_only_with_the_same_resources() {
    let mut builder = GraphBuilder::new();
    let draw = builder.declare_node(draw_decl());
    let widths = [64, 64, 32, 32];
    let serials: Vec<u64> = widths
        .iter()
        .enumerate()
        .map(|(frame, &width)| {
            builder.begin_frame(frame as u64);
            let desc = ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, width, 64);
            let a = builder.create_resource(desc, 1).unwrap();
            let b = builder.create_resource(desc, 2).unwrap();
            let mut args = ArgsWriter::new(builder.decl(draw).unwrap());
            args.write_texture(0, &builder.default_texture_view(a).unwrap())
                .write_texture(1, &builder.default_texture_view(b).unwrap());
            let bytes = args.bytes().to_vec();
            builder
                .call_node(draw, &bytes, CallFlags::default(), 7)
                .unwrap();
            builder.finish().unwrap().structure_serial()
        })
        .collect();
    // Frames 0 and 1 repeat each other; frame 2 passes the same argument bytes (the same
    // resource ids, whole views) of resources of another size: a new structure.
    assert_eq!(serials[0], serials[1]);
    assert_ne!(serials[1], serials[2]);
    assert_eq!(serials[2], serials[3]);
}
