//! Resolves of multisampled depth, depth-stencil and stencil-plane views (`resolve()` of rpsl.h
//! on depth/stencil formats), which `vkCmdResolveImage` does not allow.
//!
//! Vulkan's depth/stencil resolve is a render-pass resolve: a dynamic render pass with the
//! multisampled source as its depth and/or stencil attachment (loaded, `STORE_OP_NONE`, in a
//! read-only layout), the destination as `resolveImageView` and no draw; the resolve happens when
//! the pass ends, over the render area `(dstOffset, extent)`. Mode mapping per aspect:
//!
//! | RPS mode  | depth     | stencil                                        |
//! |-----------|-----------|------------------------------------------------|
//! | `AVERAGE` | `AVERAGE` | `SAMPLE_ZERO` (stencil values are not averaged) |
//! | `MIN`     | `MIN`     | `MIN`                                          |
//! | `MAX`     | `MAX`     | `MAX`                                          |
//!
//! A mode the device lists in `VkPhysicalDeviceDepthStencilResolveProperties` runs as a
//! render-pass resolve. Depth and stencil share one pass when their modes are equal or the device
//! has `independentResolve`; otherwise each aspect gets its own pass. Where the render pass has
//! the mode but cannot write the destination directly (`srcOffset != dstOffset`, which a
//! render-area resolve cannot express; a driver bug listed in [`Quirks`]), it resolves into a
//! scratch image at the source's offsets and a copy moves the result to `dstOffset`
//! (`scratch.rs`). Where the device lacks the mode (lavapipe lacks `MIN`/`MAX`), or a driver's
//! copy of one aspect would overwrite the other, a fragment shader resolves instead
//! (`shader.rs`, [`ShaderDepthResolve`]); `plan.rs` groups and orders the passes. The stencil
//! shader needs
//! VK_EXT_shader_stencil_export: without it, a stencil resolve in a mode the render pass lacks is
//! an error naming the node, the format and the mode. Only the base mip of the views is resolved
//! (as `vkCmdResolveImage` does for colour), over the layers both views share.
//!
//! The compiler plans resolve sources in `TRANSFER_SRC_OPTIMAL` and destinations in
//! `TRANSFER_DST_OPTIMAL` (stage `RESOLVE`); the node moves each aspect to the attachment or
//! read-only layouts it uses and back (a destination aspect written by a scratch copy stays in
//! `TRANSFER_DST_OPTIMAL`), chained to the compiler's barriers through the transfer stages.
//! The spec puts render-pass resolves in `COLOR_ATTACHMENT_OUTPUT` with
//! `COLOR_ATTACHMENT_READ`/`WRITE` accesses, for depth/stencil attachments too; the source's load
//! is a `DEPTH_STENCIL_ATTACHMENT_READ` in `EARLY_FRAGMENT_TESTS`.

use crate::context::Context;
use crate::record::{FrameRecorder, ResourceHandle};
use crate::view_cache::ViewKey;
use ash::vk;
use rpsl_runtime::{BackendError, NodeId};

mod plan;
mod scratch;
mod shader;

use plan::{copies_clobbering, group_passes, shader_op, sort_plans};

pub(crate) use scratch::ResolveScratch;
pub(crate) use shader::ShaderDepthResolve;

/// One depth/stencil resolve of a `resolve` node (offsets and extent already clamped to both
/// images).
pub(crate) struct DepthResolveJob {
    /// The node (for errors).
    pub node: NodeId,
    /// The source resource.
    pub src: ResourceHandle,
    /// Its image.
    pub src_image: vk::Image,
    /// The source's subresources.
    pub src_range: vk::ImageSubresourceRange,
    /// The destination resource.
    pub dst: ResourceHandle,
    /// Its image.
    pub dst_image: vk::Image,
    /// The destination's subresources.
    pub dst_range: vk::ImageSubresourceRange,
    /// Top-left source texel.
    pub src_offset: vk::Offset2D,
    /// Top-left destination texel.
    pub dst_offset: vk::Offset2D,
    /// Texels resolved.
    pub extent: vk::Extent2D,
    /// `RPS_RESOLVE_MODE`: 0 average, 1 min, 2 max.
    pub mode: u32,
}

