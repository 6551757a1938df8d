//! Recording of rpsl.h's built-in nodes: clears (colour and depth/stencil through dynamic
//! rendering, storage textures and buffers through transfer clears), texture and buffer copies
//! (whole and regions), texture/buffer copies, and resolves (the average colour resolve here;
//! min/max colour resolves in `minmax.rs`, depth/stencil resolves in `depth_resolve/`).
//!
//! [`FrameRecorder::record_builtin`] decodes a call once ([`BuiltinCall::decode`]) and hands
//! its typed arguments to one function per built-in.

mod transfers;

use crate::record::{access_region, AccessRegion, DepthTarget, FrameRecorder, ResourceHandle};
use ash::vk;
use rpsl_runtime::compile::map_access;
use rpsl_runtime::vk::{Accesses, Stages};
use rpsl_runtime::{
    AccessRecord, BackendError, BuiltinCall, BuiltinNode, ClearColor, ClearColorRegions,
    ClearDepthStencil, ClearDepthStencilRegions, ClearRects, ClearTexture, ClearValue, NodeId,
    ResourceKind, ViewArg,
};

/// The resolve mode of a built-in `resolve` node (0 average, 1 min, 2 max), or `None` for
/// other nodes.
pub(crate) fn resolve_mode(graph: &rpsl_runtime::RecordedGraph, node: NodeId) -> Option<u32> {
    if graph.decl_of(node).builtin != Some(BuiltinNode::Resolve) {
        return None;
    }
    match BuiltinCall::of_node(graph, node)? {
        Ok(BuiltinCall::Resolve(call)) => Some(call.mode),
        _ => None,
    }
}

/// Whether a node may need the resolve shaders ([`crate::minmax::MinMaxResolve`]): min/max
/// colour resolves, and every depth/stencil resolve (the shader is their fallback where the
/// device's render-pass resolve cannot do the mode, the offsets or the aspect; which applies is
/// decided while recording).
pub(crate) fn needs_resolve_shaders(graph: &rpsl_runtime::RecordedGraph, node: NodeId) -> bool {
    match resolve_mode(graph, node) {
        Some(1 | 2) => true,
        Some(0) => graph.node_accesses(node).iter().any(|access| {
            graph
                .resources
                .get(access.resource.index())
                .is_some_and(|record| record.desc.format.is_depth_stencil())
        }),
        _ => false,
    }
}

fn unsupported(node: NodeId, name: &str, what: &str) -> BackendError {
    BackendError::Node {
        node,
        name: name.to_string(),
        message: what.to_string(),
    }
}

fn mip_extent(desc: &rpsl_runtime::ResourceDesc, mip: u32) -> vk::Extent3D {
    vk::Extent3D {
        width: ((desc.width as u32) >> mip).max(1),
        height: (desc.height >> mip).max(1),
        depth: (desc.depth() >> mip).max(1),
    }
}

/// The `int4` rectangles (x, y, width, height) of a region clear, clipped to the attachment
/// (empty ones dropped).
fn clear_rects(
    rects: &ClearRects<'_>,
    layer_count: u32,
    (width, height): (u32, u32),
) -> Result<Vec<vk::ClearRect>, String> {
    Ok(rects
        .rects()?
        .filter_map(|[x, y, w, h]| {
            let (x, y) = (x.max(0) as u32, y.max(0) as u32);
            let w = (w.max(0) as u32).min(width.saturating_sub(x));
            let h = (h.max(0) as u32).min(height.saturating_sub(y));
            (w > 0 && h > 0).then_some(vk::ClearRect {
                rect: vk::Rect2D {
                    offset: vk::Offset2D {
                        x: x as i32,
                        y: y as i32,
                    },
                    extent: vk::Extent2D {
                        width: w,
                        height: h,
                    },
                },
                base_array_layer: 0,
                layer_count,
            })
        })
        .collect())
}

