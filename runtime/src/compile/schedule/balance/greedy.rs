//! The greedy pass of the memory balancing (see `balance.rs`): level by level, the ready nodes
//! without slack run, the others only while the level's live bytes stay under the target; and
//! the resumption of a pass from the previous one of its search ([`LevelRecord`]).

use super::{Balancer, Pass, Stop, NONE, PACE_EIGHTHS};
use crate::compile::schedule::output::Schedule;

/// What a pass knew at the start of one level, and the targets that make its choices.
#[derive(Copy, Clone, Debug)]
pub(super) struct LevelRecord {
    /// The targets (`low..=high`) for which every choice up to and including this level is the
    /// same (each node's run or wait, and whether the level went over).
    pub(super) low: u64,
    pub(super) high: u64,
    /// Where the level's ready nodes start in `ready_log`.
    pub(super) ready_at: u32,
    /// At the start of the level: bytes held, peak so far, work done, nodes scheduled.
    pub(super) held: u64,
    pub(super) peak: u64,
    pub(super) work: usize,
    pub(super) scheduled: usize,
}

impl Balancer {
    /// Fills `must_level` for `pass`'s budget, direction and pacing (unless it already holds
    /// them): per node, the first level at which it must run ([`must_run_from`]).
    /// The thresholds do not depend on the target, so one computation serves every pass of a
    /// search.
    fn prepare_must_levels(&mut self, pass: Pass) {
        let key = (pass.levels, pass.min_levels, pass.paced, pass.backward);
        if self.must_key == Some(key) && self.must_level.len() == self.depth[0].len() {
            return;
        }
        self.must_key = Some(key);
        let direction = pass.backward as usize;
        let (depth, height) = (&self.depth[direction], &self.depth[1 - direction]);
        self.must_level.clear();
        self.must_level.extend(
            depth
                .iter()
                .zip(height)
                .map(|(&depth, &height)| must_run_from(depth, height, pass)),
        );
    }

