//! The application's images and buffers as entry arguments ([`ImportedImage`],
//! [`ImportedBuffer`]), the state contract around a frame ([`ResourceState`]), and the
//! application's semaphores and fence of a frame's submission ([`FrameSync`]).
//!
//! A frame that uses an imported resource starts with a barrier from the state the application
//! declared to the state the resource rests in between frames (its entry parameter's access
//! attribute, [`rpsl_runtime::compile::resting_state`]), where the two differ, and ends with
//! one from that resting state to the final state the application asks for, if it asks.

use crate::context::Context;
use crate::encoder::CommandEncoder;
use crate::resources::{GpuObject, GpuResource};
use ash::vk;
use rpsl_runtime::{BackendError, RecordedGraph, ResourceDesc};

/// What the GPU last did with an application resource, or what it should be ready for: the
/// image layout (`UNDEFINED` for buffers, or for images whose contents may be dropped), the
/// stages and accesses of its last use (or next use), and the queue family that owns it.
///
/// `queue_family` is `vk::QUEUE_FAMILY_IGNORED` for resources shared concurrently or already
/// owned by rpsl's graphics queue family; another family makes the frame acquire ownership
/// (the application released it) or, in a final state, release it to that family.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct ResourceState {
    /// The image layout (`UNDEFINED` for buffers).
    pub layout: vk::ImageLayout,
    /// Stages of the last (or next) use.
    pub stages: vk::PipelineStageFlags2,
    /// Accesses of the last (or next) use.
    pub accesses: vk::AccessFlags2,
    /// The owning queue family, or `vk::QUEUE_FAMILY_IGNORED`.
    pub queue_family: u32,
}

impl ResourceState {
    /// Nothing done yet: undefined contents, no pending access (a new image, a swapchain image
    /// just acquired with its semaphore waited for by the frame).
    pub const UNDEFINED: ResourceState = ResourceState {
        layout: vk::ImageLayout::UNDEFINED,
        stages: vk::PipelineStageFlags2::NONE,
        accesses: vk::AccessFlags2::NONE,
        queue_family: vk::QUEUE_FAMILY_IGNORED,
    };

    /// An image in `layout` after (or before) `stages` with `accesses`, no ownership transfer.
    ///
    /// ```
    /// # use rpsl_vulkan::{ash::vk, ResourceState};
    /// let copied = ResourceState::image(
    ///     vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
    ///     vk::PipelineStageFlags2::COPY,
    ///     vk::AccessFlags2::TRANSFER_READ,
    /// );
    /// assert_eq!(copied.queue_family, vk::QUEUE_FAMILY_IGNORED);
    /// ```
    pub fn image(
        layout: vk::ImageLayout,
        stages: vk::PipelineStageFlags2,
        accesses: vk::AccessFlags2,
    ) -> ResourceState {
        ResourceState {
            layout,
            stages,
            accesses,
            queue_family: vk::QUEUE_FAMILY_IGNORED,
        }
    }

    /// A buffer after (or before) `stages` with `accesses`, no ownership transfer.
    pub fn buffer(stages: vk::PipelineStageFlags2, accesses: vk::AccessFlags2) -> ResourceState {
        ResourceState::image(vk::ImageLayout::UNDEFINED, stages, accesses)
    }
}

/// An application image passed as the entry argument of a texture parameter
/// ([`crate::VulkanBackend::import_image`]).
#[derive(Clone, Debug)]
pub struct ImportedImage {
    /// The image (the application's: rpsl never destroys it).
    pub image: vk::Image,
    /// Its description; it must equal the description the script's frame gives the parameter.
    pub desc: ResourceDesc,
    /// The usage it was created with (must cover what the frame's accesses need besides
    /// transfers; a swapchain image's `imageUsage`).
    pub usage: vk::ImageUsageFlags,
    /// The state it is in when the next frame's work starts (after the frame's semaphore
    /// waits).
    pub state: ResourceState,
    /// The state the frame leaves it in; `None`: the resting state of its entry parameter's
    /// access attribute (`[readonly(present)]`: `PRESENT_SRC_KHR`, `[readonly(ps)]`:
    /// `SHADER_READ_ONLY_OPTIMAL`, none: `GENERAL`), see
    /// [`crate::VulkanBackend::imported_state`].
    pub final_state: Option<ResourceState>,
    /// A debug name rpsl gives the image (`None`: the application's name stays).
    pub debug_name: Option<String>,
}

