//! The placement search of searched schedules (`SchedulePreference::Searched`, one queue):
//! after first fit, a search over skyline placements that lowers the heap toward the lower
//! bound, the most units live in one group.
//!
//! The problem is dynamic storage allocation: every item (a transient) has a fixed extent in
//! groups (runs of same-level nodes: a transient's extent runs from its first group's start to
//! its last access, so two extents overlap exactly when their group ranges do) and a size in
//! allocation units; only its offset is free, and two items whose extents share a group may
//! not overlap in memory.
//!
//! **Skyline placements.** Each group has a floor: the top of what is placed or given up there.
//! A step takes the leftmost group of lowest floor among those that some unplaced item covers,
//! at level `m`. An unplaced item can sit at `m` only if every floor over its extent is `m`,
//! and then it starts in that group (an earlier start would be an earlier group at `m`). The
//! choices are those items, placed at `m`, or giving `m` up in that group: its floor rises to
//! the next level something could use there (a higher neighbour's floor, or the lowest offset
//! an item covering the group could take now). Placing the items of any placement in
//! increasing offset order, each at the highest floor over its extent, gives a placement no
//! higher, so skyline placements include an optimal one; the search below samples them, it
//! does not enumerate them all.
//!
//! **Bound.** A group's floor plus the units of the unplaced items covering it can only grow
//! (placing keeps the sum, a rise adds to it), and the heap is at least its largest value; a
//! rise that would pass the cap is refused. So every completed attempt is within its cap, and
//! at the start the bound is the lower bound.
//!
//! **Search.** Depth first. A step's candidates go in order: those whose top meets a
//! neighbouring group's floor first (they keep the skyline flat), then largest, shortest
//! extent, index; the rise comes last. The first attempt has the cap just below first fit's
//! heap; each success lowers the cap below the heap it found. An attempt gives up after
//! [`ATTEMPT_SLACK`] choices taken back. Later attempts are perturbed from fixed seeds (so the
//! result is deterministic): at each step with two candidates or more, the first two trade
//! places with a chance of 1 in [`SWAP_ONE_IN`]. Even attempts draw a new order (sizes scaled
//! by up to 30%, which reorders items of equal size); odd ones, once a placement was found,
//! replay the attempt that found the best one (its order, and its trades up to a random step)
//! and trade afresh from there, a local search around the best. All attempts together make at
//! most [`STEPS_PER_ITEM`] steps (a placement or a rise) per item, and at most [`MAX_STEPS`];
//! the search stops as soon as a placement reaches the lower bound, or, while none has beaten
//! first fit yet, after [`FUTILE_ATTEMPTS`] attempts or an eighth of the budget.
//!
//! ```text
//! item  groups  units    first fit (largest first, by start, by end): 7 units, e.g.
//!  a    0..=1     2        c 0..3, a 0..2, b 3..5, d 5..7 (d: no room between a and b)
//!  b    0..=2     2      the search: 6 units, the lower bound (group 1: a + b + d)
//!  c    2..=2     3        a 0..2, d 2..4, b 4..6, c 0..3
//!  d    1..=1     2
//! ```

/// Steps (placements and rises) of all attempts together, per item.
pub(super) const STEPS_PER_ITEM: u64 = 2000;
/// At most this many steps per placement search, whatever the item count.
pub(super) const MAX_STEPS: u64 = 2_000_000;
/// Choices one attempt may take back before it gives up (its backtracking allowance).
pub(super) const ATTEMPT_SLACK: u64 = 300;

/// One item to place: its extent in groups (inclusive) and its size in allocation units.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct PackItem {
    /// First group of its extent.
    pub first: u32,
    /// Last group of its extent.
    pub last: u32,
    /// Size in allocation units (at least one).
    pub units: u32,
}

/// Attempts after which a search that has not yet beaten first fit gives up (as it does after
/// an eighth of its budget).
pub(super) const FUTILE_ATTEMPTS: u32 = 16;

/// A later attempt tries a step's second candidate first with a chance of 1 in this many.
pub(super) const SWAP_ONE_IN: u64 = 32;

