//! Recording and multi-queue submission of one compiled frame. Every logical queue of the frame
//! (`CompiledFrame::queues`) runs on a [`Lane`] (graphics, async compute or copy; lanes share a
//! `VkQueue` when the device has fewer families). Each logical queue's commands are split into
//! segments (one command buffer each) at the compiler's [`QueueWait`]s: a segment ends after a
//! node another queue waits for and signals its lane's timeline semaphore; a segment begins
//! before a waiting node and waits for those values. Barriers go to their destination queue:
//! same-queue barriers before that queue's next node, cross-queue ones after the semaphore wait
//! that orders them (the semaphore carries the memory dependency, so their source scope becomes
//! `ALL_COMMANDS` with no access). Segments are submitted in the order they close, so every
//! signal is submitted before its wait; the last segment, on the graphics queue, waits for every
//! other queue and carries the end-of-frame barriers and the frame's fence.

use crate::app_resources::{
    CommandBufferSource, FrameSync, ImportBarriers, RecordedBatch, SemaphoreOp,
};
use crate::context::{vk_error, Context};
use crate::node::bind_node_views;
use crate::node::{HostBuffers, NodeCallback, NodeContext};
use crate::record::FrameRecorder;
use crate::slots::FrameSlot;
use crate::timing::TimedNode;
use ash::vk;
use rpsl_runtime::{BackendError, Barrier, QueueClass, QueueWait};
use std::collections::HashMap;

/// One hardware queue with its timeline semaphore.
pub(crate) struct Lane {
    /// The queue family.
    pub family: u32,
    /// The queue.
    pub queue: vk::Queue,
    /// The timeline semaphore signalled by this lane's segments.
    pub timeline: vk::Semaphore,
    /// The last value submitted for signalling.
    pub value: u64,
}

/// The lane index of a queue class: 0 graphics, 1 compute, 2 copy.
pub(crate) fn lane_of(class: QueueClass) -> usize {
    match class {
        QueueClass::Graphics => 0,
        QueueClass::Compute => 1,
        QueueClass::Copy => 2,
    }
}

/// A segment being recorded.
struct OpenSegment {
    cb: vk::CommandBuffer,
    waits: Vec<(usize, u64)>,
}

/// A recorded segment, ready to submit.
struct ClosedSegment {
    lane: usize,
    cb: vk::CommandBuffer,
    waits: Vec<(usize, u64)>,
    signal: u64,
    /// The frame's first segment: it also waits for the application's semaphores.
    first: bool,
}

/// What recording a frame needs besides the recorder.
pub(crate) struct FrameSubmission<'a> {
    pub lanes: &'a mut [Lane],
    pub pools: &'a HashMap<u32, vk::CommandPool>,
    pub slot: &'a mut FrameSlot,
    /// The backend's allocator (for the host buffers of node callbacks, in the slot's scratch).
    pub allocator: &'a mut gpu_allocator::vulkan::Allocator,
    pub nodes: &'a mut HashMap<String, Box<NodeCallback>>,
    pub allow_unbound: bool,
    pub timestamps: bool,
    /// Barriers of the application's resources before and after the frame.
    pub imports: &'a ImportBarriers,
    /// The application's semaphores and fence for this frame.
    pub sync: Option<&'a FrameSync>,
    /// The application's command buffers, when it submits the frame itself.
    pub command_buffers: Option<&'a mut CommandBufferSource<'a>>,
}

struct Segments<'a> {
    context: &'a Context,
    open: Vec<Option<OpenSegment>>,
    closed: Vec<ClosedSegment>,
    lane_of_queue: Vec<usize>,
    /// Value each lane had signalled (submitted) before this frame.
    frame_start: Vec<u64>,
}

