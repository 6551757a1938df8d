//! Command recording of one compiled frame: the compiler's barrier batches as
//! `vkCmdPipelineBarrier2`, render passes with dynamic rendering (load/store/clear, viewports and
//! scissors), per-node debug labels and image views (kept across frames by the backend's
//! [`ViewCache`]).

use crate::context::Context;
use crate::depth_resolve::ResolveScratch;
use crate::encoder::CommandEncoder;
use crate::format::{plane_aspect, vk_format};
use crate::resources::{GpuObject, GpuResource};
use crate::view_cache::{ObjectId, ViewCache, ViewKey};
use ash::vk;
use rpsl_runtime::{
    AccessRecord, BackendError, Barrier, CompiledFrame, Format, LoadOp, RecordedGraph, RenderPass,
    ResourceDesc, ResourceKind, StoreOp,
};
use std::cell::Cell;

/// The Vulkan objects of one resource for this frame.
#[derive(Copy, Clone, Debug)]
pub struct ResourceHandle {
    /// The description (with the format the image really has).
    pub desc: ResourceDesc,
    /// The image or buffer.
    pub object: GpuObject,
    /// Vulkan format of the image.
    pub format: vk::Format,
    /// The usage the image was created with.
    pub usage: vk::ImageUsageFlags,
}

impl ResourceHandle {
    /// The handle of a resource for recording.
    pub fn of(resource: &GpuResource) -> ResourceHandle {
        ResourceHandle {
            desc: crate::resources::real_desc(resource),
            object: resource.object,
            format: resource.format,
            usage: resource.usage,
        }
    }

    /// The image of a texture resource.
    ///
    /// # Errors
    ///
    /// [`BackendError::Unsupported`] for a buffer resource (a texture command on a buffer,
    /// which the builder's parameter checks keep out of recorded graphs).
    pub fn image(&self) -> Result<vk::Image, BackendError> {
        self.object.image().ok_or_else(|| {
            BackendError::Unsupported("a texture command on a buffer resource".to_string())
        })
    }

    /// The buffer of a buffer resource.
    ///
    /// # Errors
    ///
    /// [`BackendError::Unsupported`] for a texture resource (a buffer command on a texture).
    pub fn buffer(&self) -> Result<vk::Buffer, BackendError> {
        self.object.buffer().ok_or_else(|| {
            BackendError::Unsupported(format!(
                "a buffer command on a texture resource ({:?})",
                self.desc.kind
            ))
        })
    }
}

/// The Vulkan format of the image view of `access` (a call of node `node`) of `handle`.
///
/// Views of depth/stencil images keep the image's format (the aspect selects the plane), and so
/// do depth views of a typeless resource realised as a colour image (`R32_TYPELESS` read through
/// `D32_FLOAT`: the same bits). Anything else the builder's view-format rule lets through is in
/// the image format's compatibility class; a view that is not (a caller that bypassed the
/// builder) is an error here, never an invalid `vkCreateImageView`.
fn view_format_of(
    access: &AccessRecord,
    recorded: Format,
    handle: &ResourceHandle,
    node: &str,
) -> Result<vk::Format, BackendError> {
    let view = access.view_format;
    if !rpsl_runtime::view_format_compatible(recorded, view) {
        return Err(BackendError::Unsupported(format!(
            "node `{node}`: a {view} view of a resource of format {recorded} (outside its \
             compatibility class)"
        )));
    }
    let image = handle.desc.format;
    let plane_view = view.info().is_some_and(|info| info.plane_view);
    if view == Format::UNKNOWN || image.is_depth_stencil() || view.is_depth_stencil() || plane_view
    {
        return Ok(handle.format);
    }
    Ok(vk_format(view).unwrap_or(handle.format))
}

