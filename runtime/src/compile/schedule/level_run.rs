//! One wide level of the level scheduler ([`super::levels`]): all its nodes are ready,
//! and they run by (queue class switch from the previous node, bytes freed descending, bytes
//! allocated ascending, call order).
//!
//! A node's priorities when the level starts follow from its resources' user depths: it starts
//! a resource no user of a lower level touched (`min_depth` is the level's) and ends one whose
//! other users all have lower levels (`second_depth` is below the level's). While the level
//! runs, only a resource two nodes of the level share changes a priority; only resources whose
//! users' levels do not rise strictly along call order (`maybe_tie`) can be shared.
//!
//! Fixed priorities (the common case) need no queue: sorting the nodes of each class gives the
//! order, because once a class runs, staying in it never switches, so it runs to its end, and
//! the next class is the one whose best node is best. Shared resources take class heaps whose
//! keys are updated in place after each node, as in the general scheduler.

use super::heap::pop_best;
use super::heap::UnitHeap;
use super::priority::{key_of, unpack, BY_MEMORY};
use crate::compile::schedule::units::{Unit, Use, NONE};
use crate::compile::table::{AccessInfo, NodeSpan, OUTLIVES};
use crate::decl::QueueClass;

/// What one resource's users look like over the whole frame.
#[derive(Copy, Clone, Debug)]
pub(super) struct ResourceFacts {
    /// Allocation size.
    pub size: u64,
    /// Lowest depth (level + 1) of its users.
    pub min_depth: u32,
    /// Highest depth of its users (0: no user).
    pub max_depth: u32,
    /// Highest depth of its users but one holder of `max_depth` (0 with a single user).
    pub second_depth: u32,
    /// The (last listed) user of depth `max_depth`.
    pub max_node: u32,
    /// Its first user in call order.
    pub first_node: u32,
    /// The node whose priorities last counted it (a node counts each resource once).
    pub key_last: u32,
    /// The depth of the last level that counted it.
    pub key_stamp: u32,
    /// Its users' depths did not rise strictly in call order, so two users may share a level.
    /// When false, its users all have different levels and it never changes a priority while
    /// a level runs.
    pub maybe_tie: bool,
}

impl ResourceFacts {
    /// No user yet.
    pub const UNUSED: ResourceFacts = ResourceFacts {
        size: 0,
        min_depth: u32::MAX,
        max_depth: 0,
        second_depth: 0,
        max_node: NONE,
        first_node: NONE,
        key_last: NONE,
        key_stamp: NONE,
        maybe_tie: false,
    };
}

/// The frame's tables every level reads.
#[derive(Copy, Clone)]
pub(super) struct LevelTables<'a> {
    /// The nodes' spans (declaration and accesses).
    pub spans: &'a [NodeSpan],
    /// The accesses' compact records.
    pub infos: &'a [AccessInfo],
    /// Per declaration: its queue class.
    pub decl_class: &'a [QueueClass],
}

/// One wide level to schedule.
#[derive(Copy, Clone)]
pub(super) struct Level<'a> {
    /// Its nodes, all ready, in call order.
    pub nodes: &'a [u32],
    /// Its depth (level + 1).
    pub depth: u32,
    /// The queue class of the node scheduled before it.
    pub last_class: QueueClass,
}

/// A resource's state within the level being scheduled, for levels where two nodes share it
/// (valid while `stamp` is that level's depth).
#[derive(Copy, Clone, Debug)]
struct SharedState {
    /// The depth of the level whose state this is, or [`NONE`].
    stamp: u32,
    /// First use of this level's user list (linked through [`Use::next`]).
    head: u32,
    /// Users of this level not scheduled yet.
    remaining: u32,
    /// XOR of the local ids of this level's unscheduled users.
    xor: u32,
    /// The node of this level that last listed it.
    last: u32,
    /// A user has been scheduled.
    started: bool,
}

impl SharedState {
    /// Not part of any level yet.
    const UNUSED: SharedState = SharedState {
        stamp: NONE,
        head: NONE,
        remaining: 0,
        xor: 0,
        last: NONE,
        started: false,
    };
}

/// Sorts keys (all different) ascending.
fn sort_keys(keys: &mut [u128]) {
    if keys.len() > 32 {
        keys.sort_unstable();
        return;
    }
    for index in 1..keys.len() {
        let key = keys[index];
        let mut slot = index;
        while slot > 0 && key < keys[slot - 1] {
            keys[slot] = keys[slot - 1];
            slot -= 1;
        }
        keys[slot] = key;
    }
}

/// Scratch of one wide level, kept across frames.
#[derive(Debug, Default)]
pub(super) struct LevelRun {
    /// The level's keys (see [`key_of`]) in call order, then sorted per class.
    keys: Vec<u128>,
    /// The level's queue classes in call order.
    classes: Vec<QueueClass>,
    /// `keys` grouped by class, for levels of several classes.
    grouped: Vec<u128>,
    /// Per resource, once a level of this frame shares a resource between two nodes.
    shared: Vec<SharedState>,
    /// `shared` holds no state of an earlier frame.
    shared_ready: bool,
    /// The nodes of a level with shared resources (local id = position in call order within
    /// the level).
    locals: Vec<Unit>,
    /// A level's uses of resources that may be shared, grouped by local node.
    uses: Vec<Use>,
    /// One heap per queue class of a level's unscheduled nodes.
    heaps: [UnitHeap; 3],
}

