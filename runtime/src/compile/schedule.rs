//! The list scheduler: one priority queue of ready scheduling units (a node, or an outermost
//! `atomic` subgraph scheduled as one contiguous run in call order). Preferences:
//! - `ProgramOrder`: call order (still honouring every constraint).
//! - `Memory`: first nodes that end a transient's lifetime, then those that start the least new
//!   transient memory, then call order.
//! - `Default`: dependency depth first (everything ready at one depth runs together, so barriers
//!   batch), then the queue class of the previous node (fewer graphics/compute switches), then
//!   the memory preferences, then call order.
//!
//! Constraints: dependency edges, `sequential` subgraphs (their nodes chained in call order),
//! `atomic` subgraphs (contiguous), `sch_barrier` (a node waits for every earlier-epoch node).
//! Priorities change incrementally (lazy heap entries with versions); cost is
//! O((nodes + edges + accesses) log nodes).

use super::access_info::{AccessInfo, OUTLIVES};
use super::deps::DepGraph;
use super::SchedulePreference;
use crate::decl::QueueClass;
use crate::graph::RecordedGraph;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

const NO_UNIT: u32 = u32::MAX;

/// Reusable scratch of the scheduler.
#[derive(Debug, Default)]
pub struct Scheduler {
    unit_of: Vec<u32>,
    unit_members: Vec<u32>,
    unit_member_start: Vec<u32>,
    unit_first_epoch: Vec<u32>,
    unit_last_epoch: Vec<u32>,
    unit_class: Vec<QueueClass>,
    unit_level: Vec<u32>,
    unit_pending: Vec<u32>,
    unit_succ_start: Vec<u32>,
    unit_succs: Vec<u32>,
    unit_version: Vec<u32>,
    unit_frees: Vec<u64>,
    unit_allocs: Vec<u64>,
    unit_done: Vec<bool>,
    edge_scratch: Vec<(u32, u32)>,
    succ_cursor: Vec<u32>,
    epoch_remaining: Vec<u32>,
    waiting: Vec<Vec<u32>>,
    spanning_waiting: Vec<u32>,
    resource_units: Vec<Vec<u32>>,
    resource_remaining: Vec<u32>,
    resource_touched: Vec<bool>,
    unit_resources: Vec<Vec<u32>>,
    resource_size: Vec<u64>,
    node_epoch: Vec<u32>,
    touched_scratch: Vec<u32>,
    /// The last scheduled unit that touched each unit's memory priorities.
    unit_touch_mark: Vec<u32>,
}

type Key = (u64, u64, u64, u64);

#[derive(PartialEq, Eq, PartialOrd, Ord)]
struct Entry {
    key: Reverse<Key>,
    unit: u32,
    version: u32,
}

