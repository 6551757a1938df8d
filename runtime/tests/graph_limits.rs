//! `GraphLimits`: every bound fails the call that would pass it with `LimitExceeded`, records
//! nothing of that call, and leaves the builder usable for the next frame.

use rpsl_runtime::*;

/// `Touch(uint id, [readwrite(cs)] texture t, node after)` and the builder with it declared.
fn builder_with(limits: GraphLimits) -> (GraphBuilder, DeclId) {
    let mut builder = GraphBuilder::new();
    builder.set_limits(limits);
    let touch = builder.declare_node(NodeDeclDesc::new(
        "Touch",
        QueueClass::Compute,
        vec![
            ParamDesc::new("id", ValueType::Scalar(ScalarType::U32)),
            ParamDesc::new("t", ValueType::Texture)
                .with_access(AccessDesc::readwrite(AccessFlags::CS)),
            ParamDesc::new("after", ValueType::NodeHandle),
        ],
    ));
    (builder, touch)
}

/// One `Touch` of `texture`, depending on `after` when given.
fn touch(
    builder: &mut GraphBuilder,
    decl: DeclId,
    texture: ResourceId,
    after: Option<NodeId>,
) -> Result<NodeId, BuildError> {
    let view = builder.default_texture_view(texture).unwrap();
    let mut args = ArgsWriter::new(builder.decl(decl).unwrap());
    args.write_u32(0, 7).write_texture(1, &view);
    args.write_u32(2, after.map_or(u32::MAX, |node| node.0));
    let bytes = args.bytes().to_vec();
    builder.call_node(decl, &bytes, CallFlags::default(), 1)
}

fn texture(builder: &mut GraphBuilder) -> Result<ResourceId, BuildError> {
    builder.create_resource(ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, 8, 8), 3)
}

fn exceeded(limit: GraphLimit, bound: u64) -> BuildError {
    BuildError::LimitExceeded { limit, bound }
}

/// A frame of one texture and one node finishes after the failed frame.
fn next_frame_records(builder: &mut GraphBuilder, decl: DeclId) {
    builder.begin_frame(1);
    let t = texture(builder).unwrap();
    touch(builder, decl, t, None).unwrap();
    let graph = builder.finish().unwrap();
    assert_eq!(
        (
            graph.nodes.len(),
            graph.resources.len(),
            graph.accesses.len()
        ),
        (1, 1, 1)
    );
}

#[test]
fn nodes_resources_and_accesses_stop_at_their_bounds() {
    let limits = GraphLimits {
        max_nodes: 3,
        ..GraphLimits::default()
    };
    let (mut builder, decl) = builder_with(limits);
    builder.begin_frame(0);
    let t = texture(&mut builder).unwrap();
    for _ in 0..3 {
        touch(&mut builder, decl, t, None).unwrap();
    }
    assert_eq!(
        touch(&mut builder, decl, t, None),
        Err(exceeded(GraphLimit::Nodes, 3))
    );
    let graph = builder.finish().unwrap();
    assert_eq!((graph.nodes.len(), graph.accesses.len()), (3, 3));
    next_frame_records(&mut builder, decl);

    let (mut builder, decl) = builder_with(GraphLimits {
        max_resources: 2,
        ..GraphLimits::default()
    });
    builder.begin_frame(0);
    builder
        .import_external("bb", ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, 8, 8))
        .unwrap();
    texture(&mut builder).unwrap();
    assert_eq!(
        texture(&mut builder),
        Err(exceeded(GraphLimit::Resources, 2))
    );
    let refused = builder.import_external("out", ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, 8, 8));
    assert_eq!(refused, Err(exceeded(GraphLimit::Resources, 2)));
    assert_eq!(builder.finish().unwrap().resources.len(), 2);
    next_frame_records(&mut builder, decl);

    let (mut builder, decl) = builder_with(GraphLimits {
        max_accesses: 2,
        ..GraphLimits::default()
    });
    builder.begin_frame(0);
    let t = texture(&mut builder).unwrap();
    touch(&mut builder, decl, t, None).unwrap();
    touch(&mut builder, decl, t, None).unwrap();
    assert_eq!(
        touch(&mut builder, decl, t, None),
        Err(exceeded(GraphLimit::Accesses, 2))
    );
    let graph = builder.finish().unwrap();
    assert_eq!((graph.nodes.len(), graph.accesses.len()), (2, 2));
    next_frame_records(&mut builder, decl);
}

#[test]
fn dependencies_scopes_and_argument_bytes_stop_at_their_bounds() {
    let (mut builder, decl) = builder_with(GraphLimits {
        max_dependencies: 2,
        ..GraphLimits::default()
    });
    builder.begin_frame(0);
    let t = texture(&mut builder).unwrap();
    let first = touch(&mut builder, decl, t, None).unwrap();
    let second = touch(&mut builder, decl, t, Some(first)).unwrap();
    builder.add_dependency(second, first).unwrap();
    // A node-handle argument counts as a dependency: the call is refused whole.
    assert_eq!(
        touch(&mut builder, decl, t, Some(second)),
        Err(exceeded(GraphLimit::Dependencies, 2))
    );
    assert_eq!(
        builder.add_dependency(second, first),
        Err(exceeded(GraphLimit::Dependencies, 2))
    );
    let graph = builder.finish().unwrap();
    assert_eq!((graph.nodes.len(), graph.accesses.len()), (2, 2));
    assert_eq!(graph.explicit_deps, vec![(second, first), (second, first)]);
    next_frame_records(&mut builder, decl);

    let (mut builder, decl) = builder_with(GraphLimits {
        max_scopes: 3,
        ..GraphLimits::default()
    });
    builder.begin_frame(0);
    builder.begin_subgraph(true, false).unwrap();
    builder.sch_barrier().unwrap();
    builder.end_subgraph().unwrap();
    builder.begin_subgraph(false, true).unwrap();
    assert_eq!(builder.sch_barrier(), Err(exceeded(GraphLimit::Scopes, 3)));
    assert_eq!(
        builder.begin_subgraph(false, false),
        Err(exceeded(GraphLimit::Scopes, 3))
    );
    builder.end_subgraph().unwrap();
    let graph = builder.finish().unwrap();
    assert_eq!((graph.subgraphs.len(), graph.barrier_count), (2, 1));
    next_frame_records(&mut builder, decl);

    let (mut builder, decl) = builder_with(GraphLimits {
        max_argument_bytes: 100,
        ..GraphLimits::default()
    });
    let block = builder.decl(decl).unwrap().args_size as u64;
    assert!(
        block * 2 <= 100 && block * 3 > 100,
        "block of {block} bytes"
    );
    builder.begin_frame(0);
    let t = texture(&mut builder).unwrap();
    touch(&mut builder, decl, t, None).unwrap();
    touch(&mut builder, decl, t, None).unwrap();
    assert_eq!(
        touch(&mut builder, decl, t, None),
        Err(exceeded(GraphLimit::ArgumentBytes, 100))
    );
    assert_eq!(builder.finish().unwrap().nodes.len(), 2);
    next_frame_records(&mut builder, decl);
}

#[test]
fn the_message_names_the_bound_and_the_field() {
    let error = exceeded(GraphLimit::Accesses, 4_194_304);
    assert_eq!(
        error.to_string(),
        "the frame records more than 4194304 resource accesses \
         (GraphLimits::max_accesses; a runaway loop?)"
    );
}