/// An application buffer passed as the entry argument of a buffer parameter
/// ([`crate::VulkanBackend::import_buffer`]).
#[derive(Clone, Debug)]
pub struct ImportedBuffer {
    /// The buffer (the application's: rpsl never destroys it). It needs the usages the frame's
    /// accesses need (storage, uniform, vertex, index, indirect, transfer).
    pub buffer: vk::Buffer,
    /// Its description (`ResourceDesc::buffer(size)`); it must equal the parameter's.
    pub desc: ResourceDesc,
    /// The state it is in when the next frame's work starts (layout ignored).
    pub state: ResourceState,
    /// The state the frame leaves it in (`None`: its resting state): a barrier at the end of
    /// the frame makes its writes visible to these stages and accesses (`HOST` and
    /// `HOST_READ` to map it once the frame's fence signalled).
    pub final_state: Option<ResourceState>,
    /// A debug name rpsl gives the buffer (`None`: the application's name stays).
    pub debug_name: Option<String>,
}

/// One semaphore operation of a frame's submission: a binary semaphore (`value` 0) or a
/// timeline semaphore and its value, with the stages the wait blocks or the signal follows.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct SemaphoreOp {
    /// The semaphore.
    pub semaphore: vk::Semaphore,
    /// The timeline value (ignored for binary semaphores: 0).
    pub value: u64,
    /// Stages the wait blocks (a wait) or that complete before the signal (a signal).
    pub stages: vk::PipelineStageFlags2,
}

impl SemaphoreOp {
    /// A binary semaphore.
    pub fn binary(semaphore: vk::Semaphore, stages: vk::PipelineStageFlags2) -> SemaphoreOp {
        SemaphoreOp {
            semaphore,
            value: 0,
            stages,
        }
    }

    /// A timeline semaphore at `value`.
    pub fn timeline(
        semaphore: vk::Semaphore,
        value: u64,
        stages: vk::PipelineStageFlags2,
    ) -> SemaphoreOp {
        SemaphoreOp {
            semaphore,
            value,
            stages,
        }
    }

    pub(crate) fn submit_info(&self) -> vk::SemaphoreSubmitInfo<'static> {
        vk::SemaphoreSubmitInfo::default()
            .semaphore(self.semaphore)
            .value(self.value)
            .stage_mask(self.stages)
    }
}

/// The application's synchronization of one frame's submission
/// ([`crate::VulkanBackend::set_frame_sync`]): the frame's first work waits for every
/// `waits` entry, its last submission signals every `signals` entry, and `fence` (unless
/// null) signals once all of the frame's work completed.
///
/// ```
/// # use rpsl_vulkan::{ash::vk, FrameSync, SemaphoreOp};
/// # let (acquired, rendered, fence) = (vk::Semaphore::null(), vk::Semaphore::null(), vk::Fence::null());
/// let sync = FrameSync {
///     waits: vec![SemaphoreOp::binary(acquired, vk::PipelineStageFlags2::COLOR_ATTACHMENT_OUTPUT)],
///     signals: vec![SemaphoreOp::binary(rendered, vk::PipelineStageFlags2::ALL_COMMANDS)],
///     fence,
/// };
/// assert_eq!(sync.waits.len(), 1);
/// ```
#[derive(Clone, Debug, Default)]
pub struct FrameSync {
    /// Semaphores the frame's first work waits for.
    pub waits: Vec<SemaphoreOp>,
    /// Semaphores the frame's last submission signals.
    pub signals: Vec<SemaphoreOp>,
    /// A fence signalled when the frame's work completed (`vk::Fence::null()`: none).
    pub fence: vk::Fence,
}

