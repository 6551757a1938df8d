//! The level search of the `Searched` schedule: after the memory balancing ([`super::balance`]),
//! simulated annealing over the nodes' levels lowers the peak of live transient bytes further,
//! within the balancing's batch budget.
//!
//! **Model** (the placement's, and the compiled frame's
//! `CompiledFrame::segment_live_peak_bytes` once the order below is written): a transient
//! occupies its allocation size from the level of its first user to the level of its last user,
//! both included; resources that outlive the frame do not count. Each node stays between its
//! as-soon-as-possible level and its latest level (the budget, minimum levels plus
//! [`super::balance::extra_levels`], less its longest path to the end), above every
//! predecessor.
//!
//! **Levels are segments.** A node needs a barrier batch before it when one of its
//! predecessors ran after the last batch; a node that does not may run before its level's
//! batch, one segment early, which changes its resources' lifetimes. So the search keeps every
//! non-empty level `L >= 1` **bound**: it holds a node with a predecessor at `L - 1`. The
//! written order puts each level's bound nodes first (then the others, each group in the
//! as-soon-as-possible order), so the level's batch comes before its first node and, where the
//! nodes of one level need no barrier between them (no resource used by two of them in
//! different states, as on `lanes`), every node runs in the segment of its level and the
//! compiled segment peak is the search's (tests in `search/tests.rs`, `shapes_quality.rs`).
//! The rule is conservative: an aliasing barrier may give an unbound level its own batch too,
//! which the balanced schedule sometimes profits from.
//!
//! **Moves.** A move pushes one node a level up (or down) and, transitively, the successors
//! (predecessors) it would otherwise meet, each by one level; a push stays within the budget
//! whenever its first node does (a successor's latest level is above its predecessor's).
//! Pushes of more than [`MAX_PUSH`] nodes are not tried; moves that leave a level unbound are
//! undone. A move changes only the lifetimes of the resources its nodes use; its change of the
//! objective is computed first without moving anything ([`LevelSearch::peek`]), from the
//! resources' new intervals, and the move is made only when accepted.
//!
//! **Objective**: the sum over levels of `max(0, live - cap)²`, in allocation units, with `cap`
//! 1/[`CAP_MARGIN`] below the best peak found (a target a little under it, which every level
//! above it is pushed towards). When every level is below the best peak, the levels are kept
//! as the new best and the cap falls with it. Moves that raise the objective are taken with
//! probability `exp(-increase / temperature)`; the temperature falls geometrically from
//! [`HOT`] to [`COLD`] (in squared mean transient sizes) over each of [`CYCLES`] equal parts
//! of the budget.
//!
//! **Start and result**: the search starts from the as-soon-as-possible levels (all bound; a
//! start from the balanced levels, with its lower first cap, ended higher on `lanes`). The
//! best levels replace the schedule only when their peak is below that of the schedule's
//! levels (the balanced ones, or the as-soon-as-possible ones the balancing kept).
//!
//! **Budget**: deterministic (a fixed seed): [`MOVES_PER_NODE`] moves per live node, at most
//! [`MAX_MOVES`] (from 1,000 live nodes on, every frame gets the cap), and the run ends early
//! once it has visited [`WORK_PER_MOVE`] times that many edges, uses and users, or after its
//! first cycle when that found nothing below the schedule's peak. On `lanes` 1k the search
//! costs ~1 s of release CPU and reaches 1,812 units (118.75 MB); on `lanes` 10k it finds
//! nothing below the balanced peak and stops after one cycle (~0.6 s); frames the level path does
//! not take (atomic or sequential subgraphs, `sch_barrier`) and frames the balancing skips
//! (under 20 levels, one node per level) are not searched.

use super::balance::{extra_levels, Prepared};
use super::output::Schedule;