impl Segments<'_> {
    fn begin(
        &mut self,
        sub: &mut FrameSubmission<'_>,
        queue: usize,
        waits: Vec<(usize, u64)>,
    ) -> Result<vk::CommandBuffer, BackendError> {
        let lane = self.lane_of_queue[queue];
        let family = sub.lanes[lane].family;
        let pool = *sub.pools.get(&family).ok_or_else(|| {
            BackendError::Api(format!("no command pool for queue family {family}"))
        })?;
        let device = &self.context.device;
        let cb = match sub.command_buffers.as_mut() {
            // The application's, in the initial state.
            Some(source) => source(family),
            None => {
                let cb = sub.slot.command_buffer(self.context, pool, family)?;
                // SAFETY: the slot was retired, so its command buffers are not in flight.
                unsafe { device.reset_command_buffer(cb, vk::CommandBufferResetFlags::empty()) }
                    .map_err(|r| vk_error("vkResetCommandBuffer", r))?;
                cb
            }
        };
        if cb == vk::CommandBuffer::null() {
            return Err(BackendError::Api(format!(
                "the application gave no command buffer for queue family {family}"
            )));
        }
        // SAFETY: a command buffer in the initial state (reset above, or the application's).
        unsafe {
            device
                .begin_command_buffer(
                    cb,
                    &vk::CommandBufferBeginInfo::default()
                        .flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT),
                )
                .map_err(|r| vk_error("vkBeginCommandBuffer", r))?;
        }
        // Every queue's first segment of the frame waits for the previous frame's graphics work
        // (external and persistent resources rest in graphics-queue states between frames).
        let mut waits = waits;
        if lane != 0 && self.frame_start[0] > 0 && !self.closed.iter().any(|s| s.lane == lane) {
            waits.push((0, self.frame_start[0]));
        }
        self.open[queue] = Some(OpenSegment { cb, waits });
        Ok(cb)
    }

    /// The command buffer of `queue`'s open segment, opening one when none is.
    fn current(
        &mut self,
        sub: &mut FrameSubmission<'_>,
        queue: usize,
    ) -> Result<vk::CommandBuffer, BackendError> {
        match &self.open[queue] {
            Some(open) => Ok(open.cb),
            None => self.begin(sub, queue, Vec::new()),
        }
    }

    /// Ends `queue`'s open segment; returns the value it signals.
    fn close(
        &mut self,
        sub: &mut FrameSubmission<'_>,
        queue: usize,
    ) -> Result<Option<u64>, BackendError> {
        let Some(open) = self.open[queue].take() else {
            return Ok(None);
        };
        // SAFETY: the command buffer is recording.
        unsafe { self.context.device.end_command_buffer(open.cb) }
            .map_err(|r| vk_error("vkEndCommandBuffer", r))?;
        let lane = self.lane_of_queue[queue];
        sub.lanes[lane].value += 1;
        let signal = sub.lanes[lane].value;
        let first = self.closed.is_empty();
        self.closed.push(ClosedSegment {
            lane,
            cb: open.cb,
            waits: open.waits,
            signal,
            first,
        });
        Ok(Some(signal))
    }
}

/// Rewrites a cross-queue barrier for its destination queue: the semaphore wait before it
/// carries the execution and memory dependency.
fn after_semaphore(mut barrier: Barrier) -> Barrier {
    barrier.src_stages = rpsl_runtime::vk::Stages::ALL_COMMANDS;
    barrier.src_accesses = rpsl_runtime::vk::Accesses::NONE;
    barrier
}

/// Stages a queue of `class` can execute (Vulkan's "supported pipeline stages" per queue
/// capability), as `VkPipelineStageFlags2` bits.
fn stages_supported_by(class: QueueClass) -> u64 {
    const ANY_QUEUE: u64 = 0x1 | 0x2000 | 0x4000 | 0x10000; // top, bottom, host, all commands
    const TRANSFER: u64 = 0x1000 | 0x1_0000_0000 | 0x2_0000_0000 | 0x4_0000_0000 | 0x8_0000_0000;
    const COMPUTE: u64 = 0x2 | 0x800; // draw indirect (dispatch indirect), compute shader
    match class {
        QueueClass::Graphics => u64::MAX,
        QueueClass::Compute => ANY_QUEUE | TRANSFER | COMPUTE,
        QueueClass::Copy => ANY_QUEUE | TRANSFER,
    }
}

/// Keeps a barrier recorded on a queue of `class` within the stages that queue supports: a
/// stage mask naming stages of another queue's kind (a read state merged across queues, say,
/// whose fragment-shader readers run on the graphics queue after a semaphore wait) becomes
/// ALL_COMMANDS of this queue, which every access mask is valid with.
fn fit_to_queue(mut barrier: Barrier, class: QueueClass) -> Barrier {
    let supported = stages_supported_by(class);
    let fit = |stages: rpsl_runtime::vk::Stages| {
        if stages.0 & !supported != 0 {
            rpsl_runtime::vk::Stages::ALL_COMMANDS
        } else {
            stages
        }
    };
    barrier.src_stages = fit(barrier.src_stages);
    barrier.dst_stages = fit(barrier.dst_stages);
    barrier
}

