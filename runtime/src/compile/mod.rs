//! The frame compiler: dead-node elimination, subresource dependencies, scheduling, lifetimes
//! and discard inference, transient aliasing, and barrier planning of one recorded frame.
//!
//! ```
//! use rpsl_runtime::*;
//! let mut builder = GraphBuilder::new();
//! let clear = builder.declare_node(builtin_declarations().into_iter().find(|d| d.name == "clear_depth").unwrap());
//! builder.begin_frame(0);
//! let depth = builder.import_external("depth", ResourceDesc::tex2d(Format::D32_FLOAT, 64, 64)).unwrap();
//! let view = builder.default_texture_view(depth).unwrap();
//! let mut args = ArgsWriter::new(builder.decl(clear).unwrap());
//! args.write_texture(0, &view).write_f32(1, 0, 1.0);
//! builder.call_node(clear, args.bytes(), CallFlags::default(), 7).unwrap();
//! let graph = builder.finish().unwrap();
//! let mut compiler = FrameCompiler::new(CompileOptions::default());
//! let frame = compiler.compile(graph).unwrap();
//! assert_eq!(frame.order, vec![NodeId(0)]);
//! ```

mod access_info;
mod access_map;
mod barrier;
pub(crate) mod cache;
mod dce;
pub mod deps;
mod discard;
mod discard_whole;
mod memory;
mod node_list;
mod node_span;
mod queue_order;
mod region_map;
mod region_states;
mod render_pass;
mod render_pass_area;
mod render_pass_plan;
mod render_pass_single;
mod schedule;
mod schedule_heap;
mod schedule_level_run;
mod schedule_levels;
mod schedule_units;

use crate::decl::QueueClass;
use crate::graph::RecordedGraph;
use crate::ids::NodeId;
use crate::view::SubresourceBox;
pub use access_map::{map_access, AccessState};
use barrier::BarrierPlanner;
pub use barrier::{Barrier, BarrierBatch, QueueWait, RegionRef};
use cache::StructureKey;
use deps::{DepBuilder, DepGraph};
use discard::DiscardInference;
use memory::MemoryPlanner;
pub use render_pass::{
    ColorAttachment, ColorAttachments, DepthStencilAttachment, LoadOp, RenderPass, ScissorRect,
    ScissorRects, StoreOp, Viewport, Viewports,
};
use schedule::Scheduler;
use std::fmt;

/// The scheduling preference (`--schedule`).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub enum SchedulePreference {
    /// Batch barriers by dependency depth, group queue classes, then save memory.
    #[default]
    Default,
    /// Keep call order.
    ProgramOrder,
    /// Minimise live transient memory.
    Memory,
}

/// Options of the frame compiler.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct CompileOptions {
    /// Scheduling preference.
    pub schedule: SchedulePreference,
    /// Eliminate dead nodes (`--no-cull` turns this off).
    pub cull: bool,
    /// Reuse the compiled frame when the recorded graph did not change.
    pub cache: bool,
    /// Place `async` compute nodes on a separate compute queue.
    pub async_compute: bool,
}

impl Default for CompileOptions {
    fn default() -> CompileOptions {
        CompileOptions {
            schedule: SchedulePreference::Default,
            cull: true,
            cache: true,
            async_compute: true,
        }
    }
}

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
}

/// Compiles recorded frames; keeps scratch allocations and the cache between frames.
#[derive(Debug, Default)]
pub struct FrameCompiler {
    options: CompileOptions,
    dep_builder: DepBuilder,
    deps: DepGraph,
    scheduler: Scheduler,
    alive: Vec<bool>,
    stack: Vec<u32>,
    order_scratch: Vec<u32>,
    level_scratch: Vec<u32>,
    sizes: Vec<u64>,
    /// The whole subresource box of each resource.
    full_boxes: Vec<crate::view::SubresourceBox>,
    discard: DiscardInference,
    memory: MemoryPlanner,
    barriers: BarrierPlanner,
    frame: CompiledFrame,
    key: StructureKey,
    cached: bool,
    pass_scratch: render_pass::RenderPassScratch,
    /// Boxes and compact records of the accesses (indexed like `RecordedGraph::accesses`) and
    /// of the nodes (see `node_span::NodeSpan`).
    table: access_info::AccessTable,
}

impl FrameCompiler {
    /// A compiler with the given options.
    pub fn new(options: CompileOptions) -> FrameCompiler {
        FrameCompiler {
            options,
            ..FrameCompiler::default()
        }
    }

    /// The options.
    pub fn options(&self) -> &CompileOptions {
        &self.options
    }

    /// Changes the options (drops the cache).
    pub fn set_options(&mut self, options: CompileOptions) {
        self.options = options;
        self.cached = false;
    }

    /// The dependency graph of the last compiled frame.
    pub fn dependencies(&self) -> &DepGraph {
        &self.deps
    }

