//! Memory balancing of the `Default` schedule: spend a bounded number of extra batches to lower
//! the peak of live transient bytes.
//!
//! The level scheduler runs every node at its dependency level (as soon as possible), which
//! gives the fewest batches but lets every independent branch allocate at once: on the `lanes`
//! shape (eight chains, then merges) all eight lanes hold their textures in every batch. This
//! pass re-levels such a schedule under a **batch budget** of the minimum level count plus 5%
//! (rounded down, [`extra_levels`]; frames under 20 levels, which get no extra level, are left
//! alone). Level by level it runs every ready node that has no slack left (its latest level,
//! from its longest path to the end within the budget, is now), and the other ready nodes only
//! while the bytes live in this level stay under a **peak target**. Nodes that would raise the
//! peak wait ("pause a lane"); nodes that allocate nothing always run. A pass stops as soon as
//! a level holds more than the target. The target is binary-searched ([`SEARCH_STEPS`] steps)
//! between half the as-soon-as-possible peak and the highest peak worth keeping; the least
//! peak found wins.
//!
//! Each search runs forwards (from the sources) and backwards (from the sinks over reversed
//! edges, the levels then counted from the end: nodes run just before their readers instead of
//! waiting to start). It runs first with the whole budget; then without extra levels (only the
//! slack the graph has), whose result is kept unless the extra levels lowered the peak by
//! another 1/32 of the as-soon-as-possible peak.
//!
//! Memory model (the placement's): a transient occupies its memory from the level of its first
//! user to the level of its last user, both included (memory freed inside a level is reused
//! from the next level on, see `memory/mod.rs`). Resources that outlive the frame are not
//! counted.
//!
//! The optional nodes of a level are tried by the bytes they would allocate net of the bytes
//! they would free (their resources' last user), then call order. A pacing rule keeps waiting
//! nodes from spending all their slack early: a node may wait only while its remaining slack is
//! at least [`PACE_EIGHTHS`]/8 of its whole slack scaled by the share of the levels it still
//! has to climb.
//!
//! The balanced levels are kept only when they lower the peak by at least 1/32 of the
//! as-soon-as-possible peak ([`WORTH_SHIFT`]); otherwise the schedule stays as it was. Within a
//! new level the nodes keep their order in the as-soon-as-possible schedule (queue classes and
//! memory preferences as the level scheduler chose them). A node's level is always above its
//! predecessors', so the order stays a topological order. The memory planner then also places
//! the transients in the order they come to life in the pass's direction ([`Balanced`]).
//!
//! Cost: O(passes × (nodes + edges + resource uses + waiting nodes × levels)), with at most
//! 4 × [`SEARCH_STEPS`] passes after one linear walk for the as-soon-as-possible peak
//! ([`Balancer::asap_peak`]); a pass whose waiting work exceeds a bound proportional to the
//! frame ([`WORK_FACTOR`]) ends the search. The data that does not depend on the target (the
//! level from which each node must run, the sources) is computed once per search, and each
//! pass of a search resumes the previous one from the first level where a choice would differ
//! ([`LevelRecord`]). Frames with one node per level (a chain) skip the pass: no node can wait
//! without delaying every later one. On `lanes` 1k the compile costs ~6.2M instructions
//! instead of ~1.9M without the balancing (BENCHMARKS.md, issue 19).

mod greedy;

use super::output::{Balanced, Schedule};
use crate::compile::deps::stage::Analysis;
use crate::compile::table::OUTLIVES;
use greedy::LevelRecord;

/// Search steps of the peak target per direction.
const SEARCH_STEPS: u32 = 8;
/// The pacing rule's fraction of the slack a waiting node keeps in reserve, in eighths.
const PACE_EIGHTHS: u64 = 4;
/// A pass may look at waiting nodes at most this many times per node, edge and use.
const WORK_FACTOR: usize = 8;
/// The balanced levels are kept when their peak is at most the as-soon-as-possible peak less
/// 1/`WORTH_SHIFT` of it.
const WORTH_SHIFT: u32 = 5;