/// Records the frame into segments and submits them; the last submission signals the slot's
/// fence. When the application submits, returns the batches instead (the slot completes when
/// the last batch's timeline value is reached). On failure, open command buffers are ended
/// and nothing is submitted.
pub(crate) fn record_and_submit_frame(
    recorder: &mut FrameRecorder<'_>,
    sub: &mut FrameSubmission<'_>,
    timed: &mut Vec<TimedNode>,
) -> Result<Vec<RecordedBatch>, BackendError> {
    let frame = recorder.frame;
    let graph = recorder.graph;
    let context = recorder.context;
    let queue_count = frame.queues.len().max(1);
    let lane_of_queue: Vec<usize> = (0..queue_count)
        .map(|q| frame.queues.get(q).map_or(0, |&class| lane_of(class)))
        .collect();
    let mut segments = Segments {
        context,
        open: (0..queue_count).map(|_| None).collect(),
        closed: Vec::new(),
        lane_of_queue,
        frame_start: sub.lanes.iter().map(|lane| lane.value).collect(),
    };
    let result = record_prologue(sub, &mut segments)
        .and_then(|()| record_segments(recorder, sub, &mut segments, timed));
    if let Err(error) = result {
        for queue in 0..queue_count {
            if let Some(open) = segments.open[queue].take() {
                // SAFETY: ending a recording command buffer that will not be submitted.
                let _ = unsafe { context.device.end_command_buffer(open.cb) };
            }
        }
        // The values of segments never submitted must not be waited for later.
        for segment in &segments.closed {
            sub.lanes[segment.lane].value = sub.lanes[segment.lane].value.min(segment.signal - 1);
        }
        return Err(error);
    }
    let _ = graph;
    if sub.command_buffers.is_some() {
        return Ok(batches_for_application(sub, &segments.closed));
    }
    submit_segments(context, sub, &segments.closed).map(|()| Vec::new())
}

/// The batches of a frame the application submits: each segment's command buffer with its
/// waits and signals. The slot is in flight until the last batch's value is reached.
fn batches_for_application(
    sub: &mut FrameSubmission<'_>,
    closed: &[ClosedSegment],
) -> Vec<RecordedBatch> {
    let all = vk::PipelineStageFlags2::ALL_COMMANDS;
    let mut batches = Vec::with_capacity(closed.len());
    for (index, segment) in closed.iter().enumerate() {
        let lane = &sub.lanes[segment.lane];
        let mut waits: Vec<SemaphoreOp> = segment
            .waits
            .iter()
            .map(|&(lane, value)| SemaphoreOp::timeline(sub.lanes[lane].timeline, value, all))
            .collect();
        let mut signals = vec![SemaphoreOp::timeline(lane.timeline, segment.signal, all)];
        if let Some(sync) = sub.sync {
            if segment.first {
                waits.extend_from_slice(&sync.waits);
            }
            if index + 1 == closed.len() {
                signals.extend_from_slice(&sync.signals);
            }
        }
        batches.push(RecordedBatch {
            queue_family: lane.family,
            queue: lane.queue,
            command_buffer: segment.cb,
            waits,
            signals,
        });
    }
    if let Some(last) = closed.last() {
        sub.slot.in_flight = true;
        sub.slot.completes_at = Some((sub.lanes[last.lane].timeline, last.signal));
    }
    batches
}

/// When the application's resources need barriers before the frame, or the frame waits for
/// the application's semaphores (then a global barrier after the waits' stages orders the rest
/// of the frame after them), a first segment on the graphics queue does both; every other
/// queue's first segment waits for it.
fn record_prologue(
    sub: &mut FrameSubmission<'_>,
    segments: &mut Segments<'_>,
) -> Result<(), BackendError> {
    if sub.imports.prologue_empty() {
        return Ok(());
    }
    let cb = segments.begin(sub, 0, Vec::new())?;
    // SAFETY: `cb` was just begun on the graphics queue's family, outside any render pass.
    unsafe { sub.imports.record(segments.context, cb, true) };
    if let Some(value) = segments.close(sub, 0)? {
        let lane = segments.lane_of_queue[0];
        segments.frame_start[lane] = value;
    }
    Ok(())
}