/// No value (an empty slot of the group tree, or no rise).
const NONE: u32 = u32::MAX;
/// A step's rise not yet worked out.
const UNKNOWN: u32 = u32::MAX - 1;

/// A choice made at one step (undone on the way back).
#[derive(Copy, Clone, Debug)]
enum Applied {
    Nothing,
    /// An item placed at the step's level.
    Placed(u32),
    /// The step's group raised from the step's level to a higher floor.
    Raised,
}

/// One step of the depth-first search.
#[derive(Copy, Clone, Debug)]
struct Step {
    group: u32,
    level: u32,
    /// The candidates: `candidates[from..to]`.
    from: u32,
    to: u32,
    /// The next choice (candidates, then the rise).
    next: u32,
    /// The floor of a rise ([`NONE`]: no rise allowed; [`UNKNOWN`]: not yet worked out).
    rise: u32,
    applied: Applied,
}

/// Reusable scratch of the placement search.
#[derive(Debug, Default)]
pub(super) struct Pack {
    /// Items by first group (`starts[starts_at[g]..starts_at[g + 1]]`).
    starts_at: Vec<u32>,
    starts: Vec<u32>,
    /// Items covering each group (`covers[covers_at[g]..covers_at[g + 1]]`).
    covers_at: Vec<u32>,
    covers: Vec<u32>,
    floor: Vec<u32>,
    remaining: Vec<u64>,
    active: Vec<u32>,
    /// Min tree over groups of (floor if some unplaced item covers it, else [`NONE`]).
    tree: Vec<u32>,
    leaves: usize,
    placed: Vec<bool>,
    offsets: Vec<u32>,
    /// Each item's place in the current attempt's order (lower first): (weight key, extent
    /// length, index).
    priority: Vec<(u64, u32, u32)>,
    steps: Vec<Step>,
    candidates: Vec<u32>,
    /// Whether the current attempt is perturbed: at each step, the first two candidates trade
    /// places with a chance of 1 in [`SWAP_ONE_IN`] (not in the first attempt).
    swapping: bool,
    /// The trades of the current attempt, at each step with two candidates or more, and of
    /// the attempt that found the best placement.
    trades: Vec<bool>,
    best_trades: Vec<bool>,
    /// The order of the attempt that found the best placement.
    best_priority: Vec<(u64, u32, u32)>,
    /// Steps of the current attempt that replay the best attempt's trades.
    replay: usize,
    /// Sort keys of a step's candidates (flush, priority, item).
    keys: Vec<(u8, (u64, u32, u32), u32)>,
    rng: Rng,
    /// The best offsets found (by item).
    pub(super) best: Vec<u32>,
}

/// A fixed-seed xorshift generator (the perturbations of the later attempts).
#[derive(Debug, Default)]
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

impl Pack {
    /// The lower bound of `items` over `groups` groups: the most units live in one group.
    pub(super) fn lower_bound(items: &[PackItem], groups: usize) -> u64 {
        let mut delta = vec![0i64; groups + 1];
        for item in items {
            delta[item.first as usize] += i64::from(item.units);
            delta[item.last as usize + 1] -= i64::from(item.units);
        }
        let (mut live, mut peak) = (0i64, 0i64);
        for change in delta {
            live += change;
            peak = peak.max(live);
        }
        peak as u64
    }

