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

mod barriers;
pub(crate) mod cache;
pub mod deps;
mod discard;
mod frame;
mod liveness;
mod memory;
mod options;
mod regions;
mod render_pass;
mod schedule;
mod table;

use crate::decl::QueueClass;
use crate::graph::RecordedGraph;
use crate::ids::NodeId;
pub use barriers::access_map::{map_access, AccessState};
use barriers::BarrierPlanner;
use cache::StructureKey;
use deps::{DepBuilder, DepGraph};
use discard::DiscardInference;
pub use frame::{
    Barrier, BarrierBatch, ColorAttachment, ColorAttachments, CompileError, CompiledFrame,
    DepthStencilAttachment, DiscardFlags, LoadOp, MemoryStats, Placement, QueueWait, RegionRef,
    RenderPass, ScissorRect, ScissorRects, StoreOp, Viewport, Viewports,
};
use memory::MemoryPlanner;
pub use options::{CompileOptions, SchedulePreference};
use schedule::Scheduler;

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
    table: table::AccessTable,
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
        let live = liveness::find_live_nodes(
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