fn record_segments(
    recorder: &mut FrameRecorder<'_>,
    sub: &mut FrameSubmission<'_>,
    segments: &mut Segments<'_>,
    timed: &mut Vec<TimedNode>,
) -> Result<(), BackendError> {
    let frame = recorder.frame;
    let graph = recorder.graph;
    let queue_count = segments.open.len();
    let end = frame.order.len() as u32;
    let queue_of = |position: u32| -> usize {
        let node = frame.order[position as usize];
        (frame.node_queue.get(node.index()).copied().unwrap_or(0) as usize).min(queue_count - 1)
    };
    let mut pending: Vec<Vec<Barrier>> = vec![Vec::new(); queue_count];
    let mut deferred: Vec<(u32, usize, Barrier)> = Vec::new();
    let mut signal_values: HashMap<(usize, u32), u64> = HashMap::new();
    let mut batches = frame.batch_list.iter().peekable();
    let mut passes = frame.render_passes.iter().peekable();
    let query = |position: u32| position * 2;
    for position in 0..=end {
        if let Some(batch) = batches.next_if(|b| b.position <= position) {
            for barrier in
                &frame.barriers[batch.barriers.start as usize..batch.barriers.end as usize]
            {
                let target = if position == end {
                    0
                } else {
                    (barrier.dst_queue as usize).min(queue_count - 1)
                };
                let source = (barrier.src_queue as usize).min(queue_count - 1);
                if source == target || queue_count == 1 {
                    pending[target].push(*barrier);
                    continue;
                }
                let wait = frame
                    .queue_waits
                    .iter()
                    .filter(|w| {
                        w.wait_queue as usize == target
                            && w.signal_queue as usize == source
                            && w.wait_before >= position
                    })
                    .map(|w| w.wait_before)
                    .min();
                match wait {
                    Some(at) if position < end => {
                        deferred.push((at, target, after_semaphore(*barrier)))
                    }
                    _ => pending[target].push(after_semaphore(*barrier)),
                }
            }
        }
        if position == end {
            break;
        }
        let queue = queue_of(position);
        let waits: Vec<&QueueWait> = frame
            .queue_waits
            .iter()
            .filter(|w| w.wait_queue as usize == queue && w.wait_before == position)
            .collect();
        if !waits.is_empty() {
            let mut values = Vec::new();
            for wait in waits {
                let source = (wait.signal_queue as usize).min(queue_count - 1);
                let value = signal_values
                    .get(&(source, wait.signal_after))
                    .copied()
                    .ok_or_else(|| {
                        BackendError::Api(format!(
                            "queue wait before position {position} on a signal after position {} that was not recorded",
                            wait.signal_after
                        ))
                    })?;
                values.push((segments.lane_of_queue[source], value));
            }
            segments.close(sub, queue)?;
            segments.begin(sub, queue, values)?;
        }
        recorder.cb = segments.current(sub, queue)?;
        let mut mine: Vec<Barrier> = std::mem::take(&mut pending[queue]);
        deferred.retain(|&(at, target, barrier)| {
            let due = at == position && target == queue;
            if due {
                mine.push(barrier);
            }
            !due
        });
        let class = frame.queues.get(queue).copied().unwrap_or_default();
        for barrier in &mut mine {
            *barrier = fit_to_queue(*barrier, class);
        }
        recorder.record_barriers(&mine)?;
        let node = frame.order[position as usize];
        let decl = graph.decl_of(node);
        if sub.timestamps {
            // SAFETY: the slot's pool was reset for `2 * nodes + 1` queries this frame
            // (`timing::prepare_queries`); each position writes its own two.
            unsafe { recorder.timestamp(sub.slot.query_pool, query(position)) };
            timed.push(TimedNode {
                position,
                node,
                name: decl.name.clone(),
                queue_class: frame.queues.get(queue).copied().unwrap_or_default(),
            });
        }
        let pass = passes.next_if(|pass| pass.node == node);
        recorder.begin_label(&decl.name);
        let recorded = record_node(recorder, sub, node, pass);
        recorder.end_label();
        recorded?;
        if sub.timestamps {
            // SAFETY: as above.
            unsafe { recorder.timestamp(sub.slot.query_pool, query(position) + 1) };
        }
        let signalled = frame
            .queue_waits
            .iter()
            .any(|w| w.signal_queue as usize == queue && w.signal_after == position);
        if signalled {
            if let Some(value) = segments.close(sub, queue)? {
                signal_values.insert((queue, position), value);
            }
        }
    }
    // Close every other queue, then the graphics queue's last segment waits for all of them.
    let mut last_values = Vec::new();
    for queue in 1..queue_count {
        if let Some(value) = segments.close(sub, queue)? {
            last_values.push((segments.lane_of_queue[queue], value));
        }
    }
    for segment in &segments.closed {
        if segment.lane != 0
            && !last_values
                .iter()
                .any(|&(lane, v)| lane == segment.lane && v >= segment.signal)
        {
            last_values.retain(|&(lane, _)| lane != segment.lane);
            last_values.push((segment.lane, segment.signal));
        }
    }
    if !last_values.is_empty() {
        segments.close(sub, 0)?;
        segments.begin(sub, 0, last_values)?;
    }
    recorder.cb = segments.current(sub, 0)?;
    let mut rest: Vec<Barrier> = std::mem::take(&mut pending[0]);
    for queue_pending in pending.iter_mut().skip(1) {
        rest.extend(queue_pending.drain(..).map(after_semaphore));
    }
    rest.extend(deferred.drain(..).map(|(_, _, barrier)| barrier));
    recorder.record_barriers(&rest)?;
    // SAFETY: the graphics queue's last segment is recording, outside any render pass.
    unsafe { sub.imports.record(recorder.context, recorder.cb, false) };
    if sub.timestamps {
        // SAFETY: the last of the slot's `2 * nodes + 1` queries reset for this frame.
        unsafe { recorder.timestamp(sub.slot.query_pool, query(end)) };
    }
    segments.close(sub, 0)?;
    Ok(())
}

