//! The compiled frame: what the frame compiler produces, as the backends and the dump read it.
//! A leaf of the compiler: every stage writes its part of it, none of it reads a stage.

mod barrier;
mod render_pass;

use crate::decl::QueueClass;
use crate::ids::NodeId;
use crate::view::SubresourceBox;
pub use barrier::{Barrier, BarrierBatch, QueueWait, RegionRef};
pub use render_pass::{
    ColorAttachment, ColorAttachments, DepthStencilAttachment, LoadOp, RenderPass, ScissorRect,
    ScissorRects, StoreOp, Viewport, Viewports,
};
use std::fmt;

/// Discard flags inferred for one access (bit set).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct DiscardFlags(pub u8);

impl DiscardFlags {
    /// No discard.
    pub const NONE: DiscardFlags = DiscardFlags(0);
    /// Previous data (of the color/depth plane) need not be kept before the access.
    pub const BEFORE: DiscardFlags = DiscardFlags(1);
    /// The data (color/depth plane) is not needed after the access.
    pub const AFTER: DiscardFlags = DiscardFlags(2);
    /// Stencil plane: discard before.
    pub const STENCIL_BEFORE: DiscardFlags = DiscardFlags(4);
    /// Stencil plane: discard after.
    pub const STENCIL_AFTER: DiscardFlags = DiscardFlags(8);

    /// All of `other`'s bits are set.
    pub fn contains(self, other: DiscardFlags) -> bool {
        self.0 & other.0 == other.0
    }
}

impl std::ops::BitOr for DiscardFlags {
    type Output = DiscardFlags;
    fn bitor(self, rhs: DiscardFlags) -> DiscardFlags {
        DiscardFlags(self.0 | rhs.0)
    }
}

/// Memory figures of a compiled frame.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct MemoryStats {
    /// Size of the transient heap after aliasing.
    pub transient_bytes: u64,
    /// Sum of all transient resources' sizes (no aliasing).
    pub unaliased_bytes: u64,
    /// Peak of summed live transient sizes over the chosen order.
    pub lower_bound_bytes: u64,
}

/// Where a transient resource lives in the transient heap.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Placement {
    /// Byte offset in the heap.
    pub offset: u64,
    /// Byte size (aligned).
    pub size: u64,
}

/// Why a frame could not be compiled.
#[derive(Clone, PartialEq, Debug)]
pub enum CompileError {
    /// A graphics node's attachments do not form a valid render pass.
    RenderPass {
        /// The node.
        node: NodeId,
        /// What is wrong.
        message: String,
    },
}

impl fmt::Display for CompileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CompileError::RenderPass { node, message } => write!(f, "node {}: {message}", node.0),
        }
    }
}

impl std::error::Error for CompileError {}

/// The result of compiling a frame.
#[derive(Clone, Debug, Default)]
pub struct CompiledFrame {
    /// Surviving nodes in execution order.
    pub order: Vec<NodeId>,
    /// Eliminated nodes in call order.
    pub culled: Vec<NodeId>,
    /// Queue index of every node (by call index; `u32::MAX` for culled nodes).
    pub node_queue: Vec<u32>,
    /// Queue classes by queue index (queue 0 is the main graphics queue).
    pub queues: Vec<QueueClass>,
    /// Execution position of every node (by call index; `u32::MAX` for culled nodes).
    pub position: Vec<u32>,
    /// Barrier batches (points in the order with at least one barrier).
    pub batches: u32,
    /// Image and buffer barriers in all batches.
    pub transitions: u32,
    /// Memory figures.
    pub memory: MemoryStats,
    /// Heap placement of each resource (`None` for external, persistent, temporal and unused).
    pub placements: Vec<Option<Placement>>,
    /// For a transient placed in memory used earlier this frame: the last execution position
    /// of the previous occupants (its first barrier must come after it).
    pub alias_after: Vec<Option<u32>>,
    /// Live range `[first, last]` (execution positions) of each resource used by a live node.
    pub lifetimes: Vec<Option<(u32, u32)>>,
    /// Inferred discard flags per access (indexed like `RecordedGraph::accesses`).
    pub access_discard: Vec<DiscardFlags>,
    /// Barrier batches in execution order.
    pub batch_list: Vec<BarrierBatch>,
    /// All barriers, grouped by batch. A barrier's region is a reference: resolve it with
    /// [`CompiledFrame::barrier_region`].
    pub barriers: Vec<Barrier>,
    /// The regions of the barriers that do not cover their whole resource (nearly every
    /// barrier does, and refers to it as [`RegionRef::WHOLE`]): one entry per such barrier,
    /// in barrier order, indexed by its [`RegionRef`].
    pub barrier_regions: Vec<SubresourceBox>,
    /// The whole subresource box of each resource (by resource index): what
    /// [`RegionRef::WHOLE`] stands for. Copied from the compiler only when the resources
    /// changed.
    pub resource_boxes: Vec<SubresourceBox>,
    /// Semaphore waits between queues.
    pub queue_waits: Vec<QueueWait>,
    /// Render passes of the live graphics nodes that have attachments, in execution order.
    pub render_passes: Vec<RenderPass>,
    /// This frame reused the previous compilation.
    pub cache_hit: bool,
}