    /// Searches for a placement of `items` (extents within `0..groups`) whose heap is below
    /// `ceiling` units; on success returns the least heap found, with its offsets in
    /// [`Pack::best`] (by item). Deterministic; see the module docs for the budget.
    pub(super) fn search(
        &mut self,
        items: &[PackItem],
        groups: usize,
        ceiling: u64,
    ) -> Option<u64> {
        let count = items.len();
        if count == 0 || groups == 0 {
            return None;
        }
        let bound = Self::lower_bound(items, groups);
        if bound >= ceiling {
            return None;
        }
        self.index(items, groups);
        let mut budget = (STEPS_PER_ITEM * count as u64).min(MAX_STEPS);
        // Without a success, the search gives up after FUTILE_ATTEMPTS attempts or an eighth
        // of its budget, whichever comes first.
        let futile_below = budget - budget / 8;
        let mut rng = Rng(0x5eed_9ac4_71e5_0b0d);
        self.rng = Rng(0x0dd5_eed5_1a7e_5eed);
        self.best_trades.clear();
        let mut found = None;
        let mut cap = ceiling - 1;
        let mut attempt = 0u32;
        while budget > 0
            && (found.is_some() || (attempt < FUTILE_ATTEMPTS && budget > futile_below))
        {
            self.swapping = attempt > 0;
            // Odd attempts after a success replay the best attempt (its order, and its trades up
            // to a random step, then trade afresh); the others draw a new order.
            self.replay = if attempt % 2 == 1 && found.is_some() {
                self.priority.clear();
                self.priority.extend_from_slice(&self.best_priority);
                (self.rng.next() % (self.best_trades.len() as u64 + 1)) as usize
            } else {
                self.order(items, attempt, &mut rng);
                0
            };
            self.trades.clear();
            let (result, used) = self.attempt(items, cap, budget);
            // Every attempt costs at least one step, so the loop ends.
            budget -= used.clamp(1, budget);
            attempt += 1;
            if let Some(heap) = result {
                self.best.clear();
                self.best.extend_from_slice(&self.offsets);
                std::mem::swap(&mut self.best_trades, &mut self.trades);
                self.best_priority.clear();
                self.best_priority.extend_from_slice(&self.priority);
                found = Some(heap);
                if heap <= bound {
                    break;
                }
                cap = heap - 1;
            }
        }
        found
    }

    /// Buckets the items by first group and by every group they cover.
    fn index(&mut self, items: &[PackItem], groups: usize) {
        self.starts_at.clear();
        self.starts_at.resize(groups + 1, 0);
        self.covers_at.clear();
        self.covers_at.resize(groups + 1, 0);
        for item in items {
            self.starts_at[item.first as usize + 1] += 1;
            for group in item.first..=item.last {
                self.covers_at[group as usize + 1] += 1;
            }
        }
        for group in 0..groups {
            self.starts_at[group + 1] += self.starts_at[group];
            self.covers_at[group + 1] += self.covers_at[group];
        }
        self.starts.clear();
        self.starts.resize(items.len(), 0);
        self.covers.clear();
        self.covers.resize(self.covers_at[groups] as usize, 0);
        let mut next_start = self.starts_at.clone();
        let mut next_cover = self.covers_at.clone();
        for (index, item) in items.iter().enumerate() {
            let slot = &mut next_start[item.first as usize];
            self.starts[*slot as usize] = index as u32;
            *slot += 1;
            for group in item.first..=item.last {
                let slot = &mut next_cover[group as usize];
                self.covers[*slot as usize] = index as u32;
                *slot += 1;
            }
        }
        self.leaves = groups.next_power_of_two();
    }

    /// The item order of attempt `attempt`: largest first, then shortest extent, then index;
    /// after the first attempt, sizes scaled by a random factor in [1, 1.3).
    fn order(&mut self, items: &[PackItem], attempt: u32, rng: &mut Rng) {
        self.priority.clear();
        self.priority
            .extend(items.iter().enumerate().map(|(index, item)| {
                let scale = if attempt == 0 { 0 } else { rng.next() % 308 };
                let weight = u64::from(item.units) * (1024 + scale);
                (u64::MAX - weight, item.last - item.first, index as u32)
            }));
    }

    /// Resets the search state: nothing placed, every floor 0.
    fn reset(&mut self, items: &[PackItem]) {
        let groups = self.starts_at.len() - 1;
        self.floor.clear();
        self.floor.resize(groups, 0);
        self.remaining.clear();
        self.remaining.resize(groups, 0);
        self.active.clear();
        self.active.resize(groups, 0);
        for item in items {
            for group in item.first..=item.last {
                self.remaining[group as usize] += u64::from(item.units);
                self.active[group as usize] += 1;
            }
        }
        self.tree.clear();
        self.tree.resize(2 * self.leaves, NONE);
        for group in 0..groups {
            if self.active[group] > 0 {
                self.tree[self.leaves + group] = 0;
            }
        }
        for node in (1..self.leaves).rev() {
            self.tree[node] = self.tree[2 * node].min(self.tree[2 * node + 1]);
        }
        self.placed.clear();
        self.placed.resize(items.len(), false);
        self.offsets.clear();
        self.offsets.resize(items.len(), 0);
        self.steps.clear();
        self.candidates.clear();
    }

