//! Resources that outlive a frame: external images and buffers (entry arguments and `out`
//! parameters, created on demand and re-created when their description changes), persistent and
//! temporal resources, and the one-time layout initialisation that gives each a defined state
//! before its first frame.

use super::*;
use crate::encoder::CommandEncoder;
use crate::resources::GpuObject;

impl VulkanBackend {
    /// Creates the external resource `name` with the usages of `frame_usage` and its layouts at
    /// rest, or re-creates it (after the device is idle) when its description changed.
    pub(crate) fn ensure_external(
        &mut self,
        name: &str,
        desc: &ResourceDesc,
        rest_layout: [vk::ImageLayout; 2],
        frame_usage: vk::ImageUsageFlags,
    ) -> Result<(), BackendError> {
        if let Some(existing) = self.externals.get(name) {
            if existing.resource.desc == *desc {
                return Ok(());
            }
            self.wait_idle()?;
            if let Some(old) = self.externals.remove(name) {
                let allocator = self.allocator.as_mut().unwrap_or_else(|| unreachable!());
                // SAFETY: every frame slot was just retired (`wait_idle`), so no pending work
                // uses it or its views; the views go first.
                unsafe {
                    self.view_cache.forget(&self.context, &old.resource);
                    old.resource.destroy(&self.context, allocator);
                }
            }
        }
        let resource = self.create_outliving(desc, name, frame_usage)?;
        if let Err(error) = self.initialise_layout(&resource, rest_layout) {
            // The one-shot submission either completed or never ran, unless the device is
            // wedged (then the resource is left alone, like everything else the GPU may use).
            if !self.context.wedged.get() {
                let allocator = self.allocator.as_mut().unwrap_or_else(|| unreachable!());
                // SAFETY: the layout initialisation (the only work that saw it) completed or
                // was never submitted; no view was made of it.
                unsafe { resource.destroy(&self.context, allocator) };
            }
            return Err(error);
        }
        self.externals.insert(
            name.to_string(),
            External {
                resource,
                rest_layout,
            },
        );
        Ok(())
    }

    /// Creates a persistent or temporal resource with its own allocation.
    pub(crate) fn create_outliving(
        &mut self,
        desc: &ResourceDesc,
        name: &str,
        frame_usage: vk::ImageUsageFlags,
    ) -> Result<GpuResource, BackendError> {
        let real_format = resources::resolve_typeless(desc.format, frame_usage);
        let usage = match vk_format(real_format) {
            Some(format) if desc.kind.is_texture() => {
                frame_usage | supported_usage(&self.context, desc, format)
            }
            _ => frame_usage,
        };
        let allocator = self.allocator.as_mut().unwrap_or_else(|| unreachable!());
        resources::create_with_own_memory(&self.context, allocator, desc, usage, name)
    }