/// An imported resource: the application's object and the state it is in.
pub(crate) struct Import {
    pub resource: GpuResource,
    pub state: ResourceState,
    pub final_state: Option<ResourceState>,
}

/// One batch of a frame the application submits itself ([`crate::VulkanBackend::record_frame`]):
/// submit `command_buffer` to a queue of `queue_family` (rpsl's is `queue`) waiting for every
/// `waits` entry and signalling every `signals` entry, in the order the batches come.
#[derive(Clone, Debug)]
pub struct RecordedBatch {
    /// The queue family the command buffer was asked for.
    pub queue_family: u32,
    /// The queue rpsl would have submitted to (the one lent in [`crate::EngineDevice`]).
    pub queue: vk::Queue,
    /// The recorded (ended) command buffer, one the application gave.
    pub command_buffer: vk::CommandBuffer,
    /// Waits: rpsl's timeline semaphores between queues (and, on the first batch, the
    /// [`FrameSync`] waits).
    pub waits: Vec<SemaphoreOp>,
    /// Signals: rpsl's timeline semaphore of the queue (and, on the last batch, the
    /// [`FrameSync`] signals). The frame's slot is reused once the last one is reached.
    pub signals: Vec<SemaphoreOp>,
}

/// The command buffers the application gives a frame it submits itself, by queue family.
pub type CommandBufferSource<'a> = dyn FnMut(u32) -> vk::CommandBuffer + 'a;

/// What a frame does for the application: its resources' barriers, its synchronization, and
/// the command buffers it gives when it submits the frame itself.
pub(crate) struct AppFrame<'a> {
    pub barriers: &'a ImportBarriers,
    pub sync: Option<&'a FrameSync>,
    pub command_buffers: Option<&'a mut CommandBufferSource<'a>>,
}

/// The barriers a frame records around its work for the imported resources.
#[derive(Default)]
pub(crate) struct ImportBarriers {
    /// The stages the frame's semaphore waits block: a global barrier from them to every
    /// stage starts the frame, so that later batches on the queue are ordered after the waits
    /// (a semaphore wait orders only its own batch).
    pub after_waits: vk::PipelineStageFlags2,
    /// From the application's states to the resting states, before the frame's first work.
    pub prologue_images: Vec<vk::ImageMemoryBarrier2<'static>>,
    pub prologue_buffers: Vec<vk::BufferMemoryBarrier2<'static>>,
    /// From the resting states to the final states asked for, after the frame's last work.
    pub epilogue_images: Vec<vk::ImageMemoryBarrier2<'static>>,
    pub epilogue_buffers: Vec<vk::BufferMemoryBarrier2<'static>>,
}

impl ImportBarriers {
    /// No prologue barrier.
    pub fn prologue_empty(&self) -> bool {
        self.prologue_images.is_empty()
            && self.prologue_buffers.is_empty()
            && self.after_waits.is_empty()
    }

    /// Records the barriers of one side (`prologue` or the epilogue) into `cb`.
    ///
    /// # Safety
    ///
    /// `cb` is a command buffer of `context`'s device in the recording state, outside a render
    /// pass, recorded only here meanwhile, and submitted on the graphics queue; the imported
    /// objects are live until it completes and in their declared (prologue) or resting
    /// (epilogue) layouts when it executes the barriers.
    pub unsafe fn record(&self, context: &Context, cb: vk::CommandBuffer, prologue: bool) {
        let (images, buffers) = if prologue {
            (&self.prologue_images, &self.prologue_buffers)
        } else {
            (&self.epilogue_images, &self.epilogue_buffers)
        };
        let global = [vk::MemoryBarrier2::default()
            .src_stage_mask(self.after_waits)
            .dst_stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS)
            .dst_access_mask(vk::AccessFlags2::MEMORY_READ | vk::AccessFlags2::MEMORY_WRITE)];
        let global: &[vk::MemoryBarrier2<'_>] = if prologue && !self.after_waits.is_empty() {
            &global
        } else {
            &[]
        };
        if images.is_empty() && buffers.is_empty() && global.is_empty() {
            return;
        }
        let info = vk::DependencyInfo::default()
            .memory_barriers(global)
            .image_memory_barriers(images)
            .buffer_memory_barriers(buffers);
        // SAFETY: the caller's guarantees are the encoder's and the barrier's.
        unsafe {
            let encoder = CommandEncoder::new(&context.device, context.debug_device.as_ref(), cb);
            encoder.pipeline_barrier(&info);
        }
    }
}