    /// One greedy pass under `pass`: fills `level` and returns its peak of live transient
    /// bytes; stops as soon as a level holds more than the target ([`Stop::Over`]) or the pass
    /// did more work than the frame allows.
    ///
    /// A pass of the same budget, direction and pacing as the previous one (the next step of a
    /// search) makes the same choices as it for as long as its target stays within the range
    /// of targets that would have made each of those choices ([`LevelRecord`]): it takes the
    /// previous pass's state back to the first level whose range excludes its target (undoing
    /// the later levels) and runs on from there.
    pub(super) fn run_pass(&mut self, out: &Schedule, pass: Pass) -> Result<u64, Stop> {
        self.prepare_must_levels(pass);
        let node_count = self.depth[0].len();
        let direction = pass.backward as usize;
        let key = (pass.levels, pass.min_levels, pass.paced, pass.backward);
        let resume = match self.trail_key == Some(key) {
            true => self.rewind(pass.target, direction),
            false => None,
        };
        if let Some(Err(outcome)) = resume {
            // The same choices at every level: the same outcome.
            return outcome;
        }
        self.trail_key = Some(key);
        let Balancer {
            trail_key,
            incoming,
            pending,
            next_start,
            next,
            use_range,
            uses,
            size,
            users,
            remaining,
            started_level,
            level: levels,
            sources,
            ready,
            waiting,
            optional,
            released,
            must_level,
            records,
            ready_log,
            outcome: last_outcome,
            ..
        } = self;
        let first_level = match resume {
            Some(Ok((level, _))) => level,
            _ => {
                // From the start. Every node a pass finds ready either runs (its level set) or
                // waits (set to NONE), so the level of an earlier pass never passes for the
                // current one's.
                levels.resize(node_count, NONE);
                pending.clear();
                pending.extend_from_slice(&incoming[direction]);
                remaining.clear();
                remaining.extend_from_slice(users);
                started_level.clear();
                started_level.resize(users.len(), NONE);
                records.clear();
                ready_log.clear();
                ready.clear();
                ready.extend_from_slice(&sources[direction]);
                0
            }
        };
        let (next_start, next) = (&next_start[direction][..], &next[direction][..]);
        let (use_range, uses, size) = (&use_range[..], &uses[..], &size[..]);
        let must_level = &must_level[..];
        // Slices, so that the loop keeps their addresses in registers.
        let (levels, pending, remaining, started_level) = (
            &mut levels[..],
            &mut pending[..],
            &mut remaining[..],
            &mut started_level[..],
        );
        let uses_of = |node: u32| {
            let (first, end) = use_range[node as usize];
            &uses[first as usize..end as usize]
        };
        // The targets that make the choices of the levels before `first_level`.
        let (mut low, mut high) = records
            .last()
            .map_or((0, u64::MAX), |record| (record.low, record.high));
        let (mut held, mut peak, mut work, mut scheduled) = match resume {
            Some(Ok((_, at))) => (at.held, at.peak, at.work, at.scheduled),
            _ => (0, 0, 0, 0),
        };
        // `records` holds the levels before `first_level`; the record of a level is pushed as
        // it starts and its target range completed as it ends.
        let mut over = false;
        for level in first_level..pass.levels {
            if ready.is_empty() {
                break;
            }
            records.push(LevelRecord {
                low,
                high,
                ready_at: ready_log.len() as u32,
                held,
                peak,
                work,
                scheduled,
            });
            ready_log.extend_from_slice(ready);
            work += ready.len();
            if work > pass.work_limit {
                *last_outcome = None;
                *trail_key = None;
                return Err(Stop::Work);
            }
            let mut live = held;
            waiting.clear();
            optional.clear();
            for &node in ready.iter() {
                if must_level[node as usize] <= level {
                    live += start(uses_of(node), size, (started_level, level));
                    levels[node as usize] = level;
                } else {
                    // The bytes it would start now (the node goes in the key's low bits; the
                    // rest of the key only when the nodes must be sorted, below).
                    let alloc: u64 = uses_of(node)
                        .iter()
                        .filter(|&&resource| started_level[resource as usize] == NONE)
                        .map(|&resource| size[resource as usize])
                        .sum();
                    optional.push((node as u128, alloc));
                }
            }
            // The bytes of every optional node together bound what they start in any order:
            // when even that fits, they all run and their order does not matter.
            let all_optional = optional
                .iter()
                .fold(live, |bytes, &(_, alloc)| bytes.saturating_add(alloc));
            if all_optional <= pass.target {
                low = low.max(all_optional);
                for &(key, _) in optional.iter() {
                    let node = key as u32;
                    live += start(uses_of(node), size, (started_level, level));
                    levels[node as usize] = level;
                }
                optional.clear();
            }
            // Sorted by the bytes each would start (counted above, as the level started) net of
            // the bytes it would free (it is their last unscheduled user: no user ends before
            // the level does), ties by call order.
            for (key, alloc) in optional.iter_mut() {
                let node = *key as u32;
                let free: u64 = uses_of(node)
                    .iter()
                    .filter(|&&resource| remaining[resource as usize] == 1)
                    .map(|&resource| size[resource as usize])
                    .sum();
                *key = optional_key(*alloc as i128 - free as i128, node);
            }
            optional.sort_unstable_by_key(|&(key, _)| key);
            let mut ran_any = ready.len() > optional.len();
            for &(key, alloc_then) in optional.iter() {
                let node = key as u32;
                let node_uses = uses_of(node);
                // Resources only get started, so the bytes it would start now are at most
                // `alloc_then`: count them only when that bound does not decide. (The range
                // of targets then kept is the bound's: narrower, never wrong.)
                let runs = if alloc_then == 0 || !ran_any {
                    true
                } else if live.saturating_add(alloc_then) <= pass.target {
                    low = low.max(live.saturating_add(alloc_then));
                    true
                } else {
                    let alloc: u64 = node_uses
                        .iter()
                        .filter(|&&resource| started_level[resource as usize] == NONE)
                        .map(|&resource| size[resource as usize])
                        .sum();
                    if alloc == 0 {
                        true
                    } else if live + alloc <= pass.target {
                        low = low.max(live + alloc);
                        true
                    } else {
                        high = high.min(live + alloc - 1);
                        false
                    }
                };
                if runs {
                    live += start(node_uses, size, (started_level, level));
                    levels[node as usize] = level;
                    ran_any = true;
                } else {
                    levels[node as usize] = NONE;
                    waiting.push(node);
                }
            }
            if live > pass.target {
                // Over the target: this pass cannot succeed.
                high = high.min(live - 1);
                if let Some(record) = records.last_mut() {
                    (record.low, record.high) = (low, high);
                }
                over = true;
                break;
            }
            low = low.max(live);
            if let Some(record) = records.last_mut() {
                (record.low, record.high) = (low, high);
            }
            peak = peak.max(live);
            // End of the level: free what its last users ended, release successors.
            released.clear();
            for &node in ready.iter() {
                if levels[node as usize] != level {
                    continue;
                }
                scheduled += 1;
                for &resource in uses_of(node) {
                    let resource = resource as usize;
                    remaining[resource] -= 1;
                    if remaining[resource] == 0 {
                        live -= size[resource];
                    }
                }
                let outgoing =
                    next_start[node as usize] as usize..next_start[node as usize + 1] as usize;
                for &successor in &next[outgoing] {
                    pending[successor as usize] -= 1;
                    if pending[successor as usize] == 0 {
                        released.push(successor);
                    }
                }
            }
            held = live;
            ready.clear();
            ready.extend_from_slice(waiting);
            ready.extend_from_slice(released);
        }
        // Within the budget every node runs by its latest level; anything else is a frame whose
        // edges the levels did not account for.
        let outcome = if over {
            Err(Stop::Over)
        } else if scheduled == out.order.len() && pass.min_levels <= pass.levels {
            Ok(peak)
        } else {
            *trail_key = None;
            Err(Stop::Work)
        };
        *last_outcome = Some(outcome);
        outcome
    }

