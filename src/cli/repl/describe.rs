//! How the REPL shows a frame: the nodes an input added, the frame's figures, and the compiled
//! schedule with its barriers.

use std::fmt::Write as _;

use rpsl::runtime::{AccessRange, CompiledFrame, NodeId, RecordedGraph};

/// The display name of a resource.
fn resource_name(graph: &RecordedGraph, index: usize) -> String {
    graph
        .resource_name(rpsl::runtime::ResourceId::from_index(index))
        .map_or_else(|| format!("r{index}"), str::to_string)
}

/// The nodes from `first` on (`+ node 3: Draw(rt = backbuffer)`), then the frame's figures.
pub fn summary(graph: &RecordedGraph, compiled: &CompiledFrame, first: usize) -> String {
    let mut text = String::new();
    let culled: std::collections::HashSet<NodeId> = compiled.culled.iter().copied().collect();
    for index in first..graph.nodes.len() {
        let node = NodeId(index as u32);
        let decl = graph.decl_of(node);
        let views: Vec<String> = graph
            .node_accesses(node)
            .iter()
            .map(|access| {
                let param = &decl.params[access.param as usize].name;
                let mut view = resource_name(graph, access.resource.index());
                if let AccessRange::Texture(range) = access.range {
                    let desc = &graph.resources[access.resource.index()].desc;
                    if range.mip_count != desc.mip_levels {
                        let _ = write!(view, ".mips({}, {})", range.base_mip, range.mip_count);
                    }
                    if range.layer_count != desc.array_layers() {
                        let _ = write!(view, ".array({}, {})", range.base_layer, range.layer_count);
                    }
                }
                format!("{param} = {view}")
            })
            .collect();
        let _ = writeln!(
            text,
            "+ node {index}: {}({}){}",
            decl.name,
            views.join(", "),
            if culled.contains(&node) {
                "  [culled: nothing uses its results]"
            } else {
                ""
            }
        );
    }
    let _ = writeln!(
        text,
        "frame: {} nodes ({} culled), {} resources, {} barrier batches, {} transitions, {} transient bytes",
        graph.nodes.len(),
        compiled.culled.len(),
        graph.resources.len(),
        compiled.batches,
        compiled.transitions,
        compiled.memory.transient_bytes
    );
    text
}

/// The compiled frame in execution order: each barrier batch before the node it precedes.
pub fn schedule(graph: &RecordedGraph, compiled: &CompiledFrame) -> String {
    let mut text = String::new();
    let write_batch = |text: &mut String, batch: &rpsl::runtime::BarrierBatch| {
        let barriers = batch.barriers.start as usize..batch.barriers.end as usize;
        for barrier in &compiled.barriers[barriers] {
            let _ = writeln!(
                text,
                "      barrier {}: {:?} -> {:?}",
                resource_name(graph, barrier.resource.index()),
                barrier.old_layout,
                barrier.new_layout
            );
        }
    };
    let mut batches = compiled.batch_list.iter().peekable();
    for (position, &node) in compiled.order.iter().enumerate() {
        while let Some(batch) = batches.next_if(|batch| batch.position as usize <= position) {
            write_batch(&mut text, batch);
        }
        let queue = compiled.node_queue.get(node.index()).copied().unwrap_or(0);
        let _ = writeln!(
            text,
            "  {position:>3}  {} (node {}, queue {queue})",
            graph.decl_of(node).name,
            node.0
        );
    }
    for batch in batches {
        write_batch(&mut text, batch);
    }
    let _ = writeln!(
        text,
        "memory: {} transient bytes ({} without aliasing)",
        compiled.memory.transient_bytes, compiled.memory.unaliased_bytes
    );
    text
}
