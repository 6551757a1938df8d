//! Tests of the direct call path: it records exactly what the general path records.

use super::*;
use crate::args_writer::ArgsWriter;
use crate::decl::{AccessFlags, ParamDesc, QueueClass, SemanticKind};
use crate::graph_limits::GraphLimits;
use crate::resource::ResourceDesc;
use crate::view_format_check::ViewFormatError;

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

/// `depth(texture src, texture ds : SV_DepthStencil)`.
fn depth_decl() -> NodeDeclDesc {
    NodeDeclDesc::new(
        "depth",
        QueueClass::Graphics,
        vec![
            ParamDesc::new("src", ValueType::Texture)
                .with_access(AccessDesc::readonly(AccessFlags::PS)),
            ParamDesc::new("ds", ValueType::Texture)
                .with_access(AccessDesc::readwrite(AccessFlags::DEPTH))
                .with_semantic(SemanticKind::DepthStencil, 0),
        ],
    )
}

/// One frame of [`repeated_frames_record_what_a_fresh_builder_records`]: what changes from
/// the baseline.
#[derive(Clone, Copy, Debug)]
enum Variation {
    Baseline,
    /// The third call's `src` is null (it was a resource).
    NullSource,
    /// The second resource is created with fewer mips than the views of it (the same bytes as
    /// in every frame) cover.
    FewerMips,
    /// A typeless resource written as colour earlier in the frame is then written as depth.
    TypelessAsDepth,
}

/// Each call's result and the finished frame's node, access and argument records.
type FrameRecords = (
    Vec<Result<NodeId, BuildError>>,
    Vec<NodeRecord>,
    Vec<AccessRecord>,
    Vec<u8>,
);

/// The calls of one frame, recorded into `builder` (which may hold earlier frames): each
/// call's result and the finished frame's node, access and argument records.
fn record_variation(builder: &mut GraphBuilder, frame: u64, variation: Variation) -> FrameRecords {
    let draw = DeclId::from_index(0);
    let depth = DeclId::from_index(1);
    builder.begin_frame(frame);
    let color = ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, 64, 64);
    let mips = ResourceDesc {
        mip_levels: if matches!(variation, Variation::FewerMips) {
            2
        } else {
            3
        },
        ..ResourceDesc::tex2d(Format::R32_FLOAT, 32, 32)
    };
    let history = ResourceDesc {
        temporal_layers: 2,
        ..color
    };
    // `R32_TYPELESS` (rpsl.h value 39): depth-capable, its role decided per frame.
    let typeless = ResourceDesc::tex2d(Format(39), 64, 64);
    let a = builder.create_resource(color, 1).unwrap();
    let b = builder.create_resource(mips, 2).unwrap();
    let c = builder.create_resource(history, 3).unwrap();
    let t = builder.create_resource(typeless, 4).unwrap();
    let whole = |id| builder.default_texture_view(id).unwrap();
    let (view_a, mut view_b, view_c, view_t) = (whole(a), whole(b), whole(c), whole(t));
    // The same bytes in every frame: mips 0..3 of `b`, even when it has two.
    view_b.mip_level_count = 3;
    let mut older = view_c;
    older.temporal_layer = 1;
    let third_src = if matches!(variation, Variation::NullSource) {
        TextureView::NULL
    } else {
        view_a
    };
    // The temporal views come last: their records differ from frame to frame, and no call
    // after a differing record repeats the previous frame's.
    let mut calls = vec![
        (draw, view_a, view_b),
        (draw, view_a, view_t),
        (draw, view_b, view_a),
        (draw, third_src, view_b),
        (draw, view_b, view_a),
        (draw, older, view_a),
        (draw, view_c, view_b),
    ];
    if matches!(variation, Variation::TypelessAsDepth) {
        calls.insert(3, (depth, view_a, view_t));
    }
    let mut results = Vec::new();
    for (decl, src, target) in calls {
        let mut args = ArgsWriter::new(builder.decl(decl).unwrap());
        args.write_texture(0, &src).write_texture(1, &target);
        let bytes = args.bytes().to_vec();
        results.push(builder.call_node(decl, &bytes, CallFlags::default(), 7));
    }
    builder.finish().unwrap();
    let graph = builder.graph();
    (
        results,
        graph.nodes.clone(),
        graph.accesses.clone(),
        graph.args.clone(),
    )
}

#[test]
fn repeated_frames_record_what_a_fresh_builder_records() {
    use Variation::*;
    let declared = || {
        let mut builder = GraphBuilder::new();
        builder.declare_node(draw_decl());
        builder.declare_node(depth_decl());
        builder
    };
    let frames = [
        Baseline,
        Baseline,
        NullSource,
        Baseline,
        Baseline,
        FewerMips,
        Baseline,
        Baseline,
        TypelessAsDepth,
        Baseline,
    ];
    let mut long_lived = declared();
    for (frame, &variation) in frames.iter().enumerate() {
        let repeated = record_variation(&mut long_lived, frame as u64, variation);
        // A fresh builder has no previous frame to repeat; its temporal resource is new, so
        // it is compared in the fields that do not depend on the resource's age.
        let fresh = record_variation(&mut declared(), frame as u64, variation);
        let without_slices = |accesses: &[AccessRecord]| -> Vec<AccessRecord> {
            accesses
                .iter()
                .map(|access| AccessRecord {
                    temporal_slice: 0,
                    ..*access
                })
                .collect()
        };
        assert_eq!(repeated.0, fresh.0, "frame {frame} ({variation:?})");
        assert_eq!(repeated.1, fresh.1, "frame {frame} ({variation:?})");
        assert_eq!(
            without_slices(&repeated.2),
            without_slices(&fresh.2),
            "frame {frame} ({variation:?})"
        );
        assert_eq!(repeated.3, fresh.3, "frame {frame} ({variation:?})");
        // The temporal view one frame back moves with the frame once the history is full.
        let older = repeated
            .2
            .iter()
            .find(|access| access.temporal_layer == 1)
            .unwrap();
        assert_eq!(
            (older.temporal_layer, older.temporal_slice),
            (
                1,
                if frame == 0 {
                    0
                } else {
                    (frame as u32 + 1) % 2
                }
            ),
            "frame {frame}"
        );
        // The typeless resource written as depth after being written as colour.
        if matches!(variation, TypelessAsDepth) {
            assert!(
                matches!(
                    repeated.0.get(3),
                    Some(Err(BuildError::InvalidViewFormat {
                        reason: ViewFormatError::TypelessRoles {
                            earlier_depth: false,
                            ..
                        },
                        ..
                    }))
                ),
                "{:?}",
                repeated.0.get(3)
            );
        }
        // Fewer mips: every call viewing mips 0..3 of `b` fails.
        if matches!(variation, FewerMips) {
            let failed = repeated.0.iter().filter(|result| result.is_err()).count();
            assert_eq!(failed, 5, "{:?}", repeated.0);
            assert!(matches!(
                repeated.0[0],
                Err(BuildError::ViewOutOfRange { .. })
            ));
        }
    }
}