/// Moves per live node.
const MOVES_PER_NODE: usize = 2_500;
/// Moves of one search at most.
const MAX_MOVES: usize = 2_500_000;
/// Edges, uses and users one search may visit per move of its budget.
const WORK_PER_MOVE: usize = 64;
/// Nodes one move may push at most.
const MAX_PUSH: usize = 32;
/// The random generator's seed.
const SEED: u64 = 0x5EA5_C4ED_1E7E_1501;
/// The temperature at the start and at the end, in squared mean transient sizes.
const HOT: f64 = 0.3;
const COLD: f64 = 0.03;
/// Annealing cycles: the budget is split into this many, each cooling from hot to cold.
const CYCLES: u32 = 2;
/// The objective's cap lies this fraction (1/`CAP_MARGIN`) below the best peak found.
const CAP_MARGIN: u64 = 32;

/// No node / level / resource.
const NONE: u32 = u32::MAX;

/// Reusable scratch of the level search. Per-node arrays are indexed by call index, per-level
/// arrays by level, per-resource arrays by resource index.
#[derive(Debug, Default)]
pub(super) struct LevelSearch {
    /// Which attempt this is ([`LevelSearch::set_attempt`]): it picks the random seed.
    attempt: u32,
    /// The as-soon-as-possible order of the live nodes (the level scheduler's).
    asap_order: Vec<u32>,
    /// Per node: its current level, its best level, and its lowest and highest level.
    level: Vec<u32>,
    best: Vec<u32>,
    low: Vec<u32>,
    high: Vec<u32>,
    /// Per node: it has a predecessor one level below.
    bound: Vec<bool>,
    /// Per resource: its users, `users[user_start[r]..user_start[r + 1]]`.
    user_start: Vec<u32>,
    users: Vec<u32>,
    /// Per resource: its size in allocation units (0: not counted), and the levels of its
    /// first and last user.
    units: Vec<u64>,
    first: Vec<u32>,
    last: Vec<u32>,
    /// Per level: the units live, the nodes and the bound nodes.
    live: Vec<u64>,
    count: Vec<u32>,
    bound_count: Vec<u32>,
    /// One move: the nodes it pushes, their neighbours whose bound flag may change, the
    /// resources they use and the levels whose live units changed (with the units before).
    pushed: Vec<u32>,
    affected: Vec<u32>,
    resources: Vec<u32>,
    changed: Vec<(u32, u64)>,
    /// A peeked move: the levels whose live units would change and, per level, by how much
    /// (valid where `level_stamp` holds the move's stamp).
    peeked: Vec<u32>,
    peek_change: Vec<i64>,
    /// Stamps of the current move per node, resource and level.
    node_stamp: Vec<u32>,
    resource_stamp: Vec<u32>,
    level_stamp: Vec<u32>,
    stamp: u32,
    /// Edges, uses and users visited.
    work: usize,
    /// What the last search found.
    outcome: Option<SearchOutcome>,
}

/// The outcome of one search, for tests and tools.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct SearchOutcome {
    /// The peak of live transient bytes of the schedule's levels before the search (the
    /// balanced ones; `u64::MAX` when they are outside the budget).
    pub before: u64,
    /// The peak of the best levels the search found.
    pub peak: u64,
    /// Moves made (accepted or not).
    pub moves: usize,
    /// The searched levels replaced the schedule's.
    pub written: bool,
}

/// A small deterministic generator (SplitMix64).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..bound` (`bound > 0`).
    fn below(&mut self, bound: usize) -> usize {
        (((self.next() >> 32) * bound as u64) >> 32) as usize
    }

    /// Uniform in `[0, 1)`.
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
}

/// The per-level changes of a peeked move.
struct PeekChanges<'a> {
    stamp: u32,
    level_stamp: &'a mut [u32],
    change: &'a mut [i64],
    touched: &'a mut Vec<u32>,
}

impl PeekChanges<'_> {
    /// Adds `units` to the change of the levels `from..end`.
    #[inline(always)]
    fn add(&mut self, from: u32, end: u32, units: i64) {
        for level in from..end {
            let slot = level as usize;
            if self.level_stamp[slot] != self.stamp {
                self.level_stamp[slot] = self.stamp;
                self.change[slot] = 0;
                self.touched.push(level);
            }
            self.change[slot] += units;
        }
    }
}

/// `max(0, live - cap)²`.
fn excess_cost(live: u64, cap: u64) -> u128 {
    let over = live.saturating_sub(cap) as u128;
    over * over
}