impl LevelRun {
    /// Starts a frame (the shared-resource states of the last one become stale).
    pub fn begin_frame(&mut self) {
        self.shared_ready = false;
    }

    /// Schedules the ready nodes of one `level`, pushing them to `order`; returns the last
    /// node scheduled. `priorities` holds every node's key without its position when no
    /// resource can be shared within a level.
    pub fn run(
        &mut self,
        tables: &LevelTables<'_>,
        resources: &mut [ResourceFacts],
        priorities: Option<&[u128]>,
        level: Level<'_>,
        order: &mut Vec<u32>,
    ) -> u32 {
        let LevelTables {
            spans, decl_class, ..
        } = *tables;
        let nodes = level.nodes;
        self.keys.clear();
        self.classes.clear();
        let shared = if let Some(priorities) = priorities {
            let first_class = decl_class[spans[nodes[0] as usize].decl as usize];
            let mut mixed = false;
            for (local, &node) in nodes.iter().enumerate() {
                let node = node as usize;
                self.keys.push(priorities[node] | local as u128);
                mixed |= decl_class[spans[node].decl as usize] != first_class;
            }
            if !mixed {
                // One class: no switch to weigh, the keys alone give the order.
                sort_keys(&mut self.keys);
                order.extend(self.keys.iter().map(|&key| nodes[key as u32 as usize]));
                return nodes[*self.keys.last().unwrap_or(&0) as u32 as usize];
            }
            self.classes.extend(
                nodes
                    .iter()
                    .map(|&node| decl_class[spans[node as usize].decl as usize]),
            );
            false
        } else {
            self.key_level(tables, resources, level)
        };
        if shared {
            self.run_shared(tables, resources, level, order)
        } else {
            self.run_fixed(nodes, level.last_class, order)
        }
    }

    /// Computes the level's keys and classes from the resources' user depths; true when a
    /// resource has two or more users in the level (priorities then change while it runs).
    fn key_level(
        &mut self,
        tables: &LevelTables<'_>,
        resources: &mut [ResourceFacts],
        level: Level<'_>,
    ) -> bool {
        let LevelTables {
            spans,
            infos,
            decl_class,
        } = *tables;
        let (nodes, level_depth) = (level.nodes, level.depth);
        let mut shared = false;
        for (local, &node) in nodes.iter().enumerate() {
            let record = spans[node as usize];
            let (mut frees, mut allocs) = (0u64, 0u64);
            for info in &infos[record.accesses()] {
                if info.has(OUTLIVES) {
                    continue;
                }
                let facts = &mut resources[info.resource as usize];
                if facts.key_last == node {
                    continue;
                }
                facts.key_last = node;
                // No user of a lower level: nobody started it yet.
                if facts.min_depth == level_depth {
                    allocs += facts.size;
                }
                // Every other user has a lower level: this node is the last one left.
                if facts.second_depth < level_depth {
                    frees += facts.size;
                }
                if facts.maybe_tie {
                    shared |= facts.key_stamp == level_depth;
                    facts.key_stamp = level_depth;
                }
            }
            self.keys.push(key_of(frees, allocs, local as u32));
            self.classes.push(decl_class[record.decl as usize]);
        }
        shared
    }

    /// Schedules a level whose priorities stay fixed (see the module docs).
    fn run_fixed(&mut self, nodes: &[u32], last_class: QueueClass, order: &mut Vec<u32>) -> u32 {
        // Each class's run of keys.
        let mut runs = [(0usize, 0usize); 3];
        for &class in &self.classes {
            runs[class as usize].1 += 1;
        }
        let keys = if runs.iter().filter(|run| run.1 != 0).count() == 1 {
            runs[self.classes[0] as usize] = (0, self.keys.len());
            &mut self.keys[..]
        } else {
            let mut total = 0;
            for run in &mut runs {
                let count = run.1;
                *run = (total, total);
                total += count;
            }
            // `runs[class].1` is the class's next free slot while grouping.
            self.grouped.clear();
            self.grouped.resize(self.keys.len(), 0);
            for (&key, &class) in self.keys.iter().zip(&self.classes) {
                let run = &mut runs[class as usize];
                self.grouped[run.1] = key;
                run.1 += 1;
            }
            &mut self.grouped[..]
        };
        for &(start, end) in &runs {
            sort_keys(&mut keys[start..end]);
        }
        let mut class = last_class as usize;
        loop {
            if runs[class].0 == runs[class].1 {
                // Every remaining class is a switch: the best first node decides.
                let mut best = NONE as usize;
                for (candidate, &(start, end)) in runs.iter().enumerate() {
                    if start != end && (best == NONE as usize || keys[start] < keys[runs[best].0]) {
                        best = candidate;
                    }
                }
                if best == NONE as usize {
                    break;
                }
                class = best;
            }
            let (start, end) = std::mem::take(&mut runs[class]);
            order.extend(
                keys[start..end]
                    .iter()
                    .map(|&key| nodes[key as u32 as usize]),
            );
        }
        order.last().copied().unwrap_or(NONE)
    }