/// `desc` in words, for mismatch errors: `Tex2d R8G8B8A8_UNORM 64x64x1, 1 mip, 1 sample`.
pub(crate) fn describe(desc: &ResourceDesc) -> String {
    format!(
        "{:?} {} {}x{}x{}, {} mip{}, {} sample{}",
        desc.kind,
        desc.format.name().unwrap_or("UNKNOWN"),
        desc.width,
        desc.height,
        desc.depth_or_array_size,
        desc.mip_levels,
        if desc.mip_levels == 1 { "" } else { "s" },
        desc.sample_count,
        if desc.sample_count == 1 { "" } else { "s" },
    )
}

/// Checks an import against the frame's parameter `name` (index `index` of `graph`): the same
/// description, and an image's usage covering the usage the frame's accesses need
/// (`needed`, transfers aside).
pub(crate) fn check_import(
    name: &str,
    import: &Import,
    graph: &RecordedGraph,
    index: usize,
    needed: vk::ImageUsageFlags,
) -> Result<(), BackendError> {
    let expected = &graph.resources[index].desc;
    let given = &import.resource.desc;
    if given != expected {
        return Err(BackendError::Api(format!(
            "entry argument `{name}`: the application's {} is {}, but the frame describes the \
             parameter as {}",
            kind_word(&import.resource),
            describe(given),
            describe(expected)
        )));
    }
    if let GpuObject::Image(_) = import.resource.object {
        let transfers = vk::ImageUsageFlags::TRANSFER_SRC | vk::ImageUsageFlags::TRANSFER_DST;
        let missing = needed & !transfers & !import.resource.usage;
        if !missing.is_empty() {
            return Err(BackendError::Api(format!(
                "entry argument `{name}`: the application's image lacks usage {missing:?}, \
                 which the frame's accesses need"
            )));
        }
    }
    Ok(())
}

fn kind_word(resource: &GpuResource) -> &'static str {
    match resource.object {
        GpuObject::Image(_) => "image",
        GpuObject::Buffer(_) => "buffer",
    }
}

/// The resting state of resource `index` of `graph`, in Vulkan's terms.
pub(crate) fn resting(graph: &RecordedGraph, index: usize) -> ResourceState {
    let state = rpsl_runtime::compile::resting_state(graph, index);
    ResourceState {
        layout: vk::ImageLayout::from_raw(state.layout as i32),
        stages: vk::PipelineStageFlags2::from_raw(state.stages.0),
        accesses: vk::AccessFlags2::from_raw(state.accesses.0),
        queue_family: vk::QUEUE_FAMILY_IGNORED,
    }
}

/// The queue families of an ownership transfer from `from` to `to` (both ignored when none).
fn transfer(from: u32, to: u32) -> (u32, u32) {
    if from == vk::QUEUE_FAMILY_IGNORED || to == vk::QUEUE_FAMILY_IGNORED || from == to {
        (vk::QUEUE_FAMILY_IGNORED, vk::QUEUE_FAMILY_IGNORED)
    } else {
        (from, to)
    }
}