/// Records one node: its render pass, a built-in's commands or the bound callback.
fn record_node(
    recorder: &mut FrameRecorder<'_>,
    sub: &mut FrameSubmission<'_>,
    node: rpsl_runtime::NodeId,
    pass: Option<&rpsl_runtime::RenderPass>,
) -> Result<(), BackendError> {
    let graph = recorder.graph;
    let decl = graph.decl_of(node);
    if decl.is_builtin() {
        return recorder.record_builtin(node);
    }
    let callback = sub.nodes.get_mut(&decl.name);
    if callback.is_none() && !sub.allow_unbound {
        return Err(BackendError::UnboundNode {
            node,
            name: decl.name.clone(),
        });
    }
    if let Some(pass) = pass {
        recorder.begin_pass(pass)?;
    }
    if let Some(callback) = callback {
        let views = bind_node_views(recorder, node)?;
        let mut context = NodeContext {
            device: &recorder.context.device,
            command_buffer: recorder.cb,
            node,
            graph,
            args: graph.node_args(node),
            views: &views,
            render_pass: pass,
            counter: &recorder.view_cache.counter,
            features: &recorder.context.features,
            debug_utils: recorder.context.debug_device.as_ref(),
            host_buffers: HostBuffers {
                context: recorder.context,
                allocator: &mut *sub.allocator,
                scratch: &mut sub.slot.scratch,
            },
        };
        callback(&mut context).map_err(|message| BackendError::Node {
            node,
            name: decl.name.clone(),
            message,
        })?;
    }
    if let Some(pass) = pass {
        recorder.end_pass(pass)?;
    }
    Ok(())
}

