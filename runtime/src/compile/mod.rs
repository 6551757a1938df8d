//! The frame compiler: dead-node elimination, subresource dependencies, scheduling, lifetimes
//! and discard inference, transient aliasing, and barrier planning of one recorded frame.
//!
//! [`FrameCompiler`] is the driver, in the manner of Cranelift's `Context`: it owns each
//! stage (its scratch, kept across frames, and its named output) and runs them in order, each
//! reading the earlier stages' outputs by name:
//!
//! cache, access table (`table`), dependencies (`deps`), liveness, schedule, queues, discard
//! (region part), lifetimes, memory, barriers (with discard's whole-resource part), render
//! passes. ARCHITECTURE.md's frame-compiler table lists what each reads and writes.
//!
//! The compiled frame's types are in `frame` and the options in `options`: leaves that import
//! no stage. No stage imports a later one or the driver.
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
mod lifetimes;
mod liveness;
mod memory;
mod options;
mod queues;
mod regions;
mod render_pass;
mod schedule;
mod table;

pub use barriers::access_map::{map_access, merge_layouts, AccessState};
pub use barriers::resting_state;
use barriers::BarrierPlanner;
use cache::StructureKey;
use deps::stage::{Analysis, Dependencies};
use deps::DepGraph;
use discard::DiscardInference;
pub use frame::{
    Barrier, BarrierBatch, ColorAttachment, ColorAttachments, CompileError, CompiledFrame,
    DepthStencilAttachment, DiscardFlags, LoadOp, MemoryStats, Placement, QueueWait, RegionRef,
    RenderPass, ScissorRect, ScissorRects, StoreOp, Viewport, Viewports,
};
use frame::{FrameParts, Ordered};
use liveness::Liveness;
use memory::MemoryPlanner;
pub use options::{CompileOptions, SchedulePreference};
use render_pass::RenderPassScratch;
use schedule::{Schedule, Scheduler};
use table::AccessTable;

use crate::graph::RecordedGraph;
use crate::ids::NodeId;