/// What recording one frame works with.
pub struct FrameRecorder<'a> {
    /// The context.
    pub context: &'a Context,
    /// The command buffer being recorded: `submit.rs` sets it to the open segment's command
    /// buffer, in the recording state, before recording a node (what [`Self::encoder`] needs).
    pub cb: vk::CommandBuffer,
    /// The graph.
    pub graph: &'a RecordedGraph,
    /// The compiled frame.
    pub frame: &'a CompiledFrame,
    /// Resources by id (`None`: not realised, unused this frame).
    pub handles: &'a [Option<ResourceHandle>],
    /// Image views created for this frame only (destroyed after the frame completes); the
    /// backend's own views live in `view_cache`.
    pub views: Vec<vk::ImageView>,
    /// Views kept as long as their images, object identities and object counts.
    pub view_cache: &'a mut ViewCache,
    /// The min/max resolve pass, when the frame has such resolves.
    pub minmax: Option<&'a crate::minmax::MinMaxResolve>,
    /// Scratch images standing in for buffer colour attachments.
    pub buffer_targets: &'a [crate::buffer_target::BufferTarget],
    /// Scratch images of `clear_texture_regions` nodes.
    pub region_clears: &'a [crate::region_clear::RegionClearScratch],
    /// Pattern buffers of buffer clears that copy their pattern.
    pub buffer_clears: &'a [crate::buffer_clear::BufferClearScratch],
    /// Texel buffers of texture clears that copy texel bytes.
    pub texture_clears: &'a [crate::texture_clear::TextureClearScratch],
    /// The frame slot's depth/stencil resolve scratch images.
    pub resolve_scratch: &'a mut ResolveScratch,
    /// A render pass begun by [`Self::begin_rendering`] is open on `cb` (what makes
    /// [`Self::end_rendering`] safe).
    pub(crate) rendering: Cell<bool>,
    /// Debug labels [`Self::begin_label`] opened on `cb` and not yet closed.
    pub(crate) open_labels: Cell<u32>,
}

/// Subresources of an access in Vulkan terms (temporal slice folded into the layers).
pub struct AccessRegion {
    /// Image subresource range (textures).
    pub range: vk::ImageSubresourceRange,
    /// Byte offset (buffers).
    pub offset: u64,
    /// Byte size (buffers).
    pub size: u64,
}

/// The region an access covers.
pub fn access_region(access: &AccessRecord, desc: &ResourceDesc) -> AccessRegion {
    let sub = access.subresource_box(desc);
    if desc.kind == ResourceKind::Buffer {
        return AccessRegion {
            range: vk::ImageSubresourceRange::default(),
            offset: sub.lo[0],
            size: sub.hi[0] - sub.lo[0],
        };
    }
    AccessRegion {
        range: vk::ImageSubresourceRange {
            aspect_mask: plane_aspect(desc.format, sub.lo[2], sub.hi[2]),
            base_mip_level: sub.lo[0] as u32,
            level_count: (sub.hi[0] - sub.lo[0]) as u32,
            base_array_layer: sub.lo[1] as u32,
            layer_count: (sub.hi[1] - sub.lo[1]) as u32,
        },
        offset: 0,
        size: 0,
    }
}

fn load_op(op: LoadOp) -> vk::AttachmentLoadOp {
    match op {
        LoadOp::Load => vk::AttachmentLoadOp::LOAD,
        LoadOp::Clear => vk::AttachmentLoadOp::CLEAR,
        LoadOp::DontCare => vk::AttachmentLoadOp::DONT_CARE,
    }
}

fn store_op(op: StoreOp) -> vk::AttachmentStoreOp {
    match op {
        StoreOp::Store => vk::AttachmentStoreOp::STORE,
        StoreOp::DontCare => vk::AttachmentStoreOp::DONT_CARE,
    }
}

/// Depth and stencil attachment of a dynamic-rendering pass.
pub struct DepthTarget {
    /// The access.
    pub access: u32,
    /// Depth load/store, `None` when the depth plane is not part of the pass.
    pub depth: Option<(vk::AttachmentLoadOp, vk::AttachmentStoreOp, bool)>,
    /// Stencil load/store, `None` when the stencil plane is not part of the pass.
    pub stencil: Option<(vk::AttachmentLoadOp, vk::AttachmentStoreOp, bool)>,
    /// Clear depth.
    pub clear_depth: f32,
    /// Clear stencil.
    pub clear_stencil: u32,
}