fn submit_segments(
    context: &Context,
    sub: &mut FrameSubmission<'_>,
    closed: &[ClosedSegment],
) -> Result<(), BackendError> {
    for (index, segment) in closed.iter().enumerate() {
        let last = index + 1 == closed.len();
        let mut waits: Vec<_> = segment
            .waits
            .iter()
            .map(|&(lane, value)| {
                vk::SemaphoreSubmitInfo::default()
                    .semaphore(sub.lanes[lane].timeline)
                    .value(value)
                    .stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS)
            })
            .collect();
        let mut signals = vec![vk::SemaphoreSubmitInfo::default()
            .semaphore(sub.lanes[segment.lane].timeline)
            .value(segment.signal)
            .stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS)];
        if let Some(sync) = sub.sync {
            if segment.first {
                waits.extend(sync.waits.iter().map(|op| op.submit_info()));
            }
            if last {
                signals.extend(sync.signals.iter().map(|op| op.submit_info()));
            }
        }
        let buffers = [vk::CommandBufferSubmitInfo::default().command_buffer(segment.cb)];
        let info = vk::SubmitInfo2::default()
            .wait_semaphore_infos(&waits)
            .command_buffer_infos(&buffers)
            .signal_semaphore_infos(&signals);
        let fence = if last {
            sub.slot.fence
        } else {
            vk::Fence::null()
        };
        // SAFETY: the command buffer is executable; the semaphores and fence are live and the
        // fence is unsignalled (the slot was retired).
        let submitted = unsafe {
            context
                .device
                .queue_submit2(sub.lanes[segment.lane].queue, &[info], fence)
        };
        if let Err(result) = submitted {
            // Later values will never be signalled: later frames must not wait for them.
            for later in &closed[index..] {
                let lane = &mut sub.lanes[later.lane];
                lane.value = lane.value.min(later.signal - 1);
            }
            if index > 0 || result == vk::Result::ERROR_DEVICE_LOST {
                // Earlier segments are in flight without a fence (or the device is gone):
                // nothing may be freed or waited for any more.
                context.wedged.set(true);
            }
            return Err(vk_error("vkQueueSubmit2", result));
        }
    }
    sub.slot.in_flight = !closed.is_empty();
    let app_fence = sub.sync.map_or(vk::Fence::null(), |sync| sync.fence);
    if app_fence != vk::Fence::null() {
        let queue = closed
            .last()
            .map_or(sub.lanes[0].queue, |s| sub.lanes[s.lane].queue);
        // SAFETY: a submission without batches: the application's fence signals once all work
        // submitted to the queue before it (the frame's last segment, which waited for every
        // other queue's) completed.
        unsafe { context.device.queue_submit2(queue, &[], app_fence) }
            .map_err(|r| vk_error("vkQueueSubmit2 (the application's fence)", r))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use rpsl_runtime::vk::{Accesses, ImageLayout, Stages};
    use rpsl_runtime::{RegionRef, ResourceId};

    fn barrier(src: u64, dst: u64) -> Barrier {
        Barrier {
            resource: ResourceId(0),
            region: RegionRef::WHOLE,
            src_stages: Stages(src),
            src_accesses: Accesses::NONE,
            dst_stages: Stages(dst),
            dst_accesses: Accesses::NONE,
            old_layout: ImageLayout::Undefined,
            new_layout: ImageLayout::General,
            src_queue: 0,
            dst_queue: 0,
        }
    }

    #[test]
    fn barriers_keep_to_the_stages_of_their_queue() {
        const FRAGMENT: u64 = 0x80;
        const COMPUTE: u64 = 0x800;
        const COPY: u64 = 0x1_0000_0000;
        // Compute queue: fragment stages become ALL_COMMANDS, compute stages stay.
        let fitted = fit_to_queue(barrier(FRAGMENT, COMPUTE | FRAGMENT), QueueClass::Compute);
        assert_eq!(fitted.src_stages, Stages::ALL_COMMANDS);
        assert_eq!(fitted.dst_stages, Stages::ALL_COMMANDS);
        let kept = fit_to_queue(barrier(COPY, COMPUTE), QueueClass::Compute);
        assert_eq!(
            (kept.src_stages, kept.dst_stages),
            (Stages(COPY), Stages(COMPUTE))
        );
        // Copy queue: compute is foreign too.
        let copy = fit_to_queue(barrier(COPY, COMPUTE), QueueClass::Copy);
        assert_eq!(
            (copy.src_stages, copy.dst_stages),
            (Stages(COPY), Stages::ALL_COMMANDS)
        );
        // Graphics queues take everything as planned.
        let graphics = fit_to_queue(barrier(FRAGMENT, COMPUTE), QueueClass::Graphics);
        assert_eq!(
            (graphics.src_stages, graphics.dst_stages),
            (Stages(FRAGMENT), Stages(COMPUTE))
        );
    }
}
