//! Unit tests of the dependency builder (a child module of `deps.rs`).

use super::{DepBuilder, DepGraph, EdgeKind};
use crate::*;

/// Records calls of `kinds` (0 reads, 1 writes, 2 relaxed read-write) on one texture, each
/// covering it whole, and returns the dependency graph.
fn deps_of(kinds: &[usize]) -> DepGraph {
    let tex = |name: &str, access: AccessDesc| {
        ParamDesc::new(name, ValueType::Texture).with_access(access)
    };
    let mut relaxed = AccessDesc::readwrite(AccessFlags::CS);
    relaxed.relaxed = true;
    let mut builder = GraphBuilder::new();
    let decls: Vec<DeclId> = [
        AccessDesc::readonly(AccessFlags::PS),
        AccessDesc::writeonly(AccessFlags::CS),
        relaxed,
    ]
    .into_iter()
    .enumerate()
    .map(|(index, access)| {
        builder.declare_node(NodeDeclDesc::new(
            format!("n{index}"),
            QueueClass::Compute,
            vec![tex("a", access)],
        ))
    })
    .collect();
    builder.begin_frame(0);
    let texture = builder
        .create_resource(ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, 8, 8), 0)
        .unwrap();
    let view = builder.default_texture_view(texture).unwrap();
    for (key, &kind) in kinds.iter().enumerate() {
        let decl = builder.decl(decls[kind]).unwrap().clone();
        let mut args = ArgsWriter::new(&decl);
        args.write_texture(0, &view);
        builder
            .call_node(decls[kind], args.bytes(), CallFlags::default(), key as u64)
            .unwrap();
    }
    let mut deps = DepGraph::default();
    DepBuilder::default().build(builder.finish().unwrap(), None, &mut deps);
    deps
}

#[test]
fn more_readers_than_the_dense_state_holds() {
    use EdgeKind::{Data, Order};
    // Five readers overflow the inline reader list: the next writer still follows all.
    let deps = deps_of(&[1, 0, 0, 0, 0, 0, 1, 0]);
    for reader in 1..6 {
        assert_eq!(deps.preds(reader), &[(0, Data)]);
    }
    assert_eq!(
        deps.preds(6),
        &[
            (0, Order),
            (1, Order),
            (2, Order),
            (3, Order),
            (4, Order),
            (5, Order)
        ]
    );
    assert_eq!(deps.preds(7), &[(6, Data)]);
}

#[test]
fn relaxed_group_after_a_dense_write() {
    use EdgeKind::{Data, Order};
    // The second relaxed writer joins the first one's group: ordered after the group's
    // base (node 0), reading the first one's data; the reader sees both.
    let deps = deps_of(&[1, 2, 2, 0]);
    assert_eq!(deps.preds(1), &[(0, Data)]);
    assert_eq!(deps.preds(2), &[(1, Data), (0, Order)]);
    assert_eq!(deps.preds(3), &[(1, Data), (2, Data)]);
}

/// Dead-node dropping against a rebuild: node 0 writes transient `t` (nothing reads it),
/// then node 1 writes the external `out`, and with `touch_t` also `t`.
fn culled_pair(touch_t: bool) -> (bool, DepGraph, DepGraph) {
    use super::super::liveness::find_live_nodes;
    use super::super::table::AccessTable;
    let write = |name: &str| {
        ParamDesc::new(name, ValueType::Texture).with_access(AccessDesc::writeonly(AccessFlags::CS))
    };
    let mut builder = GraphBuilder::new();
    let one = builder.declare_node(NodeDeclDesc::new(
        "one",
        QueueClass::Compute,
        vec![write("a")],
    ));
    let two = builder.declare_node(NodeDeclDesc::new(
        "two",
        QueueClass::Compute,
        vec![write("a"), write("b")],
    ));
    builder.begin_frame(0);
    let desc = ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, 8, 8);
    let out = builder.import_external("out", desc).unwrap();
    let t = builder.create_resource(desc, 1).unwrap();
    let out = builder.default_texture_view(out).unwrap();
    let t = builder.default_texture_view(t).unwrap();
    let calls: Vec<(DeclId, Vec<TextureView>)> = if touch_t {
        vec![(one, vec![t]), (two, vec![out, t])]
    } else {
        vec![(one, vec![t]), (one, vec![out])]
    };
    for (key, (decl, views)) in calls.iter().enumerate() {
        let mut args = ArgsWriter::new(builder.decl(*decl).unwrap());
        for (index, view) in views.iter().enumerate() {
            args.write_texture(index, view);
        }
        builder
            .call_node(*decl, args.bytes(), CallFlags::default(), key as u64)
            .unwrap();
    }
    let graph = builder.finish().unwrap();
    let mut table = AccessTable::default();
    table.build(graph);
    let mut builder = DepBuilder::default();
    let mut dropped = DepGraph::default();
    builder.build_from_table(graph, &table, None, &mut dropped);
    let mut alive = Vec::new();
    let live = find_live_nodes(graph, &table, &dropped, true, &mut alive, &mut Vec::new());
    assert_eq!((live, alive.as_slice()), (1, &[false, true][..]));
    let done = builder.drop_dead_nodes(graph, &table, &alive, &mut dropped);
    let mut rebuilt = DepGraph::default();
    builder.build_from_table(graph, &table, Some(&alive), &mut rebuilt);
    (done, dropped, rebuilt)
}

#[test]
fn dead_nodes_dropped_only_where_a_rebuild_agrees() {
    // Nothing live touches `t`: dropping node 0's (empty) list is the whole difference.
    let (done, dropped, rebuilt) = culled_pair(false);
    assert!(done);
    assert_eq!(dropped.pred_start, rebuilt.pred_start);
    assert_eq!(dropped.edges, rebuilt.edges);
    // The dead node's level is dropped too.
    assert_eq!(dropped.depth, [0, 1]);
    assert_eq!(dropped.depth, rebuilt.depth);
    // Node 1 overwrites `t` after the dead node 0: its order edge goes in a rebuild only.
    let (done, kept, rebuilt) = culled_pair(true);
    assert!(!done);
    assert_eq!(kept.preds(1), &[(0, EdgeKind::Order)]);
    assert_eq!(rebuilt.preds(1), &[]);
    assert_eq!((kept.depth, rebuilt.depth), (vec![1, 2], vec![0, 1]));
}

#[test]
fn levels_follow_the_edges() {
    // Write, two reads, a write after them, a read: levels 1, 2, 2, 3, 4 (depth = level + 1).
    let deps = deps_of(&[1, 0, 0, 1, 0]);
    assert_eq!(deps.depth, [1, 2, 2, 3, 4]);
    // Relaxed read-writes read the group's earlier data (node 2 follows node 1): a chain.
    let deps = deps_of(&[1, 2, 2, 0]);
    assert_eq!(deps.depth, [1, 2, 3, 4]);
}
