//! Frames in flight: each slot owns command buffers (per queue family, as many as its frames'
//! segments need), a fence, a timestamp query pool and the per-frame objects
//! (transient images and buffers, their heap, scratch images, per-frame image views) that must
//! outlive the frame's work. A slot is retired (waited for, with a timeout, and its per-frame
//! views freed) before it is reused; its transient resources and heap stay cached for the next
//! frame in the slot with the same transients (same descriptions, usage and placements), else
//! they are freed, and with them their views in the backend's [`ViewCache`].
//!
//! Release is slot-gated: a slot frees what it owns ([`FrameSlot::release`],
//! [`FrameSlot::free_scratch`]) only while it is idle — its last frame's fence was waited for
//! (or nothing was submitted) and the device is not wedged — and otherwise keeps it, so safe
//! code cannot destroy an object the GPU may still use.

use crate::context::{vk_error, Context};
use crate::depth_resolve::ResolveScratch;
use crate::resources::{GpuResource, TransientHeap};
use crate::timing::PendingTimings;
use crate::view_cache::ViewCache;
use ash::vk;
use gpu_allocator::vulkan::Allocator;
use rpsl_runtime::{BackendError, ResourceDesc};
use std::time::Duration;

/// Waits for a fence with a timeout, then resets it. A timeout or a lost device marks the
/// context wedged (nothing waits for the device again, see [`Context::wedged`]).
pub(crate) fn wait_fence(
    context: &Context,
    fence: vk::Fence,
    timeout: Duration,
) -> Result<(), BackendError> {
    let device = &context.device;
    let nanos = timeout.as_nanos().min(u64::MAX as u128) as u64;
    // SAFETY: waiting on a fence of this device.
    unsafe { device.wait_for_fences(&[fence], true, nanos) }.map_err(|r| {
        context.wedged.set(true);
        if r == vk::Result::TIMEOUT {
            BackendError::Timeout(format!("the GPU work did not finish within {timeout:?}"))
        } else {
            vk_error("vkWaitForFences", r)
        }
    })?;
    // SAFETY: the fence is signalled and no submission uses it.
    unsafe { device.reset_fences(&[fence]) }.map_err(|r| vk_error("vkResetFences", r))
}

/// Waits (with a timeout) until `timeline` reaches `value`: the last batch of a frame the
/// application submits. A timeout or a lost device marks the context wedged.
pub(crate) fn wait_timeline(
    context: &Context,
    timeline: vk::Semaphore,
    value: u64,
    timeout: Duration,
) -> Result<(), BackendError> {
    let nanos = timeout.as_nanos().min(u64::MAX as u128) as u64;
    let semaphores = [timeline];
    let values = [value];
    let info = vk::SemaphoreWaitInfo::default()
        .semaphores(&semaphores)
        .values(&values);
    // SAFETY: waiting on a timeline semaphore of this device.
    unsafe { context.device.wait_semaphores(&info, nanos) }.map_err(|r| {
        context.wedged.set(true);
        if r == vk::Result::TIMEOUT {
            BackendError::Timeout(format!(
                "the frame's batches did not complete within {timeout:?} (were they all submitted?)"
            ))
        } else {
            vk_error("vkWaitSemaphores", r)
        }
    })
}

/// What identifies a frame's set of transients: per transient its resource index, description,
/// usage and planned `(offset, size)`.
pub(crate) type TransientKey = Vec<(usize, ResourceDesc, vk::ImageUsageFlags, Option<(u64, u64)>)>;

/// One frame in flight.
pub(crate) struct FrameSlot {
    /// Command buffers by queue family, and how many of each family this frame uses.
    command_buffers: Vec<(u32, vk::CommandBuffer)>,
    used: Vec<bool>,
    pub fence: vk::Fence,
    /// Timestamp queries (null until timings are asked for) and their count.
    pub query_pool: vk::QueryPool,
    pub query_capacity: u32,
    /// What the queries of the frame in flight mean.
    pub timings: Option<PendingTimings>,
    /// Per-frame scratch resources (region, buffer and texture clears), freed when the slot
    /// is reused.
    pub scratch: Vec<GpuResource>,
    /// Scratch images of buffer render targets, kept for the slot's next frame.
    pub buffer_targets: Vec<GpuResource>,
    /// Scratch images of depth/stencil resolves, kept for the slot's next frame (lent to the
    /// frame's recorder while it records).
    pub resolve_scratch: ResolveScratch,
    /// The slot's frame was submitted and its fence not yet waited for.
    pub in_flight: bool,
    /// The frame was recorded for the application to submit: it is complete when this
    /// timeline semaphore reaches this value (its fence is not used).
    pub completes_at: Option<(vk::Semaphore, u64)>,
    pub transients: Vec<(usize, GpuResource)>,
    pub key: TransientKey,
    pub heap: Option<TransientHeap>,
    pub views: Vec<vk::ImageView>,
}

