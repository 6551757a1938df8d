//! Memory refinement of steady frames (see [`MemoryRefinement`]): once a frame's structure has
//! repeated for a while, its graph is compiled again under
//! [`SchedulePreference::Searched`] on a background thread, and the result replaces the
//! compile cache's frame when it places the transients in fewer bytes
//! ([`FrameCompiler::offer_refined`]).

use std::thread::JoinHandle;

use rpsl_runtime::{
    CompileOptions, CompiledFrame, FrameCompiler, RecordedGraph, SchedulePreference,
};

/// When a [`Session`](crate::Session) searches a steady frame's plan for less transient memory.
///
/// The compile of every frame stays the fast one its [`CompileOptions::schedule`] chooses. When
/// frames of one graph structure (the builder's [`RecordedGraph::structure_serial`]) have
/// followed its first for `after_frames` frames (a repeated frame counts), the session copies
/// the graph and compiles it under [`SchedulePreference::Searched`]: the batch budget of the
/// balanced schedule (at most 5% more barrier batches than the fewest), with the levels and
/// the transients' placement searched for the least memory under a fixed work budget. If that
/// plan holds fewer transient bytes, a later frame of the same structure gets it instead of
/// the cached plan (reported with `cache_hit` false); a frame of another structure drops it
/// and counting starts again. The level search is randomised (with fixed seeds), so the
/// session searches a lasting structure again, up to 8 attempts in all (attempt `k` once the
/// structure has lasted `after_frames × (k + 1)` frames after its first and the last search is
/// done), keeping each plan that holds fewer bytes than every plan before it. Only the
/// `Default` and `Balanced` schedules are refined.
///
/// ```
/// use rpsl::{MemoryRefinement, SessionOptions};
/// let options = SessionOptions::default();
/// assert_eq!(options.memory_refinement, MemoryRefinement::Background { after_frames: 30 });
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MemoryRefinement {
    /// Every frame keeps the plan of its schedule.
    Off,
    /// The search runs on a background thread; the first frame that starts after it is done
    /// takes its plan. The frame loop never waits for it: which frame first gets the refined
    /// plan depends on how fast the search runs.
    Background {
        /// Frames of one structure after its first before the search starts (at least 1).
        after_frames: u32,
    },
    /// The search runs on the frame thread at the end of the structure's `after_frames`-th
    /// frame after its first, and the next frame takes its plan: the refined plan arrives at a fixed frame,
    /// and that one frame pays for the search (a batch tool, tests, a loading screen).
    Blocking {
        /// Frames of one structure after its first before the search runs (at least 1).
        after_frames: u32,
    },
}

impl MemoryRefinement {
    /// The default: [`MemoryRefinement::Background`] after 30 frames (half a second at 60
    /// frames per second), long enough that a structure that changes from frame to frame
    /// never starts a search.
    pub const DEFAULT: MemoryRefinement = MemoryRefinement::Background {
        after_frames: MemoryRefinement::DEFAULT_AFTER_FRAMES,
    };

    /// The default `after_frames`.
    pub const DEFAULT_AFTER_FRAMES: u32 = 30;

    /// The mode's `after_frames`, or the default one for `Off`.
    ///
    /// ```
    /// use rpsl::MemoryRefinement;
    /// assert_eq!(MemoryRefinement::Blocking { after_frames: 4 }.after_frames(), 4);
    /// assert_eq!(MemoryRefinement::Off.after_frames(), 30);
    /// ```
    pub fn after_frames(self) -> u32 {
        match self {
            MemoryRefinement::Background { after_frames }
            | MemoryRefinement::Blocking { after_frames } => after_frames,
            MemoryRefinement::Off => MemoryRefinement::DEFAULT_AFTER_FRAMES,
        }
    }
}

impl Default for MemoryRefinement {
    fn default() -> MemoryRefinement {
        MemoryRefinement::DEFAULT
    }
}

/// A searched compilation and the graph it compiled.
type Searched = Option<(RecordedGraph, CompiledFrame)>;

/// Where the refinement of the current structure stands.
#[derive(Debug, Default)]
enum State {
    /// No search under way.
    #[default]
    Idle,
    /// Searching on a background thread.
    Searching(JoinHandle<Searched>),
}

/// Searches of one structure at most: attempt `k` (its own random seed,
/// `FrameCompiler::set_search_attempt`) starts once the structure has lasted
/// `after_frames × (k + 1)` frames after its first and no search is under way.
const ATTEMPTS: u32 = 8;