/// Extra levels the balancing may add to a schedule of `levels` levels: 5%, rounded down.
///
/// ```text
/// 131 levels (132 batches) -> 6 extra: at most 137 levels (138 batches)
/// ```
pub(crate) fn extra_levels(levels: u32) -> u32 {
    levels / 20
}

/// No node / level.
const NONE: u32 = u32::MAX;

/// Reusable scratch of the balancing pass. Per-node arrays are indexed by call index.
#[derive(Debug, Default)]
pub(super) struct Balancer {
    /// Per direction (forward, backward) and node: the longest path (in edges) from a node
    /// with no incoming edge in that direction: the as-soon-as-possible level forwards, the
    /// longest path to a sink backwards.
    depth: [Vec<u32>; 2],
    /// Per direction and node: its incoming edges in that direction (live predecessors
    /// forwards, live successors backwards).
    incoming: [Vec<u32>; 2],
    /// Per node: incoming edges not yet scheduled in the current pass.
    pending: Vec<u32>,
    /// Per direction, the outgoing lists: `next[d][next_start[d][n]..next_start[d][n + 1]]`
    /// (successors forwards, predecessors backwards).
    next_start: [Vec<u32>; 2],
    next: [Vec<u32>; 2],
    /// Transient resource uses (each resource once per node):
    /// `uses[use_range[n].0..use_range[n].1]`.
    use_range: Vec<(u32, u32)>,
    uses: Vec<u32>,
    /// Per resource: allocation size, or 0 when not counted.
    size: Vec<u64>,
    /// Per resource: its distinct live users.
    users: Vec<u32>,
    /// Per resource: users not yet scheduled in the current pass.
    remaining: Vec<u32>,
    /// Per resource: the last node that listed it (deduplication).
    stamp: Vec<u32>,
    /// Per resource: the level at which the current pass ran its first user, or NONE.
    started_level: Vec<u32>,
    /// Per direction: the nodes with no incoming edge in that direction, in the order the
    /// pass finds them ready (call order forwards, reversed backwards).
    sources: [Vec<u32>; 2],
    /// Per node: its level in the current pass, and in the best pass.
    level: Vec<u32>,
    best: Vec<u32>,
    /// The best pass ran backwards (its levels count from the end).
    best_backward: bool,
    /// The ready nodes of the current level, those that wait, the optional ones with keys,
    /// and the nodes released for the next level.
    ready: Vec<u32>,
    waiting: Vec<u32>,
    optional: Vec<(u128, u64)>,
    released: Vec<u32>,
    /// Per node: the first level at which it must run ([`must_run_from`]), for the budget,
    /// pacing and direction of `must_key`.
    must_level: Vec<u32>,
    must_key: Option<(u32, u32, bool, bool)>,
    /// The as-soon-as-possible live bytes: per level, the bytes that start less those that
    /// ended the level before ([`Balancer::asap_peak`]).
    live_change: Vec<u64>,
    /// The previous pass, for the next one to resume ([`Balancer::rewind`]): its budget,
    /// minimum levels, pacing and direction (None: nothing to resume), a record per level it
    /// reached, the ready nodes of each level (`records[l].ready_at..`), and its outcome.
    trail_key: Option<(u32, u32, bool, bool)>,
    records: Vec<LevelRecord>,
    ready_log: Vec<u32>,
    outcome: Option<Result<u64, Stop>>,
    /// Rewriting the order: per level, its first slot.
    level_slot: Vec<u32>,
    /// Rewriting the order: per level, its number once empty levels are dropped.
    dense: Vec<u32>,
    order: Vec<u32>,
    /// The arrays above that describe the frame (not a pass) were built for the schedule last
    /// given to [`Balancer::balance`] ([`Balancer::prepared`]).
    prepared: bool,
}

