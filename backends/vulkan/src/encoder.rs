//! [`CommandEncoder`]: the one place the backend records Vulkan commands (`vkCmd*`).
//!
//! An encoder wraps a device and a command buffer in the recording state. Making one is
//! `unsafe` (the caller vouches for that state), and so is every command that names Vulkan
//! objects or depends on where in the command buffer it lands: each method's `# Safety` section
//! says what its caller guarantees beyond the [encoder's own contract](CommandEncoder#safety).
//! Commands whose only requirement is the recording state (debug labels) are safe.
//!
//! ```ignore
//! // SAFETY: `cb` was begun on `device` and nothing else records into it meanwhile.
//! let encoder = unsafe { CommandEncoder::new(&device, None, cb) };
//! // SAFETY: outside a render pass; `image` lives until the command buffer completes.
//! unsafe { encoder.pipeline_barrier(&dependencies) };
//! ```

use ash::vk;
use std::ffi::CString;

/// Records commands into one command buffer.
///
/// # Safety
///
/// Every method relies on what [`CommandEncoder::new`] was promised: the command buffer belongs
/// to the device, is in the recording state for as long as the encoder is used, and nothing
/// else records into it at the same time. Every object handle passed to a method must be a live
/// object of the same device and stay alive until the command buffer has completed execution
/// (or is reset without being submitted); each method lists what it needs besides.
#[derive(Copy, Clone)]
pub(crate) struct CommandEncoder<'a> {
    device: &'a ash::Device,
    debug: Option<&'a ash::ext::debug_utils::Device>,
    cb: vk::CommandBuffer,
}