impl CompiledFrame {
    /// The subresources of `barrier` (one of this frame's): its resource's whole box for
    /// [`RegionRef::WHOLE`], else its entry in [`CompiledFrame::barrier_regions`]. A reference
    /// out of range (a hand-made barrier) gives an empty box.
    ///
    /// ```
    /// use rpsl_runtime::*;
    /// let mut builder = GraphBuilder::new();
    /// let clear = builder.declare_node(builtin_declarations().into_iter().find(|d| d.name == "clear_depth").unwrap());
    /// builder.begin_frame(0);
    /// let depth = builder.import_external("depth", ResourceDesc::tex2d(Format::D32_FLOAT, 64, 64)).unwrap();
    /// let view = builder.default_texture_view(depth).unwrap();
    /// let mut args = ArgsWriter::new(builder.decl(clear).unwrap());
    /// args.write_texture(0, &view).write_f32(1, 0, 1.0);
    /// builder.call_node(clear, args.bytes(), CallFlags::default(), 7).unwrap();
    /// let graph = builder.finish().unwrap();
    /// let mut compiler = FrameCompiler::new(CompileOptions::default());
    /// let frame = compiler.compile(graph).unwrap();
    /// // The clear covers the whole depth texture: one mip, one layer, one plane.
    /// let barrier = &frame.barriers[0];
    /// assert_eq!(barrier.region, RegionRef::WHOLE);
    /// assert_eq!(frame.barrier_region(barrier), SubresourceBox { lo: [0, 0, 0], hi: [1, 1, 1] });
    /// // A reference to no region of this frame resolves to an empty box.
    /// let stray = Barrier { region: RegionRef::at(7), ..*barrier };
    /// assert!(frame.barrier_region(&stray).is_empty());
    /// ```
    pub fn barrier_region(&self, barrier: &Barrier) -> SubresourceBox {
        let region = match barrier.region.index() {
            None => self.resource_boxes.get(barrier.resource.index()),
            Some(index) => self.barrier_regions.get(index),
        };
        region.copied().unwrap_or_default()
    }

    /// The barrier segment of every execution position: segment 0 runs up to the first
    /// barrier batch after position 0, and every later batch before a node starts the next
    /// segment (a batch at position 0 or after the last node starts none).
    ///
    /// ```
    /// use rpsl_runtime::*;
    /// let mut frame = CompiledFrame::default();
    /// frame.order = vec![NodeId(0), NodeId(1), NodeId(2)];
    /// frame.batch_list = [0, 2, 3]
    ///     .map(|position| BarrierBatch { position, barriers: 0..0 })
    ///     .to_vec();
    /// assert_eq!(frame.barrier_segments(), vec![0, 0, 1]);
    /// ```
    pub fn barrier_segments(&self) -> Vec<u32> {
        let mut segments = Vec::with_capacity(self.order.len());
        let mut batches = self
            .batch_list
            .iter()
            .map(|batch| batch.position)
            .peekable();
        let mut segment = 0;
        for position in 0..self.order.len() as u32 {
            while let Some(at) = batches.next_if(|&at| at <= position) {
                if at == position && position > 0 {
                    segment += 1;
                }
            }
            segments.push(segment);
        }
        segments
    }