/// Compiles recorded frames; keeps each stage's scratch and output, and the cache, between
/// frames (a steady frame allocates nothing).
#[derive(Debug, Default)]
pub struct FrameCompiler {
    options: CompileOptions,
    /// The structure key of the last compiled graph.
    key: StructureKey,
    /// `frame` is the compilation of the graph `key` describes.
    cached: bool,
    /// Stage 1: the accesses' and nodes' compact records, the resources' sizes and boxes.
    table: AccessTable,
    /// Stage 2: the dependency graph.
    dependencies: Dependencies,
    /// Stage 3: the live nodes.
    liveness: Liveness,
    /// Stage 4: the scheduler's scratch ...
    scheduler: Scheduler,
    /// ... and its output, the order with each position's level.
    schedule: Schedule,
    /// Discard inference (its region part runs before memory, its whole-resource part inside
    /// barrier planning's walk).
    discard: DiscardInference,
    /// Memory placement's scratch.
    memory: MemoryPlanner,
    /// Barrier planning's scratch.
    barriers: BarrierPlanner,
    /// Render-pass building's scratch.
    render_passes: RenderPassScratch,
    /// The output.
    frame: CompiledFrame,
    /// A compilation of the cached structure that holds less transient memory, taken in by the
    /// next cache hit ([`FrameCompiler::offer_refined`]).
    refined: Option<Box<CompiledFrame>>,
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
        self.refined = None;
    }

    /// Makes the level search of [`SchedulePreference::Searched`] run attempt `attempt` (0, the
    /// default, is what `--schedule searched` runs): the same search from another random seed,
    /// as deterministic as attempt 0. Memory refinement searches a steady structure again
    /// under later attempts and keeps the best plan (`rpsl`'s `MemoryRefinement`).
    ///
    /// ```
    /// use rpsl_runtime::*;
    /// let mut compiler = FrameCompiler::new(CompileOptions {
    ///     schedule: SchedulePreference::Searched,
    ///     ..CompileOptions::default()
    /// });
    /// compiler.set_search_attempt(1);
    /// ```
    pub fn set_search_attempt(&mut self, attempt: u32) {
        self.scheduler.set_search_attempt(attempt);
        self.cached = false;
        self.refined = None;
    }

    /// The dependency graph of the last compiled frame.
    pub fn dependencies(&self) -> &DepGraph {
        &self.dependencies.graph
    }

    /// The frame the last successful [`Self::compile`] returned, again, for a caller that knows
    /// its graph has not changed since (a repeated frame, [`crate::GraphBuilder::repeat_frame`]):
    /// what compiling that graph again would give, `cache_hit` included (set when the cache is
    /// on, as it would hit). Before the first compile, or after a failed one, its contents mean
    /// nothing.
    pub fn repeat_last(&mut self) -> &CompiledFrame {
        self.frame.cache_hit = self.options.cache;
        &self.frame
    }

    /// Offers `frame`, a compilation of `graph` under other options (in practice
    /// [`SchedulePreference::Searched`], on another thread: see `rpsl`'s
    /// `SessionOptions::memory_refinement`), to replace the cached compilation of the same
    /// structure. It is taken when the cache is on, the cached frame is a compilation of
    /// `graph`'s structure, and `frame` places its transients in fewer bytes than the cached
    /// frame and than a frame offered before and not yet taken in; the next
    /// [`Self::compile`] of that structure then returns it (with `cache_hit` false, since the
    /// plan differs from the last frame's), its render passes' argument values refreshed from
    /// that frame's graph. A compile of another structure drops it. Returns whether it was
    /// taken.
    ///
    /// ```
    /// use rpsl_runtime::*;
    /// let mut builder = GraphBuilder::new();
    /// builder.begin_frame(0);
    /// let graph = builder.finish().unwrap().clone();
    /// let mut compiler = FrameCompiler::new(CompileOptions::default());
    /// compiler.compile(&graph).unwrap();
    /// let same = compiler.compile(&graph).unwrap().clone();
    /// // Not smaller: kept out.
    /// assert!(!compiler.offer_refined(&graph, same));
    /// ```
    pub fn offer_refined(&mut self, graph: &RecordedGraph, frame: CompiledFrame) -> bool {
        let best_bytes = self
            .refined
            .as_ref()
            .map_or(self.frame.memory.transient_bytes, |refined| {
                refined.memory.transient_bytes
            });
        let taken = self.options.cache
            && self.cached
            && frame.memory.transient_bytes < best_bytes
            && self.key.matches(graph);
        if taken {
            self.refined = Some(Box::new(frame));
        }
        taken
    }

    /// The frame the last successful [`Self::compile`] or [`Self::repeat_last`] returned, as it
    /// returned it. Before the first compile, or after a failed one, its contents mean nothing.
    pub fn last_frame(&self) -> &CompiledFrame {
        &self.frame
    }

    /// A frame offered by [`Self::offer_refined`] waits for the next cache hit.
    pub fn refined_pending(&self) -> bool {
        self.refined.is_some()
    }

    /// Compiles a recorded frame.
    pub fn compile(&mut self, graph: &RecordedGraph) -> Result<&CompiledFrame, CompileError> {
        if self.options.cache {
            if self.cached && self.key.matches(graph) {
                let adopted = match self.refined.take() {
                    Some(refined) => {
                        self.frame = *refined;
                        true
                    }
                    None => false,
                };
                let frame = &mut self.frame;
                if let Err(error) = render_pass::refresh_argument_values(
                    graph,
                    &frame.access_discard,
                    &mut self.render_passes,
                    &mut frame.render_passes,
                ) {
                    self.cached = false;
                    return Err(error);
                }
                frame.cache_hit = !adopted;
                return Ok(&self.frame);
            }
            self.key.store(graph);
        }
        self.cached = false;
        self.refined = None;
        self.analyse(graph);
        let analysis = Analysis {
            graph,
            table: &self.table,
            deps: &self.dependencies.graph,
        };
        self.scheduler.schedule(
            analysis,
            &self.liveness.alive,
            self.options.schedule,
            &mut self.schedule,
        );
        self.frame.cache_hit = false;
        let FrameParts {
            order,
            culled,
            position,
            node_queue,
            queues,
            lifetimes,
            access_discard,
            mut memory,
            barriers,
            render_passes,
        } = self.frame.parts();
        write_order(&self.schedule, order, position, graph.nodes.len());
        self.liveness.write_culled(culled);
        queues::assign(
            graph,
            &self.liveness.alive,
            self.options.async_compute && self.table.any_async(),
            node_queue,
            queues,
        );
        let ordered = Ordered {
            order,
            position,
            node_queue,
            queues,
        };
        // Discard inference: the region-tracked resources here; the whole-tracked ones (nearly
        // all) inside barrier planning's walk, which reads each discard-before as it becomes
        // final. Nothing in between reads the flags; render passes read them complete.
        self.discard
            .begin(graph, &self.table, ordered.order, access_discard);
        lifetimes::compute_bounded(
            &self.table,
            self.dependencies.lifetime_bounds(),
            (ordered.order, ordered.position),
            graph.resources.len(),
            lifetimes,
        );
        self.memory.plan(
            analysis,
            (
                &self.schedule.levels,
                self.schedule.balanced,
                self.schedule.searched,
            ),
            &ordered,
            lifetimes,
            &mut memory,
        );
        self.barriers.plan(
            analysis,
            &ordered,
            memory.alias_after,
            (&mut self.discard, access_discard),
            barriers,
        );
        render_pass::build_render_passes(
            graph,
            ordered.order,
            &self.table,
            access_discard,
            &mut self.render_passes,
            render_passes,
        )?;
        self.cached = self.options.cache;
        Ok(&self.frame)
    }

    /// The stages up to liveness: the access table (allocation sizes and whole-resource boxes
    /// are recomputed only for descriptions that changed since the last frame), the
    /// dependencies, the live nodes, and the dependencies without the dead nodes.
    fn analyse(&mut self, graph: &RecordedGraph) {
        self.table.build(graph);
        self.dependencies.build(graph, &self.table);
        let analysis = Analysis {
            graph,
            table: &self.table,
            deps: &self.dependencies.graph,
        };
        self.liveness
            .compute(analysis, self.dependencies.fed(), self.options.cull);
        if self.liveness.any_culled() {
            self.dependencies
                .drop_dead(graph, &self.table, &self.liveness.alive);
        }
    }
}

/// Writes the schedule's order as node ids (`order`) and each node's execution position
/// (`position`, `u32::MAX` for the `node_count` nodes' culled ones).
fn write_order(
    schedule: &Schedule,
    order: &mut Vec<NodeId>,
    position: &mut Vec<u32>,
    node_count: usize,
) {
    order.clear();
    order.extend(schedule.order.iter().map(|&node| NodeId(node)));
    // When every node is in the order (nothing culled), every entry is written below: only a
    // grown tail is filled here.
    if order.len() < node_count {
        position.clear();
    }
    position.truncate(node_count);
    position.resize(node_count, u32::MAX);
    for (at, node) in order.iter().enumerate() {
        position[node.index()] = at as u32;
    }
}