impl<'a> FrameRecorder<'a> {
    /// The encoder of the command buffer being recorded.
    ///
    /// # Safety
    ///
    /// `self.cb` is the command buffer `submit.rs` opened for the node being recorded (in the
    /// recording state; not null).
    pub(crate) unsafe fn encoder(&self) -> CommandEncoder<'a> {
        // SAFETY: the caller guarantees `cb` is a recording command buffer of this device, and
        // recording is single-threaded; the debug functions were loaded for this device.
        unsafe {
            CommandEncoder::new(
                &self.context.device,
                self.context.debug_device.as_ref(),
                self.cb,
            )
        }
    }

    /// The handle of a resource.
    pub fn handle(
        &self,
        resource: rpsl_runtime::ResourceId,
    ) -> Result<ResourceHandle, BackendError> {
        self.handles
            .get(resource.index())
            .copied()
            .flatten()
            .ok_or_else(|| BackendError::Api(format!("resource {} was not realised", resource.0)))
    }

    /// Records barriers (of the compiler's plan) as one `vkCmdPipelineBarrier2`.
    pub fn record_barriers(&self, barriers: &[Barrier]) -> Result<(), BackendError> {
        if barriers.is_empty() {
            return Ok(());
        }
        let mut images = Vec::new();
        let mut buffers = Vec::new();
        for barrier in barriers {
            let handle = self.handle(barrier.resource)?;
            let src_stage = vk::PipelineStageFlags2::from_raw(barrier.src_stages.0);
            let src_access = vk::AccessFlags2::from_raw(barrier.src_accesses.0);
            let dst_stage = vk::PipelineStageFlags2::from_raw(barrier.dst_stages.0);
            let dst_access = vk::AccessFlags2::from_raw(barrier.dst_accesses.0);
            let region = self.frame.barrier_region(barrier);
            match handle.object {
                GpuObject::Image(image) => images.push(
                    vk::ImageMemoryBarrier2::default()
                        .src_stage_mask(src_stage)
                        .src_access_mask(src_access)
                        .dst_stage_mask(dst_stage)
                        .dst_access_mask(dst_access)
                        .old_layout(vk::ImageLayout::from_raw(barrier.old_layout as i32))
                        .new_layout(vk::ImageLayout::from_raw(barrier.new_layout as i32))
                        .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                        .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                        .image(image)
                        .subresource_range(vk::ImageSubresourceRange {
                            aspect_mask: plane_aspect(
                                handle.desc.format,
                                region.lo[2],
                                region.hi[2],
                            ),
                            base_mip_level: region.lo[0] as u32,
                            level_count: (region.hi[0] - region.lo[0]) as u32,
                            base_array_layer: region.lo[1] as u32,
                            layer_count: (region.hi[1] - region.lo[1]) as u32,
                        }),
                ),
                GpuObject::Buffer(buffer) => buffers.push(
                    vk::BufferMemoryBarrier2::default()
                        .src_stage_mask(src_stage)
                        .src_access_mask(src_access)
                        .dst_stage_mask(dst_stage)
                        .dst_access_mask(dst_access)
                        .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                        .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                        .buffer(buffer)
                        .offset(region.lo[0])
                        .size(region.hi[0] - region.lo[0]),
                ),
            }
        }
        let info = vk::DependencyInfo::default()
            .image_memory_barriers(&images)
            .buffer_memory_barriers(&buffers);
        // SAFETY: `cb` is the node's recording command buffer, outside a render pass (barriers
        // come before the node's pass); the resources live in the frame's slot or the backend
        // until the frame completes; the layouts are the compiler's plan.
        unsafe { self.encoder().pipeline_barrier(&info) };
        Ok(())
    }

    /// Writes a timestamp (after all earlier commands) into query `index` of `pool`.
    ///
    /// # Safety
    ///
    /// `pool` is the frame slot's query pool, reset for this frame with more than `index`
    /// queries, and query `index` is written once in the frame.
    pub unsafe fn timestamp(&self, pool: vk::QueryPool, index: u32) {
        // SAFETY: `cb` is the node's recording command buffer; the caller vouches for the query.
        unsafe {
            self.encoder()
                .write_timestamp(vk::PipelineStageFlags2::ALL_COMMANDS, pool, index)
        };
    }

    /// Opens a debug label.
    pub fn begin_label(&self, name: &str) {
        // SAFETY: `cb` is the node's recording command buffer.
        unsafe { self.encoder() }.begin_label(name);
        self.open_labels.set(self.open_labels.get() + 1);
    }

    /// Closes the label [`Self::begin_label`] opened last (nothing when none is open).
    pub fn end_label(&self) {
        let open = self.open_labels.get();
        debug_assert!(open > 0, "end_label without begin_label");
        if open > 0 {
            self.open_labels.set(open - 1);
            // SAFETY: `cb` is the node's recording command buffer, with a label open.
            unsafe { self.encoder().end_label() };
        }
    }

    /// An image view of an access (kept as long as its image).
    pub fn view_of(
        &mut self,
        access_index: u32,
        whole_aspect: bool,
    ) -> Result<vk::ImageView, BackendError> {
        self.view_with_id(access_index, whole_aspect)
            .map(|(view, _)| view)
    }

    /// An image view of an access (kept as long as its image) and its identity.
    pub fn view_with_id(
        &mut self,
        access_index: u32,
        whole_aspect: bool,
    ) -> Result<(vk::ImageView, ObjectId), BackendError> {
        if let Some(target) = self.buffer_target(access_index) {
            return self.buffer_target_view(&target);
        }
        let access = self
            .graph
            .accesses
            .get(access_index as usize)
            .copied()
            .ok_or_else(|| BackendError::Api(format!("access {access_index} out of range")))?;
        let handle = self.handle(access.resource)?;
        let Some(image) = handle.object.image() else {
            let name = &self.graph.decl_of(access.node).name;
            return Err(BackendError::Unsupported(format!(
                "node `{name}` binds a buffer view where an image view is needed"
            )));
        };
        let mut region = access_region(&access, &handle.desc).range;
        if whole_aspect {
            region.aspect_mask = crate::format::full_aspect(handle.desc.format);
        }
        let recorded = self.graph.resources[access.resource.index()].desc.format;
        let node = &self.graph.decl_of(access.node).name;
        let format = view_format_of(&access, recorded, &handle, node)?;
        let view_type = view_type_of(handle.desc.kind, region.layer_count);
        let graph = self.graph;
        let key = ViewKey::new(image, view_type, format, &region);
        // A view in another format than its image's carries only the image's usages that its
        // format supports (an sRGB view of a storage image cannot be a storage view); every
        // view must carry what its access needs (an image lacks the usages its format does not
        // support on this device, such as storage on sRGB formats).
        let view_usage = if format == handle.format {
            handle.usage
        } else {
            handle.usage & crate::resources::format_usage(self.context, format)
        };
        let needed = crate::resources::access_usage(&access, recorded.is_depth_stencil())
            & !(vk::ImageUsageFlags::TRANSFER_SRC | vk::ImageUsageFlags::TRANSFER_DST);
        if !view_usage.contains(needed) {
            let decl = self.graph.decl_of(access.node);
            let param = decl
                .params
                .get(access.param as usize)
                .and_then(|param| param.view_slots.get(access.slot as usize))
                .map_or("?", |slot| slot.name.as_str());
            let shown = if access.view_format == Format::UNKNOWN {
                recorded
            } else {
                access.view_format
            };
            return Err(BackendError::Unsupported(format!(
                "node `{node}`: argument `{param}`: this device has no {:?} support for {shown} \
                 images",
                needed & !view_usage
            )));
        }
        let usage = (format != handle.format).then_some(view_usage);
        self.view_cache
            .view_with_usage(self.context, key, usage, || {
                let name = graph.resources[access.resource.index()]
                    .name
                    .clone()
                    .unwrap_or_else(|| format!("r{}", access.resource.0));
                format!(
                    "{name} view ({view_type:?} mips {}+{} layers {}+{})",
                    region.base_mip_level,
                    region.level_count,
                    region.base_array_layer,
                    region.layer_count
                )
            })
    }

    /// A view of `image` kept until the image is destroyed (the hook for passes that make their
    /// own views, such as the min/max resolve: the image must be one the backend destroys
    /// through [`ViewCache::forget`]).
    #[allow(
        dead_code,
        reason = "the hook for minmax.rs and depth_resolve.rs (vkdepth) to call for their views"
    )]
    pub fn cached_view(
        &mut self,
        image: vk::Image,
        view_type: vk::ImageViewType,
        format: vk::Format,
        range: vk::ImageSubresourceRange,
        label: &str,
    ) -> Result<vk::ImageView, BackendError> {
        let key = ViewKey::new(image, view_type, format, &range);
        self.view_cache
            .view(self.context, key, || label.to_string())
            .map(|(view, _)| view)
    }

    /// Begins dynamic rendering: colour attachments `(access, load, store, clear)`, an optional
    /// depth/stencil target, the render area, and sets viewports and scissors.
    #[allow(clippy::too_many_arguments, reason = "one render pass description")]
    pub fn begin_rendering(
        &mut self,
        colors: &[(u32, vk::AttachmentLoadOp, vk::AttachmentStoreOp, [f32; 4])],
        depth: Option<&DepthTarget>,
        width: u32,
        height: u32,
        layers: u32,
        viewports: &[vk::Viewport],
        scissors: &[vk::Rect2D],
    ) -> Result<(), BackendError> {
        if self.rendering.get() {
            return Err(BackendError::Api(
                "a render pass begins inside another one".into(),
            ));
        }
        let mut color_infos = Vec::with_capacity(colors.len());
        for &(access, load, store, clear) in colors {
            let view = self.view_of(access, false)?;
            color_infos.push(
                vk::RenderingAttachmentInfo::default()
                    .image_view(view)
                    .image_layout(vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL)
                    .load_op(load)
                    .store_op(store)
                    .clear_value(vk::ClearValue {
                        color: vk::ClearColorValue { float32: clear },
                    }),
            );
        }
        let mut depth_info = None;
        let mut stencil_info = None;
        if let Some(target) = depth {
            let view = self.view_of(target.access, true)?;
            let clear = vk::ClearValue {
                depth_stencil: vk::ClearDepthStencilValue {
                    depth: target.clear_depth,
                    stencil: target.clear_stencil,
                },
            };
            if let Some((load, store, read_only)) = target.depth {
                depth_info = Some(
                    vk::RenderingAttachmentInfo::default()
                        .image_view(view)
                        .image_layout(if read_only {
                            vk::ImageLayout::DEPTH_READ_ONLY_OPTIMAL
                        } else {
                            vk::ImageLayout::DEPTH_ATTACHMENT_OPTIMAL
                        })
                        .load_op(load)
                        .store_op(store)
                        .clear_value(clear),
                );
            }
            if let Some((load, store, read_only)) = target.stencil {
                stencil_info = Some(
                    vk::RenderingAttachmentInfo::default()
                        .image_view(view)
                        .image_layout(if read_only {
                            vk::ImageLayout::STENCIL_READ_ONLY_OPTIMAL
                        } else {
                            vk::ImageLayout::STENCIL_ATTACHMENT_OPTIMAL
                        })
                        .load_op(load)
                        .store_op(store)
                        .clear_value(clear),
                );
            }
        }
        let mut info = vk::RenderingInfo::default()
            .render_area(vk::Rect2D {
                offset: vk::Offset2D { x: 0, y: 0 },
                extent: vk::Extent2D { width, height },
            })
            .layer_count(layers.max(1))
            .color_attachments(&color_infos);
        if let Some(depth_info) = &depth_info {
            info = info.depth_attachment(depth_info);
        }
        if let Some(stencil_info) = &stencil_info {
            info = info.stencil_attachment(stencil_info);
        }
        // SAFETY: `cb` is the node's recording command buffer, outside a render pass (the
        // node's pass begins here); the views live as long as their images, which outlive the
        // frame; the compiler put the attachments in the layouts named; the viewports and
        // scissors are the compiler's, within the device's limits.
        unsafe {
            let encoder = self.encoder();
            encoder.begin_rendering(&info);
            if !viewports.is_empty() {
                encoder.set_viewport(0, viewports);
            }
            if !scissors.is_empty() {
                encoder.set_scissor(0, scissors);
            }
        }
        self.rendering.set(true);
        Ok(())
    }

    /// Ends the pass [`Self::begin_rendering`] began (nothing when none is open).
    pub fn end_rendering(&self) {
        debug_assert!(self.rendering.get(), "end_rendering outside a render pass");
        if self.rendering.replace(false) {
            // SAFETY: `cb` is the node's recording command buffer, with a pass open.
            unsafe { self.encoder().end_rendering() };
        }
    }

    /// Begins the compiler's render pass of a node.
    pub fn begin_pass(&mut self, pass: &RenderPass) -> Result<(), BackendError> {
        let colors: Vec<_> = pass
            .colors
            .iter()
            .map(|c| {
                // A resolved attachment must keep its samples until the resolve after the pass.
                let store = if c.resolve.is_some() {
                    vk::AttachmentStoreOp::STORE
                } else {
                    store_op(c.store)
                };
                (c.access, load_op(c.load), store, c.clear_color)
            })
            .collect();
        let depth = pass.depth_stencil.as_ref().map(|ds| {
            let access = &self.graph.accesses[ds.access as usize];
            let desc = &self
                .handles
                .get(access.resource.index())
                .copied()
                .flatten()
                .map_or(self.graph.resources[access.resource.index()].desc, |h| {
                    h.desc
                });
            let sub = access.subresource_box(desc);
            let covers = |plane: u64| sub.lo[2] <= plane && plane < sub.hi[2];
            DepthTarget {
                access: ds.access,
                depth: (desc.format.has_depth() && covers(0)).then_some((
                    load_op(ds.depth_load),
                    store_op(ds.depth_store),
                    ds.depth_read_only,
                )),
                stencil: (desc.format.has_stencil() && covers(1)).then_some((
                    load_op(ds.stencil_load),
                    store_op(ds.stencil_store),
                    ds.stencil_read_only,
                )),
                clear_depth: ds.clear_depth,
                clear_stencil: ds.clear_stencil,
            }
        });
        let viewports: Vec<_> = pass
            .viewports
            .iter()
            .map(|v| vk::Viewport {
                x: v.x,
                y: v.y,
                width: v.width,
                height: v.height,
                min_depth: v.min_depth,
                max_depth: v.max_depth,
            })
            .collect();
        for color in &pass.colors {
            if let Some(target) = self.buffer_target(color.access) {
                self.begin_buffer_target(&target)?;
            }
        }
        let scissors: Vec<_> = pass
            .scissors
            .iter()
            .map(|s| vk::Rect2D {
                offset: vk::Offset2D { x: s.x, y: s.y },
                extent: vk::Extent2D {
                    width: s.width,
                    height: s.height,
                },
            })
            .collect();
        self.begin_rendering(
            &colors,
            depth.as_ref(),
            pass.width,
            pass.height,
            pass.layers,
            &viewports,
            &scissors,
        )
    }

    /// Ends the compiler's render pass of a node, then resolves its `SV_ResolveTarget`s: the
    /// compiler plans resolve targets in TRANSFER_DST layout, so each multisampled colour
    /// attachment moves to TRANSFER_SRC, is resolved with `vkCmdResolveImage` (average) and
    /// returns to COLOR_ATTACHMENT_OPTIMAL, the state the compiler's plan expects after the node.
    pub fn end_pass(&mut self, pass: &RenderPass) -> Result<(), BackendError> {
        self.end_rendering();
        for color in &pass.colors {
            if let Some(target) = self.buffer_target(color.access) {
                self.end_buffer_target(&target)?;
            }
        }
        for color in &pass.colors {
            let Some(resolve) = color.resolve else {
                continue;
            };
            let src = self.graph.accesses[color.access as usize];
            let dst = self.graph.accesses[resolve as usize];
            let src_handle = self.handle(src.resource)?;
            let dst_handle = self.handle(dst.resource)?;
            let (Some(src_image), Some(dst_image)) =
                (src_handle.object.image(), dst_handle.object.image())
            else {
                return Err(BackendError::Api(format!(
                    "node `{}` resolves a buffer",
                    self.graph.decl_of(src.node).name
                )));
            };
            let src_range = access_region(&src, &src_handle.desc).range;
            let dst_range = access_region(&dst, &dst_handle.desc).range;
            let to_transfer = vk::ImageMemoryBarrier2::default()
                .src_stage_mask(vk::PipelineStageFlags2::COLOR_ATTACHMENT_OUTPUT)
                .src_access_mask(vk::AccessFlags2::COLOR_ATTACHMENT_WRITE)
                .dst_stage_mask(vk::PipelineStageFlags2::RESOLVE)
                .dst_access_mask(vk::AccessFlags2::TRANSFER_READ)
                .old_layout(vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL)
                .new_layout(vk::ImageLayout::TRANSFER_SRC_OPTIMAL)
                .image(src_image)
                .subresource_range(src_range);
            let back = vk::ImageMemoryBarrier2::default()
                .src_stage_mask(vk::PipelineStageFlags2::RESOLVE)
                .src_access_mask(vk::AccessFlags2::NONE)
                .dst_stage_mask(vk::PipelineStageFlags2::COLOR_ATTACHMENT_OUTPUT)
                .dst_access_mask(
                    vk::AccessFlags2::COLOR_ATTACHMENT_READ
                        | vk::AccessFlags2::COLOR_ATTACHMENT_WRITE,
                )
                .old_layout(vk::ImageLayout::TRANSFER_SRC_OPTIMAL)
                .new_layout(vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL)
                .image(src_image)
                .subresource_range(src_range);
            let layers = |range: &vk::ImageSubresourceRange| vk::ImageSubresourceLayers {
                aspect_mask: range.aspect_mask,
                mip_level: range.base_mip_level,
                base_array_layer: range.base_array_layer,
                layer_count: range.layer_count.min(pass.layers.max(1)),
            };
            let region = vk::ImageResolve {
                src_subresource: layers(&src_range),
                src_offset: vk::Offset3D::default(),
                dst_subresource: layers(&dst_range),
                dst_offset: vk::Offset3D::default(),
                extent: vk::Extent3D {
                    width: pass.width,
                    height: pass.height,
                    depth: 1,
                },
            };
            // SAFETY: `cb` is the node's recording command buffer, outside the render pass that
            // just ended, on the graphics queue (render passes run there); both images live
            // until the frame completes; the source moves to TRANSFER_SRC here and the target
            // is in the TRANSFER_DST layout the compiler planned.
            unsafe {
                let encoder = self.encoder();
                encoder.pipeline_barrier(
                    &vk::DependencyInfo::default().image_memory_barriers(&[to_transfer]),
                );
                encoder.resolve_image(
                    src_image,
                    vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                    dst_image,
                    vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                    &[region],
                );
                encoder.pipeline_barrier(
                    &vk::DependencyInfo::default().image_memory_barriers(&[back]),
                );
            }
        }
        Ok(())
    }
}

