//! The Vulkan backend of rpsl: executes frames compiled by `rpsl_runtime::FrameCompiler` on a
//! headless Vulkan 1.3 device (ash + gpu-allocator), optionally under the validation layer with
//! synchronization validation, where any message fails the run.
//!
//! ```no_run
//! use rpsl_vulkan::{VulkanBackend, VulkanOptions};
//! let backend = VulkanBackend::new(VulkanOptions { validate: true, ..VulkanOptions::default() });
//! ```

mod app_api;
mod app_device;
mod app_resources;
mod buffer_clear;
mod buffer_target;
mod builtins;
pub mod compute_program;
mod context;
mod depth_resolve;
mod encoder;
mod format;
#[cfg(test)]
mod lifetime_tests;
mod minmax;
mod node;
mod outliving;
mod readback;
mod record;
mod region_clear;
mod resources;
pub mod shader_node;
mod slots;
mod staging;
mod submit;
mod texture_clear;
pub mod texture_upload;
mod timing;
mod view_cache;

pub use app_device::{EngineDevice, EngineDeviceFeatures, EngineQueue};
pub use app_resources::{
    CommandBufferSource, FrameSync, ImportedBuffer, ImportedImage, RecordedBatch, ResourceState,
    SemaphoreOp,
};
/// The `ash` this backend is built on: handles an application passes in are of its types.
pub use ash;
pub use context::{EnabledFeatures, MessageLog, QueueFamilies, SizeLimits};
pub use format::vk_format;
pub use node::{BoundBuffer, BoundResource, BoundTexture, BoundView, NodeCallback, NodeContext};
pub use readback::{read_png, write_png};
pub use timing::{FrameTimings, NodeTiming};
pub use view_cache::{ObjectCounter, ObjectCounts, ObjectId};

use ash::vk;
use context::{vk_error, Context};
use gpu_allocator::vulkan::{Allocator, AllocatorCreateDesc};
use outliving::persistent_slot;
use record::{FrameRecorder, ResourceHandle};
use resources::{
    create_unbound, place_transients, supported_usage, usage_per_resource, GpuResource,
};
use rpsl_runtime::{
    Backend, BackendError, CompiledFrame, RecordedGraph, ResourceDesc, StorageSlot,
};
use slots::{wait_fence, FrameSlot};
use std::collections::HashMap;
use std::time::Duration;
use submit::{FrameSubmission, Lane};
use timing::PendingTimings;

/// Options of the Vulkan backend.
#[derive(Copy, Clone, Debug)]
pub struct VulkanOptions {
    /// Enable VK_LAYER_KHRONOS_validation with synchronization validation; every warning or
    /// error message fails the frame (`--validate`).
    pub validate: bool,
    /// Nodes without an implementation run as empty passes instead of failing.
    pub allow_unbound: bool,
    /// The longest wait for a frame's fence.
    pub fence_timeout: Duration,
    /// Frames recorded ahead of the GPU (1 to 4). With 1, `execute_frame` returns when the
    /// frame is complete; with more, once it is submitted (its slot is waited for on reuse).
    pub frames_in_flight: u32,
    /// Write timestamps around every node; completed frames' [`FrameTimings`] come from
    /// [`VulkanBackend::take_timings`].
    pub timestamps: bool,
}

impl Default for VulkanOptions {
    fn default() -> VulkanOptions {
        VulkanOptions {
            validate: false,
            allow_unbound: false,
            fence_timeout: Duration::from_secs(20),
            frames_in_flight: 1,
            timestamps: false,
        }
    }
}

/// Figures of the last executed frame.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub struct FrameStats {
    /// Bytes of the transient heap allocation.
    pub transient_heap_bytes: u64,
    /// Transients whose real memory requirements did not fit the planned slot (given their own
    /// memory instead).
    pub unplaced_transients: u32,
    /// Image and buffer barriers recorded.
    pub barriers: u32,
    /// The transients (and their heap) were reused from an earlier frame.
    pub reused_transients: bool,
    /// Persistent and temporal resources the backend holds after the frame: those of the
    /// frame's graph (the ones a frame no longer names are destroyed at its start).
    pub persistent_resources: u32,
}

/// An external resource the runner created, with the layout it rests in between frames.
pub(crate) struct External {
    pub resource: GpuResource,
    pub rest_layout: [vk::ImageLayout; 2],
}