impl Scheduler {
    /// Orders the live nodes. `alive[n]` marks survivors; the result lists them in execution
    /// order.
    #[allow(
        clippy::too_many_arguments,
        reason = "scratch outputs are passed in to keep their allocations"
    )]
    pub fn schedule(
        &mut self,
        graph: &RecordedGraph,
        infos: &[AccessInfo],
        deps: &DepGraph,
        alive: &[bool],
        preference: SchedulePreference,
        sizes: &[u64],
        order: &mut Vec<u32>,
        levels: &mut Vec<u32>,
    ) {
        order.clear();
        levels.clear();
        self.build_units(graph, alive);
        let unit_count = self.unit_member_start.len() - 1;
        if unit_count == 0 {
            return;
        }
        self.build_unit_edges(graph, deps, alive, unit_count);
        self.build_resource_tracking(graph, infos, alive, unit_count, sizes);

        // Epoch gates.
        let epochs = graph.barrier_count as usize + 1;
        self.epoch_remaining.clear();
        self.epoch_remaining.resize(epochs, 0);
        for (node, &live) in alive.iter().enumerate() {
            if live {
                self.epoch_remaining[graph.nodes[node].barrier_epoch as usize] += 1;
            }
        }
        self.waiting.iter_mut().for_each(Vec::clear);
        self.waiting
            .resize_with(epochs.max(self.waiting.len()), Vec::new);
        self.spanning_waiting.clear();
        let mut current_epoch = 0usize;
        while current_epoch < epochs && self.epoch_remaining[current_epoch] == 0 {
            current_epoch += 1;
        }

        let mut heaps: [BinaryHeap<Entry>; 3] = Default::default();
        let mut last_class = QueueClass::Graphics;
        for unit in 0..unit_count {
            if self.unit_pending[unit] == 0 {
                self.make_ready(unit as u32, current_epoch, preference, &mut heaps);
            }
        }
        let mut scheduled_units = 0;
        while scheduled_units < unit_count {
            let Some(unit) = self.pop_best(&mut heaps, preference, last_class) else {
                // Only possible with inconsistent constraints; fall back to call order for the rest.
                for unit in 0..unit_count {
                    if !self.unit_done[unit] {
                        self.unit_done[unit] = true;
                        let members = self.unit_member_start[unit] as usize
                            ..self.unit_member_start[unit + 1] as usize;
                        for &node in &self.unit_members[members] {
                            order.push(node);
                            levels.push(self.unit_level[unit]);
                        }
                    }
                }
                break;
            };
            scheduled_units += 1;
            self.unit_done[unit as usize] = true;
            last_class = self.unit_class[unit as usize];
            let members = self.unit_member_start[unit as usize] as usize
                ..self.unit_member_start[unit as usize + 1] as usize;
            for &node in &self.unit_members[members] {
                order.push(node);
                levels.push(self.unit_level[unit as usize]);
                self.epoch_remaining[graph.nodes[node as usize].barrier_epoch as usize] -= 1;
            }
            self.update_memory_after(unit, preference, &mut heaps, current_epoch);
            let succs = self.unit_succ_start[unit as usize] as usize
                ..self.unit_succ_start[unit as usize + 1] as usize;
            for index in succs {
                let succ = self.unit_succs[index] as usize;
                self.unit_pending[succ] -= 1;
                if self.unit_pending[succ] == 0 {
                    self.make_ready(succ as u32, current_epoch, preference, &mut heaps);
                }
            }
            // Advance the barrier epoch and release units waiting on it.
            let mut advanced = false;
            while current_epoch < epochs && self.epoch_remaining[current_epoch] == 0 {
                current_epoch += 1;
                advanced = true;
                if current_epoch < epochs {
                    let released = std::mem::take(&mut self.waiting[current_epoch]);
                    for &waiting_unit in &released {
                        self.make_ready(waiting_unit, current_epoch, preference, &mut heaps);
                    }
                    self.waiting[current_epoch] = released;
                    self.waiting[current_epoch].clear();
                }
            }
            let _ = advanced;
            if !self.spanning_waiting.is_empty() {
                let pending = std::mem::take(&mut self.spanning_waiting);
                for &waiting_unit in &pending {
                    self.make_ready(waiting_unit, current_epoch, preference, &mut heaps);
                }
            }
        }
    }

    #[inline(never)]
    fn build_units(&mut self, graph: &RecordedGraph, alive: &[bool]) {
        let count = graph.nodes.len();
        self.unit_of.clear();
        self.unit_of.resize(count, NO_UNIT);
        self.unit_members.clear();
        self.unit_member_start.clear();
        self.unit_first_epoch.clear();
        self.unit_last_epoch.clear();
        self.unit_class.clear();
        self.node_epoch.clear();
        self.node_epoch
            .extend(graph.nodes.iter().map(|node| node.barrier_epoch));
        // The outermost atomic subgraph of each subgraph (or none).
        let mut outer_atomic: Vec<Option<u32>> = Vec::with_capacity(graph.subgraphs.len());
        for (index, subgraph) in graph.subgraphs.iter().enumerate() {
            let parent = subgraph
                .parent
                .and_then(|parent| outer_atomic.get(parent as usize).copied().flatten());
            outer_atomic.push(parent.or(subgraph.atomic.then_some(index as u32)));
        }
        let mut current_atomic: Option<u32> = None;
        for node in 0..count {
            if !alive[node] {
                continue;
            }
            let record = &graph.nodes[node];
            let atomic = record
                .subgraph
                .and_then(|subgraph| outer_atomic[subgraph as usize]);
            let class = graph.decls[record.decl.index()].queue;
            let epoch = record.barrier_epoch;
            if atomic.is_none() || atomic != current_atomic {
                self.unit_member_start.push(self.unit_members.len() as u32);
                self.unit_first_epoch.push(epoch);
                self.unit_last_epoch.push(epoch);
                self.unit_class.push(class);
            }
            current_atomic = atomic;
            let unit = self.unit_member_start.len() as u32 - 1;
            self.unit_of[node] = unit;
            self.unit_members.push(node as u32);
            *self.unit_last_epoch.last_mut().unwrap() = epoch;
        }
        self.unit_member_start.push(self.unit_members.len() as u32);
    }

    #[inline(never)]
    fn build_unit_edges(
        &mut self,
        graph: &RecordedGraph,
        deps: &DepGraph,
        alive: &[bool],
        unit_count: usize,
    ) {
        if !graph.subgraphs.iter().any(|subgraph| subgraph.sequential) {
            self.build_unit_edges_in_order(graph, deps, alive, unit_count);
            return;
        }
        self.edge_scratch.clear();
        for node in 0..graph.nodes.len() {
            if !alive[node] {
                continue;
            }
            let unit = self.unit_of[node];
            for &(pred, _) in deps.preds(node) {
                let pred_unit = self.unit_of[pred as usize];
                if pred_unit != NO_UNIT && pred_unit != unit {
                    self.edge_scratch.push((pred_unit, unit));
                }
            }
        }
        // Sequential subgraphs: chain their live nodes in call order.
        for subgraph in &graph.subgraphs {
            if !subgraph.sequential {
                continue;
            }
            let mut previous: Option<u32> = None;
            for node in subgraph.first_node..subgraph.end_node {
                if !alive[node as usize] {
                    continue;
                }
                let unit = self.unit_of[node as usize];
                if let Some(prev) = previous {
                    if prev != unit {
                        self.edge_scratch.push((prev, unit));
                    }
                }
                previous = Some(unit);
            }
        }
        // Successor lists sorted by (from, to) without duplicates. Edges from the dependency
        // graph arrive with `to` non-decreasing (units follow call order), so a stable counting
        // sort by `from` sorts them; sequential-subgraph edges may break that, then sort.
        let targets_sorted = self
            .edge_scratch
            .windows(2)
            .all(|pair| pair[0].1 <= pair[1].1);
        if !targets_sorted {
            self.edge_scratch.sort_unstable();
            self.edge_scratch.dedup();
        }
        self.unit_succ_start.clear();
        self.unit_succ_start.resize(unit_count + 1, 0);
        for &(from, _) in &self.edge_scratch {
            self.unit_succ_start[from as usize + 1] += 1;
        }
        for unit in 0..unit_count {
            self.unit_succ_start[unit + 1] += self.unit_succ_start[unit];
        }
        self.unit_succs.clear();
        self.unit_succs.resize(self.edge_scratch.len(), 0);
        self.succ_cursor.clear();
        self.succ_cursor
            .extend_from_slice(&self.unit_succ_start[..unit_count]);
        for &(from, to) in &self.edge_scratch {
            let cursor = &mut self.succ_cursor[from as usize];
            self.unit_succs[*cursor as usize] = to;
            *cursor += 1;
        }
        if targets_sorted {
            // Drop duplicates within each (sorted) successor list.
            let mut write = 0usize;
            let mut read_start = 0usize;
            for unit in 0..unit_count {
                let read_end = self.unit_succ_start[unit + 1] as usize;
                self.unit_succ_start[unit] = write as u32;
                let list_start = write;
                for read in read_start..read_end {
                    let to = self.unit_succs[read];
                    if write == list_start || self.unit_succs[write - 1] != to {
                        self.unit_succs[write] = to;
                        write += 1;
                    }
                }
                read_start = read_end;
            }
            self.unit_succ_start[unit_count] = write as u32;
            self.unit_succs.truncate(write);
        }
        self.unit_pending.clear();
        self.unit_pending.resize(unit_count, 0);
        for &to in &self.unit_succs {
            self.unit_pending[to as usize] += 1;
        }
        // Levels: edges go from earlier to later units, so one pass in unit order suffices.
        self.unit_level.clear();
        self.unit_level.resize(unit_count, 0);
        for unit in 0..unit_count {
            let level = self.unit_level[unit];
            for index in
                self.unit_succ_start[unit] as usize..self.unit_succ_start[unit + 1] as usize
            {
                let succ = self.unit_succs[index] as usize;
                self.unit_level[succ] = self.unit_level[succ].max(level + 1);
            }
        }
        self.unit_version.clear();
        self.unit_version.resize(unit_count, 0);
        self.unit_done.clear();
        self.unit_done.resize(unit_count, false);
        self.unit_touch_mark.clear();
        self.unit_touch_mark.resize(unit_count, NO_UNIT);
    }

    /// [`Scheduler::build_unit_edges`] without sequential subgraphs: every edge goes from an
    /// earlier unit to a later one and arrives grouped by its target in increasing order, so
    /// the successor lists fill in place (a count pass, then a fill pass that drops repeats,
    /// counts pending predecessors and propagates levels), with no sort.
    fn build_unit_edges_in_order(
        &mut self,
        graph: &RecordedGraph,
        deps: &DepGraph,
        alive: &[bool],
        unit_count: usize,
    ) {
        self.unit_succ_start.clear();
        self.unit_succ_start.resize(unit_count + 1, 0);
        for node in 0..graph.nodes.len() {
            if !alive[node] {
                continue;
            }
            let unit = self.unit_of[node];
            for &(pred, _) in deps.preds(node) {
                let pred_unit = self.unit_of[pred as usize];
                if pred_unit != NO_UNIT && pred_unit != unit {
                    self.unit_succ_start[pred_unit as usize + 1] += 1;
                }
            }
        }
        for unit in 0..unit_count {
            self.unit_succ_start[unit + 1] += self.unit_succ_start[unit];
        }
        self.unit_succs.clear();
        self.unit_succs
            .resize(self.unit_succ_start[unit_count] as usize, 0);
        self.succ_cursor.clear();
        self.succ_cursor
            .extend_from_slice(&self.unit_succ_start[..unit_count]);
        self.unit_pending.clear();
        self.unit_pending.resize(unit_count, 0);
        self.unit_level.clear();
        self.unit_level.resize(unit_count, 0);
        for node in 0..graph.nodes.len() {
            if !alive[node] {
                continue;
            }
            let unit = self.unit_of[node];
            for &(pred, _) in deps.preds(node) {
                let pred_unit = self.unit_of[pred as usize];
                if pred_unit == NO_UNIT || pred_unit == unit {
                    continue;
                }
                let from = pred_unit as usize;
                let cursor = self.succ_cursor[from] as usize;
                // Targets arrive in increasing order: a repeat is the list's last entry.
                if cursor > self.unit_succ_start[from] as usize
                    && self.unit_succs[cursor - 1] == unit
                {
                    continue;
                }
                self.unit_succs[cursor] = unit;
                self.succ_cursor[from] += 1;
                self.unit_pending[unit as usize] += 1;
                let level = self.unit_level[from] + 1;
                if self.unit_level[unit as usize] < level {
                    self.unit_level[unit as usize] = level;
                }
            }
        }
        // Close the gaps that dropped repeats left.
        let mut write = 0usize;
        for unit in 0..unit_count {
            let read = self.unit_succ_start[unit] as usize..self.succ_cursor[unit] as usize;
            self.unit_succ_start[unit] = write as u32;
            if read.start != write {
                self.unit_succs.copy_within(read.clone(), write);
            }
            write += read.len();
        }
        self.unit_succ_start[unit_count] = write as u32;
        self.unit_succs.truncate(write);
        self.unit_version.clear();
        self.unit_version.resize(unit_count, 0);
        self.unit_done.clear();
        self.unit_done.resize(unit_count, false);
        self.unit_touch_mark.clear();
        self.unit_touch_mark.resize(unit_count, NO_UNIT);
    }

    #[inline(never)]
    fn build_resource_tracking(
        &mut self,
        graph: &RecordedGraph,
        infos: &[AccessInfo],
        alive: &[bool],
        unit_count: usize,
        sizes: &[u64],
    ) {
        let resource_count = graph.resources.len();
        self.resource_units.iter_mut().for_each(Vec::clear);
        self.resource_units
            .resize_with(resource_count.max(self.resource_units.len()), Vec::new);
        self.unit_resources.iter_mut().for_each(Vec::clear);
        self.unit_resources
            .resize_with(unit_count.max(self.unit_resources.len()), Vec::new);
        for node in 0..graph.nodes.len() {
            if !alive[node] {
                continue;
            }
            let unit = self.unit_of[node];
            let range = &graph.nodes[node].accesses;
            for info in &infos[range.start as usize..range.end as usize] {
                if info.has(OUTLIVES) {
                    continue;
                }
                let resource = info.resource as usize;
                if self.resource_units[resource].last() != Some(&unit) {
                    self.resource_units[resource].push(unit);
                    self.unit_resources[unit as usize].push(resource as u32);
                }
            }
        }
        self.resource_remaining.clear();
        self.resource_size.clear();
        self.resource_touched.clear();
        self.resource_touched.resize(resource_count, false);
        self.unit_frees.clear();
        self.unit_frees.resize(unit_count, 0);
        self.unit_allocs.clear();
        self.unit_allocs.resize(unit_count, 0);
        // Units follow call order, so each resource's unit list is already sorted and (with the
        // `last()` check above) free of duplicates; each unit lists a resource at most once (the
        // order of a unit's resources does not matter).
        for resource in 0..resource_count {
            let units = &self.resource_units[resource];
            self.resource_remaining.push(units.len() as u32);
            let size = sizes[resource];
            self.resource_size.push(size);
            if units.len() == 1 {
                self.unit_frees[units[0] as usize] += size;
            }
            for &unit in units.iter() {
                self.unit_allocs[unit as usize] += size;
            }
        }
    }

    fn key(&self, unit: usize, preference: SchedulePreference) -> Key {
        let index = self.unit_members[self.unit_member_start[unit] as usize] as u64;
        let frees = u64::MAX - self.unit_frees[unit];
        let allocs = self.unit_allocs[unit];
        match preference {
            SchedulePreference::ProgramOrder => (index, 0, 0, 0),
            SchedulePreference::Memory => (frees, allocs, index, 0),
            SchedulePreference::Default => (self.unit_level[unit] as u64, frees, allocs, index),
        }
    }

    fn make_ready(
        &mut self,
        unit: u32,
        current_epoch: usize,
        preference: SchedulePreference,
        heaps: &mut [BinaryHeap<Entry>; 3],
    ) {
        let first = self.unit_first_epoch[unit as usize] as usize;
        if first > current_epoch {
            self.waiting[first].push(unit);
            return;
        }
        let last = self.unit_last_epoch[unit as usize] as usize;
        if last > first {
            // An atomic unit spanning barriers: every outside node of the epochs it spans
            // (before its last one) must be done first.
            let start = self.unit_member_start[unit as usize] as usize;
            let end = self.unit_member_start[unit as usize + 1] as usize;
            let spans_clear = (first..last).all(|epoch| {
                let own = self.unit_members[start..end]
                    .iter()
                    .filter(|&&node| self.node_epoch[node as usize] as usize == epoch)
                    .count();
                self.epoch_remaining[epoch] as usize == own
            });
            if !spans_clear {
                self.spanning_waiting.push(unit);
                return;
            }
        }
        self.unit_version[unit as usize] += 1;
        let key = self.key(unit as usize, preference);
        let class = self.unit_class[unit as usize] as usize;
        heaps[class].push(Entry {
            key: Reverse(key),
            unit,
            version: self.unit_version[unit as usize],
        });
    }

    fn pop_best(
        &mut self,
        heaps: &mut [BinaryHeap<Entry>; 3],
        preference: SchedulePreference,
        last_class: QueueClass,
    ) -> Option<u32> {
        loop {
            let mut best: Option<(usize, (Key, bool))> = None;
            for (class, heap) in heaps.iter_mut().enumerate() {
                while let Some(top) = heap.peek() {
                    let unit = top.unit as usize;
                    if self.unit_done[unit] || top.version != self.unit_version[unit] {
                        heap.pop();
                    } else {
                        break;
                    }
                }
                let Some(top) = heap.peek() else { continue };
                let key = top.key.0;
                let switch = class != last_class as usize;
                let candidate = (key, switch);
                let better = match &best {
                    None => true,
                    Some((_, (best_key, best_switch))) => match preference {
                        SchedulePreference::Default => {
                            (key.0, switch, key.1, key.2, key.3)
                                < (best_key.0, *best_switch, best_key.1, best_key.2, best_key.3)
                        }
                        _ => key < *best_key,
                    },
                };
                if better {
                    best = Some((class, candidate));
                }
            }
            let (class, _) = best?;
            let entry = heaps[class].pop()?;
            if self.unit_done[entry.unit as usize]
                || entry.version != self.unit_version[entry.unit as usize]
            {
                continue;
            }
            return Some(entry.unit);
        }
    }

    /// Memory priorities after scheduling one access of `unit` to transient `resource`: the
    /// other units touching it no longer allocate it; its last remaining unit frees it.
    #[inline(always)]
    fn update_resource(&mut self, unit: u32, resource: usize, touched_units: &mut Vec<u32>) {
        let size = self.resource_size[resource];
        if !self.resource_touched[resource] {
            self.resource_touched[resource] = true;
            for &other in &self.resource_units[resource] {
                if other != unit && !self.unit_done[other as usize] {
                    self.unit_allocs[other as usize] =
                        self.unit_allocs[other as usize].saturating_sub(size);
                    if self.unit_touch_mark[other as usize] != unit {
                        self.unit_touch_mark[other as usize] = unit;
                        touched_units.push(other);
                    }
                }
            }
        }
        self.resource_remaining[resource] -= 1;
        if self.resource_remaining[resource] == 1 {
            if let Some(&last) = self.resource_units[resource]
                .iter()
                .find(|&&other| !self.unit_done[other as usize])
            {
                self.unit_frees[last as usize] += size;
                if self.unit_touch_mark[last as usize] != unit {
                    self.unit_touch_mark[last as usize] = unit;
                    touched_units.push(last);
                }
            }
        }
    }

    fn update_memory_after(
        &mut self,
        unit: u32,
        preference: SchedulePreference,
        heaps: &mut [BinaryHeap<Entry>; 3],
        current_epoch: usize,
    ) {
        if preference == SchedulePreference::ProgramOrder {
            return;
        }
        let resources = std::mem::take(&mut self.unit_resources[unit as usize]);
        let mut touched_units = std::mem::take(&mut self.touched_scratch);
        touched_units.clear();
        for &resource in &resources {
            self.update_resource(unit, resource as usize, &mut touched_units);
        }
        self.unit_resources[unit as usize] = resources;
        // Each unit once (marked with the scheduled unit); the order of re-keying does not
        // matter (heap entries are totally ordered by key, unit and version).
        for &other in &touched_units {
            // Re-key units that are already ready (pending 0); others get keyed when ready.
            if self.unit_pending[other as usize] == 0 && !self.unit_done[other as usize] {
                let first = self.unit_first_epoch[other as usize] as usize;
                if first <= current_epoch {
                    self.make_ready(other, current_epoch, preference, heaps);
                }
            }
        }
        self.touched_scratch = touched_units;
    }
}