/// The type of the image view the backend makes of `layers` layers of a `kind` texture (views
/// are never cubes).
pub(crate) fn view_type_of(kind: ResourceKind, layers: u32) -> vk::ImageViewType {
    match kind {
        ResourceKind::Tex1d if layers > 1 => vk::ImageViewType::TYPE_1D_ARRAY,
        ResourceKind::Tex1d => vk::ImageViewType::TYPE_1D,
        ResourceKind::Tex3d => vk::ImageViewType::TYPE_3D,
        _ if layers > 1 => vk::ImageViewType::TYPE_2D_ARRAY,
        _ => vk::ImageViewType::TYPE_2D,
    }
}

#[cfg(test)]
mod tests {
    use super::{GpuObject, ResourceHandle};
    use ash::vk::{self, Handle};
    use rpsl_runtime::{BackendError, Format, ResourceDesc};

    fn handle(desc: ResourceDesc, object: GpuObject) -> ResourceHandle {
        ResourceHandle {
            desc,
            object,
            format: vk::Format::UNDEFINED,
            usage: vk::ImageUsageFlags::empty(),
        }
    }

    #[test]
    fn a_handle_gives_the_object_of_its_kind_and_an_error_for_the_other() {
        let image = vk::Image::from_raw(0x11);
        let buffer = vk::Buffer::from_raw(0x22);
        let texture = handle(
            ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, 4, 4),
            GpuObject::Image(image),
        );
        let bytes = handle(ResourceDesc::buffer(16), GpuObject::Buffer(buffer));
        assert_eq!(texture.image(), Ok(image));
        assert_eq!(bytes.buffer(), Ok(buffer));
        assert_eq!(
            bytes.image(),
            Err(BackendError::Unsupported(
                "a texture command on a buffer resource".to_string()
            ))
        );
        assert_eq!(
            texture.buffer(),
            Err(BackendError::Unsupported(
                "a buffer command on a texture resource (Tex2d)".to_string()
            ))
        );
    }
}