    /// Compiles a recorded frame.
    pub fn compile(&mut self, graph: &RecordedGraph) -> Result<&CompiledFrame, CompileError> {
        if self.options.cache {
            if self.cached && self.key.matches(graph) {
                let frame = &mut self.frame;
                if let Err(error) = render_pass::refresh_argument_values(
                    graph,
                    &frame.access_discard,
                    &mut self.pass_scratch,
                    &mut frame.render_passes,
                ) {
                    self.cached = false;
                    return Err(error);
                }
                frame.cache_hit = true;
                return Ok(&self.frame);
            }
            self.key.store(graph);
        }
        self.cached = false;
        // The accesses' compact records; allocation sizes and whole-resource boxes are
        // recomputed only for descriptions that changed since the last frame.
        self.table
            .build(graph, &mut self.sizes, &mut self.full_boxes);
        self.dep_builder.build_boxed(
            graph,
            self.table.boxes(&self.full_boxes),
            &self.full_boxes,
            &self.table.infos,
            &self.table.nodes,
            None,
            &mut self.deps,
        );
        let live = dce::find_live_nodes(
            graph,
            &self.table,
            &self.deps,
            self.options.cull,
            &mut self.alive,
            &mut self.stack,
        );
        let any_culled = live < graph.nodes.len();
        // Without the dead nodes, order between live nodes may run differently: drop the dead
        // nodes' edges where that is all that changes, else build again.
        if any_culled
            && !self.dep_builder.drop_dead_nodes(
                graph,
                &self.table.infos,
                &self.table.nodes,
                &self.alive,
                &mut self.deps,
            )
        {
            self.dep_builder.build_boxed(
                graph,
                self.table.boxes(&self.full_boxes),
                &self.full_boxes,
                &self.table.infos,
                &self.table.nodes,
                Some(&self.alive),
                &mut self.deps,
            );
        }
        self.scheduler.schedule(
            graph,
            &self.table,
            &self.deps,
            &self.alive,
            self.options.schedule,
            &self.sizes,
            &mut self.order_scratch,
            &mut self.level_scratch,
        );
        let frame = &mut self.frame;
        let count = graph.nodes.len();
        frame.cache_hit = false;
        frame.order.clear();
        frame
            .order
            .extend(self.order_scratch.iter().map(|&node| NodeId(node)));
        frame.culled.clear();
        if any_culled {
            frame.culled.extend(
                (0..count)
                    .filter(|&node| !self.alive[node])
                    .map(NodeId::from_index),
            );
        }
        frame.position.clear();
        frame.position.resize(count, u32::MAX);
        for (position, node) in frame.order.iter().enumerate() {
            frame.position[node.index()] = position as u32;
        }
        assign_queues(
            graph,
            &self.alive,
            self.options.async_compute && self.table.any_async(),
            frame,
        );
        frame.access_discard.clear();
        frame
            .access_discard
            .resize(graph.accesses.len(), DiscardFlags::NONE);
        // Discard inference: the region-tracked resources here; the whole-tracked ones (nearly
        // all) inside barrier planning's walk, which reads each discard-before as it becomes
        // final. Nothing in between reads the flags; render passes read them complete.
        self.discard.begin(
            graph,
            self.table.boxes(&self.full_boxes),
            &self.full_boxes,
            &self.table.infos,
            &frame.order,
            &mut frame.access_discard,
        );
        self.memory.plan(
            graph,
            &self.table,
            frame,
            &self.deps,
            &self.level_scratch,
            &self.sizes,
        );
        self.barriers.plan(
            graph,
            &self.table,
            &self.full_boxes,
            &mut self.discard,
            frame,
        );
        render_pass::build_render_passes(
            graph,
            &frame.order,
            &self.table,
            &frame.access_discard,
            &mut self.pass_scratch,
            &mut frame.render_passes,
        )?;
        self.cached = self.options.cache;
        Ok(&self.frame)
    }
}

/// Queue index of every live node: 0 (graphics), or with `async_compute` the compute queue
/// (created at the first `async` call of a non-graphics declaration, in call order). The
/// caller passes `async_compute` false for a frame without `async` calls
/// (`AccessTable::any_async`), whose node records then are not read again.
fn assign_queues(
    graph: &RecordedGraph,
    alive: &[bool],
    async_compute: bool,
    frame: &mut CompiledFrame,
) {
    frame.queues.clear();
    frame.queues.push(QueueClass::Graphics);
    frame.node_queue.clear();
    frame
        .node_queue
        .extend(alive.iter().map(|&live| if live { 0 } else { u32::MAX }));
    if !async_compute {
        return;
    }
    let mut compute_queue = None;
    for ((node, &live), queue) in graph.nodes.iter().zip(alive).zip(&mut frame.node_queue) {
        if node.flags.prefer_async
            && live
            && graph.decls[node.decl.index()].queue != QueueClass::Graphics
        {
            *queue = *compute_queue.get_or_insert_with(|| {
                frame.queues.push(QueueClass::Compute);
                frame.queues.len() as u32 - 1
            });
        }
    }
}
