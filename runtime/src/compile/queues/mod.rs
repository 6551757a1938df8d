//! Queue assignment: graphics nodes and everything not called `async` go to queue 0 (the main
//! graphics queue); with async compute, `async` calls of non-graphics declarations go to one
//! compute queue.

use crate::decl::QueueClass;
use crate::graph::RecordedGraph;

/// Queue index of every live node: 0 (graphics), or with `async_compute` the compute queue
/// (created at the first `async` call of a non-graphics declaration, in call order). The
/// caller passes `async_compute` false for a frame without `async` calls
/// (`AccessTable::any_async`), whose node records then are not read again.
pub(crate) fn assign(
    graph: &RecordedGraph,
    alive: &[bool],
    async_compute: bool,
    node_queue: &mut Vec<u32>,
    queues: &mut Vec<QueueClass>,
) {
    queues.clear();
    queues.push(QueueClass::Graphics);
    node_queue.clear();
    node_queue.extend(alive.iter().map(|&live| if live { 0 } else { u32::MAX }));
    if !async_compute {
        return;
    }
    let mut compute_queue = None;
    for ((node, &live), queue) in graph.nodes.iter().zip(alive).zip(node_queue.iter_mut()) {
        if node.flags.prefer_async
            && live
            && graph.decls[node.decl.index()].queue != QueueClass::Graphics
        {
            *queue = *compute_queue.get_or_insert_with(|| {
                queues.push(QueueClass::Compute);
                queues.len() as u32 - 1
            });
        }
    }
}