    /// The peak over barrier segments ([`CompiledFrame::barrier_segments`]) of the placed sizes
    /// of the transients live in each: memory changes hands only at a barrier batch, so a
    /// transient holds its bytes in every segment from its first use to its last, and no heap
    /// for this order and these batches is smaller. `transient_bytes` is at least this.
    pub fn segment_live_peak_bytes(&self) -> u64 {
        let segments = self.barrier_segments();
        let Some(&last) = segments.last() else {
            return 0;
        };
        let mut change = vec![0i128; last as usize + 2];
        for (placement, lifetime) in self.placements.iter().zip(&self.lifetimes) {
            if let (Some(placement), Some((first, end))) = (placement, lifetime) {
                let (Some(&from), Some(&to)) =
                    (segments.get(*first as usize), segments.get(*end as usize))
                else {
                    continue;
                };
                change[from as usize] += placement.size as i128;
                change[to as usize + 1] -= placement.size as i128;
            }
        }
        let (mut live, mut peak) = (0i128, 0i128);
        for delta in change {
            live += delta;
            peak = peak.max(live);
        }
        peak as u64
    }
}

/// The frame's fields grouped by the stage that writes them: disjoint borrows, so that each
/// stage's signature names what it reads and what it writes (see the compiler's driver).
pub(crate) struct FrameParts<'a> {
    /// Written from the schedule: the live nodes in execution order.
    pub order: &'a mut Vec<NodeId>,
    /// Written from liveness: the culled nodes.
    pub culled: &'a mut Vec<NodeId>,
    /// Written from the schedule: each node's execution position.
    pub position: &'a mut Vec<u32>,
    /// Written by queue assignment: each node's queue.
    pub node_queue: &'a mut Vec<u32>,
    /// Written by queue assignment: the queues' classes.
    pub queues: &'a mut Vec<QueueClass>,
    /// Written by the lifetimes stage.
    pub lifetimes: &'a mut Vec<Option<(u32, u32)>>,
    /// Written by discard inference (finished inside barrier planning's walk).
    pub access_discard: &'a mut Vec<DiscardFlags>,
    /// Written by memory placement.
    pub memory: MemoryParts<'a>,
    /// Written by barrier planning.
    pub barriers: BarrierParts<'a>,
    /// Written by render-pass building.
    pub render_passes: &'a mut Vec<RenderPass>,
}

/// The execution order of a frame, as the stages after scheduling and queue assignment read
/// it.
#[derive(Copy, Clone)]
pub(crate) struct Ordered<'a> {
    /// The live nodes in execution order.
    pub order: &'a [NodeId],
    /// Each node's execution position (`u32::MAX`: culled).
    pub position: &'a [u32],
    /// Each node's queue (`u32::MAX`: culled).
    pub node_queue: &'a [u32],
    /// The queues' classes.
    pub queues: &'a [QueueClass],
}

/// What memory placement writes.
pub(crate) struct MemoryParts<'a> {
    /// The heap's figures.
    pub stats: &'a mut MemoryStats,
    /// Each resource's placement.
    pub placements: &'a mut Vec<Option<Placement>>,
    /// Each placed transient's previous occupants' last position.
    pub alias_after: &'a mut Vec<Option<u32>>,
}

/// What barrier planning writes.
pub(crate) struct BarrierParts<'a> {
    /// Number of batches.
    pub batches: &'a mut u32,
    /// Number of barriers.
    pub transitions: &'a mut u32,
    /// The batches.
    pub batch_list: &'a mut Vec<BarrierBatch>,
    /// The barriers.
    pub barriers: &'a mut Vec<Barrier>,
    /// The regions of the barriers not covering their whole resource.
    pub barrier_regions: &'a mut Vec<SubresourceBox>,
    /// The resources' whole boxes.
    pub resource_boxes: &'a mut Vec<SubresourceBox>,
    /// The semaphore waits between queues.
    pub queue_waits: &'a mut Vec<QueueWait>,
}

impl CompiledFrame {
    /// The frame's fields by writing stage (`cache_hit` stays with the driver).
    pub(crate) fn parts(&mut self) -> FrameParts<'_> {
        FrameParts {
            order: &mut self.order,
            culled: &mut self.culled,
            position: &mut self.position,
            node_queue: &mut self.node_queue,
            queues: &mut self.queues,
            lifetimes: &mut self.lifetimes,
            access_discard: &mut self.access_discard,
            memory: MemoryParts {
                stats: &mut self.memory,
                placements: &mut self.placements,
                alias_after: &mut self.alias_after,
            },
            barriers: BarrierParts {
                batches: &mut self.batches,
                transitions: &mut self.transitions,
                batch_list: &mut self.batch_list,
                barriers: &mut self.barriers,
                barrier_regions: &mut self.barrier_regions,
                resource_boxes: &mut self.resource_boxes,
                queue_waits: &mut self.queue_waits,
            },
            render_passes: &mut self.render_passes,
        }
    }
}
