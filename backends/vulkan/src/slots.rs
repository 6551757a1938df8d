//! Frames in flight: each slot owns a command buffer, a fence and the per-frame objects
//! (transient images and buffers, their heap, image views) that must outlive the frame's work.
//! A slot is retired (waited for, with a timeout, and its views freed) before it is reused; its
//! transient resources and heap stay cached for the next frame in the slot with the same
//! transients (same descriptions, usage and placements), else they are freed.

use crate::context::{vk_error, Context};
use crate::resources::{GpuResource, TransientHeap};
use ash::vk;
use gpu_allocator::vulkan::Allocator;
use rpsl_runtime::{BackendError, ResourceDesc};
use std::time::Duration;

/// Waits for a fence with a timeout, then resets it.
pub(crate) fn wait_fence(
    device: &ash::Device,
    fence: vk::Fence,
    timeout: Duration,
) -> Result<(), BackendError> {
    let nanos = timeout.as_nanos().min(u64::MAX as u128) as u64;
    // SAFETY: waiting on a fence of this device.
    unsafe { device.wait_for_fences(&[fence], true, nanos) }.map_err(|r| {
        if r == vk::Result::TIMEOUT {
            BackendError::Timeout(format!("the GPU work did not finish within {timeout:?}"))
        } else {
            vk_error("vkWaitForFences", r)
        }
    })?;
    // SAFETY: the fence is signalled and no submission uses it.
    unsafe { device.reset_fences(&[fence]) }.map_err(|r| vk_error("vkResetFences", r))
}

/// What identifies a frame's set of transients: per transient its resource index, description,
/// usage and planned `(offset, size)`.
pub(crate) type TransientKey = Vec<(usize, ResourceDesc, vk::ImageUsageFlags, Option<(u64, u64)>)>;

/// One frame in flight.
pub(crate) struct FrameSlot {
    pub cb: vk::CommandBuffer,
    pub fence: vk::Fence,
    pub in_flight: bool,
    pub transients: Vec<(usize, GpuResource)>,
    pub key: TransientKey,
    pub heap: Option<TransientHeap>,
    pub views: Vec<vk::ImageView>,
}

impl FrameSlot {
    /// A slot with its command buffer from `pool`.
    pub fn new(
        context: &Context,
        pool: vk::CommandPool,
        index: usize,
    ) -> Result<FrameSlot, BackendError> {
        let device = &context.device;
        let info = vk::CommandBufferAllocateInfo::default()
            .command_pool(pool)
            .level(vk::CommandBufferLevel::PRIMARY)
            .command_buffer_count(1);
        // SAFETY: valid allocate info on a live pool.
        let cb = unsafe { device.allocate_command_buffers(&info) }
            .map_err(|r| vk_error("vkAllocateCommandBuffers", r))?[0];
        // SAFETY: valid create info.
        let fence = unsafe { device.create_fence(&vk::FenceCreateInfo::default(), None) }
            .map_err(|r| vk_error("vkCreateFence", r))?;
        context.name(cb, &format!("rpsl frame commands {index}"));
        context.name(fence, &format!("rpsl frame fence {index}"));
        Ok(FrameSlot {
            cb,
            fence,
            in_flight: false,
            transients: Vec::new(),
            key: Vec::new(),
            heap: None,
            views: Vec::new(),
        })
    }

    /// Waits for the slot's frame (if submitted) and frees its image views; transients stay
    /// cached. On a timeout everything is kept (the GPU may still use it).
    pub fn retire(&mut self, context: &Context, timeout: Duration) -> Result<(), BackendError> {
        if self.in_flight {
            wait_fence(&context.device, self.fence, timeout)?;
            self.in_flight = false;
        }
        for view in self.views.drain(..) {
            // SAFETY: no submitted work uses the view any more.
            unsafe { context.device.destroy_image_view(view, None) };
        }
        Ok(())
    }

    /// Frees the per-frame objects; the slot must not be in flight.
    pub fn release(&mut self, context: &Context, allocator: &mut Allocator) {
        for view in self.views.drain(..) {
            // SAFETY: no submitted work uses the view any more.
            unsafe { context.device.destroy_image_view(view, None) };
        }
        self.key.clear();
        for (_, resource) in self.transients.drain(..) {
            resource.destroy(context, allocator);
        }
        if let Some(heap) = self.heap.take() {
            let _ = allocator.free(heap.allocation);
        }
    }

    /// Destroys the fence (the command buffer goes with its pool).
    pub fn destroy(self, context: &Context) {
        // SAFETY: the slot was retired.
        unsafe { context.device.destroy_fence(self.fence, None) };
    }
}