fn layers(range: &vk::ImageSubresourceRange, mip: u32) -> vk::ImageSubresourceLayers {
    vk::ImageSubresourceLayers {
        aspect_mask: range.aspect_mask,
        mip_level: range.base_mip_level + mip,
        base_array_layer: range.base_array_layer,
        layer_count: range.layer_count,
    }
}

/// The stages and access bits the commands recorded for built-in `node` use on the resource of
/// one of its accesses: `target` for parameter 0 (the cleared, copied-to or resolved-to view),
/// else a copy or resolve source. This is the backend's half of the built-ins' access table: the
/// recording checks it against the barrier planner's need of the access
/// ([`rpsl_runtime::compile::map_access`]) before recording, so the two cannot drift apart.
fn recorded_scope(node: BuiltinNode, target: bool) -> (Stages, Accesses) {
    use BuiltinNode as N;
    let (read, write) = (Accesses::TRANSFER_READ, Accesses::TRANSFER_WRITE);
    match node {
        // A render pass with a CLEAR (or LOAD) load op, and attachment clears.
        N::ClearColorFloat | N::ClearColorUint | N::ClearColorRegions => (
            Stages::COLOR_ATTACHMENT_OUTPUT,
            Accesses::COLOR_ATTACHMENT_WRITE,
        ),
        N::ClearDepthStencil | N::ClearDepth | N::ClearStencil | N::ClearDepthStencilRegions => (
            Stages::EARLY_FRAGMENT_TESTS | Stages::LATE_FRAGMENT_TESTS,
            Accesses::DEPTH_STENCIL_ATTACHMENT_WRITE,
        ),
        // vkCmdFillBuffer or vkCmdCopyBuffer of the pattern (`buffer_clear.rs`).
        N::ClearBuffer | N::ClearBufferFloat | N::ClearBufferUint => (Stages::BUFFER_CLEAR, write),
        // vkCmdClearColorImage (the region clear copies from its scratch image in between, with
        // its own barriers into and out of the COPY stage).
        N::ClearTexture | N::ClearTextureRegions => (Stages::CLEAR, write),
        N::Resolve => (Stages::RESOLVE, if target { write } else { read }),
        N::CopyTexture
        | N::CopyTextureRegion
        | N::CopyBuffer
        | N::CopyBufferRegion
        | N::CopyTextureToBuffer
        | N::CopyBufferToTexture => (Stages::COPY, if target { write } else { read }),
    }
}

/// A view argument of the node being recorded, with its realised resource.
struct BoundView {
    /// The access's index in the frame's accesses.
    access_index: u32,
    /// The access.
    access: AccessRecord,
    /// The resource's Vulkan objects.
    handle: ResourceHandle,
    /// The subresources or bytes the access covers.
    region: AccessRegion,
}

impl BoundView {
    /// Width and height of the view's first mip.
    fn base_extent_2d(&self) -> (u32, u32) {
        let extent = mip_extent(&self.handle.desc, self.region.range.base_mip_level);
        (extent.width, extent.height)
    }

    /// The depth/stencil target of a clear render pass over the view: the planes it covers
    /// among `depth` and `stencil`, with `op` and the clear values.
    fn depth_target(
        &self,
        (depth, stencil): (bool, bool),
        op: vk::AttachmentLoadOp,
        values: (f32, u32),
    ) -> DepthTarget {
        let desc = &self.handle.desc;
        let sub = self.access.subresource_box(desc);
        let covers = |plane: u64| sub.lo[2] <= plane && plane < sub.hi[2];
        let op = (op, vk::AttachmentStoreOp::STORE, false);
        DepthTarget {
            access: self.access_index,
            depth: (depth && desc.format.has_depth() && covers(0)).then_some(op),
            stencil: (stencil && desc.format.has_stencil() && covers(1)).then_some(op),
            clear_depth: values.0,
            clear_stencil: values.1,
        }
    }
}