/// The refinement state of one runner.
#[derive(Debug)]
pub(crate) struct Refiner {
    mode: MemoryRefinement,
    /// The builder's structure serial of the last frame's graph.
    serial: u64,
    /// Frames of that structure after its first.
    hits: u32,
    /// Searches of that structure started.
    attempts: u32,
    state: State,
}

impl Refiner {
    /// A refiner for `mode`.
    pub(crate) fn new(mode: MemoryRefinement) -> Refiner {
        Refiner {
            mode,
            serial: 0,
            hits: 0,
            attempts: 0,
            state: State::Idle,
        }
    }

    /// Before a frame: offers a finished background search's plan to `compiler` (waiting for a
    /// running one when `wait`).
    pub(crate) fn before_frame(&mut self, compiler: &mut FrameCompiler, wait: bool) {
        let State::Searching(handle) = &self.state else {
            return;
        };
        if !(wait || handle.is_finished()) {
            return;
        }
        let State::Searching(handle) = std::mem::take(&mut self.state) else {
            return;
        };
        // A search that panicked (a compiler bug) only means no refined plan.
        if let Ok(Some((graph, frame))) = handle.join() {
            compiler.offer_refined(&graph, frame);
        }
    }

    /// After a frame compiled (or repeated) without error: counts the frames of the graph's
    /// structure (by the builder's structure serial) and starts the next search attempt when
    /// they reach its count ([`ATTEMPTS`]).
    pub(crate) fn after_frame(&mut self, compiler: &mut FrameCompiler, graph: &RecordedGraph) {
        if self.mode == MemoryRefinement::Off {
            return;
        }
        let after_frames = self.mode.after_frames().max(1);
        let serial = graph.structure_serial();
        if serial == 0 || serial != self.serial {
            // A new structure (or one without a serial: never refined). A search of the last
            // one still running finishes unseen.
            self.serial = serial;
            self.hits = 0;
            self.attempts = 0;
            self.state = State::Idle;
            return;
        }
        self.hits = self.hits.saturating_add(1);
        let due = u64::from(after_frames) * u64::from(self.attempts + 1);
        if self.attempts < ATTEMPTS
            && u64::from(self.hits) >= due
            && matches!(self.state, State::Idle)
        {
            let blocking = matches!(self.mode, MemoryRefinement::Blocking { .. });
            self.start(compiler, graph, blocking);
        }
    }

    /// Waits for a search under way and offers its plan; when the last frame's structure has
    /// not been searched yet (and refinement is on), runs its first attempt now. The next frame
    /// of that structure then takes a plan with fewer transient bytes. Returns whether one
    /// waits for it.
    pub(crate) fn finish(&mut self, compiler: &mut FrameCompiler, graph: &RecordedGraph) -> bool {
        self.before_frame(compiler, true);
        let unsearched = self.attempts == 0
            && self.mode != MemoryRefinement::Off
            && graph.structure_serial() != 0
            && graph.structure_serial() == self.serial;
        if unsearched {
            self.start(compiler, graph, true);
        }
        compiler.refined_pending()
    }

    /// Starts the next search attempt of `graph`'s structure, on the frame thread when
    /// `blocking` (its plan offered at once), else on a background thread.
    fn start(&mut self, compiler: &mut FrameCompiler, graph: &RecordedGraph, blocking: bool) {
        let options = *compiler.options();
        let attempt = self.attempts;
        self.attempts += 1;
        let refinable = matches!(
            options.schedule,
            SchedulePreference::Default | SchedulePreference::Balanced
        ) && options.cache;
        if !refinable {
            self.attempts = ATTEMPTS;
            return;
        }
        let searched = CompileOptions {
            schedule: SchedulePreference::Searched,
            cache: false,
            ..options
        };
        if blocking {
            if let Some((graph, frame)) = search(graph.clone(), searched, attempt) {
                compiler.offer_refined(&graph, frame);
            }
            return;
        }
        let graph = graph.clone();
        let spawned = std::thread::Builder::new()
            .name("rpsl-memory-search".into())
            .spawn(move || search(graph, searched, attempt));
        // No thread only means no refined plan.
        if let Ok(handle) = spawned {
            self.state = State::Searching(handle);
        }
    }
}

/// Compiles `graph` under `options` (a searched schedule, attempt `attempt`) with a compiler of
/// its own.
fn search(graph: RecordedGraph, options: CompileOptions, attempt: u32) -> Searched {
    let mut compiler = FrameCompiler::new(options);
    compiler.set_search_attempt(attempt);
    let frame = compiler.compile(&graph).ok()?.clone();
    Some((graph, frame))
}