impl LevelSearch {
    /// Keeps the as-soon-as-possible order `out` (the level scheduler's, before balancing).
    /// Makes later searches attempt `attempt` (0 by default): the same search from another
    /// random seed, for a caller that searches one frame again for a better result.
    pub fn set_attempt(&mut self, attempt: u32) {
        self.attempt = attempt;
    }

    pub fn remember_asap(&mut self, out: &Schedule) {
        self.outcome = None;
        self.asap_order.clone_from(&out.order);
    }

    /// Searches levels of lower peak for the balanced schedule `out` of the frame `frame`
    /// (prepared by the balancing from the order [`LevelSearch::remember_asap`] kept) and
    /// rewrites `out` with them when it finds some (see the module docs). Returns what it
    /// found; `None` when the frame has nothing to search (no live node, or an order that is
    /// not the one remembered).
    pub fn search(&mut self, frame: Prepared<'_>, out: &mut Schedule) -> Option<SearchOutcome> {
        self.outcome = self.search_levels(frame, out);
        self.outcome
    }

    /// [`LevelSearch::search`].
    fn search_levels(&mut self, frame: Prepared<'_>, out: &mut Schedule) -> Option<SearchOutcome> {
        let live_count = self.asap_order.len();
        if live_count == 0 || out.order.len() != live_count {
            return None;
        }
        let node_count = frame.asap.len();
        let min_levels = self
            .asap_order
            .iter()
            .map(|&node| frame.asap[node as usize])
            .max()?
            + 1;
        let budget = min_levels + extra_levels(min_levels);
        self.prepare(frame, node_count, budget);
        // The schedule's levels (balanced, or as soon as possible when the balancing kept
        // them): the searched levels replace them only when their peak is lower.
        for (&node, &level) in out.order.iter().zip(&out.levels) {
            self.best[node as usize] = level;
        }
        let before = self
            .load_levels(frame, budget, true)
            .map_or(u64::MAX, |(peak, _)| peak);
        // The search starts as soon as possible (every level is bound there).
        let (start_peak, _) = self.load_levels(frame, budget, false)?;
        let moves = (MOVES_PER_NODE * live_count).min(MAX_MOVES);
        let (peak, made) = self.anneal(frame, (start_peak, before), moves);
        let unit = crate::ALLOCATION_ALIGNMENT;
        let outcome = SearchOutcome {
            before: before.saturating_mul(unit),
            peak: peak * unit,
            moves: made,
            written: peak < before,
        };
        if outcome.written {
            self.write(frame, out);
        }
        Some(outcome)
    }

    /// Sizes the scratch for the frame and fills the per-node bounds and per-resource users.
    fn prepare(&mut self, frame: Prepared<'_>, node_count: usize, budget: u32) {
        let resource_count = frame.size.len();
        let unit = crate::ALLOCATION_ALIGNMENT;
        for list in [
            &mut self.level,
            &mut self.best,
            &mut self.low,
            &mut self.high,
        ] {
            list.clear();
            list.resize(node_count, NONE);
        }
        self.bound.clear();
        self.bound.resize(node_count, false);
        self.node_stamp.clear();
        self.node_stamp.resize(node_count, 0);
        for &node in &self.asap_order {
            let node = node as usize;
            self.low[node] = frame.asap[node];
            self.high[node] = (budget - 1).saturating_sub(frame.height[node]);
        }
        self.units.clear();
        self.units
            .extend(frame.size.iter().map(|&size| size.div_ceil(unit)));
        self.user_start.clear();
        self.user_start.resize(resource_count + 1, 0);
        for &node in &self.asap_order {
            let (start, end) = frame.use_range[node as usize];
            for &resource in &frame.uses[start as usize..end as usize] {
                self.user_start[resource as usize + 1] += 1;
            }
        }
        for resource in 0..resource_count {
            self.user_start[resource + 1] += self.user_start[resource];
        }
        self.users.clear();
        self.users
            .resize(self.user_start[resource_count] as usize, 0);
        self.resource_stamp.clear();
        self.resource_stamp
            .extend_from_slice(&self.user_start[..resource_count]);
        for &node in &self.asap_order {
            let (start, end) = frame.use_range[node as usize];
            for &resource in &frame.uses[start as usize..end as usize] {
                let slot = &mut self.resource_stamp[resource as usize];
                self.users[*slot as usize] = node;
                *slot += 1;
            }
        }
        self.resource_stamp.fill(0);
        for list in [&mut self.first, &mut self.last] {
            list.clear();
            list.resize(resource_count, NONE);
        }
        for list in [
            &mut self.count,
            &mut self.bound_count,
            &mut self.level_stamp,
        ] {
            list.clear();
            list.resize(budget as usize + 1, 0);
        }
        self.live.clear();
        self.live.resize(budget as usize + 1, 0);
        self.peek_change.clear();
        self.peek_change.resize(budget as usize + 1, 0);
        self.stamp = 0;
        self.work = 0;
    }