/// What a shader resolve computes per pixel (the shader's `op` push constant).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum ShaderOp {
    /// Sample zero (stencil under `AVERAGE`).
    SampleZero = 0,
    /// The mean of the samples.
    Average = 1,
    /// The smallest sample.
    Min = 2,
    /// The largest sample.
    Max = 3,
}

/// How one aspect is resolved.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Method {
    /// A render-pass resolve with this mode into the destination.
    RenderPass(vk::ResolveModeFlags),
    /// A render-pass resolve with this mode into a scratch image, copied into the destination.
    Scratch(vk::ResolveModeFlags),
    /// The fragment-shader resolve.
    Shader(ShaderOp),
}

const MODE_NAMES: [&str; 3] = ["AVERAGE", "MIN", "MAX"];

fn node_error(recorder: &FrameRecorder<'_>, node: NodeId, message: String) -> BackendError {
    BackendError::Node {
        node,
        name: recorder.graph.decl_of(node).name.clone(),
        message,
    }
}

/// The layout an aspect of the source is read in (load and resolve, or sampling).
pub(crate) fn source_layout(aspect: vk::ImageAspectFlags) -> vk::ImageLayout {
    if aspect == vk::ImageAspectFlags::STENCIL {
        vk::ImageLayout::STENCIL_READ_ONLY_OPTIMAL
    } else {
        vk::ImageLayout::DEPTH_READ_ONLY_OPTIMAL
    }
}

/// The layout an aspect of the destination is written in.
pub(crate) fn destination_layout(aspect: vk::ImageAspectFlags) -> vk::ImageLayout {
    if aspect == vk::ImageAspectFlags::STENCIL {
        vk::ImageLayout::STENCIL_ATTACHMENT_OPTIMAL
    } else {
        vk::ImageLayout::DEPTH_ATTACHMENT_OPTIMAL
    }
}

/// Stages and accesses of the source and the destination under a method:
/// `(src stages, src accesses, dst stages, dst accesses)`.
fn method_scope(
    method: Method,
) -> (
    vk::PipelineStageFlags2,
    vk::AccessFlags2,
    vk::PipelineStageFlags2,
    vk::AccessFlags2,
) {
    match method {
        Method::Scratch(_) => (
            vk::PipelineStageFlags2::EARLY_FRAGMENT_TESTS
                | vk::PipelineStageFlags2::COLOR_ATTACHMENT_OUTPUT,
            vk::AccessFlags2::DEPTH_STENCIL_ATTACHMENT_READ
                | vk::AccessFlags2::COLOR_ATTACHMENT_READ,
            vk::PipelineStageFlags2::COPY,
            vk::AccessFlags2::TRANSFER_WRITE,
        ),
        Method::RenderPass(_) => (
            vk::PipelineStageFlags2::EARLY_FRAGMENT_TESTS
                | vk::PipelineStageFlags2::COLOR_ATTACHMENT_OUTPUT,
            vk::AccessFlags2::DEPTH_STENCIL_ATTACHMENT_READ
                | vk::AccessFlags2::COLOR_ATTACHMENT_READ,
            vk::PipelineStageFlags2::COLOR_ATTACHMENT_OUTPUT,
            vk::AccessFlags2::COLOR_ATTACHMENT_READ | vk::AccessFlags2::COLOR_ATTACHMENT_WRITE,
        ),
        Method::Shader(_) => (
            vk::PipelineStageFlags2::FRAGMENT_SHADER,
            vk::AccessFlags2::SHADER_SAMPLED_READ,
            vk::PipelineStageFlags2::EARLY_FRAGMENT_TESTS
                | vk::PipelineStageFlags2::LATE_FRAGMENT_TESTS,
            vk::AccessFlags2::DEPTH_STENCIL_ATTACHMENT_READ
                | vk::AccessFlags2::DEPTH_STENCIL_ATTACHMENT_WRITE,
        ),
    }
}

