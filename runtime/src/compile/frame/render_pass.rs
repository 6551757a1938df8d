//! The render pass a graphics node gets: its attachments, their load and store operations,
//! viewports and scissors.

use crate::ids::{NodeId, ResourceId};
use smallvec::SmallVec;

/// What happens to an attachment's contents at the start of the pass.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum LoadOp {
    /// Keep them.
    Load,
    /// Clear to the clear value.
    Clear,
    /// Undefined (discarded).
    DontCare,
}

/// What happens to an attachment's contents at the end of the pass.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum StoreOp {
    /// Keep them.
    Store,
    /// Discard them.
    DontCare,
}

/// One color attachment.
#[derive(Copy, Clone, PartialEq, Debug)]
pub struct ColorAttachment {
    /// `SV_Target` index.
    pub slot: u32,
    /// The access (index into `RecordedGraph::accesses`).
    pub access: u32,
    /// The resource.
    pub resource: ResourceId,
    /// Load operation.
    pub load: LoadOp,
    /// Store operation.
    pub store: StoreOp,
    /// Clear color (raw `SV_ClearColor` words read as `f32`).
    pub clear_color: [f32; 4],
    /// The resolve target's access, if any.
    pub resolve: Option<u32>,
}

/// The depth-stencil attachment.
#[derive(Copy, Clone, PartialEq, Debug)]
pub struct DepthStencilAttachment {
    /// The access.
    pub access: u32,
    /// The resource.
    pub resource: ResourceId,
    /// Depth load.
    pub depth_load: LoadOp,
    /// Depth store.
    pub depth_store: StoreOp,
    /// Stencil load.
    pub stencil_load: LoadOp,
    /// Stencil store.
    pub stencil_store: StoreOp,
    /// Clear depth.
    pub clear_depth: f32,
    /// Clear stencil.
    pub clear_stencil: u32,
    /// Depth is read-only.
    pub depth_read_only: bool,
    /// Stencil is read-only.
    pub stencil_read_only: bool,
}

/// A viewport.
#[derive(Copy, Clone, PartialEq, Debug)]
pub struct Viewport {
    /// Left.
    pub x: f32,
    /// Top.
    pub y: f32,
    /// Width.
    pub width: f32,
    /// Height.
    pub height: f32,
    /// Minimum depth.
    pub min_depth: f32,
    /// Maximum depth.
    pub max_depth: f32,
}

/// A scissor rectangle.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct ScissorRect {
    /// Left.
    pub x: i32,
    /// Top.
    pub y: i32,
    /// Width.
    pub width: u32,
    /// Height.
    pub height: u32,
}

/// The color attachments of a pass: one is stored inline (the common pass), more spill to the
/// heap. Reads like a slice (`len`, indexing, `iter`); see [`RenderPass`].
pub type ColorAttachments = SmallVec<[ColorAttachment; 1]>;

/// The viewports of a pass: one is stored inline, more spill to the heap.
pub type Viewports = SmallVec<[Viewport; 1]>;

/// The scissors of a pass: one is stored inline, more spill to the heap.
pub type ScissorRects = SmallVec<[ScissorRect; 1]>;

/// The render pass of one graphics node.
///
/// A frame's passes lie in one vector ([`crate::CompiledFrame::render_passes`]); the lists of a
/// pass hold their first element inline, so a pass of one color target, one viewport and one
/// scissor (nearly all of them) owns no heap block. The lists read like slices:
///
/// ```
/// use rpsl_runtime::{LoadOp, RenderPass};
///
/// fn describe(pass: &RenderPass) -> String {
///     let cleared = pass.colors.iter().filter(|color| color.load == LoadOp::Clear).count();
///     format!(
///         "node {}: {}x{}, {} color targets ({cleared} cleared), {} viewports",
///         pass.node.0,
///         pass.width,
///         pass.height,
///         pass.colors.len(),
///         pass.viewports.len()
///     )
/// }
/// ```
#[derive(Clone, PartialEq, Debug)]
pub struct RenderPass {
    /// The node.
    pub node: NodeId,
    /// Color attachments by slot order.
    pub colors: ColorAttachments,
    /// Depth-stencil attachment.
    pub depth_stencil: Option<DepthStencilAttachment>,
    /// Render area width.
    pub width: u32,
    /// Render area height.
    pub height: u32,
    /// Layers rendered.
    pub layers: u32,
    /// Samples per pixel.
    pub samples: u32,
    /// Viewports (at least one).
    pub viewports: Viewports,
    /// Scissors (one per viewport).
    pub scissors: ScissorRects,
}