/// Adds the barriers of one imported resource used by the frame, and returns the state the
/// frame leaves it in. `wait_stages`: the stages the frame's semaphore waits block (the
/// prologue's barriers chain after them). `graphics`: rpsl's graphics queue family.
pub(crate) fn plan_import_barriers(
    import: &Import,
    rest: ResourceState,
    wait_stages: vk::PipelineStageFlags2,
    graphics: u32,
    out: &mut ImportBarriers,
) -> ResourceState {
    let state = import.state;
    let (src_family, dst_family) = transfer(state.queue_family, graphics);
    let acquire = src_family != dst_family;
    let everything = vk::AccessFlags2::MEMORY_READ | vk::AccessFlags2::MEMORY_WRITE;
    let target = import.final_state.unwrap_or(rest);
    let (release_src, release_dst) = transfer(graphics, target.queue_family);
    let release = release_src != release_dst;
    // A final state asked for gets a barrier when it differs from the resting one in layout,
    // owner, or the stages and accesses it must be ready for.
    let epilogue = import.final_state.is_some()
        && (target.layout != rest.layout
            || release
            || (target.stages, target.accesses) != (rest.stages, rest.accesses));
    match import.resource.object {
        GpuObject::Image(image) => {
            let range = vk::ImageSubresourceRange {
                aspect_mask: import.resource.aspect(),
                base_mip_level: 0,
                level_count: vk::REMAINING_MIP_LEVELS,
                base_array_layer: 0,
                layer_count: vk::REMAINING_ARRAY_LAYERS,
            };
            if state.layout != rest.layout || acquire {
                out.prologue_images.push(
                    vk::ImageMemoryBarrier2::default()
                        .src_stage_mask(state.stages | wait_stages)
                        .src_access_mask(state.accesses)
                        .dst_stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS)
                        .dst_access_mask(everything)
                        .old_layout(state.layout)
                        .new_layout(rest.layout)
                        .src_queue_family_index(src_family)
                        .dst_queue_family_index(dst_family)
                        .image(image)
                        .subresource_range(range),
                );
            }
            if epilogue {
                out.epilogue_images.push(
                    vk::ImageMemoryBarrier2::default()
                        .src_stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS)
                        .src_access_mask(vk::AccessFlags2::MEMORY_WRITE)
                        .dst_stage_mask(target.stages)
                        .dst_access_mask(target.accesses)
                        .old_layout(rest.layout)
                        .new_layout(target.layout)
                        .src_queue_family_index(release_src)
                        .dst_queue_family_index(release_dst)
                        .image(image)
                        .subresource_range(range),
                );
            }
        }
        GpuObject::Buffer(buffer) => {
            if acquire {
                out.prologue_buffers.push(
                    vk::BufferMemoryBarrier2::default()
                        .src_stage_mask(state.stages | wait_stages)
                        .src_access_mask(state.accesses)
                        .dst_stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS)
                        .dst_access_mask(everything)
                        .src_queue_family_index(src_family)
                        .dst_queue_family_index(dst_family)
                        .buffer(buffer)
                        .offset(0)
                        .size(vk::WHOLE_SIZE),
                );
            }
            if epilogue {
                out.epilogue_buffers.push(
                    vk::BufferMemoryBarrier2::default()
                        .src_stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS)
                        .src_access_mask(vk::AccessFlags2::MEMORY_WRITE)
                        .dst_stage_mask(target.stages)
                        .dst_access_mask(target.accesses)
                        .src_queue_family_index(release_src)
                        .dst_queue_family_index(release_dst)
                        .buffer(buffer)
                        .offset(0)
                        .size(vk::WHOLE_SIZE),
                );
            }
        }
    }
    match import.final_state {
        Some(target) => target,
        None => rest,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ash::vk::Handle;
    use rpsl_runtime::Format;

    const GRAPHICS: u32 = 0;

    fn image_import(state: ResourceState, final_state: Option<ResourceState>) -> Import {
        let desc = ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, 64, 64);
        let object = GpuObject::Image(vk::Image::from_raw(0x51));
        Import {
            resource: GpuResource::of_application(
                &desc,
                object,
                vk::ImageUsageFlags::COLOR_ATTACHMENT,
            )
            .unwrap(),
            state,
            final_state,
        }
    }

    fn present() -> ResourceState {
        ResourceState::image(
            vk::ImageLayout::PRESENT_SRC_KHR,
            vk::PipelineStageFlags2::NONE,
            vk::AccessFlags2::NONE,
        )
    }

    /// An image barrier's stages, accesses, layouts and queue families.
    type ImageBarrierFields = (
        vk::PipelineStageFlags2,
        vk::AccessFlags2,
        vk::PipelineStageFlags2,
        vk::AccessFlags2,
        vk::ImageLayout,
        vk::ImageLayout,
        u32,
        u32,
    );

    fn fields(barrier: &vk::ImageMemoryBarrier2<'_>) -> ImageBarrierFields {
        (
            barrier.src_stage_mask,
            barrier.src_access_mask,
            barrier.dst_stage_mask,
            barrier.dst_access_mask,
            barrier.old_layout,
            barrier.new_layout,
            barrier.src_queue_family_index,
            barrier.dst_queue_family_index,
        )
    }

    #[test]
    fn a_new_image_moves_to_its_resting_layout_after_the_frames_waits() {
        let import = image_import(ResourceState::UNDEFINED, None);
        let mut out = ImportBarriers::default();
        let waits = vk::PipelineStageFlags2::COLOR_ATTACHMENT_OUTPUT;
        let after = plan_import_barriers(&import, present(), waits, GRAPHICS, &mut out);
        assert_eq!(after, present());
        let barriers: Vec<_> = out.prologue_images.iter().map(fields).collect();
        assert_eq!(
            barriers,
            [(
                vk::PipelineStageFlags2::COLOR_ATTACHMENT_OUTPUT,
                vk::AccessFlags2::NONE,
                vk::PipelineStageFlags2::ALL_COMMANDS,
                vk::AccessFlags2::MEMORY_READ | vk::AccessFlags2::MEMORY_WRITE,
                vk::ImageLayout::UNDEFINED,
                vk::ImageLayout::PRESENT_SRC_KHR,
                vk::QUEUE_FAMILY_IGNORED,
                vk::QUEUE_FAMILY_IGNORED,
            )]
        );
        assert_eq!(out.prologue_images[0].image, vk::Image::from_raw(0x51));
        assert_eq!(
            out.prologue_images[0].subresource_range.aspect_mask,
            vk::ImageAspectFlags::COLOR
        );
        assert!(out.epilogue_images.is_empty() && out.prologue_buffers.is_empty());
    }

    #[test]
    fn an_image_already_resting_needs_no_barrier() {
        let import = image_import(present(), None);
        let mut out = ImportBarriers::default();
        let after = plan_import_barriers(
            &import,
            present(),
            vk::PipelineStageFlags2::NONE,
            GRAPHICS,
            &mut out,
        );
        assert_eq!(after, present());
        assert!(out.prologue_empty() && out.epilogue_images.is_empty());
    }

    #[test]
    fn ownership_is_acquired_before_and_released_to_the_final_family_after() {
        let copied = ResourceState {
            queue_family: 2,
            ..ResourceState::image(
                vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                vk::PipelineStageFlags2::COPY,
                vk::AccessFlags2::TRANSFER_READ,
            )
        };
        let sampled = ResourceState {
            queue_family: 3,
            ..ResourceState::image(
                vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL,
                vk::PipelineStageFlags2::FRAGMENT_SHADER,
                vk::AccessFlags2::SHADER_SAMPLED_READ,
            )
        };
        let import = image_import(copied, Some(sampled));
        let mut out = ImportBarriers::default();
        let after = plan_import_barriers(
            &import,
            present(),
            vk::PipelineStageFlags2::NONE,
            GRAPHICS,
            &mut out,
        );
        assert_eq!(after, sampled);
        let prologue: Vec<_> = out.prologue_images.iter().map(fields).collect();
        assert_eq!(
            prologue,
            [(
                vk::PipelineStageFlags2::COPY,
                vk::AccessFlags2::TRANSFER_READ,
                vk::PipelineStageFlags2::ALL_COMMANDS,
                vk::AccessFlags2::MEMORY_READ | vk::AccessFlags2::MEMORY_WRITE,
                vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                vk::ImageLayout::PRESENT_SRC_KHR,
                2,
                GRAPHICS,
            )]
        );
        let epilogue: Vec<_> = out.epilogue_images.iter().map(fields).collect();
        assert_eq!(
            epilogue,
            [(
                vk::PipelineStageFlags2::ALL_COMMANDS,
                vk::AccessFlags2::MEMORY_WRITE,
                vk::PipelineStageFlags2::FRAGMENT_SHADER,
                vk::AccessFlags2::SHADER_SAMPLED_READ,
                vk::ImageLayout::PRESENT_SRC_KHR,
                vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL,
                GRAPHICS,
                3,
            )]
        );
    }

    #[test]
    fn a_buffer_gets_barriers_for_ownership_and_a_final_state_asked_for() {
        let desc = ResourceDesc::buffer(256);
        let object = GpuObject::Buffer(vk::Buffer::from_raw(0x77));
        let resource =
            GpuResource::of_application(&desc, object, vk::ImageUsageFlags::empty()).unwrap();
        let written = ResourceState::buffer(
            vk::PipelineStageFlags2::COPY,
            vk::AccessFlags2::TRANSFER_WRITE,
        );
        let rest = ResourceState::buffer(
            vk::PipelineStageFlags2::ALL_COMMANDS,
            vk::AccessFlags2::MEMORY_READ | vk::AccessFlags2::MEMORY_WRITE,
        );
        let mut import = Import {
            resource,
            state: written,
            final_state: None,
        };
        let mut out = ImportBarriers::default();
        plan_import_barriers(
            &import,
            rest,
            vk::PipelineStageFlags2::NONE,
            GRAPHICS,
            &mut out,
        );
        assert!(out.prologue_empty() && out.epilogue_buffers.is_empty());
        import.state.queue_family = 1;
        plan_import_barriers(
            &import,
            rest,
            vk::PipelineStageFlags2::NONE,
            GRAPHICS,
            &mut out,
        );
        let acquired: Vec<_> = out
            .prologue_buffers
            .iter()
            .map(|b| {
                (
                    b.buffer,
                    b.src_queue_family_index,
                    b.dst_queue_family_index,
                    b.src_stage_mask,
                    b.size,
                )
            })
            .collect();
        assert_eq!(
            acquired,
            [(
                vk::Buffer::from_raw(0x77),
                1,
                GRAPHICS,
                vk::PipelineStageFlags2::COPY,
                vk::WHOLE_SIZE
            )]
        );
        assert!(out.epilogue_buffers.is_empty());
        // Read on the host after the frame: its writes are made visible to the host.
        let host =
            ResourceState::buffer(vk::PipelineStageFlags2::HOST, vk::AccessFlags2::HOST_READ);
        import.final_state = Some(host);
        let mut out = ImportBarriers::default();
        let after = plan_import_barriers(
            &import,
            rest,
            vk::PipelineStageFlags2::NONE,
            GRAPHICS,
            &mut out,
        );
        assert_eq!(after, host);
        let released: Vec<_> = out
            .epilogue_buffers
            .iter()
            .map(|b| {
                (
                    b.src_stage_mask,
                    b.src_access_mask,
                    b.dst_stage_mask,
                    b.dst_access_mask,
                    b.src_queue_family_index,
                    b.dst_queue_family_index,
                )
            })
            .collect();
        assert_eq!(
            released,
            [(
                vk::PipelineStageFlags2::ALL_COMMANDS,
                vk::AccessFlags2::MEMORY_WRITE,
                vk::PipelineStageFlags2::HOST,
                vk::AccessFlags2::HOST_READ,
                vk::QUEUE_FAMILY_IGNORED,
                vk::QUEUE_FAMILY_IGNORED,
            )]
        );
    }

    #[test]
    fn descriptions_read_in_words() {
        assert_eq!(
            describe(&ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, 64, 32)),
            "Tex2d R8G8B8A8_UNORM 64x32x1, 1 mip, 1 sample"
        );
    }
}
