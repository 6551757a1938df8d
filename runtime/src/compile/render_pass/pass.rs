//! The small helpers both the short and the general path build a render pass with.

use crate::compile::frame::{
    ColorAttachments, CompileError, LoadOp, RenderPass, ScissorRect, ScissorRects, StoreOp,
    Viewport, Viewports,
};
use crate::ids::NodeId;
use crate::resource::ResourceDesc;

/// The load operation of an attachment plane, the one rule of both paths: cleared if the pass
/// clears it, else undefined where its data is discarded before, else loaded.
#[inline(always)]
pub(super) const fn load_op(cleared: bool, discarded_before: bool) -> LoadOp {
    if cleared {
        LoadOp::Clear
    } else if discarded_before {
        LoadOp::DontCare
    } else {
        LoadOp::Load
    }
}

/// The store operation of an attachment plane, the one rule of both paths: discarded where
/// its data is discarded after, else stored.
#[inline(always)]
pub(super) const fn store_op(discarded_after: bool) -> StoreOp {
    if discarded_after {
        StoreOp::DontCare
    } else {
        StoreOp::Store
    }
}

/// The width and height of mip `base_mip` of a texture of `desc` (at least 1 each).
#[inline(always)]
pub(super) fn mip_extent(desc: &ResourceDesc, base_mip: u32) -> (u32, u32) {
    (
        ((desc.width >> base_mip) as u32).max(1),
        (desc.height >> base_mip).max(1),
    )
}

/// The viewport covering a `width` x `height` render area.
pub(super) fn full_viewport(width: u32, height: u32) -> Viewport {
    Viewport {
        x: 0.0,
        y: 0.0,
        width: width as f32,
        height: height as f32,
        min_depth: 0.0,
        max_depth: 1.0,
    }
}

/// The scissor covering a `width` x `height` render area.
pub(super) fn full_scissor(width: u32, height: u32) -> ScissorRect {
    ScissorRect {
        x: 0,
        y: 0,
        width,
        height,
    }
}

/// A render-pass error of `node`.
pub(super) fn error(node: NodeId, message: String) -> CompileError {
    CompileError::RenderPass { node, message }
}

/// Up to eight little-endian `u32` words of an argument block (no allocation).
#[derive(Copy, Clone)]
pub(super) struct Words {
    pub data: [u32; 8],
    len: usize,
}

impl Words {
    /// The words read.
    pub fn as_slice(&self) -> &[u32] {
        &self.data[..self.len]
    }
}

/// `count` (at most eight) little-endian words of `args` from byte `at`; `None` past the end.
pub(super) fn words(args: &[u8], at: usize, count: usize) -> Option<Words> {
    let mut out = Words {
        data: [0; 8],
        len: count.min(8),
    };
    for index in 0..out.len {
        let b = args.get(at + index * 4..at + index * 4 + 4)?;
        out.data[index] = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
    }
    Some(out)
}

impl RenderPass {
    /// Some list of the pass holds its elements on the heap (more than one of them).
    #[inline(always)]
    pub(super) fn owns_heap(&self) -> bool {
        self.colors.spilled() | self.viewports.spilled() | self.scissors.spilled()
    }

    /// An empty pass of `node` (storage to build into).
    pub(super) fn empty(node: NodeId) -> RenderPass {
        RenderPass {
            node,
            colors: ColorAttachments::new(),
            depth_stencil: None,
            width: 0,
            height: 0,
            layers: 0,
            samples: 0,
            viewports: Viewports::new(),
            scissors: ScissorRects::new(),
        }
    }
}