    /// Loads the levels to start from: `best` (`from_best`) or the as-soon-as-possible ones,
    /// and rebuilds the per-level and per-resource state. Returns their peak in units, or
    /// `None` when a node lies outside its bounds or a level is unbound.
    fn load_levels(
        &mut self,
        frame: Prepared<'_>,
        budget: u32,
        from_best: bool,
    ) -> Option<(u64, bool)> {
        for &node in &self.asap_order {
            let node = node as usize;
            let level = if from_best {
                self.best[node]
            } else {
                self.low[node]
            };
            if level < self.low[node] || level > self.high[node] {
                return None;
            }
            self.level[node] = level;
        }
        self.count.fill(0);
        self.bound_count.fill(0);
        self.live.fill(0);
        for index in 0..self.asap_order.len() {
            let node = self.asap_order[index];
            let level = self.level[node as usize] as usize;
            self.count[level] += 1;
            let bound = self.compute_bound(frame, node);
            self.bound[node as usize] = bound;
            self.bound_count[level] += bound as u32;
        }
        let bound =
            (1..budget as usize).all(|level| self.count[level] == 0 || self.bound_count[level] > 0);
        for resource in 0..self.units.len() {
            let (first, last) = self.user_levels(resource);
            self.first[resource] = first;
            self.last[resource] = last;
            if first != NONE && self.units[resource] != 0 {
                for level in first..=last {
                    self.live[level as usize] += self.units[resource];
                }
            }
        }
        Some((self.live.iter().copied().max().unwrap_or(0), bound))
    }

    /// Whether `node` has a predecessor one level below it.
    fn compute_bound(&mut self, frame: Prepared<'_>, node: u32) -> bool {
        let node = node as usize;
        let level = self.level[node];
        let preds =
            &frame.pred[frame.pred_start[node] as usize..frame.pred_start[node + 1] as usize];
        self.work += preds.len();
        level > 0
            && preds
                .iter()
                .any(|&pred| self.level[pred as usize] + 1 == level)
    }

    /// The levels of the first and last user of `resource` (`NONE` twice without users).
    fn user_levels(&mut self, resource: usize) -> (u32, u32) {
        let users =
            &self.users[self.user_start[resource] as usize..self.user_start[resource + 1] as usize];
        self.work += users.len();
        let (mut first, mut last) = (NONE, 0);
        for &user in users {
            let level = self.level[user as usize];
            first = first.min(level);
            last = last.max(level);
        }
        if first == NONE {
            (NONE, NONE)
        } else {
            (first, last)
        }
    }