/// The frame as the balancing prepared it, for the level search (`search.rs`): per-node arrays
/// indexed by call index, per-resource arrays by resource index.
#[derive(Copy, Clone)]
pub(super) struct Prepared<'a> {
    /// Per node: its as-soon-as-possible level (`u32::MAX` for a node not scheduled).
    pub asap: &'a [u32],
    /// Per node: its longest path (in edges) to a node without successors.
    pub height: &'a [u32],
    /// Successors: `succ[succ_start[n]..succ_start[n + 1]]`.
    pub succ_start: &'a [u32],
    pub succ: &'a [u32],
    /// Predecessors: `pred[pred_start[n]..pred_start[n + 1]]`.
    pub pred_start: &'a [u32],
    pub pred: &'a [u32],
    /// Transient resource uses, each resource once per node: `uses[use_range[n].0..use_range[n].1]`.
    pub use_range: &'a [(u32, u32)],
    pub uses: &'a [u32],
    /// Per resource: its allocation size, or 0 when it does not count (outlives the frame).
    pub size: &'a [u64],
}

/// What a search under one budget found.
enum Search {
    /// A pass whose peak is the given one, at or under the bar (its levels are in `best`).
    Found(u64),
    /// No pass reached the bar.
    NotFound,
    /// A pass did more work than the frame allows: stop searching.
    TooMuchWork,
}

/// Why a pass stopped without a schedule.
#[derive(Copy, Clone, Debug)]
enum Stop {
    /// A level held more than the target.
    Over,
    /// It did more work than the frame allows (or, for a frame whose edges the levels did
    /// not account for, did not schedule every node).
    Work,
}

/// One pass's choices.
#[derive(Copy, Clone)]
struct Pass {
    /// Levels available (the budget).
    levels: u32,
    /// The as-soon-as-possible level count.
    min_levels: u32,
    /// Bytes a level may hold before optional nodes wait.
    target: u64,
    /// Whether waiting nodes keep a paced reserve of their slack.
    paced: bool,
    /// Scheduled from the sinks over reversed edges (levels count from the end).
    backward: bool,
    /// Waiting-node visits allowed.
    work_limit: usize,
}

impl Balancer {
    /// Re-levels the `Default` schedule `out` (levels ascending along the order, as the level
    /// scheduler writes it) under the batch budget when that lowers the peak of live transient
    /// bytes enough (see the module docs); otherwise leaves `out` untouched.
    pub fn balance(&mut self, frame: Analysis<'_>, alive: &[bool], out: &mut Schedule) {
        self.prepared = false;
        let live_count = out.order.len();
        let Some(&last_level) = out.levels.last() else {
            return;
        };
        let min_levels = last_level + 1;
        if live_count <= min_levels as usize || extra_levels(min_levels) == 0 {
            // One node per level (nothing can wait without delaying every later level), or a
            // frame too short for a batch budget: it keeps the plain level order (queue classes
            // grouped in each level, as RPS's scheduler tests expect of short frames).
            return;
        }
        let node_count = frame.graph.nodes.len();
        if out.order.iter().any(|&node| node as usize >= node_count) {
            return;
        }
        self.prepare(frame, alive, out);
        self.prepared = true;
        self.must_key = None;
        self.trail_key = None;
        let edges = self.next[0].len();
        let work_limit = WORK_FACTOR * (live_count + edges + self.uses.len());
        // With no slack and no target, every node runs at its level: the schedule as it is.
        let as_is = Pass {
            levels: min_levels,
            min_levels,
            target: u64::MAX,
            paced: false,
            backward: false,
            work_limit,
        };
        let as_is_peak = match self.asap_peak(out, min_levels) {
            Some(peak) => peak,
            None => self.run_pass(out, as_is),
        };
        let Ok(asap_peak) = as_is_peak else {
            return;
        };
        let worth = asap_peak >> WORTH_SHIFT;
        if worth == 0 {
            return;
        }
        // With the whole budget first; then without extra levels (only the slack the graph
        // has), which wins unless the extra levels lowered the peak by `worth` more.
        let full = Pass {
            levels: min_levels + extra_levels(min_levels),
            ..as_is
        };
        let Search::Found(full_peak) = self.search(out, full, asap_peak, asap_peak - worth) else {
            return;
        };
        let without = (full_peak + worth - 1).min(asap_peak - worth);
        self.search(out, as_is, asap_peak, without);
        self.rewrite(out);
    }

