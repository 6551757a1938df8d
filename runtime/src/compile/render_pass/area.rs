//! The render area of a pass beyond its attachments' extents: the extent of a buffer view bound
//! as a color target, and the viewports and scissors (`SV_Viewport[n]`, `SV_ScissorRect[n]`;
//! default: the whole area).

use super::pass::{error, full_scissor, full_viewport, words};
use crate::compile::frame::CompileError;
use crate::compile::frame::{RenderPass, ScissorRect, Viewport};
use crate::decl::SemanticKind;
use crate::format::Format;
use crate::graph::RecordedGraph;
use crate::ids::NodeId;

/// The viewport bounds range every Vulkan implementation supports (`viewportBoundsRange` is at
/// least [-2 x 16384, 2 x 16384 - 1] for the minimum `maxViewportDimensions` of 16384).
const VIEWPORT_BOUNDS: (f32, f32) = (-32768.0, 32767.0);

/// The extent of a formatted buffer view bound as a color attachment. The view is a row-major
/// image of `size / element bytes` texels of `view_format` (RPS's `ROWMAJOR_IMAGE` buffers):
/// with an `SV_Viewport` (index 0) on the node, rows are as wide as the viewport's right edge
/// (rounded up) and the extent holds the whole rows that fit; without one, the view is a single
/// row of all its texels.
pub(super) fn buffer_target_extent(
    graph: &RecordedGraph,
    node: NodeId,
    view_format: Format,
    size: u64,
    name: &str,
) -> Result<(u32, u32), CompileError> {
    let element_bits = match view_format.info() {
        Some(info) if view_format != Format::UNKNOWN && info.block_size == 1 => {
            info.bits_per_element
        }
        _ => 0,
    };
    if element_bits == 0 || element_bits % 8 != 0 {
        return Err(error(
            node,
            format!("attachment `{name}` must be a texture or a buffer view with a texel format"),
        ));
    }
    let texels = size / (element_bits / 8) as u64;
    if texels == 0 {
        return Err(error(
            node,
            format!("buffer attachment `{name}` holds no whole texel"),
        ));
    }
    let row = viewport_right_edge(graph, node)
        .unwrap_or(texels)
        .min(texels);
    let rows = texels / row;
    match (u32::try_from(row), u32::try_from(rows)) {
        (Ok(width), Ok(height)) => Ok((width, height)),
        _ => Err(error(
            node,
            format!("buffer attachment `{name}` has an extent of {row}x{rows} texels, too large for a render target"),
        )),
    }
}

/// The right edge (`x + width`, rounded up, at least 1) of the node's `SV_Viewport` 0 when it is
/// finite and positive.
fn viewport_right_edge(graph: &RecordedGraph, node: NodeId) -> Option<u64> {
    let decl = graph.decl_of(node);
    let param = decl
        .params
        .iter()
        .find(|param| param.semantic == Some((SemanticKind::Viewport, 0)))?;
    let raw = words(graph.node_args(node), param.offset as usize, 3)?;
    let right = f32::from_bits(raw.data[0]) + f32::from_bits(raw.data[2]);
    (right.is_finite() && right > 0.0).then(|| (right.ceil() as u64).max(1))
}

