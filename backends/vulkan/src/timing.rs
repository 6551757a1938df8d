//! GPU timings from timestamp queries: a query pool per frame slot, two timestamps per node
//! (before and after it, after its barriers) and one at the end of the frame, read back when the
//! slot is retired and turned into [`FrameTimings`].

use crate::context::{vk_error, Context};
use ash::vk;
use rpsl_runtime::{BackendError, NodeId, QueueClass};

/// The GPU time of one node.
#[derive(Clone, Debug, PartialEq)]
pub struct NodeTiming {
    /// Execution position in the frame.
    pub position: u32,
    /// The node (call index).
    pub node: NodeId,
    /// Its declaration's name.
    pub name: String,
    /// The queue class it ran on.
    pub queue_class: QueueClass,
    /// Nanoseconds between the timestamps before and after it.
    pub ns: f64,
}

/// GPU timings of one completed frame.
#[derive(Clone, Debug, PartialEq)]
pub struct FrameTimings {
    /// The frame's index among the frames this backend executed (from 0).
    pub frame_index: u64,
    /// Nanoseconds from the first node's start to the end of the frame.
    pub frame_ns: f64,
    /// Every executed node, in execution order.
    pub nodes: Vec<NodeTiming>,
}

/// A node whose timestamps a frame writes (queries `2 * position` and `2 * position + 1`).
#[derive(Clone, Debug)]
pub(crate) struct TimedNode {
    pub position: u32,
    pub node: NodeId,
    pub name: String,
    pub queue_class: QueueClass,
}

/// What a slot's queries of its last frame mean.
#[derive(Clone, Debug, Default)]
pub(crate) struct PendingTimings {
    pub frame_index: u64,
    pub nodes: Vec<TimedNode>,
    /// Queries written: `2 * node count + 1` (the last one is the end of the frame).
    pub queries: u32,
}

/// Makes sure `pool` holds at least `needed` queries (recreating it) and resets them from the
/// host.
///
/// # Safety
///
/// `pool` is null or a query pool of this device that no pending work uses (the frame slot
/// owning it is not in flight).
pub(crate) unsafe fn prepare_queries(
    context: &Context,
    pool: &mut vk::QueryPool,
    capacity: &mut u32,
    needed: u32,
) -> Result<(), BackendError> {
    let device = &context.device;
    if *capacity < needed {
        if *pool != vk::QueryPool::null() {
            // SAFETY: no pending work uses the pool (the caller's guarantee).
            unsafe { device.destroy_query_pool(*pool, None) };
            *pool = vk::QueryPool::null();
            *capacity = 0;
        }
        let count = needed.next_power_of_two().max(64);
        let info = vk::QueryPoolCreateInfo::default()
            .query_type(vk::QueryType::TIMESTAMP)
            .query_count(count);
        // SAFETY: valid create info on a live device.
        *pool = unsafe { device.create_query_pool(&info, None) }
            .map_err(|r| vk_error("vkCreateQueryPool", r))?;
        context.name(*pool, "rpsl node timestamps");
        *capacity = count;
    }
    // SAFETY: host query reset is enabled (checked when timestamps were asked for); no
    // pending work uses these queries (the caller's guarantee).
    unsafe { device.reset_query_pool(*pool, 0, needed) };
    Ok(())
}

/// Reads the queries of a completed frame.
pub(crate) fn read_timings(
    context: &Context,
    pool: vk::QueryPool,
    pending: &PendingTimings,
) -> Result<FrameTimings, BackendError> {
    let mut values = vec![0u64; pending.queries as usize];
    if pending.queries > 0 {
        // SAFETY: the frame completed (its fence was waited for), so every written query is
        // available; the slice holds one u64 per query.
        unsafe {
            context.device.get_query_pool_results(
                pool,
                0,
                &mut values,
                vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WAIT,
            )
        }
        .map_err(|r| vk_error("vkGetQueryPoolResults", r))?;
    }
    let period = context.timestamp_period as f64;
    let mask = context.timestamp_mask;
    let ticks = |from: u64, to: u64| ((to & mask).wrapping_sub(from & mask) & mask) as f64 * period;
    let nodes: Vec<NodeTiming> = pending
        .nodes
        .iter()
        .map(|timed| {
            let at = timed.position as usize * 2;
            NodeTiming {
                position: timed.position,
                node: timed.node,
                name: timed.name.clone(),
                queue_class: timed.queue_class,
                ns: ticks(values[at], values[at + 1]),
            }
        })
        .collect();
    let end = values.last().copied().unwrap_or(0);
    let start = pending
        .nodes
        .iter()
        .map(|timed| values[timed.position as usize * 2] & mask)
        .min()
        .unwrap_or(end);
    Ok(FrameTimings {
        frame_index: pending.frame_index,
        frame_ns: ticks(start, end),
        nodes,
    })
}