    /// The frame as the last [`Balancer::balance`] prepared it, from the schedule it was given
    /// (the as-soon-as-possible one); `None` when it returned before preparing (a frame too
    /// short for a batch budget, one node per level, or nodes out of range).
    pub fn prepared(&self) -> Option<Prepared<'_>> {
        self.prepared.then(|| Prepared {
            asap: &self.depth[0],
            height: &self.depth[1],
            succ_start: &self.next_start[0],
            succ: &self.next[0],
            pred_start: &self.next_start[1],
            pred: &self.next[1],
            use_range: &self.use_range,
            uses: &self.uses,
            size: &self.size,
        })
    }

    /// Binary-searches the peak target between half of `high` and `high` for passes under
    /// `pass`'s budget, forwards and backwards (paced); keeps in `best` the pass of least peak
    /// at or under `bar`, if any (else `best` is left as it was).
    fn search(&mut self, out: &Schedule, pass: Pass, high: u64, bar: u64) -> Search {
        let mut found = Search::NotFound;
        let mut best_peak = bar.saturating_add(1);
        for backward in [false, true] {
            let paced = true;
            // Targets above the bar cannot give an accepted pass.
            let (mut low, mut high) = (high.min(bar) / 2, high.min(bar));
            for _ in 0..SEARCH_STEPS {
                let target = low + (high - low) / 2;
                let pass = Pass {
                    target,
                    paced,
                    backward,
                    ..pass
                };
                match self.run_pass(out, pass) {
                    Ok(peak) => {
                        if peak < best_peak {
                            best_peak = peak;
                            found = Search::Found(peak);
                            self.best_backward = backward;
                            // A copy: the next pass may resume from `level`.
                            self.best.clone_from(&self.level);
                        }
                        high = peak.min(target);
                    }
                    Err(Stop::Over) => low = target + 1,
                    Err(Stop::Work) => return Search::TooMuchWork,
                }
                if low >= high {
                    break;
                }
            }
        }
        found
    }

    /// Builds the successor lists, heights and transient uses of the live nodes of `out`.
    fn prepare(&mut self, frame: Analysis<'_>, alive: &[bool], out: &Schedule) {
        let Analysis { graph, table, deps } = frame;
        let node_count = graph.nodes.len();
        let resource_count = graph.resources.len();
        let sizes = table.sizes();
        let (infos, spans) = (&table.infos[..], &table.nodes[..]);
        let is_live = |node: u32| alive.get(node as usize).copied().unwrap_or(false);
        let [asap, height] = &mut self.depth;
        asap.clear();
        asap.resize(node_count, NONE);
        for (&node, &level) in out.order.iter().zip(&out.levels) {
            asap[node as usize] = level;
        }
        // Edges from earlier live calls only (as the levels), counted then filled: successor
        // lists forwards, predecessor lists backwards.
        for direction in 0..2 {
            self.incoming[direction].clear();
            self.incoming[direction].resize(node_count, 0);
            self.next_start[direction].clear();
            self.next_start[direction].resize(node_count + 1, 0);
        }
        let preds_of = |node: u32| {
            let node = node as usize;
            match (deps.pred_start.get(node), deps.pred_start.get(node + 1)) {
                (Some(&start), Some(&end)) => deps.edges.get(start as usize..end as usize),
                _ => None,
            }
            .unwrap_or(&[])
        };
        let counted =
            |pred: u32, node: u32| pred < node && is_live(pred) && asap[pred as usize] != NONE;
        for &node in &out.order {
            for &(pred, _) in preds_of(node) {
                if counted(pred, node) {
                    self.next_start[0][pred as usize + 1] += 1;
                    self.incoming[0][node as usize] += 1;
                    self.next_start[1][node as usize + 1] += 1;
                    self.incoming[1][pred as usize] += 1;
                }
            }
        }
        for direction in 0..2 {
            let starts = &mut self.next_start[direction];
            for index in 0..node_count {
                starts[index + 1] += starts[index];
            }
            self.next[direction].clear();
            self.next[direction].resize(starts[node_count] as usize, 0);
        }
        // `level_slot` and `dense` as the fill cursors per node.
        self.level_slot.clear();
        self.level_slot
            .extend_from_slice(&self.next_start[0][..node_count]);
        self.dense.clear();
        self.dense
            .extend_from_slice(&self.next_start[1][..node_count]);
        for &node in &out.order {
            for &(pred, _) in preds_of(node) {
                if counted(pred, node) {
                    let slot = &mut self.level_slot[pred as usize];
                    self.next[0][*slot as usize] = node;
                    *slot += 1;
                    let slot = &mut self.dense[node as usize];
                    self.next[1][*slot as usize] = pred;
                    *slot += 1;
                }
            }
        }
        // Heights, in reverse topological order.
        height.clear();
        height.resize(node_count, 0);
        let (succ_start, succ) = (&self.next_start[0], &self.next[0]);
        for &node in out.order.iter().rev() {
            let node = node as usize;
            let height_of = succ[succ_start[node] as usize..succ_start[node + 1] as usize]
                .iter()
                .map(|&next| height[next as usize] + 1)
                .max()
                .unwrap_or(0);
            height[node] = height_of;
        }
        // Sources per direction, in the order a pass finds them ready.
        for direction in 0..2 {
            let incoming = &self.incoming[direction];
            let sources = &mut self.sources[direction];
            sources.clear();
            let is_source = |&node: &u32| incoming[node as usize] == 0;
            if direction == 1 {
                sources.extend(out.order.iter().rev().copied().filter(is_source));
            } else {
                sources.extend(out.order.iter().copied().filter(is_source));
            }
        }
        // Transient uses, each resource once per node.
        self.size.clear();
        self.size.resize(resource_count, 0);
        self.users.clear();
        self.users.resize(resource_count, 0);
        self.stamp.clear();
        self.stamp.resize(resource_count, NONE);
        self.use_range.clear();
        self.use_range.resize(node_count, (0, 0));
        self.uses.clear();
        for &node in &out.order {
            let first_use = self.uses.len() as u32;
            let accesses = spans
                .get(node as usize)
                .and_then(|span| infos.get(span.accesses()))
                .unwrap_or(&[]);
            for info in accesses {
                let resource = info.resource as usize;
                let size = sizes.get(resource).copied().unwrap_or(0);
                if info.has(OUTLIVES) || size == 0 || resource >= resource_count {
                    continue;
                }
                if self.stamp[resource] == node {
                    continue;
                }
                self.stamp[resource] = node;
                self.size[resource] = size;
                self.users[resource] += 1;
                self.uses.push(resource as u32);
            }
            self.use_range[node as usize] = (first_use, self.uses.len() as u32);
        }
    }

    /// The result of the pass with no slack and no target (every node runs as soon as it is
    /// ready: at its longest path from a source), without simulating it: the levels from one
    /// walk over the predecessor lists, the live bytes of each level from the first and last
    /// level of each resource's users. `None` when `out.order` does not list every node after
    /// its predecessors (then only the pass itself can say).
    fn asap_peak(&mut self, out: &Schedule, min_levels: u32) -> Option<Result<u64, Stop>> {
        // It uses the arrays of the passes: no pass can resume after it.
        self.trail_key = None;
        let node_count = self.depth[0].len();
        let resource_count = self.size.len();
        let levels = &mut self.level;
        levels.clear();
        levels.resize(node_count, NONE);
        let (pred_start, preds) = (&self.next_start[1], &self.next[1]);
        let mut last_level = 0;
        for &node in &out.order {
            let node = node as usize;
            let mut level = 0;
            for &pred in &preds[pred_start[node] as usize..pred_start[node + 1] as usize] {
                let pred_level = levels[pred as usize];
                if pred_level == NONE {
                    return None;
                }
                level = level.max(pred_level + 1);
            }
            if level >= min_levels {
                // The pass would not run it within its levels.
                return Some(Err(Stop::Work));
            }
            levels[node] = level;
            last_level = last_level.max(level);
        }
        // Each resource is live from the level of its first user to that of its last.
        let (first, last) = (&mut self.remaining, &mut self.pending);
        first.clear();
        first.resize(resource_count, NONE);
        last.clear();
        last.resize(resource_count, 0);
        for &node in &out.order {
            let level = levels[node as usize];
            let (start, end) = self.use_range[node as usize];
            for &resource in &self.uses[start as usize..end as usize] {
                let resource = resource as usize;
                first[resource] = first[resource].min(level);
                last[resource] = last[resource].max(level);
            }
        }
        // Bytes starting and ending per level (wrapping: the running sum is exact).
        let change = &mut self.live_change;
        change.clear();
        change.resize(last_level as usize + 2, 0);
        for resource in 0..resource_count {
            if first[resource] != NONE {
                let size = self.size[resource];
                let slot = &mut change[first[resource] as usize];
                *slot = slot.wrapping_add(size);
                let slot = &mut change[last[resource] as usize + 1];
                *slot = slot.wrapping_sub(size);
            }
        }
        let (mut live, mut peak) = (0u64, 0u64);
        for &bytes in &change[..=last_level as usize] {
            live = live.wrapping_add(bytes);
            peak = peak.max(live);
        }
        Some(Ok(peak))
    }

    /// Rewrites `out` with the best levels: the order sorted by level, stably.
    fn rewrite(&mut self, out: &mut Schedule) {
        if self.best_backward {
            // Levels counted from the end: turn them around.
            let last = out
                .order
                .iter()
                .map(|&node| self.best[node as usize])
                .max()
                .unwrap_or(0);
            for &node in &out.order {
                self.best[node as usize] = last - self.best[node as usize];
            }
        }
        let levels = out
            .order
            .iter()
            .map(|&node| self.best[node as usize])
            .max()
            .map_or(0, |level| level as usize + 1);
        self.level_slot.clear();
        self.level_slot.resize(levels + 1, 0);
        for &node in &out.order {
            self.level_slot[self.best[node as usize] as usize + 1] += 1;
        }
        // Dense level numbers (a level where nothing ran takes no number).
        self.dense.clear();
        self.dense.resize(levels, 0);
        let mut next = 0u32;
        for level in 0..levels {
            self.dense[level] = next;
            if self.level_slot[level + 1] != 0 {
                next += 1;
            }
            self.level_slot[level + 1] += self.level_slot[level];
        }
        self.order.clear();
        self.order.resize(out.order.len(), 0);
        for &node in &out.order {
            let slot = &mut self.level_slot[self.best[node as usize] as usize];
            self.order[*slot as usize] = node;
            *slot += 1;
        }
        out.order.copy_from_slice(&self.order);
        out.balanced = Some(if self.best_backward {
            Balanced::Backward
        } else {
            Balanced::Forward
        });
        for (slot, &node) in out.levels.iter_mut().zip(&self.order) {
            *slot = self.dense[self.best[node as usize] as usize];
        }
    }
}