/// Fills `pass.viewports` and `pass.scissors` from the node's `SV_Viewport` / `SV_ScissorRect`
/// arguments (defaults: the whole `pass.width` x `pass.height` area), for a node whose
/// declaration has such parameters.
pub(super) fn viewports_and_scissors(
    graph: &RecordedGraph,
    node: NodeId,
    viewports: &mut Vec<(u32, Viewport)>,
    scissors: &mut Vec<(u32, ScissorRect)>,
    pass: &mut RenderPass,
) -> Result<(), CompileError> {
    let (width, height) = (pass.width, pass.height);
    let decl = graph.decl_of(node);
    let args = graph.node_args(node);
    let full = full_viewport(width, height);
    viewports.clear();
    scissors.clear();
    for param in &decl.params {
        let Some((kind, index)) = param.semantic else {
            continue;
        };
        if !matches!(kind, SemanticKind::Viewport | SemanticKind::ScissorRect) {
            continue;
        }
        let count = param.value_type.size() as usize / 4;
        let Some(raw_words) = words(args, param.offset as usize, count) else {
            continue;
        };
        let raw = raw_words.as_slice();
        match kind {
            SemanticKind::Viewport => {
                let float =
                    |i: usize, default: f32| raw.get(i).map_or(default, |w| f32::from_bits(*w));
                let viewport = Viewport {
                    x: float(0, 0.0),
                    y: float(1, 0.0),
                    width: float(2, 0.0),
                    height: float(3, 0.0),
                    min_depth: float(4, 0.0),
                    max_depth: float(5, 1.0),
                };
                let finite = [
                    viewport.x,
                    viewport.y,
                    viewport.width,
                    viewport.height,
                    viewport.min_depth,
                    viewport.max_depth,
                ]
                .iter()
                .all(|v| v.is_finite());
                if !finite || viewport.width <= 0.0 || viewport.height <= 0.0 {
                    return Err(error(
                        node,
                        format!("viewport {index} must have a finite positive size"),
                    ));
                }
                // A viewport may reach past the attachment: rasterization is clipped to the
                // render area (D3D12 and Vulkan both clip, and the SDK's own multithreading
                // example draws its last tile below the back buffer). It must stay within the
                // viewport bounds every Vulkan device supports.
                if viewport.x < VIEWPORT_BOUNDS.0
                    || viewport.y < VIEWPORT_BOUNDS.0
                    || viewport.x + viewport.width > VIEWPORT_BOUNDS.1
                    || viewport.y + viewport.height > VIEWPORT_BOUNDS.1
                {
                    return Err(error(
                        node,
                        format!(
                            "viewport {index} lies outside the viewport bounds [{}, {}]",
                            VIEWPORT_BOUNDS.0, VIEWPORT_BOUNDS.1
                        ),
                    ));
                }
                if !(0.0..=1.0).contains(&viewport.min_depth)
                    || !(0.0..=1.0).contains(&viewport.max_depth)
                {
                    return Err(error(
                        node,
                        format!("viewport {index} depth range must lie in [0, 1]"),
                    ));
                }
                viewports.push((index, viewport));
            }
            SemanticKind::ScissorRect if raw.len() >= 4 => {
                // (x, y, width, height), clipped to the attachment.
                let x = raw[0] as i32;
                let y = raw[1] as i32;
                let right = (x.max(0) as u64 + raw[2] as u64).min(width as u64);
                let bottom = (y.max(0) as u64 + raw[3] as u64).min(height as u64);
                let x0 = (x.max(0) as u64).min(width as u64);
                let y0 = (y.max(0) as u64).min(height as u64);
                scissors.push((
                    index,
                    ScissorRect {
                        x: x0 as i32,
                        y: y0 as i32,
                        width: (right - x0) as u32,
                        height: (bottom - y0) as u32,
                    },
                ));
            }
            _ => {}
        }
    }
    viewports.sort_by_key(|(index, _)| *index);
    scissors.sort_by_key(|(index, _)| *index);
    let out_viewports = &mut pass.viewports;
    out_viewports.clear();
    out_viewports.extend(viewports.iter().map(|(_, v)| *v));
    if out_viewports.is_empty() {
        out_viewports.push(full);
    }
    let out_scissors = &mut pass.scissors;
    out_scissors.clear();
    for index in 0..out_viewports.len() {
        let scissor = scissors
            .iter()
            .find(|(slot, _)| *slot as usize == index)
            .map(|(_, s)| *s);
        out_scissors.push(scissor.unwrap_or(full_scissor(width, height)));
    }
    Ok(())
}