    /// Writes the tree leaves of groups `first..=last` from their floors and activity, then
    /// the nodes above them, level by level, until a level is unchanged.
    fn refresh(&mut self, first: usize, last: usize) {
        for group in first..=last {
            self.tree[self.leaves + group] = if self.active[group] > 0 {
                self.floor[group]
            } else {
                NONE
            };
        }
        let (mut low, mut high) = ((self.leaves + first) / 2, (self.leaves + last) / 2);
        while low >= 1 {
            let mut changed = false;
            for node in low..=high {
                let value = self.tree[2 * node].min(self.tree[2 * node + 1]);
                changed |= self.tree[node] != value;
                self.tree[node] = value;
            }
            if !changed {
                break;
            }
            (low, high) = (low / 2, high / 2);
        }
    }

    /// The leftmost group of lowest floor among the covered ones, with that floor.
    fn lowest(&self) -> Option<(usize, u32)> {
        let level = self.tree[1];
        if level == NONE {
            return None;
        }
        let mut node = 1;
        while node < self.leaves {
            node = if self.tree[2 * node] == level {
                2 * node
            } else {
                2 * node + 1
            };
        }
        Some((node - self.leaves, level))
    }

    /// Places item `item` at `level` (every floor of its extent is `level`), or undoes that.
    fn put(&mut self, items: &[PackItem], item: u32, level: u32, undo: bool) {
        let PackItem { first, last, units } = items[item as usize];
        self.placed[item as usize] = !undo;
        self.offsets[item as usize] = level;
        for group in first as usize..=last as usize {
            if undo {
                self.floor[group] = level;
                self.remaining[group] += u64::from(units);
                self.active[group] += 1;
            } else {
                self.floor[group] = level + units;
                self.remaining[group] -= u64::from(units);
                self.active[group] -= 1;
            }
        }
        self.refresh(first as usize, last as usize);
    }

    /// The skyline offset of `item`: the highest floor over its extent.
    fn skyline(&self, item: PackItem) -> u32 {
        self.floor[item.first as usize..=item.last as usize]
            .iter()
            .copied()
            .max()
            .unwrap_or(0)
    }

    /// The floor that group `group`, at `level`, rises to when `level` is given up there: the
    /// lowest higher floor of a neighbour, or offset an unplaced item covering it could take
    /// now ([`NONE`]: none, or one that would pass `cap`).
    fn rise(&self, items: &[PackItem], cap: u64, group: usize, level: u32) -> u32 {
        let mut rise = NONE;
        for &item in
            &self.covers[self.covers_at[group] as usize..self.covers_at[group + 1] as usize]
        {
            if !self.placed[item as usize] {
                let offset = self.skyline(items[item as usize]);
                if offset > level {
                    rise = rise.min(offset);
                }
            }
        }
        let groups = self.floor.len();
        for neighbour in [group.wrapping_sub(1), group + 1] {
            if neighbour < groups && self.floor[neighbour] > level {
                rise = rise.min(self.floor[neighbour]);
            }
        }
        if rise != NONE && u64::from(rise) + self.remaining[group] > cap {
            rise = NONE;
        }
        rise
    }

    /// The rise of `step`, the deepest step (its choices undone), worked out once.
    fn rise_of_top(&mut self, items: &[PackItem], cap: u64, step: Step) -> u32 {
        if step.rise != UNKNOWN {
            return step.rise;
        }
        let rise = self.rise(items, cap, step.group as usize, step.level);
        if let Some(top) = self.steps.last_mut() {
            top.rise = rise;
        }
        rise
    }

