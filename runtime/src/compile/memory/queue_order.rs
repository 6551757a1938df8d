//! Ordering across queues, for aliasing. With one queue every later position runs after every
//! earlier one; with an async compute queue a node on one queue runs after a node on another
//! only through the semaphore waits that cross-queue dependencies create. A transient's memory
//! may pass to another transient only when all accesses of the first happen before the second
//! starts, so its placement extent ("release") reaches past its last access up to the last
//! position, on any queue, that is not yet ordered after it.
//!
//! Placement looks for conflicts among the resources whose extents overlap and drops those that
//! [`QueueOrder::ordered`] proves apart, so memory still passes between resources that are
//! ordered on their own queue while another queue runs.
//!
//! Happens-before is tracked with a vector clock per position: for each queue, the latest
//! position on that queue known to have completed before this one starts (program order on the
//! same queue, dependency edges from other queues, transitively). Clocks only grow along a
//! queue, so "ordered after X" is a suffix of each queue's positions, found by binary search.

use crate::compile::deps::DepGraph;
use crate::compile::frame::Ordered;
use crate::graph::RecordedGraph;

/// Reusable scratch of [`QueueOrder::releases`].
#[derive(Debug, Default)]
pub struct QueueOrder {
    /// `clocks[position * queues + q]`: latest position on queue `q` ordered before `position`
    /// (`-1`: none).
    clocks: Vec<i32>,
    /// Positions of each queue, in order (CSR by `queue_start`).
    on_queue: Vec<u32>,
    queue_start: Vec<u32>,
    /// `last_access[resource * queues + q]`: last position accessing it on queue `q` (`-1`: none).
    last_access: Vec<i32>,
    /// `first_access[resource * queues + q]`: first position accessing it on queue `q` (`-1`:
    /// none).
    first_access: Vec<i32>,
    /// Queues of the last [`QueueOrder::releases`] (the clocks are valid when above 1).
    queues: usize,
}

impl QueueOrder {
    /// With several queues, fills `release` (by resource index) with the last position whose
    /// node may still run concurrently with, or before, some access of the resource: its last
    /// access extended until every queue is ordered after all of the resource's accesses (the
    /// frame's last position if some queue never is); `None` for resources without a lifetime.
    /// Returns whether the frame has several queues; with one, `release` is left untouched
    /// (every extent ends at the last access) and nothing is computed.
    pub fn releases(
        &mut self,
        graph: &RecordedGraph,
        deps: &DepGraph,
        frame: &Ordered<'_>,
        lifetimes: &[Option<(u32, u32)>],
        release: &mut Vec<Option<u32>>,
    ) -> bool {
        let queues = frame.queues.len();
        self.queues = queues;
        if queues <= 1 {
            return false;
        }
        release.clear();
        release.extend(lifetimes.iter().map(|l| l.map(|(_, last)| last)));
        self.build_clocks(deps, frame, queues);
        self.last_access.clear();
        self.last_access.resize(graph.resources.len() * queues, -1);
        self.first_access.clear();
        self.first_access.resize(graph.resources.len() * queues, -1);
        for (position, node) in frame.order.iter().enumerate() {
            let queue = frame.node_queue[node.index()] as usize;
            for access in graph.node_accesses(*node) {
                let slot = access.resource.index() * queues + queue;
                self.last_access[slot] = position as i32;
                if self.first_access[slot] < 0 {
                    self.first_access[slot] = position as i32;
                }
            }
        }
        for (index, end) in release.iter_mut().enumerate() {
            let Some(last) = *end else { continue };
            let accesses = &self.last_access[index * queues..(index + 1) * queues];
            let mut extended = last;
            for queue in 0..queues {
                let positions = &self.on_queue
                    [self.queue_start[queue] as usize..self.queue_start[queue + 1] as usize];
                let ordered_from = positions.partition_point(|&position| {
                    let clock = &self.clocks[position as usize * queues..][..queues];
                    !accesses
                        .iter()
                        .zip(clock)
                        .all(|(&access, &seen)| access <= seen)
                });
                if ordered_from > 0 {
                    extended = extended.max(positions[ordered_from - 1]);
                }
            }
            *end = Some(extended);
        }
        true
    }

    /// Every access of resource `early` happens before every access of resource `late` (by
    /// program order on one queue and dependency waits between queues), given that all of
    /// `early`'s accesses come before all of `late`'s in the schedule. Valid after
    /// [`QueueOrder::releases`] for the same frame.
    pub fn ordered(&self, early: u32, late: u32) -> bool {
        let queues = self.queues;
        if queues <= 1 {
            return true;
        }
        let last = &self.last_access[early as usize * queues..][..queues];
        let first = &self.first_access[late as usize * queues..][..queues];
        first.iter().filter(|&&at| at >= 0).all(|&at| {
            let clock = &self.clocks[at as usize * queues..][..queues];
            last.iter()
                .zip(clock)
                .all(|(&access, &seen)| access <= seen)
        })
    }

    fn build_clocks(&mut self, deps: &DepGraph, frame: &Ordered<'_>, queues: usize) {
        let positions = frame.order.len();
        self.clocks.clear();
        self.clocks.resize(positions * queues, -1);
        self.queue_start.clear();
        self.queue_start.resize(queues + 1, 0);
        for node in frame.order {
            self.queue_start[frame.node_queue[node.index()] as usize + 1] += 1;
        }
        for queue in 0..queues {
            self.queue_start[queue + 1] += self.queue_start[queue];
        }
        self.on_queue.clear();
        self.on_queue.resize(positions, 0);
        let mut fill: Vec<u32> = self.queue_start[..queues].to_vec();
        let mut previous_on_queue: Vec<Option<usize>> = vec![None; queues];
        for (position, node) in frame.order.iter().enumerate() {
            let queue = frame.node_queue[node.index()] as usize;
            self.on_queue[fill[queue] as usize] = position as u32;
            fill[queue] += 1;
            let row = position * queues;
            if let Some(previous) = previous_on_queue[queue] {
                self.clocks
                    .copy_within(previous * queues..(previous + 1) * queues, row);
            }
            self.clocks[row + queue] = position as i32;
            for &(pred, _) in deps.preds(node.index()) {
                let pred_position = frame.position[pred as usize];
                if pred_position == u32::MAX || frame.node_queue[pred as usize] as usize == queue {
                    continue;
                }
                let from = pred_position as usize * queues;
                for q in 0..queues {
                    let seen = self.clocks[from + q];
                    if seen > self.clocks[row + q] {
                        self.clocks[row + q] = seen;
                    }
                }
            }
            previous_on_queue[queue] = Some(position);
        }
    }
}