/// What a view is for.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum ViewUse {
    /// Bound as an attachment.
    Attachment,
    /// Sampled by the shader resolve.
    Sampled,
}

/// A view of `image` from the backend's view cache (made on first use, kept as long as the
/// image).
#[allow(clippy::too_many_arguments, reason = "one view description")]
pub(crate) fn frame_view(
    recorder: &mut FrameRecorder<'_>,
    usage: ViewUse,
    image: vk::Image,
    format: vk::Format,
    aspect: vk::ImageAspectFlags,
    mip: u32,
    layers: (u32, u32),
    name: &str,
) -> Result<vk::ImageView, BackendError> {
    // Sampled views are arrays (the shader declares `texture2DMSArray`).
    let view_type = if layers.1 > 1 || usage == ViewUse::Sampled {
        vk::ImageViewType::TYPE_2D_ARRAY
    } else {
        vk::ImageViewType::TYPE_2D
    };
    let range = vk::ImageSubresourceRange {
        aspect_mask: aspect,
        base_mip_level: mip,
        level_count: 1,
        base_array_layer: layers.0,
        layer_count: layers.1,
    };
    let key = ViewKey::new(image, view_type, format, &range);
    let (view, _) = recorder
        .view_cache
        .view(recorder.context, key, || name.to_string())?;
    Ok(view)
}

/// Depth/stencil resolve and copy bugs of drivers, worked around with a scratch image or the
/// shader resolve. Found on lavapipe (llvmpipe, Mesa 22): an `AVERAGE` depth resolve writes
/// sample zero; a render pass resolving only one aspect of a depth-stencil image also writes the
/// other aspect (with its sample zero), where the spec allows at most a read-modify-write that
/// keeps it; and `vkCmdCopyImage` of one aspect of a depth-stencil image copies whole texels,
/// the other aspect too.
#[derive(Copy, Clone, Debug, Default)]
struct Quirks {
    depth_average_is_sample_zero: bool,
    single_aspect_resolve_writes_both: bool,
    single_aspect_copy_writes_both: bool,
}

impl Quirks {
    fn of(context: &Context) -> Quirks {
        let llvmpipe = context.device_name.starts_with("llvmpipe");
        Quirks {
            depth_average_is_sample_zero: llvmpipe,
            single_aspect_resolve_writes_both: llvmpipe,
            single_aspect_copy_writes_both: llvmpipe,
        }
    }
}

impl crate::VulkanBackend {
    /// Test hook, not part of the API: narrows the depth/stencil resolve capabilities the
    /// backend uses (`depth_resolve_modes`, `stencil_resolve_modes`, `independent_resolve`,
    /// `independent_resolve_none`, `shader_stencil_export`) to what `change` leaves of them, so
    /// tests can take the paths of devices that lack them (as one without
    /// VK_EXT_shader_stencil_export). It never adds what the device lacks; other fields are
    /// ignored. Call it before the first frame.
    #[doc(hidden)]
    pub fn set_resolve_capabilities_for_tests(
        &mut self,
        change: impl FnOnce(&mut crate::EnabledFeatures),
    ) {
        let real = self.context.features;
        let mut wanted = real;
        change(&mut wanted);
        let features = &mut self.context.features;
        features.depth_resolve_modes = real.depth_resolve_modes & wanted.depth_resolve_modes;
        features.stencil_resolve_modes = real.stencil_resolve_modes & wanted.stencil_resolve_modes;
        features.independent_resolve = real.independent_resolve && wanted.independent_resolve;
        features.independent_resolve_none =
            real.independent_resolve_none && wanted.independent_resolve_none;
        features.shader_stencil_export = real.shader_stencil_export && wanted.shader_stencil_export;
    }
}