impl<'a> CommandEncoder<'a> {
    /// An encoder of `cb`; `debug` enables debug labels (VK_EXT_debug_utils).
    ///
    /// # Safety
    ///
    /// `cb` was allocated from a pool of `device` and is in the recording state while the
    /// encoder (or a copy) is used, and is recorded into only through encoders meanwhile (which
    /// never run concurrently). `debug` was loaded for `device`.
    pub unsafe fn new(
        device: &'a ash::Device,
        debug: Option<&'a ash::ext::debug_utils::Device>,
        cb: vk::CommandBuffer,
    ) -> CommandEncoder<'a> {
        CommandEncoder { device, debug, cb }
    }

    /// `vkCmdPipelineBarrier2`.
    ///
    /// # Safety
    ///
    /// Outside a render pass (inside one only as a self-dependency the pass allows). The
    /// barriers' images and buffers are live; each image barrier's `old_layout` is the layout
    /// its subresources are in when the barrier executes (or `UNDEFINED`), and its stages are
    /// ones the queue of the command buffer supports.
    pub unsafe fn pipeline_barrier(&self, dependencies: &vk::DependencyInfo<'_>) {
        // SAFETY: the encoder's contract and the caller's.
        unsafe { self.device.cmd_pipeline_barrier2(self.cb, dependencies) };
    }

    /// `vkCmdBeginRendering`.
    ///
    /// # Safety
    ///
    /// Outside a render pass, on a graphics queue's command buffer. The attachments' views are
    /// live, their images are in the attachment layouts `info` names, and the render area lies
    /// within every attachment.
    pub unsafe fn begin_rendering(&self, info: &vk::RenderingInfo<'_>) {
        // SAFETY: the encoder's contract and the caller's.
        unsafe { self.device.cmd_begin_rendering(self.cb, info) };
    }

    /// `vkCmdEndRendering`.
    ///
    /// # Safety
    ///
    /// Inside a render pass begun with [`Self::begin_rendering`] on this command buffer.
    pub unsafe fn end_rendering(&self) {
        // SAFETY: the encoder's contract and the caller's.
        unsafe { self.device.cmd_end_rendering(self.cb) };
    }

    /// `vkCmdSetViewport` from viewport `first`.
    ///
    /// # Safety
    ///
    /// A graphics queue's command buffer; `first + viewports.len()` within the device's
    /// viewport limit (1 without `multiViewport`).
    pub unsafe fn set_viewport(&self, first: u32, viewports: &[vk::Viewport]) {
        // SAFETY: the encoder's contract and the caller's.
        unsafe { self.device.cmd_set_viewport(self.cb, first, viewports) };
    }

    /// `vkCmdSetScissor` from scissor `first`.
    ///
    /// # Safety
    ///
    /// As [`Self::set_viewport`]; offsets are not negative.
    pub unsafe fn set_scissor(&self, first: u32, scissors: &[vk::Rect2D]) {
        // SAFETY: the encoder's contract and the caller's.
        unsafe { self.device.cmd_set_scissor(self.cb, first, scissors) };
    }

    /// `vkCmdBindPipeline`.
    ///
    /// # Safety
    ///
    /// `pipeline` is live and of `bind_point`'s kind; a graphics pipeline is bound only on a
    /// graphics queue's command buffer.
    pub unsafe fn bind_pipeline(&self, bind_point: vk::PipelineBindPoint, pipeline: vk::Pipeline) {
        // SAFETY: the encoder's contract and the caller's.
        unsafe { self.device.cmd_bind_pipeline(self.cb, bind_point, pipeline) };
    }

    /// `vkCmdBindDescriptorSets` at set `first_set`.
    ///
    /// # Safety
    ///
    /// `layout` and `sets` are live, the sets are compatible with `layout` at their indices and
    /// are not updated or freed until the command buffer completes; `dynamic_offsets` has one
    /// offset per dynamic descriptor.
    pub unsafe fn bind_descriptor_sets(
        &self,
        bind_point: vk::PipelineBindPoint,
        layout: vk::PipelineLayout,
        first_set: u32,
        sets: &[vk::DescriptorSet],
        dynamic_offsets: &[u32],
    ) {
        // SAFETY: the encoder's contract and the caller's.
        unsafe {
            self.device.cmd_bind_descriptor_sets(
                self.cb,
                bind_point,
                layout,
                first_set,
                sets,
                dynamic_offsets,
            )
        };
    }

    /// `vkCmdPushDescriptorSetKHR` through `push` (VK_KHR_push_descriptor).
    ///
    /// # Safety
    ///
    /// `push` was loaded for this encoder's device, which enabled the extension; set `set` of
    /// `layout` was created with the push-descriptor flag; the writes match its bindings and
    /// name live views, samplers and buffers.
    pub unsafe fn push_descriptor_set(
        &self,
        push: &ash::khr::push_descriptor::Device,
        bind_point: vk::PipelineBindPoint,
        layout: vk::PipelineLayout,
        set: u32,
        writes: &[vk::WriteDescriptorSet<'_>],
    ) {
        // SAFETY: the encoder's contract and the caller's.
        unsafe { push.cmd_push_descriptor_set(self.cb, bind_point, layout, set, writes) };
    }

    /// `vkCmdPushConstants` of `bytes` at `offset`.
    ///
    /// # Safety
    ///
    /// `layout` is live and has push-constant ranges covering `offset..offset + bytes.len()`
    /// for exactly `stages`; `offset` and the length are multiples of 4.
    pub unsafe fn push_constants(
        &self,
        layout: vk::PipelineLayout,
        stages: vk::ShaderStageFlags,
        offset: u32,
        bytes: &[u8],
    ) {
        // SAFETY: the encoder's contract and the caller's.
        unsafe {
            self.device
                .cmd_push_constants(self.cb, layout, stages, offset, bytes)
        };
    }

    /// `vkCmdDispatch`.
    ///
    /// # Safety
    ///
    /// Outside a render pass; a compute pipeline and everything it uses (descriptors, push
    /// constants) is bound, with its images in the layouts the descriptors name.
    pub unsafe fn dispatch(&self, x: u32, y: u32, z: u32) {
        // SAFETY: the encoder's contract and the caller's.
        unsafe { self.device.cmd_dispatch(self.cb, x, y, z) };
    }

    /// `vkCmdDraw`.
    ///
    /// # Safety
    ///
    /// Inside a render pass compatible with the bound graphics pipeline, with its descriptors,
    /// push constants and dynamic state (viewport, scissor) set.
    pub unsafe fn draw(
        &self,
        vertex_count: u32,
        instance_count: u32,
        first_vertex: u32,
        first_instance: u32,
    ) {
        // SAFETY: the encoder's contract and the caller's.
        unsafe {
            self.device.cmd_draw(
                self.cb,
                vertex_count,
                instance_count,
                first_vertex,
                first_instance,
            )
        };
    }

    /// `vkCmdClearAttachments`.
    ///
    /// # Safety
    ///
    /// Inside a render pass that has the attachments named; the rectangles lie within the
    /// render area and the pass's layers.
    pub unsafe fn clear_attachments(
        &self,
        attachments: &[vk::ClearAttachment],
        rects: &[vk::ClearRect],
    ) {
        // SAFETY: the encoder's contract and the caller's.
        unsafe {
            self.device
                .cmd_clear_attachments(self.cb, attachments, rects)
        };
    }

    /// `vkCmdClearColorImage`.
    ///
    /// # Safety
    ///
    /// Outside a render pass; `image` is a live colour image with TRANSFER_DST usage, in
    /// `layout` (TRANSFER_DST_OPTIMAL or GENERAL) over `ranges`, which lie within it.
    pub unsafe fn clear_color_image(
        &self,
        image: vk::Image,
        layout: vk::ImageLayout,
        color: &vk::ClearColorValue,
        ranges: &[vk::ImageSubresourceRange],
    ) {
        // SAFETY: the encoder's contract and the caller's.
        unsafe {
            self.device
                .cmd_clear_color_image(self.cb, image, layout, color, ranges)
        };
    }

    /// `vkCmdFillBuffer` with the word `data`.
    ///
    /// # Safety
    ///
    /// Outside a render pass; `buffer` is live with TRANSFER_DST usage; `offset` and `size` are
    /// multiples of 4 (or `size` is `WHOLE_SIZE`) and lie within it.
    pub unsafe fn fill_buffer(&self, buffer: vk::Buffer, offset: u64, size: u64, data: u32) {
        // SAFETY: the encoder's contract and the caller's.
        unsafe {
            self.device
                .cmd_fill_buffer(self.cb, buffer, offset, size, data)
        };
    }

    /// `vkCmdUpdateBuffer` with `data` (a clear command under synchronization2: the CLEAR
    /// stage, TRANSFER_WRITE).
    ///
    /// # Safety
    ///
    /// Outside a render pass; `buffer` is live with TRANSFER_DST usage; `offset` and
    /// `data.len()` are multiples of 4, `data` holds at most 65536 bytes, and the range lies
    /// within the buffer.
    pub unsafe fn update_buffer(&self, buffer: vk::Buffer, offset: u64, data: &[u8]) {
        // SAFETY: the encoder's contract and the caller's.
        unsafe { self.device.cmd_update_buffer(self.cb, buffer, offset, data) };
    }

    /// `vkCmdCopyBuffer`.
    ///
    /// # Safety
    ///
    /// Outside a render pass; both buffers are live (TRANSFER_SRC and TRANSFER_DST usage); the
    /// regions lie within them and do not overlap in the same buffer.
    pub unsafe fn copy_buffer(&self, src: vk::Buffer, dst: vk::Buffer, regions: &[vk::BufferCopy]) {
        // SAFETY: the encoder's contract and the caller's.
        unsafe { self.device.cmd_copy_buffer(self.cb, src, dst, regions) };
    }

    /// `vkCmdCopyBufferToImage`.
    ///
    /// # Safety
    ///
    /// Outside a render pass; `src` and `dst` are live (TRANSFER_SRC, TRANSFER_DST usage), the
    /// regions' subresources of `dst` are in `dst_layout` (TRANSFER_DST_OPTIMAL or GENERAL),
    /// and the regions lie within both.
    pub unsafe fn copy_buffer_to_image(
        &self,
        src: vk::Buffer,
        dst: vk::Image,
        dst_layout: vk::ImageLayout,
        regions: &[vk::BufferImageCopy],
    ) {
        // SAFETY: the encoder's contract and the caller's.
        unsafe {
            self.device
                .cmd_copy_buffer_to_image(self.cb, src, dst, dst_layout, regions)
        };
    }

    /// `vkCmdCopyImageToBuffer`.
    ///
    /// # Safety
    ///
    /// Outside a render pass; `src` and `dst` are live (TRANSFER_SRC, TRANSFER_DST usage), the
    /// regions' subresources of `src` are in `src_layout` (TRANSFER_SRC_OPTIMAL or GENERAL),
    /// and the regions lie within both.
    pub unsafe fn copy_image_to_buffer(
        &self,
        src: vk::Image,
        src_layout: vk::ImageLayout,
        dst: vk::Buffer,
        regions: &[vk::BufferImageCopy],
    ) {
        // SAFETY: the encoder's contract and the caller's.
        unsafe {
            self.device
                .cmd_copy_image_to_buffer(self.cb, src, src_layout, dst, regions)
        };
    }

    /// `vkCmdCopyImage`.
    ///
    /// # Safety
    ///
    /// Outside a render pass; both images are live (TRANSFER_SRC, TRANSFER_DST usage) with
    /// compatible formats and equal sample counts, their regions' subresources are in the
    /// layouts given, and the regions lie within them.
    pub unsafe fn copy_image(
        &self,
        src: vk::Image,
        src_layout: vk::ImageLayout,
        dst: vk::Image,
        dst_layout: vk::ImageLayout,
        regions: &[vk::ImageCopy],
    ) {
        // SAFETY: the encoder's contract and the caller's.
        unsafe {
            self.device
                .cmd_copy_image(self.cb, src, src_layout, dst, dst_layout, regions)
        };
    }

    /// `vkCmdResolveImage` (average of a multisampled colour image into a single-sampled one).
    ///
    /// # Safety
    ///
    /// Outside a render pass on a graphics queue's command buffer; `src` is a live
    /// multisampled colour image in `src_layout` (TRANSFER_SRC_OPTIMAL or GENERAL), `dst` a
    /// live single-sampled one of the same format in `dst_layout` (TRANSFER_DST_OPTIMAL or
    /// GENERAL); the regions lie within both.
    pub unsafe fn resolve_image(
        &self,
        src: vk::Image,
        src_layout: vk::ImageLayout,
        dst: vk::Image,
        dst_layout: vk::ImageLayout,
        regions: &[vk::ImageResolve],
    ) {
        // SAFETY: the encoder's contract and the caller's.
        unsafe {
            self.device
                .cmd_resolve_image(self.cb, src, src_layout, dst, dst_layout, regions)
        };
    }

    /// `vkCmdWriteTimestamp2` into query `query` of `pool`.
    ///
    /// # Safety
    ///
    /// `pool` is a live timestamp query pool with more than `query` queries, and the query was
    /// reset and is not written again before the command buffer completes; the queue supports
    /// timestamps.
    pub unsafe fn write_timestamp(
        &self,
        stage: vk::PipelineStageFlags2,
        pool: vk::QueryPool,
        query: u32,
    ) {
        // SAFETY: the encoder's contract and the caller's.
        unsafe {
            self.device
                .cmd_write_timestamp2(self.cb, stage, pool, query)
        };
    }

    /// Opens a debug label named `name` (NUL characters become spaces); a no-op without
    /// VK_EXT_debug_utils. Close it with [`Self::end_label`] in the same command buffer.
    pub fn begin_label(&self, name: &str) {
        if let Some(debug) = self.debug {
            let name = CString::new(name.replace('\0', " ")).unwrap_or_default();
            let label = vk::DebugUtilsLabelEXT::default().label_name(&name);
            // SAFETY: the encoder's contract (a recording command buffer of the device the
            // debug functions were loaded for); the label name outlives the call.
            unsafe { debug.cmd_begin_debug_utils_label(self.cb, &label) };
        }
    }

    /// Closes the label opened last.
    ///
    /// # Safety
    ///
    /// A label opened with [`Self::begin_label`] on this command buffer is still open (and,
    /// when it was opened inside a render pass, the pass has not ended).
    pub unsafe fn end_label(&self) {
        if let Some(debug) = self.debug {
            // SAFETY: the encoder's contract and the caller's.
            unsafe { debug.cmd_end_debug_utils_label(self.cb) };
        }
    }
}