/// The Vulkan backend: a graphics lane and an async-compute lane (the copy lane shares the
/// compute family; lanes share the graphics queue when the device has no separate compute
/// family), timeline semaphores between them, `frames_in_flight` frame slots.
///
/// Resources are shared concurrently between the families in use, so the compiler's cross-queue
/// barriers need no ownership transfers. An external resource keeps the resting layout of the
/// frame that created it.
pub struct VulkanBackend {
    options: VulkanOptions,
    allocator: Option<Allocator>,
    pools: HashMap<u32, vk::CommandPool>,
    lanes: Vec<Lane>,
    completed_timings: Vec<timing::FrameTimings>,
    minmax: Option<minmax::MinMaxResolve>,
    command_buffer: vk::CommandBuffer,
    fence: vk::Fence,
    slots: Vec<FrameSlot>,
    next_slot: usize,
    externals: HashMap<String, External>,
    /// The application's images and buffers by entry parameter name.
    imports: HashMap<String, app_resources::Import>,
    /// Every application object imported so far, with its description (their views stay
    /// cached until released).
    imported_objects: HashMap<resources::GpuObject, ResourceDesc>,
    /// The application's semaphores and fence for the next frame.
    frame_sync: Option<FrameSync>,
    persistent: HashMap<StorageSlot, GpuResource>,
    nodes: HashMap<String, Box<NodeCallback>>,
    stats: FrameStats,
    frames: u64,
    view_cache: view_cache::ViewCache,
    context: Context,
}

impl VulkanBackend {
    /// Creates the instance, device, allocator and command objects.
    pub fn new(options: VulkanOptions) -> Result<VulkanBackend, BackendError> {
        VulkanBackend::with_context(Context::new(options.validate)?, options)
    }

    /// Runs on the application's instance, device and queues (see [`EngineDevice`]); fails
    /// with [`BackendError::MissingFeature`] naming everything rpsl needs that the device
    /// lacks. rpsl creates its own allocator, command pools, semaphores and fences on the
    /// device and destroys them when dropped; it never destroys the application's objects.
    /// Drop the backend before destroying the device.
    ///
    /// `options.validate` does not apply: the application owns the instance, its layers and
    /// its debug messenger (messages go to the application's callback).
    pub fn on_device(
        engine: EngineDevice,
        options: VulkanOptions,
    ) -> Result<VulkanBackend, BackendError> {
        let context = Context::on_engine_device(engine)?;
        VulkanBackend::with_context(
            context,
            VulkanOptions {
                validate: false,
                ..options
            },
        )
    }

    fn with_context(
        context: Context,
        options: VulkanOptions,
    ) -> Result<VulkanBackend, BackendError> {
        let allocator = Allocator::new(&AllocatorCreateDesc {
            instance: context.instance.clone(),
            device: context.device.clone(),
            physical_device: context.physical,
            debug_settings: Default::default(),
            buffer_device_address: false,
            allocation_sizes: Default::default(),
        })
        .map_err(|e| resources::map_alloc_error("gpu-allocator", e))?;
        if options.timestamps && (!context.features.host_query_reset || context.timestamp_mask == 0)
        {
            return Err(BackendError::MissingFeature(
                "GPU timings need timestamp queries on every queue used and host query reset"
                    .into(),
            ));
        }
        // Every object below goes into `backend` as soon as it exists, so that an error on the
        // way destroys what was made (through `Drop`) before the device goes.
        let mut backend = VulkanBackend {
            options,
            allocator: Some(allocator),
            pools: HashMap::new(),
            lanes: Vec::new(),
            completed_timings: Vec::new(),
            minmax: None,
            command_buffer: vk::CommandBuffer::null(),
            fence: vk::Fence::null(),
            slots: Vec::new(),
            next_slot: 0,
            externals: HashMap::new(),
            imports: HashMap::new(),
            imported_objects: HashMap::new(),
            frame_sync: None,
            persistent: HashMap::new(),
            nodes: HashMap::new(),
            stats: FrameStats::default(),
            frames: 0,
            view_cache: view_cache::ViewCache::default(),
            context,
        };
        backend.create_command_objects()?;
        backend.check_messages()?;
        Ok(backend)
    }