impl FrameSlot {
    /// A slot (command buffers are allocated as frames need them).
    pub fn new(context: &Context, index: usize) -> Result<FrameSlot, BackendError> {
        let device = &context.device;
        // SAFETY: valid create info.
        let fence = unsafe { device.create_fence(&vk::FenceCreateInfo::default(), None) }
            .map_err(|r| vk_error("vkCreateFence", r))?;
        context.name(fence, &format!("rpsl frame fence {index}"));
        Ok(FrameSlot {
            command_buffers: Vec::new(),
            used: Vec::new(),
            fence,
            query_pool: vk::QueryPool::null(),
            query_capacity: 0,
            timings: None,
            scratch: Vec::new(),
            buffer_targets: Vec::new(),
            resolve_scratch: ResolveScratch::default(),
            in_flight: false,
            completes_at: None,
            transients: Vec::new(),
            key: Vec::new(),
            heap: None,
            views: Vec::new(),
        })
    }

    /// An unused command buffer of `family` (from `pool`) for this frame.
    pub fn command_buffer(
        &mut self,
        context: &Context,
        pool: vk::CommandPool,
        family: u32,
    ) -> Result<vk::CommandBuffer, BackendError> {
        if let Some(index) = (0..self.command_buffers.len())
            .find(|&i| !self.used[i] && self.command_buffers[i].0 == family)
        {
            self.used[index] = true;
            return Ok(self.command_buffers[index].1);
        }
        let info = vk::CommandBufferAllocateInfo::default()
            .command_pool(pool)
            .level(vk::CommandBufferLevel::PRIMARY)
            .command_buffer_count(1);
        // SAFETY: valid allocate info on a live pool.
        let cb = unsafe { context.device.allocate_command_buffers(&info) }
            .map_err(|r| vk_error("vkAllocateCommandBuffers", r))?[0];
        context.name(
            cb,
            &format!(
                "rpsl frame commands {} (family {family})",
                self.command_buffers.len()
            ),
        );
        self.command_buffers.push((family, cb));
        self.used.push(true);
        Ok(cb)
    }

    /// Marks every command buffer unused (the slot is not in flight).
    pub fn recycle_command_buffers(&mut self) {
        self.used.iter_mut().for_each(|used| *used = false);
    }

    /// Waits for the slot's frame (if submitted) and frees its per-frame image views;
    /// transients stay cached. On a timeout everything is kept (the GPU may still use it).
    /// Slot-gated: the views stay while the device is wedged (a submission that failed
    /// half-way may have left work running that uses them).
    pub fn retire(&mut self, context: &Context, timeout: Duration) -> Result<(), BackendError> {
        if self.in_flight {
            match self.completes_at.take() {
                Some((timeline, value)) => wait_timeline(context, timeline, value, timeout)?,
                None => wait_fence(context, self.fence, timeout)?,
            }
            self.in_flight = false;
        }
        if !self.is_idle(context) {
            return Ok(());
        }
        for view in self.views.drain(..) {
            // SAFETY: no submitted work uses the view any more.
            unsafe { context.device.destroy_image_view(view, None) };
        }
        Ok(())
    }

    /// No work of the slot can be pending: its last frame's fence was waited for (or the frame
    /// was never submitted), and no submission failed half-way (the device is not wedged).
    pub fn is_idle(&self, context: &Context) -> bool {
        !self.in_flight && !context.wedged.get()
    }

    /// Frees the per-frame objects, the transients and scratch images (with their views in
    /// `view_cache`). Slot-gated: a slot that is not [idle](Self::is_idle) keeps everything;
    /// returns whether it released.
    pub fn release(
        &mut self,
        context: &Context,
        allocator: &mut Allocator,
        view_cache: &mut ViewCache,
    ) -> bool {
        if !self.free_scratch(context, allocator) {
            return false;
        }
        for view in self.views.drain(..) {
            // SAFETY: the slot is idle, so no submitted work uses the view.
            unsafe { context.device.destroy_image_view(view, None) };
        }
        self.key.clear();
        for resource in self.buffer_targets.drain(..) {
            // SAFETY: the slot is idle, and only its frames use its scratch images (and their
            // views), which go before the images.
            unsafe {
                view_cache.forget(context, &resource);
                resource.destroy(context, allocator);
            }
        }
        // SAFETY: the slot is idle, and only its frames use its resolve scratch.
        unsafe { self.resolve_scratch.destroy(context, view_cache) };
        for (_, resource) in self.transients.drain(..) {
            // SAFETY: as above: transients belong to the slot's frames alone.
            unsafe {
                view_cache.forget(context, &resource);
                resource.destroy(context, allocator);
            }
        }
        if let Some(heap) = self.heap.take() {
            let _ = allocator.free(heap.allocation);
        }
        true
    }

    /// Frees the scratch resources. Slot-gated like [`Self::release`]; returns whether it freed.
    pub fn free_scratch(&mut self, context: &Context, allocator: &mut Allocator) -> bool {
        if !self.is_idle(context) {
            return false;
        }
        for resource in self.scratch.drain(..) {
            // SAFETY: the slot is idle and only its frames use its scratch; nothing makes
            // views of scratch buffers and images (they are not in the view cache).
            unsafe { resource.destroy(context, allocator) };
        }
        true
    }

    /// Destroys the fence and query pool (command buffers go with their pools).
    ///
    /// # Safety
    ///
    /// The device is idle (or at least the slot's submissions have all completed), and the
    /// slot's resources were released first.
    pub unsafe fn destroy(self, context: &Context) {
        // SAFETY: the caller guarantees no submission uses the fence or the query pool.
        unsafe {
            context.device.destroy_fence(self.fence, None);
            if self.query_pool != vk::QueryPool::null() {
                context.device.destroy_query_pool(self.query_pool, None);
            }
        }
    }
}