    /// Opens a step at the lowest group: its candidates (best first); its rise comes later.
    fn open(&mut self, items: &[PackItem], group: usize, level: u32) {
        let from = self.candidates.len() as u32;
        for &item in
            &self.starts[self.starts_at[group] as usize..self.starts_at[group + 1] as usize]
        {
            if self.placed[item as usize] {
                continue;
            }
            let offset = self.skyline(items[item as usize]);
            if offset == level {
                self.candidates.push(item);
            }
        }
        let to = self.candidates.len() as u32;
        // Items whose top meets a neighbour's floor first (they keep the skyline flat), then
        // in the attempt's order.
        let (priority, floor) = (&self.priority, &self.floor);
        let meets = |group: usize, top: u32| floor.get(group) == Some(&top);
        self.keys.clear();
        self.keys.extend(
            self.candidates[from as usize..to as usize]
                .iter()
                .map(|&item| {
                    let PackItem { first, last, units } = items[item as usize];
                    let top = level + units;
                    let flush = u8::from(!meets((first as usize).wrapping_sub(1), top))
                        + u8::from(!meets(last as usize + 1, top));
                    (flush, priority[item as usize], item)
                }),
        );
        self.keys.sort_unstable();
        for (slot, &(_, _, item)) in self.candidates[from as usize..].iter_mut().zip(&self.keys) {
            *slot = item;
        }
        if self.swapping && to - from >= 2 {
            let trade = match self.best_trades.get(self.trades.len()) {
                Some(&trade) if self.trades.len() < self.replay => trade,
                _ => self.rng.next().is_multiple_of(SWAP_ONE_IN),
            };
            self.trades.push(trade);
            if trade {
                self.candidates.swap(from as usize, from as usize + 1);
            }
        }
        // The rise is worked out only if every candidate fails (or there is none).
        self.steps.push(Step {
            group: group as u32,
            level,
            from,
            to,
            next: 0,
            rise: UNKNOWN,
            applied: Applied::Nothing,
        });
    }

    /// One depth-first attempt under `cap` units, of at most `limit` steps and
    /// [`ATTEMPT_SLACK`] choices taken back. Returns the heap found (offsets in
    /// [`Pack::offsets`]) and the steps used.
    fn attempt(&mut self, items: &[PackItem], cap: u64, limit: u64) -> (Option<u64>, u64) {
        self.reset(items);
        let mut used = 0u64;
        let mut taken_back = 0u64;
        let mut left = items.len();
        loop {
            if left > 0 {
                let Some((group, level)) = self.lowest() else {
                    return (None, used);
                };
                self.open(items, group, level);
            } else {
                let heap = items
                    .iter()
                    .zip(&self.offsets)
                    .map(|(item, &offset)| u64::from(offset + item.units))
                    .max()
                    .unwrap_or(0);
                return (Some(heap), used);
            }
            // Take the next choice of the deepest step that has one, undoing on the way.
            loop {
                if used >= limit || taken_back > ATTEMPT_SLACK {
                    return (None, used);
                }
                let Some(step) = self.steps.last().copied() else {
                    return (None, used);
                };
                taken_back += u64::from(!matches!(step.applied, Applied::Nothing));
                match step.applied {
                    Applied::Nothing => {}
                    Applied::Placed(item) => {
                        self.put(items, item, step.level, true);
                        left += 1;
                    }
                    Applied::Raised => {
                        self.floor[step.group as usize] = step.level;
                        self.refresh(step.group as usize, step.group as usize);
                    }
                }
                let choices = step.to - step.from;
                let applied = if step.next < choices {
                    let item = self.candidates[(step.from + step.next) as usize];
                    self.put(items, item, step.level, false);
                    left -= 1;
                    Applied::Placed(item)
                } else {
                    let rise = if step.next == choices {
                        self.rise_of_top(items, cap, step)
                    } else {
                        NONE
                    };
                    if rise == NONE {
                        self.steps.pop();
                        self.candidates.truncate(step.from as usize);
                        continue;
                    }
                    self.floor[step.group as usize] = rise;
                    self.refresh(step.group as usize, step.group as usize);
                    Applied::Raised
                };
                used += 1;
                if let Some(top) = self.steps.last_mut() {
                    top.next += 1;
                    top.applied = applied;
                }
                break;
            }
        }
    }
}