    /// Simulated annealing from the loaded levels of peak `start_peak` (units) for `moves`
    /// moves; leaves the best levels in `best` and returns their peak (`start_peak` when no
    /// lower one was found) and the moves made. A cycle after the first runs only when the
    /// levels found so far are below `before` (the schedule's peak): a frame where a whole
    /// cycle found nothing better is left after one.
    fn anneal(
        &mut self,
        frame: Prepared<'_>,
        (start_peak, before): (u64, u64),
        moves: usize,
    ) -> (u64, usize) {
        let live_count = self.asap_order.len();
        self.best.clone_from(&self.level);
        let mut best_peak = start_peak;
        if start_peak == 0 {
            return (0, 0);
        }
        let cap_below = |peak: u64| peak - 1 - peak / CAP_MARGIN;
        let mut cap = cap_below(best_peak);
        let mut cost: u128 = self.live.iter().map(|&live| excess_cost(live, cap)).sum();
        // Levels at or above the best peak: none left is a new best.
        let mut at_best = self.live.iter().filter(|&&live| live >= best_peak).count();
        // The temperature scale: the mean size of a counted transient, squared.
        let (mut total, mut counted) = (0u64, 0u64);
        for &units in &self.units {
            if units != 0 {
                total = total.saturating_add(units);
                counted += 1;
            }
        }
        let mean = total as f64 / counted.max(1) as f64;
        let scale = mean * mean;
        let mut temperature = HOT * scale;
        let work_limit = WORK_PER_MOVE * moves;
        let mut rng = Rng(SEED ^ u64::from(self.attempt).wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let mut made = 0;
        while made < moves && self.work <= work_limit {
            made += 1;
            if made % 64 == 1 {
                // Geometric cooling by the share of the budget spent, in moves or in work.
                let spent = (made as f64 / moves as f64).max(self.work as f64 / work_limit as f64);
                // Each cycle cools from `HOT` to `COLD`; the next starts hot again from
                // where the last ended.
                let at = (spent * CYCLES as f64).min(CYCLES as f64 - 1e-9);
                if at >= 1.0 && best_peak >= before {
                    break;
                }
                temperature = HOT * scale * (COLD / HOT).powf(at.fract());
            }
            let node = self.asap_order[rng.below(live_count)];
            let up = rng.next() & 1 == 1;
            if !self.collect_push(frame, node, up) {
                continue;
            }
            let step = if up { 1 } else { -1 };
            let delta = self.peek(frame, step, cap);
            let accept = delta <= 0 || rng.unit() < (-(delta as f64) / temperature).exp();
            if !accept {
                continue;
            }
            let Some(applied) = self.apply(frame, step, cap) else {
                self.apply(frame, -step, cap);
                continue;
            };
            debug_assert_eq!(applied, delta, "the peeked change is the applied one");
            cost = cost.wrapping_add_signed(delta);
            for &(level, before) in &self.changed {
                let after = self.live[level as usize];
                at_best += (after >= best_peak) as usize;
                at_best -= (before >= best_peak) as usize;
            }
            if at_best == 0 {
                // Every level is under the best peak: a new best.
                best_peak = self.live.iter().copied().max().unwrap_or(0);
                self.best.clone_from(&self.level);
                if best_peak == 0 {
                    break;
                }
                at_best = self.live.iter().filter(|&&live| live >= best_peak).count();
                if cap >= cap_below(best_peak) {
                    cap = cap_below(best_peak);
                    cost = self.live.iter().map(|&live| excess_cost(live, cap)).sum();
                }
            }
        }
        (best_peak, made)
    }

    /// Collects into `pushed` `node` and the nodes a push of it by one level up (`up`) or down
    /// must move along; false when `node` is at its bound or the push is too large.
    fn collect_push(&mut self, frame: Prepared<'_>, node: u32, up: bool) -> bool {
        let level = self.level[node as usize];
        if (up && level >= self.high[node as usize]) || (!up && level <= self.low[node as usize]) {
            return false;
        }
        self.stamp = self.stamp.wrapping_add(1);
        let stamp = self.stamp;
        self.pushed.clear();
        self.pushed.push(node);
        self.node_stamp[node as usize] = stamp;
        let (starts, next) = if up {
            (frame.succ_start, frame.succ)
        } else {
            (frame.pred_start, frame.pred)
        };
        let mut index = 0;
        while index < self.pushed.len() {
            let at = self.pushed[index] as usize;
            index += 1;
            let level = self.level[at];
            let neighbours = &next[starts[at] as usize..starts[at + 1] as usize];
            self.work += neighbours.len();
            for &other in neighbours {
                let other_level = self.level[other as usize];
                let meets = if up {
                    other_level == level + 1
                } else {
                    other_level + 1 == level
                };
                if meets && self.node_stamp[other as usize] != stamp {
                    if self.pushed.len() == MAX_PUSH {
                        return false;
                    }
                    self.node_stamp[other as usize] = stamp;
                    self.pushed.push(other);
                }
            }
        }
        true
    }

    /// Lists in `resources`, once each, the resources the `pushed` nodes use (marked with the
    /// current stamp), counting the uses visited as work.
    fn collect_resources(&mut self, frame: Prepared<'_>) {
        let stamp = self.stamp;
        self.resources.clear();
        for &node in &self.pushed {
            let (start, end) = frame.use_range[node as usize];
            self.work += (end - start) as usize;
            for &resource in &frame.uses[start as usize..end as usize] {
                if self.resource_stamp[resource as usize] != stamp {
                    self.resource_stamp[resource as usize] = stamp;
                    self.resources.push(resource);
                }
            }
        }
    }

    /// The change of the objective under `cap` if the `pushed` nodes (stamped by
    /// [`LevelSearch::collect_push`]) moved by `step` levels, without moving them.
    fn peek(&mut self, frame: Prepared<'_>, step: i32, cap: u64) -> i128 {
        let stamp = self.stamp;
        self.collect_resources(frame);
        self.peeked.clear();
        for index in 0..self.resources.len() {
            let resource = self.resources[index] as usize;
            let units = self.units[resource];
            if units == 0 {
                continue;
            }
            let users = &self.users
                [self.user_start[resource] as usize..self.user_start[resource + 1] as usize];
            self.work += users.len();
            let (mut first, mut last) = (NONE, 0);
            for &user in users {
                let mut level = self.level[user as usize];
                if self.node_stamp[user as usize] == stamp {
                    level = level.wrapping_add_signed(step);
                }
                first = first.min(level);
                last = last.max(level);
            }
            let (old_first, old_last) = (self.first[resource], self.last[resource]);
            if (first, last) == (old_first, old_last) {
                continue;
            }
            self.peek_outside((first, last), (old_first, old_last), units as i64);
            self.peek_outside((old_first, old_last), (first, last), -(units as i64));
        }
        let mut delta = 0i128;
        for &level in &self.peeked {
            let before = self.live[level as usize];
            let after = before.wrapping_add_signed(self.peek_change[level as usize]);
            delta += excess_cost(after, cap) as i128 - excess_cost(before, cap) as i128;
        }
        delta
    }

    /// Adds `units` (or removes them) to the peeked change of the levels of `range` outside
    /// `other`.
    #[inline(always)]
    fn peek_outside(&mut self, range: (u32, u32), other: (u32, u32), units: i64) {
        let (from, to) = range;
        let (other_from, other_to) = other;
        if from == NONE {
            return;
        }
        let mut changes = PeekChanges {
            stamp: self.stamp,
            level_stamp: &mut self.level_stamp,
            change: &mut self.peek_change,
            touched: &mut self.peeked,
        };
        if other_from == NONE {
            changes.add(from, to + 1, units);
            return;
        }
        changes.add(from, (to + 1).min(other_from), units);
        changes.add(from.max(other_to + 1), to + 1, units);
    }

    /// Moves the `pushed` nodes by `step` levels, updating the bound flags, the resources'
    /// intervals and the live units. Returns the change of the objective under `cap`, or
    /// `None` when a level is left unbound (the move is made either way: undo it with
    /// `-step`).
    fn apply(&mut self, frame: Prepared<'_>, step: i32, cap: u64) -> Option<i128> {
        self.stamp = self.stamp.wrapping_add(1);
        let stamp = self.stamp;
        // The nodes whose bound flag may change: the pushed ones and their successors.
        self.affected.clear();
        for index in 0..self.pushed.len() {
            let node = self.pushed[index] as usize;
            for candidate in std::iter::once(node as u32).chain(
                frame.succ[frame.succ_start[node] as usize..frame.succ_start[node + 1] as usize]
                    .iter()
                    .copied(),
            ) {
                if self.node_stamp[candidate as usize] != stamp {
                    self.node_stamp[candidate as usize] = stamp;
                    self.affected.push(candidate);
                }
            }
        }
        for &node in &self.affected {
            if self.bound[node as usize] {
                self.bound_count[self.level[node as usize] as usize] -= 1;
            }
        }
        for index in 0..self.pushed.len() {
            let node = self.pushed[index];
            let old = self.level[node as usize];
            let new = old.wrapping_add_signed(step);
            self.level[node as usize] = new;
            self.count[old as usize] -= 1;
            self.count[new as usize] += 1;
        }
        let mut unbound = false;
        for index in 0..self.affected.len() {
            let node = self.affected[index];
            let bound = self.compute_bound(frame, node);
            self.bound[node as usize] = bound;
            self.bound_count[self.level[node as usize] as usize] += bound as u32;
        }
        for &node in &self.affected {
            let level = self.level[node as usize] as usize;
            // The level it is in, the one it left (pushed nodes) and the one above either.
            let left = level.wrapping_add_signed(-step as isize);
            for check in [level, level + 1, left, left.wrapping_add(1)] {
                if check >= 1
                    && check < self.count.len()
                    && self.count[check] > 0
                    && self.bound_count[check] == 0
                {
                    unbound = true;
                }
            }
        }
        // Resources of the pushed nodes: their new intervals.
        self.collect_resources(frame);
        self.changed.clear();
        for index in 0..self.resources.len() {
            let resource = self.resources[index] as usize;
            let (first, last) = self.user_levels(resource);
            let (old_first, old_last) = (self.first[resource], self.last[resource]);
            if (first, last) == (old_first, old_last) {
                continue;
            }
            self.first[resource] = first;
            self.last[resource] = last;
            let units = self.units[resource];
            if units == 0 {
                continue;
            }
            self.add_outside((first, last), (old_first, old_last), units, true);
            self.add_outside((old_first, old_last), (first, last), units, false);
        }
        let mut delta = 0i128;
        for &(level, before) in &self.changed {
            let after = self.live[level as usize];
            delta += excess_cost(after, cap) as i128 - excess_cost(before, cap) as i128;
        }
        (!unbound).then_some(delta)
    }

    /// Adds (`add`) or removes `units` at the levels of `range` outside `other`, logging the
    /// first change of each level.
    fn add_outside(&mut self, range: (u32, u32), other: (u32, u32), units: u64, add: bool) {
        let (from, to) = range;
        let (other_from, other_to) = other;
        let visit = |search: &mut LevelSearch, level: u32| {
            let slot = level as usize;
            if search.level_stamp[slot] != search.stamp {
                search.level_stamp[slot] = search.stamp;
                search.changed.push((level, search.live[slot]));
            }
            if add {
                search.live[slot] += units;
            } else {
                search.live[slot] -= units;
            }
        };
        if from == NONE {
            return;
        }
        if other_from == NONE {
            for level in from..=to {
                visit(self, level);
            }
            return;
        }
        for level in from..=to.min(other_from.saturating_sub(1)) {
            if level < other_from {
                visit(self, level);
            }
        }
        for level in from.max(other_to + 1)..=to {
            visit(self, level);
        }
    }

    /// Rewrites `out` with the `best` levels: by level, each level's bound nodes first, each
    /// group in the as-soon-as-possible order.
    fn write(&mut self, frame: Prepared<'_>, out: &mut Schedule) {
        self.level.clone_from(&self.best);
        let levels = self.count.len();
        // Slots per (level, bound first) key: key = 2 * level + unbound.
        self.live.clear();
        self.live.resize(2 * levels + 1, 0);
        for index in 0..self.asap_order.len() {
            let node = self.asap_order[index];
            let bound = self.compute_bound(frame, node);
            self.bound[node as usize] = bound;
            let key = 2 * self.level[node as usize] as usize + !bound as usize;
            self.live[key + 1] += 1;
        }
        for key in 0..2 * levels {
            self.live[key + 1] += self.live[key];
        }
        for &node in &self.asap_order {
            let key = 2 * self.level[node as usize] as usize + !self.bound[node as usize] as usize;
            let slot = &mut self.live[key];
            out.order[*slot as usize] = node;
            out.levels[*slot as usize] = self.level[node as usize];
            *slot += 1;
        }
        out.balanced = None;
    }
}

#[cfg(test)]
mod tests;