    /// Creates the command pools, lanes (queues and timeline semaphores), the one-shot command
    /// buffer and fence, and the frame slots, keeping each in `self` as soon as it exists.
    fn create_command_objects(&mut self) -> Result<(), BackendError> {
        let context = &self.context;
        let device = &context.device;
        let mut families = vec![context.families.graphics];
        families.extend(
            context
                .families
                .async_compute
                .filter(|&family| family != context.families.graphics),
        );
        for &family in &families {
            let pool_info = vk::CommandPoolCreateInfo::default()
                .flags(vk::CommandPoolCreateFlags::RESET_COMMAND_BUFFER)
                .queue_family_index(family);
            // SAFETY: valid create infos on a live device.
            let pool = unsafe { device.create_command_pool(&pool_info, None) }
                .map_err(|r| vk_error("vkCreateCommandPool", r))?;
            context.name(pool, &format!("rpsl command pool (family {family})"));
            self.pools.insert(family, pool);
        }
        let pool = self.pools[&context.families.graphics];
        for (lane, name) in ["graphics", "compute", "copy"].iter().enumerate() {
            let family = if lane == 0 {
                context.families.graphics
            } else {
                context
                    .families
                    .async_compute
                    .unwrap_or(context.families.graphics)
            };
            let queue = if lane == 0 {
                context.queue
            } else {
                context.compute_queue.unwrap_or(context.queue)
            };
            let mut kind = vk::SemaphoreTypeCreateInfo::default()
                .semaphore_type(vk::SemaphoreType::TIMELINE)
                .initial_value(0);
            // SAFETY: valid create info; timeline semaphores are enabled.
            let timeline = unsafe {
                device.create_semaphore(
                    &vk::SemaphoreCreateInfo::default().push_next(&mut kind),
                    None,
                )
            }
            .map_err(|r| vk_error("vkCreateSemaphore", r))?;
            context.name(timeline, &format!("rpsl {name} timeline"));
            if lane == 1 && family != context.families.graphics && !context.is_borrowed() {
                context.name(queue, "rpsl async compute queue");
            }
            self.lanes.push(Lane {
                family,
                queue,
                timeline,
                value: 0,
            });
        }
        let alloc_info = vk::CommandBufferAllocateInfo::default()
            .command_pool(pool)
            .level(vk::CommandBufferLevel::PRIMARY)
            .command_buffer_count(1);
        // SAFETY: as above.
        self.command_buffer = unsafe { device.allocate_command_buffers(&alloc_info) }
            .map_err(|r| vk_error("vkAllocateCommandBuffers", r))?[0];
        // SAFETY: as above.
        self.fence = unsafe { device.create_fence(&vk::FenceCreateInfo::default(), None) }
            .map_err(|r| vk_error("vkCreateFence", r))?;
        if !context.is_borrowed() {
            context.name(context.queue, "rpsl graphics queue");
        }
        context.name(self.command_buffer, "rpsl one-shot commands");
        context.name(self.fence, "rpsl frame fence");
        for index in 0..self.options.frames_in_flight.clamp(1, 4) as usize {
            self.slots.push(FrameSlot::new(context, index)?);
        }
        Ok(())
    }

    /// The device's name.
    pub fn device_name(&self) -> &str {
        &self.context.device_name
    }

    /// The device's limits on one buffer's and one allocation's size (a larger buffer fails
    /// the frame with an error naming the limit).
    pub fn size_limits(&self) -> SizeLimits {
        self.context.size_limits
    }

    /// Optional features found and enabled.
    pub fn features(&self) -> EnabledFeatures {
        self.context.features
    }

    /// The queue families the device was created with.
    pub fn queue_families(&self) -> QueueFamilies {
        self.context.families
    }

    /// Figures of the last frame.
    pub fn stats(&self) -> FrameStats {
        self.stats
    }

    /// Totals of Vulkan objects made for frames so far (image views, descriptor sets,
    /// pipelines): compare snapshots to see what frames made.
    pub fn object_counts(&self) -> ObjectCounts {
        self.view_cache.counter.get()
    }

    /// Timings of the frames completed since the last call, oldest first (empty unless
    /// [`VulkanOptions::timestamps`] is set). A frame's timings arrive once its slot is reused
    /// or the backend waited for idle.
    pub fn take_timings(&mut self) -> Vec<FrameTimings> {
        std::mem::take(&mut self.completed_timings)
    }