    /// Takes the state of the previous pass (same budget, direction and pacing) back to the
    /// start of the first level whose range of targets excludes `target`: `Some(Ok((level,
    /// record)))` to run on from `level` (`record`: what the pass knew as it started);
    /// `Some(Err(outcome))` when no level does (the pass would repeat the previous one);
    /// `None` when the previous pass left nothing to resume.
    fn rewind(
        &mut self,
        target: u64,
        direction: usize,
    ) -> Option<Result<(u32, LevelRecord), Result<u64, Stop>>> {
        let Some(first) = self
            .records
            .iter()
            .position(|record| !(record.low..=record.high).contains(&target))
        else {
            return self.outcome.map(Err);
        };
        let reached = self.records.len();
        // The last level of a pass that went over started its nodes but did not end them.
        let ended_last = !matches!(self.outcome, Some(Err(Stop::Over)));
        let (next_start, next) = (&self.next_start[direction], &self.next[direction]);
        for level in (first..reached).rev() {
            let ended = level + 1 < reached || ended_last;
            let from = self.records[level].ready_at as usize;
            let to = self
                .records
                .get(level + 1)
                .map_or(self.ready_log.len(), |record| record.ready_at as usize);
            for &node in &self.ready_log[from..to] {
                if self.level[node as usize] != level as u32 {
                    continue;
                }
                self.level[node as usize] = NONE;
                let (start, end) = self.use_range[node as usize];
                for &resource in &self.uses[start as usize..end as usize] {
                    let resource = resource as usize;
                    if ended {
                        self.remaining[resource] += 1;
                    }
                    if self.started_level[resource] == level as u32 {
                        self.started_level[resource] = NONE;
                    }
                }
                if ended {
                    let outgoing =
                        next_start[node as usize] as usize..next_start[node as usize + 1] as usize;
                    for &successor in &next[outgoing] {
                        self.pending[successor as usize] += 1;
                    }
                }
            }
        }
        // The ready nodes of `first` as it started; its record goes (it is pushed again).
        let from = self.records[first].ready_at as usize;
        let to = self
            .records
            .get(first + 1)
            .map_or(self.ready_log.len(), |record| record.ready_at as usize);
        self.ready.clear();
        self.ready.extend_from_slice(&self.ready_log[from..to]);
        self.ready_log.truncate(from);
        let record = self.records[first];
        self.records.truncate(first);
        Some(Ok((first as u32, record)))
    }
}

/// The first level at which a node of as-soon-as-possible `depth` and longest path `height` to
/// the end (both in the pass's direction) must run under `pass`: its latest level, or, `paced`,
/// the first level at which its remaining slack falls under its paced reserve,
/// `slack / whole < PACE_EIGHTHS / 8 * height / min_levels`, in integers. The condition only
/// grows easier as the level rises, so a node must run at every level from this one on.
fn must_run_from(depth: u32, height: u32, pass: Pass) -> u32 {
    let latest = (pass.levels - 1).saturating_sub(height);
    if !pass.paced {
        return latest;
    }
    let whole = latest.saturating_sub(depth) as u64;
    // slack * min_levels * 8 < reserve  <=>  slack <= (reserve - 1) / (min_levels * 8).
    let reserve = PACE_EIGHTHS * whole * height as u64;
    let scale = pass.min_levels as u64 * 8;
    if reserve == 0 || scale == 0 {
        return latest;
    }
    let most_slack = (reserve - 1) / scale;
    latest - most_slack.min(latest as u64) as u32
}