    /// Moves a new image from UNDEFINED to the layout(s) it rests in between frames.
    pub(crate) fn initialise_layout(
        &mut self,
        resource: &GpuResource,
        rest: [vk::ImageLayout; 2],
    ) -> Result<(), BackendError> {
        let GpuObject::Image(image) = resource.object else {
            return Ok(());
        };
        let aspects = resource.aspect();
        let mut barriers = Vec::new();
        let planes: &[(vk::ImageAspectFlags, usize)] =
            if aspects.contains(vk::ImageAspectFlags::DEPTH | vk::ImageAspectFlags::STENCIL) {
                &[
                    (vk::ImageAspectFlags::DEPTH, 0),
                    (vk::ImageAspectFlags::STENCIL, 1),
                ]
            } else {
                &[(vk::ImageAspectFlags::empty(), 0)]
            };
        for &(aspect, plane) in planes {
            barriers.push(
                vk::ImageMemoryBarrier2::default()
                    .src_stage_mask(vk::PipelineStageFlags2::NONE)
                    .dst_stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS)
                    .dst_access_mask(vk::AccessFlags2::MEMORY_READ | vk::AccessFlags2::MEMORY_WRITE)
                    .old_layout(vk::ImageLayout::UNDEFINED)
                    .new_layout(rest[plane])
                    .image(image)
                    .subresource_range(vk::ImageSubresourceRange {
                        aspect_mask: if aspect.is_empty() { aspects } else { aspect },
                        base_mip_level: 0,
                        level_count: vk::REMAINING_MIP_LEVELS,
                        base_array_layer: 0,
                        layer_count: vk::REMAINING_ARRAY_LAYERS,
                    }),
            );
        }
        self.one_shot(|encoder| {
            // SAFETY: a one-shot command buffer, outside any render pass; the image was just
            // created (in UNDEFINED) and lives until the submission was waited for.
            unsafe {
                encoder.pipeline_barrier(
                    &vk::DependencyInfo::default().image_memory_barriers(&barriers),
                )
            };
            Ok(())
        })
    }

    /// Records commands with `record`, submits them on the graphics queue and waits (with the
    /// fence timeout): objects `record` names need to live only until this returns (on a
    /// timeout the device is wedged and nothing is freed any more).
    pub(crate) fn one_shot(
        &mut self,
        record: impl FnOnce(&CommandEncoder<'_>) -> Result<(), BackendError>,
    ) -> Result<(), BackendError> {
        let device = &self.context.device;
        let cb = self.command_buffer;
        // SAFETY: the command buffer is not in flight (every submit is waited for).
        unsafe {
            device
                .reset_command_buffer(cb, vk::CommandBufferResetFlags::empty())
                .map_err(|r| vk_error("vkResetCommandBuffer", r))?;
            device
                .begin_command_buffer(
                    cb,
                    &vk::CommandBufferBeginInfo::default()
                        .flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT),
                )
                .map_err(|r| vk_error("vkBeginCommandBuffer", r))?;
        }
        // SAFETY: `cb` of this device was just begun, and only this encoder records into it
        // until it ends below.
        let encoder =
            unsafe { CommandEncoder::new(device, self.context.debug_device.as_ref(), cb) };
        let recorded = record(&encoder);
        // SAFETY: the command buffer is recording.
        let ended =
            unsafe { device.end_command_buffer(cb) }.map_err(|r| vk_error("vkEndCommandBuffer", r));
        recorded?;
        ended?;
        self.submit(self.command_buffer, self.fence)?;
        wait_fence(&self.context, self.fence, self.options.fence_timeout)?;
        self.check_messages()
    }

    /// Makes the persistent (or temporal) resource `index` of `graph` exist in storage `slot`,
    /// created (and its layout initialised) the first time and again when its description
    /// changed; the replaced one is destroyed once no frame in flight uses it.
    pub(crate) fn ensure_persistent(
        &mut self,
        graph: &RecordedGraph,
        index: usize,
        slot: StorageSlot,
        usage: vk::ImageUsageFlags,
    ) -> Result<(), BackendError> {
        let record = &graph.resources[index];
        let fresh = self
            .persistent
            .get(&slot)
            .is_none_or(|r| r.desc != record.desc);
        if !fresh {
            return Ok(());
        }
        if let Some(old) = self.persistent.remove(&slot) {
            self.retire_all()?;
            // SAFETY: every frame slot was retired just above (its fence waited for), so no
            // frame in flight uses the old resource or its views.
            unsafe { self.destroy_outliving(old) };
        }
        let name = graph
            .resource_name(rpsl_runtime::ResourceId::from_index(index))
            .map_or_else(|| format!("persistent r{index}"), str::to_string);
        let resource = self.create_outliving(&record.desc, &name, usage)?;
        let init = self.initialise_layout(&resource, [vk::ImageLayout::GENERAL; 2]);
        self.persistent.insert(slot, resource);
        init
    }

    /// Destroys the persistent and temporal resources whose storage slots no record of `graph`
    /// names. The graph builder never gives a slot back after a frame without it (a skipped
    /// frame, a changed declaration, a reload that did not carry the resource's history), so
    /// their data can never be read again; keeping them would grow device memory with every
    /// such frame. Waits for the frames in flight first, which happens only in frames where
    /// such a resource ended.
    pub(crate) fn release_ended_persistents(
        &mut self,
        graph: &RecordedGraph,
    ) -> Result<(), BackendError> {
        if self.persistent.is_empty() {
            return Ok(());
        }
        let mut live: Vec<StorageSlot> = graph
            .resources
            .iter()
            .enumerate()
            .filter(|(_, record)| !record.external && record.desc.is_persistent())
            .map(|(index, record)| persistent_slot(index, record))
            .collect();
        live.sort_unstable();
        let ended: Vec<StorageSlot> = self
            .persistent
            .keys()
            .filter(|slot| live.binary_search(slot).is_err())
            .copied()
            .collect();
        if ended.is_empty() {
            return Ok(());
        }
        self.retire_all()?;
        for slot in ended {
            if let Some(old) = self.persistent.remove(&slot) {
                // SAFETY: every frame slot was retired just above, so no frame in flight uses
                // the resource or its views.
                unsafe { self.destroy_outliving(old) };
            }
        }
        Ok(())
    }

    /// Destroys an outliving resource and the cached views of it.
    ///
    /// # Safety
    /// No frame in flight may use `resource` or its views (retire the frame slots first).
    unsafe fn destroy_outliving(&mut self, resource: GpuResource) {
        // SAFETY: the caller guarantees no pending GPU work uses the resource; the views go
        // first, then the resource and its memory.
        unsafe {
            self.view_cache.forget(&self.context, &resource);
            resource.destroy(
                &self.context,
                self.allocator.as_mut().unwrap_or_else(|| unreachable!()),
            )
        };
    }
}

/// The storage slot of persistent resource `index`: the builder's, or one of its own per index
/// for a graph recorded without storage slots.
pub(crate) fn persistent_slot(index: usize, record: &rpsl_runtime::ResourceRecord) -> StorageSlot {
    record
        .storage
        .unwrap_or(StorageSlot(u32::MAX - index as u32))
}