    /// Binds an implementation to the nodes declared with `name`.
    pub fn bind_node(
        &mut self,
        name: &str,
        callback: impl FnMut(&mut NodeContext<'_>) -> Result<(), String> + Send + 'static,
    ) {
        self.nodes.insert(name.to_string(), Box::new(callback));
    }

    /// Creates (or recreates, when `desc` differs) the external resource named `name` (the entry
    /// parameter it is passed as). Frames that import a missing external create it themselves.
    pub fn create_external(&mut self, name: &str, desc: &ResourceDesc) -> Result<(), BackendError> {
        let desc = desc
            .validate()
            .map_err(|e| BackendError::Api(format!("external `{name}`: {e}")))?;
        self.ensure_external(
            name,
            &desc,
            [vk::ImageLayout::GENERAL; 2],
            vk::ImageUsageFlags::empty(),
        )
    }

    fn submit(&self, cb: vk::CommandBuffer, fence: vk::Fence) -> Result<(), BackendError> {
        let buffers = [vk::CommandBufferSubmitInfo::default().command_buffer(cb)];
        let submit = vk::SubmitInfo2::default().command_buffer_infos(&buffers);
        // SAFETY: the command buffer is executable; the fence is unsignalled.
        unsafe {
            self.context
                .device
                .queue_submit2(self.context.queue, &[submit], fence)
        }
        .map_err(|r| vk_error("vkQueueSubmit2", r))
    }

    /// Retires every frame slot: waits for its work (with the timeout) and frees its views.
    fn retire_all(&mut self) -> Result<(), BackendError> {
        // Oldest frame first (the next slot to be reused holds the oldest one).
        for offset in 0..self.slots.len() {
            self.retire_slot((self.next_slot + offset) % self.slots.len())?;
        }
        Ok(())
    }

    /// Waits for a slot's frame, frees its views and collects its timings.
    fn retire_slot(&mut self, index: usize) -> Result<(), BackendError> {
        let slot = &mut self.slots[index];
        slot.retire(&self.context, self.options.fence_timeout)?;
        slot.recycle_command_buffers();
        if let Some(pending) = slot.timings.take() {
            let timings = timing::read_timings(&self.context, slot.query_pool, &pending)?;
            self.completed_timings.push(timings);
        }
        Ok(())
    }

    /// Waits until the GPU finished everything this backend submitted: the whole device when
    /// it is rpsl's own (also covers slots whose wait timed out), else every lane's last
    /// timeline value (the application's device stays its own business).
    fn wait_own_work(&self) -> Result<(), BackendError> {
        let device = &self.context.device;
        if !self.context.is_borrowed() {
            // SAFETY: plain wait on a live device.
            return unsafe { device.device_wait_idle() }
                .map_err(|r| vk_error("vkDeviceWaitIdle", r));
        }
        let (semaphores, values): (Vec<_>, Vec<_>) = self
            .lanes
            .iter()
            .filter(|lane| lane.value > 0)
            .map(|lane| (lane.timeline, lane.value))
            .unzip();
        if semaphores.is_empty() {
            return Ok(());
        }
        let info = vk::SemaphoreWaitInfo::default()
            .semaphores(&semaphores)
            .values(&values);
        let nanos = self.options.fence_timeout.as_nanos().min(u64::MAX as u128) as u64;
        // SAFETY: the timeline semaphores are this backend's and live.
        unsafe { device.wait_semaphores(&info, nanos) }.map_err(|r| vk_error("vkWaitSemaphores", r))
    }

    fn check_messages(&self) -> Result<(), BackendError> {
        let messages = self.context.take_messages();
        if messages.is_empty() {
            Ok(())
        } else {
            Err(BackendError::Validation(messages))
        }
    }

    /// Executes a frame: rpsl submits it, or, with `command_buffers`, records it into the
    /// application's command buffers and returns the batches to submit.
    fn execute(
        &mut self,
        graph: &RecordedGraph,
        frame: &CompiledFrame,
        command_buffers: Option<&mut app_resources::CommandBufferSource<'_>>,
    ) -> Result<Vec<RecordedBatch>, BackendError> {
        let app_submits = command_buffers.is_some();
        if self.context.wedged.get() {
            return Err(BackendError::DeviceLost(
                "an earlier frame hung or lost the device; no more frames run".into(),
            ));
        }
        let sync = self.frame_sync.take();
        let slot_index = self.next_slot;
        self.retire_slot(slot_index)?;
        let allocator = self.allocator.as_mut().unwrap_or_else(|| unreachable!());
        self.slots[slot_index].free_scratch(&self.context, allocator);
        self.check_messages()?;
        let count = graph.resources.len();
        let mut handles: Vec<Option<ResourceHandle>> = vec![None; count];
        let usage = usage_per_resource(graph);
        let used = |index: usize| frame.lifetimes.get(index).copied().flatten().is_some();
        // Outliving resources.
        self.release_ended_persistents(graph)?;
        let mut import_states = Vec::new();
        let wait_stages = sync.as_ref().map_or(vk::PipelineStageFlags2::NONE, |sync| {
            sync.waits
                .iter()
                .fold(vk::PipelineStageFlags2::NONE, |all, op| all | op.stages)
        });
        let mut import_barriers = app_resources::ImportBarriers {
            after_waits: wait_stages,
            ..Default::default()
        };
        for (index, record) in graph.resources.iter().enumerate() {
            if record.external {
                let name = record
                    .name
                    .clone()
                    .unwrap_or_else(|| format!("external{index}"));
                if let Some(import) = self.imports.get(&name) {
                    app_resources::check_import(&name, import, graph, index, usage[index])?;
                    handles[index] = Some(ResourceHandle::of(&import.resource));
                    if used(index) {
                        let after = app_resources::plan_import_barriers(
                            import,
                            app_resources::resting(graph, index),
                            wait_stages,
                            self.context.families.graphics,
                            &mut import_barriers,
                        );
                        import_states.push((name, after));
                    }
                    continue;
                }
                let rest = resources::rest_layout(frame, index);
                self.ensure_external(&name, &record.desc, rest, usage[index])?;
                handles[index] = self
                    .externals
                    .get(&name)
                    .map(|e| ResourceHandle::of(&e.resource));
            } else if record.desc.is_persistent() && used(index) {
                let slot = persistent_slot(index, record);
                self.ensure_persistent(graph, index, slot, usage[index])?;
                handles[index] = self.persistent.get(&slot).map(ResourceHandle::of);
            }
        }
        // Transients, placed in one heap as planned; reused from the slot's previous frame
        // when that frame had the same transients.
        let key: slots::TransientKey = graph
            .resources
            .iter()
            .enumerate()
            .filter(|&(index, record)| !record.outlives_frame() && used(index))
            .map(|(index, record)| {
                let placement = frame.placements.get(index).copied().flatten();
                (
                    index,
                    record.desc,
                    usage[index],
                    placement.map(|p| (p.offset, p.size)),
                )
            })
            .collect();
        let mut failure = None;
        let mut heap = None;
        let mut transients: Vec<Option<GpuResource>> = (0..count).map(|_| None).collect();
        let reuse = {
            let slot = &mut self.slots[slot_index];
            slot.key == key && slot.transients.len() == key.len()
        };
        if reuse {
            let slot = &mut self.slots[slot_index];
            for (index, resource) in slot.transients.drain(..) {
                transients[index] = Some(resource);
            }
            heap = slot.heap.take();
            self.stats.reused_transients = true;
        } else {
            let allocator = self.allocator.as_mut().unwrap_or_else(|| unreachable!());
            self.slots[slot_index].release(&self.context, allocator, &mut self.view_cache);
            self.stats.reused_transients = false;
            let mut planned = Vec::new();
            for &(index, desc, usage, placement) in &key {
                let name = graph
                    .resource_name(rpsl_runtime::ResourceId::from_index(index))
                    .map_or_else(|| format!("transient r{index}"), str::to_string);
                match create_unbound(&self.context, &desc, usage, &name) {
                    Ok(resource) => {
                        let (offset, size) = placement.unwrap_or((u64::MAX / 2, 0));
                        planned.push((index, offset, size));
                        transients[index] = Some(resource);
                    }
                    Err(error) => {
                        failure = Some(error);
                        break;
                    }
                }
            }
            if failure.is_none() {
                let allocator = self.allocator.as_mut().unwrap_or_else(|| unreachable!());
                match place_transients(&self.context, allocator, &mut transients, &planned) {
                    Ok((placed, unplaced)) => {
                        self.stats.transient_heap_bytes =
                            placed.as_ref().map_or(0, |h| h.allocation.size());
                        self.stats.unplaced_transients = unplaced;
                        heap = placed;
                    }
                    Err(error) => failure = Some(error),
                }
            }
        }
        for (index, resource) in transients.iter().enumerate() {
            if let Some(resource) = resource {
                handles[index] = Some(ResourceHandle::of(resource));
            }
        }
        let mut views = Vec::new();
        let mut result = match failure {
            Some(error) => Err(error),
            None => self.record_and_submit(
                slot_index,
                graph,
                frame,
                &handles,
                &mut views,
                app_resources::AppFrame {
                    barriers: &import_barriers,
                    sync: sync.as_ref(),
                    command_buffers: command_buffers.map(|source| {
                        let source: &mut app_resources::CommandBufferSource<'_> = source;
                        source
                    }),
                },
            ),
        };
        if result.is_ok() {
            for (name, state) in import_states {
                if let Some(import) = self.imports.get_mut(&name) {
                    import.state = state;
                }
            }
        }
        // The frame's objects live in its slot until the slot is retired.
        let single_slot = self.slots.len() == 1;
        let slot = &mut self.slots[slot_index];
        slot.views = views;
        slot.transients = transients
            .into_iter()
            .enumerate()
            .filter_map(|(index, resource)| resource.map(|resource| (index, resource)))
            .collect();
        slot.heap = heap;
        slot.key = if failure_free(&result) {
            key
        } else {
            Vec::new()
        };
        // A frame the application submits is waited for when its slot is reused.
        if !slot.in_flight || (single_slot && !app_submits) {
            let retired = self.retire_slot(slot_index);
            if let (Ok(_), Err(error)) = (&result, retired) {
                result = Err(error);
            }
        }
        // Messages of a frame that failed for another reason go with that failure.
        let messages = self.context.take_messages();
        if result.is_ok() && !messages.is_empty() {
            result = Err(BackendError::Validation(messages));
        }
        self.next_slot = (slot_index + 1) % self.slots.len();
        self.frames += 1;
        result
    }

    fn record_and_submit(
        &mut self,
        slot_index: usize,
        graph: &RecordedGraph,
        frame: &CompiledFrame,
        handles: &[Option<ResourceHandle>],
        views_out: &mut Vec<vk::ImageView>,
        app: app_resources::AppFrame<'_>,
    ) -> Result<Vec<RecordedBatch>, BackendError> {
        let slot = &mut self.slots[slot_index];
        let timestamps = self.options.timestamps;
        if timestamps {
            let queries = frame.order.len() as u32 * 2 + 1;
            // SAFETY: the slot was retired before its frame began recording (`execute`).
            unsafe {
                timing::prepare_queries(
                    &self.context,
                    &mut slot.query_pool,
                    &mut slot.query_capacity,
                    queries,
                )
            }?;
        }
        let needs_minmax = frame
            .order
            .iter()
            .any(|&node| builtins::needs_resolve_shaders(graph, node));
        if needs_minmax && self.minmax.is_none() {
            self.minmax = Some(minmax::MinMaxResolve::new(&self.context)?);
        }
        let slot = &mut self.slots[slot_index];
        let allocator = self.allocator.as_mut().unwrap_or_else(|| unreachable!());
        // SAFETY: the slot was retired before its frame began recording.
        let buffer_targets = unsafe {
            buffer_target::create_buffer_targets(
                &self.context,
                allocator,
                &mut self.view_cache,
                graph,
                frame,
                &mut slot.buffer_targets,
            )
        }?;
        let region_clears = region_clear::create_region_clear_scratch(
            &self.context,
            allocator,
            graph,
            frame,
            handles,
            &mut slot.scratch,
        )?;
        let buffer_clears = buffer_clear::create_buffer_clear_scratch(
            &self.context,
            allocator,
            graph,
            frame,
            handles,
            &mut slot.scratch,
        )?;
        let texture_clears = texture_clear::create_texture_clear_scratch(
            &self.context,
            allocator,
            graph,
            frame,
            handles,
            &mut slot.scratch,
        )?;
        // The slot's depth/stencil resolve scratch images, lent to the recorder for the frame.
        let mut resolve_scratch = std::mem::take(&mut slot.resolve_scratch);
        resolve_scratch.begin_frame();
        let mut recorder = FrameRecorder {
            context: &self.context,
            cb: vk::CommandBuffer::null(),
            graph,
            frame,
            handles,
            views: Vec::new(),
            view_cache: &mut self.view_cache,
            minmax: self.minmax.as_ref(),
            buffer_targets: &buffer_targets,
            region_clears: &region_clears,
            buffer_clears: &buffer_clears,
            texture_clears: &texture_clears,
            resolve_scratch: &mut resolve_scratch,
            rendering: Default::default(),
            open_labels: Default::default(),
        };
        let mut submission = FrameSubmission {
            lanes: &mut self.lanes,
            pools: &self.pools,
            slot,
            allocator,
            nodes: &mut self.nodes,
            allow_unbound: self.options.allow_unbound,
            timestamps,
            imports: app.barriers,
            sync: app.sync,
            command_buffers: app.command_buffers.map(|source| {
                let source: &mut app_resources::CommandBufferSource<'_> = source;
                source
            }),
        };
        let mut timed = Vec::new();
        let result = submit::record_and_submit_frame(&mut recorder, &mut submission, &mut timed);
        views_out.append(&mut recorder.views);
        drop(recorder);
        // SAFETY: the slot was retired (its previous frame complete) before this frame began
        // recording (`execute`); the images and views were made with this context and cache.
        unsafe { resolve_scratch.end_frame(&self.context, &mut self.view_cache) };
        self.slots[slot_index].resolve_scratch = resolve_scratch;
        let batches = result?;
        self.stats.barriers = frame.barriers.len() as u32;
        self.stats.persistent_resources = self.persistent.len() as u32;
        if timestamps {
            self.slots[slot_index].timings = Some(PendingTimings {
                frame_index: self.frames,
                nodes: timed,
                queries: frame.order.len() as u32 * 2 + 1,
            });
        }
        Ok(batches)
    }
}

/// The frame succeeded so far: its transients may be reused.
fn failure_free<T>(result: &Result<T, BackendError>) -> bool {
    result.is_ok()
}

impl Backend for VulkanBackend {
    fn name(&self) -> &str {
        "vulkan"
    }