impl FrameRecorder<'_> {
    /// Checks that the commands about to be recorded for built-in `node` stay inside what the
    /// barrier plan waits for on each of its accesses ([`recorded_scope`] against
    /// [`rpsl_runtime::compile::map_access`]): an error naming both instead of a hazard.
    fn check_builtin_scope(&self, node: NodeId, builtin: BuiltinNode) -> Result<(), BackendError> {
        let graph = self.graph;
        let decl = graph.decl_of(node);
        let accesses = graph.node_accesses(node);
        if !accesses.iter().any(|a| a.param == 0) {
            return Ok(());
        }
        for access in accesses {
            let Some(resource) = graph.resources.get(access.resource.index()) else {
                continue;
            };
            let buffer = resource.desc.kind == ResourceKind::Buffer;
            let depth = resource.desc.format.is_depth_stencil();
            let planned = map_access(&access.access, 0, !buffer, depth, decl.queue);
            let (stages, bits) = recorded_scope(builtin, access.param == 0);
            if !planned.stages.contains(stages) || planned.accesses.0 & bits.0 != bits.0 {
                return Err(unsupported(
                    node,
                    &decl.name,
                    &format!(
                        "parameter {} is recorded at stages {:#x} with accesses {:#x} but the barrier plan waits for stages {:#x} with accesses {:#x}",
                        access.param, stages.0, bits.0, planned.stages.0, planned.accesses.0
                    ),
                ));
            }
        }
        Ok(())
    }

    /// The realised resource and covered region of view argument `view` of `node`.
    fn bind_view(&self, node: NodeId, view: ViewArg) -> Result<BoundView, BackendError> {
        let handle = self.handle(view.access.resource)?;
        Ok(BoundView {
            access_index: self.graph.nodes[node.index()].accesses.start + view.index,
            access: *view.access,
            region: access_region(view.access, &handle.desc),
            handle,
        })
    }

    /// The bound view of an optional second view argument (`None`: a null view, nothing to
    /// record).
    fn bind_other(
        &self,
        node: NodeId,
        view: Option<ViewArg>,
    ) -> Result<Option<BoundView>, BackendError> {
        view.map(|view| self.bind_view(node, view)).transpose()
    }

    /// Records a built-in node: its call decoded once, then one function per built-in.
    pub fn record_builtin(&mut self, node: NodeId) -> Result<(), BackendError> {
        let graph = self.graph;
        let decl = graph.decl_of(node);
        let name = decl.name.as_str();
        let Some(builtin) = decl.builtin else {
            return Err(unsupported(node, name, "not a built-in node"));
        };
        self.check_builtin_scope(node, builtin)?;
        let call = BuiltinCall::decode(decl, graph.node_args(node), graph.node_accesses(node))
            .map_err(|error| unsupported(node, name, &error.to_string()))?;
        // A null view: nothing to do.
        let Some(&target) = call.target() else {
            return Ok(());
        };
        let target = self.bind_view(node, target)?;
        match call {
            BuiltinCall::ClearColor(call) => self.record_clear_color(&target, &call),
            BuiltinCall::ClearColorRegions(call) => {
                self.record_clear_color_regions(node, name, &target, &call)
            }
            BuiltinCall::ClearDepthStencil(call) => self.record_clear_depth_stencil(&target, &call),
            BuiltinCall::ClearDepthStencilRegions(call) => {
                self.record_clear_depth_stencil_regions(node, name, &target, &call)
            }
            BuiltinCall::ClearTexture(call) => {
                self.record_clear_texture(node, name, &target, &call)
            }
            BuiltinCall::ClearBuffer(call) => self.record_buffer_clear(
                node,
                name,
                &call,
                &target.handle,
                target.region.offset,
                target.region.size,
            ),
            BuiltinCall::CopyTexture(call) => {
                let src = self.bind_other(node, call.src)?;
                src.map_or(Ok(()), |src| self.record_copy_texture(&target, &src, &call))
            }
            BuiltinCall::CopyBuffer(call) => {
                let src = self.bind_other(node, call.src)?;
                src.map_or(Ok(()), |src| self.record_copy_buffer(&target, &src, &call))
            }
            BuiltinCall::CopyTextureToBuffer(call) => {
                let texture = self.bind_other(node, call.texture)?;
                texture.map_or(Ok(()), |texture| {
                    self.record_buffer_texture_copy(&texture, &target, &call, true)
                })
            }
            BuiltinCall::CopyBufferToTexture(call) => {
                let buffer = self.bind_other(node, call.buffer)?;
                buffer.map_or(Ok(()), |buffer| {
                    self.record_buffer_texture_copy(&target, &buffer, &call, false)
                })
            }
            BuiltinCall::Resolve(call) => self.record_resolve(node, name, target, &call),
        }
    }

    /// `clear(texture, float4 | uint4)`: a render pass that clears the target (a `uint4` value
    /// passes its bits).
    fn record_clear_color(
        &mut self,
        target: &BoundView,
        call: &ClearColor,
    ) -> Result<(), BackendError> {
        let clear = match call.value {
            ClearValue::Float(floats) => floats,
            ClearValue::Uint(words) => words.map(f32::from_bits),
        };
        let (width, height) = target.base_extent_2d();
        self.begin_rendering(
            &[(
                target.access_index,
                vk::AttachmentLoadOp::CLEAR,
                vk::AttachmentStoreOp::STORE,
                clear,
            )],
            None,
            width,
            height,
            target.region.range.layer_count,
            &[],
            &[],
        )?;
        self.end_rendering();
        Ok(())
    }

    /// `clear_color_regions`: attachment clears of the rectangles inside a render pass that
    /// keeps the rest.
    fn record_clear_color_regions(
        &mut self,
        node: NodeId,
        name: &str,
        target: &BoundView,
        call: &ClearColorRegions<'_>,
    ) -> Result<(), BackendError> {
        let (width, height) = target.base_extent_2d();
        let layer_count = target.region.range.layer_count;
        self.begin_rendering(
            &[(
                target.access_index,
                vk::AttachmentLoadOp::LOAD,
                vk::AttachmentStoreOp::STORE,
                call.value,
            )],
            None,
            width,
            height,
            layer_count,
            &[],
            &[],
        )?;
        let rects = match clear_rects(&call.rects, layer_count, (width, height)) {
            Ok(rects) => rects,
            Err(message) => {
                self.end_rendering();
                return Err(unsupported(node, name, &message));
            }
        };
        let attachment = vk::ClearAttachment {
            aspect_mask: vk::ImageAspectFlags::COLOR,
            color_attachment: 0,
            clear_value: vk::ClearValue {
                color: vk::ClearColorValue {
                    float32: call.value,
                },
            },
        };
        if !rects.is_empty() {
            // SAFETY: inside the dynamic render pass begun above, which has the attachment
            // cleared; `clear_rects` kept the rectangles inside its area and layers.
            unsafe { self.encoder().clear_attachments(&[attachment], &rects) };
        }
        self.end_rendering();
        Ok(())
    }

    /// `clear(texture, depth, stencil)`, `clear_depth`, `clear_stencil`: a render pass that
    /// clears the planes given a value (and the view covers).
    fn record_clear_depth_stencil(
        &mut self,
        target: &BoundView,
        call: &ClearDepthStencil,
    ) -> Result<(), BackendError> {
        let depth_target = target.depth_target(
            (call.depth.is_some(), call.stencil.is_some()),
            vk::AttachmentLoadOp::CLEAR,
            (call.depth.unwrap_or(0.0), call.stencil.unwrap_or(0)),
        );
        let (width, height) = target.base_extent_2d();
        self.begin_rendering(
            &[],
            Some(&depth_target),
            width,
            height,
            target.region.range.layer_count,
            &[],
            &[],
        )?;
        self.end_rendering();
        Ok(())
    }

    /// `clear_depth_stencil_regions`: attachment clears of the rectangles (of the planes the
    /// option names) inside a render pass that keeps the rest.
    fn record_clear_depth_stencil_regions(
        &mut self,
        node: NodeId,
        name: &str,
        target: &BoundView,
        call: &ClearDepthStencilRegions<'_>,
    ) -> Result<(), BackendError> {
        let depth_target = target.depth_target(
            (true, true),
            vk::AttachmentLoadOp::LOAD,
            (call.depth, call.stencil),
        );
        let (width, height) = target.base_extent_2d();
        let layer_count = target.region.range.layer_count;
        self.begin_rendering(
            &[],
            Some(&depth_target),
            width,
            height,
            layer_count,
            &[],
            &[],
        )?;
        let mut aspect = vk::ImageAspectFlags::empty();
        // RPS_CLEAR_DEPTH and RPS_CLEAR_STENCIL.
        if depth_target.depth.is_some() && call.option & 2 != 0 {
            aspect |= vk::ImageAspectFlags::DEPTH;
        }
        if depth_target.stencil.is_some() && call.option & 4 != 0 {
            aspect |= vk::ImageAspectFlags::STENCIL;
        }
        let rects = match clear_rects(&call.rects, layer_count, (width, height)) {
            Ok(rects) => rects,
            Err(message) => {
                self.end_rendering();
                return Err(unsupported(node, name, &message));
            }
        };
        if !aspect.is_empty() && !rects.is_empty() {
            let attachment = vk::ClearAttachment {
                aspect_mask: aspect,
                color_attachment: 0,
                clear_value: vk::ClearValue {
                    depth_stencil: vk::ClearDepthStencilValue {
                        depth: call.depth,
                        stencil: call.stencil,
                    },
                },
            };
            // SAFETY: inside the dynamic render pass begun above, which has the attachment
            // cleared; `clear_rects` kept the rectangles inside its area and layers.
            unsafe { self.encoder().clear_attachments(&[attachment], &rects) };
        }
        self.end_rendering();
        Ok(())
    }

    /// `clear_texture` (whole subresources) and `clear_texture_regions` (rectangles of the
    /// base mip in every layer) of a storage texture (`texture_clear.rs`, `region_clear.rs`).
    fn record_clear_texture(
        &self,
        node: NodeId,
        name: &str,
        target: &BoundView,
        call: &ClearTexture<'_>,
    ) -> Result<(), BackendError> {
        let range = target.region.range;
        let rects = match &call.rects {
            Some(rects) => {
                let extent = mip_extent(&target.handle.desc, range.base_mip_level);
                let rects = clear_rects(rects, 1, (extent.width, extent.height))
                    .map_err(|message| unsupported(node, name, &message))?;
                Some(rects)
            }
            None => None,
        };
        self.record_texture_clear(node, name, call, &target.handle, &range, rects.as_deref())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rpsl_runtime::{builtin_declarations, ValueType};

    /// Every parameter of every built-in declaration, on buffers and textures (colour and
    /// depth/stencil where its flags allow), is planned for at least what the recording does.
    #[test]
    fn every_builtin_is_planned_for_what_it_records() {
        let mut checked = 0;
        for decl in builtin_declarations() {
            let builtin = decl.builtin.unwrap();
            for (index, param) in decl.params.iter().enumerate() {
                let Some(access) = param.access else {
                    continue;
                };
                let buffer = param.value_type == ValueType::Buffer;
                for depth in [false, true] {
                    if buffer && depth {
                        continue;
                    }
                    let planned = map_access(&access, 0, !buffer, depth, decl.queue);
                    let (stages, bits) = recorded_scope(builtin, index == 0);
                    assert!(
                        planned.stages.contains(stages) && planned.accesses.0 & bits.0 == bits.0,
                        "{} parameter {index} (depth {depth}): recorded {stages:?} {bits:?}, planned {planned:?}",
                        decl.name
                    );
                    checked += 1;
                }
            }
        }
        assert_eq!(checked, 43);
    }

    #[test]
    fn buffer_clears_are_recorded_in_clear_and_copy_stages() {
        assert_eq!(
            recorded_scope(BuiltinNode::ClearBufferFloat, true),
            (Stages::BUFFER_CLEAR, Accesses::TRANSFER_WRITE)
        );
        assert_eq!(
            recorded_scope(BuiltinNode::CopyBuffer, false),
            (Stages::COPY, Accesses::TRANSFER_READ)
        );
    }
}