/// Runs a node of transient uses `node_uses`: marks its resources started; returns the bytes
/// it starts (its resources no earlier user in the pass started), recording `level` as their
/// start in `started_level`.
fn start(node_uses: &[u32], size: &[u64], (started_level, level): (&mut [u32], u32)) -> u64 {
    let mut bytes = 0;
    for &resource in node_uses {
        let resource = resource as usize;
        if started_level[resource] == NONE {
            // First scheduled user in this pass.
            started_level[resource] = level;
            bytes += size[resource];
        }
    }
    bytes
}

/// The sort key of an optional node: `net` bytes (allocated less freed), then call index, as
/// one unsigned integer (`net` offset by 2^65 above the 32 bits of the node).
fn optional_key(net: i128, node: u32) -> u128 {
    (((net + (1i128 << 65)) as u128) << 32) | node as u128
}

#[cfg(test)]
mod tests {
    use super::super::{extra_levels, Balancer, Pass, Stop};
    use crate::compile::deps::DepGraph;
    use crate::compile::schedule::{Schedule, Scheduler};
    use crate::compile::table::AccessTable;
    use crate::*;

    /// A pass's outcome, comparable: 0 with its peak, 1 over the target, 2 too much work.
    fn outcome(result: Result<u64, Stop>) -> (u8, u64) {
        match result {
            Ok(peak) => (0, peak),
            Err(Stop::Over) => (1, 0),
            Err(Stop::Work) => (2, 0),
        }
    }

    /// Passes that resume the previous pass of their search ([`super::LevelRecord`]) give
    /// exactly the outcome and levels of the same passes run from the start, over a sequence
    /// of targets rising, falling and repeating, forwards and backwards, on `lanes` at three
    /// sizes; and the sequence does resume passes (from a later level, and whole passes).
    #[test]
    fn resumed_passes_equal_passes_from_the_start() {
        let mut builder = GraphBuilder::new();
        let decls = crate::shapes::declare_shapes(&mut builder);
        let mut scheduler = Scheduler::default();
        let mut table = AccessTable::default();
        let mut deps = DepGraph::default();
        let (mut resumed_later, mut repeated) = (0, 0);
        for n in [300, 650, 1000] {
            builder.begin_frame(0);
            crate::shapes::record_lanes(&mut builder, decls, n).unwrap();
            let graph = builder.finish().unwrap().clone();
            let frame = crate::compile::schedule::tests::analysis(&graph, &mut table, &mut deps);
            let alive = vec![true; graph.nodes.len()];
            let mut plain = Schedule::default();
            assert!(scheduler.levels.schedule(frame, &alive, &mut plain));
            let min_levels = plain.levels.last().unwrap() + 1;
            let (mut resuming, mut fresh) = (Balancer::default(), Balancer::default());
            resuming.prepare(frame, &alive, &plain);
            fresh.prepare(frame, &alive, &plain);
            let asap = outcome(fresh.asap_peak(&plain, min_levels).unwrap()).1;
            for backward in [false, true] {
                let pass = |target| Pass {
                    levels: min_levels + extra_levels(min_levels),
                    min_levels,
                    target,
                    paced: true,
                    backward,
                    work_limit: usize::MAX,
                };
                let steps = [
                    16, 24, 20, 22, 21, 21, 30, 8, 18, 19, 31, 31, 26, 25, 27, 12,
                ];
                for step in steps {
                    let target = asap / 32 * step;
                    let first_changed = resuming
                        .records
                        .iter()
                        .position(|record| !(record.low..=record.high).contains(&target));
                    if resuming.trail_key.is_some() {
                        match first_changed {
                            Some(0) => {}
                            Some(_) => resumed_later += 1,
                            None => repeated += 1,
                        }
                    }
                    let got = outcome(resuming.run_pass(&plain, pass(target)));
                    fresh.trail_key = None;
                    let want = outcome(fresh.run_pass(&plain, pass(target)));
                    assert_eq!(got, want, "n {n} backward {backward} target {target}");
                    if got.0 == 0 {
                        for &node in &plain.order {
                            let node = node as usize;
                            assert_eq!(resuming.level[node], fresh.level[node], "n {n}");
                        }
                    }
                }
            }
        }
        assert!(
            resumed_later > 0 && repeated > 0,
            "{resumed_later} {repeated}"
        );
    }
}