    fn execute_frame(
        &mut self,
        graph: &RecordedGraph,
        frame: &CompiledFrame,
    ) -> Result<(), BackendError> {
        self.execute(graph, frame, None).map(|_| ())
    }

    fn wait_idle(&mut self) -> Result<(), BackendError> {
        self.retire_all()?;
        self.check_messages()
    }
}

impl Drop for VulkanBackend {
    fn drop(&mut self) {
        if self.context.wedged.get() {
            // The GPU hung or was lost: waiting could block forever and freeing objects it may
            // still use is undefined, so everything is left to the process's end.
            std::mem::forget(self.allocator.take());
            return;
        }
        let _ = self.retire_all();
        if self.wait_own_work().is_err() {
            self.context.wedged.set(true);
        }
        if self.context.wedged.get() {
            // As above: the GPU may still use everything.
            std::mem::forget(self.allocator.take());
            return;
        }
        if let Some(pass) = self.minmax.take() {
            // SAFETY: the device is idle (waited for above, not wedged).
            unsafe { pass.destroy(&self.context) };
        }
        if let Some(mut allocator) = self.allocator.take() {
            // SAFETY: the device is idle.
            unsafe { self.view_cache.destroy_all(&self.context) };
            for mut slot in std::mem::take(&mut self.slots) {
                // The device is idle: no slot's frame is pending any more.
                slot.in_flight = false;
                slot.release(&self.context, &mut allocator, &mut self.view_cache);
                // SAFETY: the device is idle and the slot's resources were just released.
                unsafe { slot.destroy(&self.context) };
            }
            for (_, external) in self.externals.drain() {
                // SAFETY: the device is idle; the view cache was emptied above.
                unsafe { external.resource.destroy(&self.context, &mut allocator) };
            }
            for (_, resource) in self.persistent.drain() {
                // SAFETY: as above.
                unsafe { resource.destroy(&self.context, &mut allocator) };
            }
            drop(allocator);
        }
        // SAFETY: the device is idle; these objects are ours.
        unsafe {
            self.context.device.destroy_fence(self.fence, None);
            for (_, pool) in self.pools.drain() {
                self.context.device.destroy_command_pool(pool, None);
            }
            for lane in self.lanes.drain(..) {
                self.context.device.destroy_semaphore(lane.timeline, None);
            }
        }
    }
}

/// `VulkanBackend` is `Send` (an engine owns it on its render thread): this fails to compile
/// when a field (a node callback, a cache) stops being `Send`.
const _: () = {
    const fn assert_send<T: Send>() {}
    assert_send::<VulkanBackend>();
};