impl FrameRecorder<'_> {
    /// Records a depth/stencil resolve: layout changes, one or two render-pass resolves and/or
    /// shader resolves, layouts back.
    pub(crate) fn record_depth_resolve(
        &mut self,
        job: &DepthResolveJob,
    ) -> Result<(), BackendError> {
        let node = job.node;
        let format = job.dst.format;
        if job.src.format != format || !job.src.desc.format.is_depth_stencil() {
            return Err(node_error(
                self,
                node,
                format!(
                    "resolving {:?} into {format:?}: a depth/stencil resolve needs the same format on both sides",
                    job.src.format
                ),
            ));
        }
        if job.src.desc.sample_count <= 1 || job.dst.desc.sample_count > 1 {
            return Err(node_error(
                self,
                node,
                format!(
                    "resolving {format:?} needs a multisampled source and a single-sampled destination (got {} and {} samples)",
                    job.src.desc.sample_count, job.dst.desc.sample_count
                ),
            ));
        }
        let features = self.context.features;
        if !features.separate_depth_stencil_layouts {
            return Err(node_error(
                self,
                node,
                format!("resolving {format:?} needs separateDepthStencilLayouts"),
            ));
        }
        let plans = self.plan_aspects(job)?;
        if plans.is_empty() {
            return Ok(());
        }
        let layers = job
            .src_range
            .layer_count
            .min(job.dst_range.layer_count)
            .max(1);
        let src_layers = (job.src_range.base_array_layer, layers);
        let dst_layers = (job.dst_range.base_array_layer, layers);
        let src_mip = job.src_range.base_mip_level;
        let dst_mip = job.dst_range.base_mip_level;
        let barrier =
            |image: vk::Image,
             aspect: vk::ImageAspectFlags,
             range: &vk::ImageSubresourceRange,
             mip: u32,
             (old, new): (vk::ImageLayout, vk::ImageLayout),
             (src_stage, src_access): (vk::PipelineStageFlags2, vk::AccessFlags2),
             (dst_stage, dst_access): (vk::PipelineStageFlags2, vk::AccessFlags2)| {
                vk::ImageMemoryBarrier2::default()
                    .src_stage_mask(src_stage)
                    .src_access_mask(src_access)
                    .dst_stage_mask(dst_stage)
                    .dst_access_mask(dst_access)
                    .old_layout(old)
                    .new_layout(new)
                    .image(image)
                    .subresource_range(vk::ImageSubresourceRange {
                        aspect_mask: aspect,
                        base_mip_level: mip,
                        level_count: 1,
                        base_array_layer: range.base_array_layer,
                        layer_count: layers,
                    })
            };
        let transfer = vk::PipelineStageFlags2::ALL_TRANSFER;
        let transfer_access = vk::AccessFlags2::TRANSFER_READ | vk::AccessFlags2::TRANSFER_WRITE;
        let mut before = Vec::new();
        let mut after = Vec::new();
        let mut used_stages = vk::PipelineStageFlags2::empty();
        let mut used_accesses = vk::AccessFlags2::empty();
        let mut used_writes = vk::AccessFlags2::empty();
        for &(aspect, method) in &plans {
            let (src_stage, src_access, dst_stage, dst_access) = method_scope(method);
            used_stages |= src_stage | dst_stage;
            used_accesses |= src_access | dst_access;
            let src_layouts = (vk::ImageLayout::TRANSFER_SRC_OPTIMAL, source_layout(aspect));
            // A scratch copy writes the destination in the planned TRANSFER_DST_OPTIMAL.
            let dst_layouts = (
                vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                match method {
                    Method::Scratch(_) => vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                    _ => destination_layout(aspect),
                },
            );
            before.push(barrier(
                job.src_image,
                aspect,
                &job.src_range,
                src_mip,
                src_layouts,
                // The compiler's barriers leave the images as a resolve access (RESOLVE
                // stage, TRANSFER_READ / TRANSFER_WRITE): start from exactly that scope, so
                // the earlier writes they made visible chain into these layout changes.
                (
                    vk::PipelineStageFlags2::RESOLVE,
                    vk::AccessFlags2::TRANSFER_READ,
                ),
                (src_stage, src_access),
            ));
            before.push(barrier(
                job.dst_image,
                aspect,
                &job.dst_range,
                dst_mip,
                dst_layouts,
                (
                    vk::PipelineStageFlags2::RESOLVE,
                    vk::AccessFlags2::TRANSFER_WRITE,
                ),
                (dst_stage, dst_access),
            ));
            after.push(barrier(
                job.src_image,
                aspect,
                &job.src_range,
                src_mip,
                (src_layouts.1, src_layouts.0),
                (src_stage, vk::AccessFlags2::NONE),
                (transfer, transfer_access),
            ));
            let written = dst_access
                & (vk::AccessFlags2::COLOR_ATTACHMENT_WRITE
                    | vk::AccessFlags2::DEPTH_STENCIL_ATTACHMENT_WRITE
                    | vk::AccessFlags2::TRANSFER_WRITE);
            used_writes |= written;
            after.push(barrier(
                job.dst_image,
                aspect,
                &job.dst_range,
                dst_mip,
                (dst_layouts.1, dst_layouts.0),
                (dst_stage, written),
                (transfer, transfer_access),
            ));
        }
        let passes = group_passes(&plans, features.independent_resolve);
        let label = plans
            .iter()
            .map(|(aspect, method)| {
                let what = if *aspect == vk::ImageAspectFlags::STENCIL {
                    "stencil"
                } else {
                    "depth"
                };
                match method {
                    Method::RenderPass(mode) => format!("{what} {mode:?} (render pass)"),
                    Method::Scratch(mode) => {
                        format!("{what} {mode:?} (render pass into scratch, copy)")
                    }
                    Method::Shader(op) => format!("{what} {op:?} (shader)"),
                }
            })
            .collect::<Vec<_>>()
            .join(", ");
        self.begin_label(&format!("depth/stencil resolve: {label}"));
        // SAFETY: `cb` is the node's recording command buffer, outside any render pass; the
        // images live until the frame completes and are in the layouts the compiler planned
        // for the resolve, which these barriers bridge.
        unsafe {
            self.encoder()
                .pipeline_barrier(&vk::DependencyInfo::default().image_memory_barriers(&before))
        };
        let mut result = Ok(());
        for (index, pass) in passes.iter().enumerate() {
            if index > 0 {
                // Writes of one aspect may read-modify-write the other (no
                // separateDepthStencilAttachmentAccess): order the passes.
                let between = [vk::MemoryBarrier2::default()
                    .src_stage_mask(used_stages)
                    .src_access_mask(used_writes)
                    .dst_stage_mask(used_stages)
                    .dst_access_mask(used_accesses)];
                // SAFETY: `cb` is recording outside a render pass (each pass ended its own).
                unsafe {
                    self.encoder()
                        .pipeline_barrier(&vk::DependencyInfo::default().memory_barriers(&between))
                };
            }
            result = match pass[0].1 {
                Method::RenderPass(_) => self.render_pass_resolve(
                    job,
                    pass,
                    (src_mip, src_layers),
                    (dst_mip, dst_layers),
                ),
                Method::Scratch(_) => {
                    self.scratch_resolve(job, pass, (src_mip, src_layers), (dst_mip, dst_layers))
                }
                Method::Shader(op) => self.shader_resolve(
                    job,
                    pass[0].0,
                    op,
                    (src_mip, src_layers),
                    (dst_mip, dst_layers),
                ),
            };
            if result.is_err() {
                break;
            }
        }
        // SAFETY: as above (layouts go back even after a failure, keeping the plan's state;
        // a failing pass returns before it begins rendering).
        unsafe {
            self.encoder()
                .pipeline_barrier(&vk::DependencyInfo::default().image_memory_barriers(&after))
        };
        self.end_label();
        result
    }

    /// How each aspect the source and destination share is resolved, render-pass resolves
    /// first (see [`Quirks`] for why the order matters).
    fn plan_aspects(
        &self,
        job: &DepthResolveJob,
    ) -> Result<Vec<(vk::ImageAspectFlags, Method)>, BackendError> {
        let node = job.node;
        let format = job.dst.format;
        let features = self.context.features;
        let quirks = Quirks::of(self.context);
        let mode = job.mode.min(2) as usize;
        let same_offset = job.src_offset == job.dst_offset;
        let have_shaders = self.minmax.and_then(|pass| pass.depth_shaders()).is_some();
        let aspects: Vec<vk::ImageAspectFlags> =
            [vk::ImageAspectFlags::DEPTH, vk::ImageAspectFlags::STENCIL]
                .into_iter()
                .filter(|&aspect| {
                    job.src_range.aspect_mask.contains(aspect)
                        && job.dst_range.aspect_mask.contains(aspect)
                })
                .collect();
        let format_aspects = crate::format::full_aspect(job.dst.desc.format);
        let partial = aspects.len() == 1 && format_aspects.as_raw().count_ones() == 2;
        let mut plans = Vec::new();
        for &aspect in &aspects {
            let stencil = aspect == vk::ImageAspectFlags::STENCIL;
            let what = if stencil { "stencil" } else { "depth" };
            let (wanted, mut supported, op) = if stencil {
                let wanted = [
                    vk::ResolveModeFlags::SAMPLE_ZERO,
                    vk::ResolveModeFlags::MIN,
                    vk::ResolveModeFlags::MAX,
                ][mode];
                let op = [ShaderOp::SampleZero, ShaderOp::Min, ShaderOp::Max][mode];
                (wanted, features.stencil_resolve_modes, op)
            } else {
                let wanted = [
                    vk::ResolveModeFlags::AVERAGE,
                    vk::ResolveModeFlags::MIN,
                    vk::ResolveModeFlags::MAX,
                ][mode];
                let op = [ShaderOp::Average, ShaderOp::Min, ShaderOp::Max][mode];
                (wanted, features.depth_resolve_modes, op)
            };
            if !stencil && quirks.depth_average_is_sample_zero {
                supported &= !vk::ResolveModeFlags::AVERAGE;
            }
            if supported.contains(wanted) {
                // The render pass has the mode. It writes the destination directly when the
                // offsets match (a render-area resolve cannot shift) and the driver keeps the
                // other aspect; otherwise it resolves into a scratch image copied into place.
                let direct = same_offset && !(partial && quirks.single_aspect_resolve_writes_both);
                let method = if direct {
                    Method::RenderPass(wanted)
                } else {
                    Method::Scratch(wanted)
                };
                plans.push((aspect, method));
                continue;
            }
            let why = format!("the device's {what} resolve modes are {supported:?}");
            if stencil && !features.shader_stencil_export {
                return Err(node_error(
                    self,
                    node,
                    format!(
                        "{} resolve of the stencil aspect of {format:?} is not supported: {why}, and the shader fallback needs VK_EXT_shader_stencil_export",
                        MODE_NAMES[mode]
                    ),
                ));
            }
            if !have_shaders {
                return Err(node_error(
                    self,
                    node,
                    format!(
                        "{} resolve of the {what} aspect of {format:?} needs the shader fallback ({why}), which this frame did not create",
                        MODE_NAMES[mode]
                    ),
                ));
            }
            plans.push((aspect, Method::Shader(op)));
        }
        sort_plans(&mut plans);
        if quirks.single_aspect_resolve_writes_both {
            let render_passes = group_passes(&plans, features.independent_resolve)
                .iter()
                .filter(|pass| matches!(pass[0].1, Method::RenderPass(_)))
                .count();
            if render_passes > 1 {
                // Two single-aspect render-pass resolves into the destination would clobber
                // each other: the second aspect resolves into a scratch image, whose copy
                // comes after the first pass.
                if let Some(last) = plans.last_mut() {
                    if let Method::RenderPass(mode) = last.1 {
                        last.1 = Method::Scratch(mode);
                    }
                }
            }
        }
        if quirks.single_aspect_copy_writes_both && format_aspects.as_raw().count_ones() == 2 {
            for aspect in copies_clobbering(&plans, features.independent_resolve, format_aspects) {
                let stencil = aspect == vk::ImageAspectFlags::STENCIL;
                if (stencil && !features.shader_stencil_export) || !have_shaders {
                    return Err(node_error(
                        self,
                        node,
                        format!(
                            "{} resolve of the {} aspect of {format:?} is not supported: this driver's copy of one aspect of a depth-stencil image overwrites the other, and the shader fallback needs {}",
                            MODE_NAMES[mode],
                            if stencil { "stencil" } else { "depth" },
                            if stencil { "VK_EXT_shader_stencil_export" } else { "the resolve shaders" }
                        ),
                    ));
                }
                if let Some(plan) = plans.iter_mut().find(|(a, _)| *a == aspect) {
                    plan.1 = Method::Shader(shader_op(mode, stencil));
                }
            }
            sort_plans(&mut plans);
        }
        Ok(plans)
    }

    /// One render-pass resolve of the aspects of `pass` (no draw: the resolve happens when the
    /// pass ends).
    fn render_pass_resolve(
        &mut self,
        job: &DepthResolveJob,
        pass: &[(vk::ImageAspectFlags, Method)],
        (src_mip, src_layers): (u32, (u32, u32)),
        (dst_mip, dst_layers): (u32, (u32, u32)),
    ) -> Result<(), BackendError> {
        // Views of exactly the pass's aspects: a driver may resolve every aspect of the view
        // (lavapipe does), and the other aspect may not be ours to write.
        let full = pass
            .iter()
            .fold(vk::ImageAspectFlags::empty(), |all, (aspect, _)| {
                all | *aspect
            });
        let src_view = frame_view(
            self,
            ViewUse::Attachment,
            job.src_image,
            job.src.format,
            full,
            src_mip,
            src_layers,
            "depth resolve source",
        )?;
        let dst_view = frame_view(
            self,
            ViewUse::Attachment,
            job.dst_image,
            job.dst.format,
            full,
            dst_mip,
            dst_layers,
            "depth resolve destination",
        )?;
        let attachment = |aspect: vk::ImageAspectFlags| {
            pass.iter()
                .find(|(a, _)| *a == aspect)
                .and_then(|&(_, method)| match method {
                    Method::RenderPass(mode) => Some(
                        vk::RenderingAttachmentInfo::default()
                            .image_view(src_view)
                            .image_layout(source_layout(aspect))
                            .resolve_mode(mode)
                            .resolve_image_view(dst_view)
                            .resolve_image_layout(destination_layout(aspect))
                            .load_op(vk::AttachmentLoadOp::LOAD)
                            .store_op(vk::AttachmentStoreOp::NONE),
                    ),
                    Method::Scratch(_) | Method::Shader(_) => None,
                })
        };
        let depth = attachment(vk::ImageAspectFlags::DEPTH);
        let stencil = attachment(vk::ImageAspectFlags::STENCIL);
        let mut info = vk::RenderingInfo::default()
            .render_area(vk::Rect2D {
                offset: job.dst_offset,
                extent: job.extent,
            })
            .layer_count(src_layers.1);
        if let Some(depth) = &depth {
            info = info.depth_attachment(depth);
        }
        if let Some(stencil) = &stencil {
            info = info.stencil_attachment(stencil);
        }
        // SAFETY: `cb` is the node's recording command buffer on the graphics queue, outside
        // any render pass; the views are live (in the view cache or the frame's views) and
        // in the attachment layouts the barriers before set; the render area is the clamped
        // region, inside both images.
        unsafe {
            let encoder = self.encoder();
            encoder.begin_rendering(&info);
            encoder.end_rendering();
        }
        Ok(())
    }
}
