//! The small helpers both the short and the general path build a render pass with.

use crate::compile::frame::{ColorAttachments, CompileError, RenderPass, ScissorRects, Viewports};
use crate::ids::NodeId;

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