    /// Schedules a level where some resource has several users: after each node, the
    /// priorities of the nodes sharing its resources are updated and they move within their
    /// class heap.
    fn run_shared(
        &mut self,
        tables: &LevelTables<'_>,
        resources: &[ResourceFacts],
        level: Level<'_>,
        order: &mut Vec<u32>,
    ) -> u32 {
        let (nodes, level_depth, mut last_class) = (level.nodes, level.depth, level.last_class);
        if !self.shared_ready {
            // Stamps are depths, which repeat across frames.
            self.shared_ready = true;
            self.shared.clear();
            self.shared.resize(resources.len(), SharedState::UNUSED);
        }
        self.queue_shared(tables, resources, level);
        let mut last_node = NONE;
        for _ in 0..nodes.len() {
            let Some(local) = self.pop_best(last_class) else {
                break;
            };
            let record = self.locals[local as usize];
            last_class = record.class;
            last_node = nodes[local as usize];
            order.push(last_node);
            self.update_after(resources, local, record, level_depth);
        }
        last_node
    }

    /// Queues the level's nodes under their keys and lists their uses of the resources that
    /// may be shared.
    fn queue_shared(
        &mut self,
        tables: &LevelTables<'_>,
        resources: &[ResourceFacts],
        level: Level<'_>,
    ) {
        let (spans, infos) = (tables.spans, tables.infos);
        let (nodes, level_depth) = (level.nodes, level.depth);
        self.locals.clear();
        self.uses.clear();
        for heap in self.heaps.iter_mut() {
            heap.clear();
        }
        for ((&key, &class), &node) in self.keys.iter().zip(&self.classes).zip(nodes) {
            let (frees, allocs, local) = unpack(key);
            let record = spans[node as usize];
            let use_start = self.uses.len() as u32;
            for info in &infos[record.accesses()] {
                let resource = info.resource as usize;
                if info.has(OUTLIVES) || !resources[resource].maybe_tie {
                    continue;
                }
                let state = &mut self.shared[resource];
                if state.stamp != level_depth {
                    *state = SharedState {
                        stamp: level_depth,
                        started: resources[resource].min_depth < level_depth,
                        ..SharedState::UNUSED
                    };
                } else if state.last == node {
                    continue;
                }
                state.last = node;
                self.uses.push(Use {
                    resource: info.resource,
                    unit: local,
                    next: state.head,
                });
                state.head = self.uses.len() as u32 - 1;
                state.remaining += 1;
                state.xor ^= local;
            }
            self.locals.push(Unit {
                frees,
                allocs,
                use_start,
                use_end: self.uses.len() as u32,
                class,
                ..Unit::EMPTY
            });
            self.heaps[class as usize].push::<BY_MEMORY>(&mut self.locals[..], local);
        }
    }

    /// Pops the best node under the `Default` rule (see [`super::heap::pop_best`]).
    #[inline(always)]
    fn pop_best(&mut self, last_class: QueueClass) -> Option<u32> {
        pop_best::<BY_MEMORY>(&mut self.heaps, &mut self.locals[..], last_class)
    }

    /// Priorities after scheduling `local` (`record`), for the resources it shares with other
    /// nodes of the level: the first scheduled user starts a resource (the others no longer
    /// allocate it), and once one user is left and no later level uses it, that user frees it.
    fn update_after(
        &mut self,
        resources: &[ResourceFacts],
        local: u32,
        record: Unit,
        level_depth: u32,
    ) {
        for index in record.use_start..record.use_end {
            let resource = self.uses[index as usize].resource as usize;
            let state = &mut self.shared[resource];
            if state.remaining == 1 {
                // No other user in this level: nobody's priority changes.
                state.remaining = 0;
                continue;
            }
            let facts = &resources[resource];
            let size = facts.size;
            let start_others = !state.started;
            state.started = true;
            state.remaining -= 1;
            state.xor ^= local;
            let last = if state.remaining == 1 && facts.max_depth == level_depth {
                state.xor
            } else {
                NONE
            };
            if start_others {
                let mut next = state.head;
                while next != NONE {
                    let Use {
                        unit: other,
                        next: following,
                        ..
                    } = self.uses[next as usize];
                    let other_record = &mut self.locals[other as usize];
                    if other_record.heap_pos != NONE {
                        other_record.allocs -= size;
                        let class = other_record.class as usize;
                        self.heaps[class].raised::<BY_MEMORY>(&mut self.locals[..], other);
                    }
                    next = following;
                }
            }
            if last != NONE {
                let last_record = &mut self.locals[last as usize];
                last_record.frees += size;
                let class = last_record.class as usize;
                self.heaps[class].raised::<BY_MEMORY>(&mut self.locals[..], last);
            }
        }
    }
}
