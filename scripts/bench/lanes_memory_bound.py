#!/usr/bin/env python3
"""Exact model of the lanes-1k memory goal of issue 19, with a search that meets it in live bytes.

Question: does some schedule of `record_lanes(1000)` (runtime/src/shapes.rs) with at most 138 barrier
batches (137 segments between them) hold at most 1.1 x 108.7 MB of transient memory at its peak?
Answer (2026-12-02): yes in live bytes. `search` below finds one of 119,275,520 live bytes (the
goal is 119,522,436), and the compiler runs it in 138 batches with that live peak
(`shape_memory --lanes-schedule`, test `lanes_schedule_within_the_memory_goal_in_live_bytes`);
its placed heap is larger (134.9 MB with the default placement), but a placement within the goal
exists (`lanes_placement.py`: for the schedules of seeds 1 and 3 to 6, at their live peaks). See
BENCHMARKS.md, "Issue 19: memory quality of the schedules".

The model, in the compiler's terms:
- Nodes: 8 lanes of 124 nodes (node j of lane k writes transient k*124+j and reads j-1's), then 7
  merges (merge m reads the accumulator, i.e. lane 0's head or merge m-1's output, and lane m's
  head; merges 1..6 write transients 992..997, merge 7 the imported backbuffer).
- A schedule gives each node a segment (the span between two barrier batches it runs in). Every
  transient is written by one node and read by one other, through a resource transition, so the
  reader's segment is at least the writer's plus one; with 137 segments the chains leave each node
  a window of 7 to 13 segments.
- A transient holds memory in every segment from its writer's to its reader's, both included:
  memory changes hands only at a barrier batch (an aliasing barrier), so two transients that touch
  a common segment cannot share bytes. The peak over segments of these live bytes is the compiler's
  `CompiledFrame::segment_live_peak_bytes` (`shape_memory`'s "segment bound"), and the placed heap
  (`transient_bytes`) is never below it: a live-bytes lower bound above the target would prove the
  placed target infeasible too. `check` compares the model with the compiler on its own schedules.
- Bytes are the compiler's: every transient rounded up to 64 KiB (units of 65,536 bytes: 254, 127,
  64 and 8 for the four sizes of `shape_resource`; the model's unaligned bytes are not used).
- Batches vs segments: on lanes the compiler's batches are one more than its segments
  (`CompiledFrame::barrier_segments`: 132 / 131 as soon as possible, 138 / 137 balanced and for the
  schedules fed to it here): "<= 138 batches" is "<= 137 segments".
- The goal: 1.1 x the issue's bound 2 x (sum of aligned bytes) / 136 = 108,656,760 bytes, i.e.
  119,522,436 bytes, so a peak of at most 1,823 units (119,472,128 bytes).

Time-indexed formulation (`solve`): y[n][t] = 1 when node n has run by segment t (monotone in t);
an edge u -> v is y[v][t] <= y[u][t-1]; transient (u -> v) is live at t exactly when
y[u][t] - y[v][t-1] = 1, so each segment's live bytes are linear and `live(t) <= peak` for all t.
Its LP relaxation gives 1,708.5 units (111.97 MB): no schedule of 137 segments holds less. Neither
solver closes the gap with one thread (CP-SAT: bound 508 units after 120 s; HiGHS: the LP bound
after its root cuts), which is why `search` exists.

`search`: large-neighbourhood search from every lane as soon as possible with the merges in the
last 7 segments. Each round re-schedules 4 random lanes exactly (a dynamic program over their joint
progress, each lane's node window 7-13 wide, with every other node fixed), minimising the sum over
segments of max(0, live - cap)^2, and keeps the result when no worse. With the default seed it
meets the cap of 1,823 units in 7 rounds (~1 minute).

Usage (`pip install ortools highspy` for `solve`; numpy for `search`; not run by CI; one solver
thread, run it niced):
  python3 scripts/bench/lanes_memory_bound.py check [SCHEDULE.json ...]
      the model's peaks of the as-soon-as-possible schedule and of schedule files; files written by
      `cargo run --release -p rpsl-runtime --example shape_memory -- --lanes-segments
      default|balanced|memory` carry the compiler's figure, which must be equal.
  nice -n 19 python3 scripts/bench/lanes_memory_bound.py search [--target-units 1823] [--seed 1]
      [--rounds 200] [--group 4] [--hint SCHEDULE.json] --out lanes_schedule.json
      then `cargo run --release -p rpsl-runtime --example shape_memory -- --lanes-schedule
      lanes_schedule.json` runs it through the compiler.
  nice -n 19 python3 scripts/bench/lanes_memory_bound.py solve [--solver cpsat|highs] [--relax]
      [--segments 137] [--time-limit 1200] [--target-units N] [--out schedule.json]
      minimises the peak (or, with --target-units, asks for a schedule at or below N units) and
      prints the best schedule's peak and the proven lower bound; --relax (highs): the LP only.
Schedules are JSON: {"segments": S, "lanes": [[segment of node j] per lane], "merges": [segment of
merge m]}.
"""
import argparse
import json
import sys
import time

LANES, NODES = 8, 1000
LANE_LENGTH = (NODES - 1) // LANES  # 124 nodes per lane
MERGES = LANES - 1
UNIT = 65536  # the memory planner's allocation alignment
SIZE_UNITS = [254, 127, 64, 8]  # ceil(bytes / 64 KiB) of the four `shape_resource` sizes
SIZE_BYTES = [1920 * 1080 * 8, 1920 * 1080 * 4, 960 * 540 * 8, 480 * 270 * 4]


def size_class(i):
    """`shape_resource(i)`'s size class (a 32-bit multiplicative hash picks one of four)."""
    return (((i * 2654435761) & 0xFFFFFFFF) >> 7) & 3


class Lanes:
    """The lanes graph: nodes, their dependencies, and transients as (units, writer, reader)."""

    def __init__(self):
        self.nodes = []  # ("lane", k, j) or ("merge", m)
        index = {}
        for k in range(LANES):
            for j in range(LANE_LENGTH):
                index[("lane", k, j)] = len(self.nodes)
                self.nodes.append(("lane", k, j))
        for m in range(1, MERGES + 1):
            index[("merge", m)] = len(self.nodes)
            self.nodes.append(("merge", m))
        self.index = index
        self.edges = []
        self.transients = []
        for k in range(LANES):
            for j in range(LANE_LENGTH):
                writer = index[("lane", k, j)]
                reader = index[("lane", k, j + 1)] if j + 1 < LANE_LENGTH else index[("merge", max(k, 1))]
                self.edges.append((writer, reader))
                self.transients.append((size_class(k * LANE_LENGTH + j), writer, reader))
        for m in range(1, MERGES):
            writer, reader = index[("merge", m)], index[("merge", m + 1)]
            self.edges.append((writer, reader))
            self.transients.append((size_class(LANES * LANE_LENGTH + m - 1), writer, reader))
        self.predecessors = [[] for _ in self.nodes]
        self.successors = [[] for _ in self.nodes]
        for u, v in self.edges:
            self.predecessors[v].append(u)
            self.successors[u].append(v)

    def earliest(self):
        """Each node's as-soon-as-possible segment (nodes are listed in a topological order)."""
        level = [0] * len(self.nodes)
        for v in range(len(self.nodes)):
            level[v] = max((level[u] + 1 for u in self.predecessors[v]), default=0)
        return level

    def latest(self, segments):
        """Each node's latest segment when the schedule has `segments` segments."""
        level = [segments - 1] * len(self.nodes)
        for u in reversed(range(len(self.nodes))):
            level[u] = min((level[v] - 1 for v in self.successors[u]), default=segments - 1)
        return level

    def live_units(self, segment_of, segments, sizes=SIZE_UNITS):
        """Live size of every segment: a transient counts from its writer's segment to its reader's."""
        for u, v in self.edges:
            if segment_of[v] <= segment_of[u]:
                raise ValueError("node %s runs in segment %d, not after %s in %d" % (self.nodes[v], segment_of[v], self.nodes[u], segment_of[u]))
        live = [0] * segments
        for size, u, v in self.transients:
            for t in range(segment_of[u], segment_of[v] + 1):
                live[t] += sizes[size]
        return live

    def schedule_json(self, segment_of, segments):
        lanes = [[segment_of[self.index[("lane", k, j)]] for j in range(LANE_LENGTH)] for k in range(LANES)]
        merges = [segment_of[self.index[("merge", m)]] for m in range(1, MERGES + 1)]
        return {"segments": segments, "lanes": lanes, "merges": merges}

    def from_json(self, data):
        segment_of = [0] * len(self.nodes)
        for k in range(LANES):
            for j in range(LANE_LENGTH):
                segment_of[self.index[("lane", k, j)]] = data["lanes"][k][j]
        for m in range(1, MERGES + 1):
            segment_of[self.index[("merge", m)]] = data["merges"][m - 1]
        return segment_of, data["segments"]


def first_fit_placement(graph, segment_of, order):
    """First fit over (segment x offset) with the transients taken in `order` ("largest" first,
    "first" use, or "last" use from the end; ties to the larger): a replay of the memory
    planner's first fit, to see what placement adds to a schedule. Returns (heap in units,
    offset in units of every transient in `graph.transients` order)."""
    items = [(segment_of[u], segment_of[v], SIZE_UNITS[size], i) for i, (size, u, v) in enumerate(graph.transients)]
    key = {"largest": lambda item: (-item[2], item[0]), "first": lambda item: (item[0], -item[2]), "last": lambda item: (-item[1], -item[2])}[order]
    placed, top = [], 0
    offsets = [0] * len(items)
    for first, last, units, i in sorted(items, key=key):
        offset = 0
        for low, high in sorted((o, o + w) for (a, b, o, w) in placed if a <= last and first <= b):
            if offset + units <= low:
                break
            offset = max(offset, high)
        placed.append((first, last, offset, units))
        offsets[i] = offset
        top = max(top, offset + units)
    return top, offsets


def first_fit_units(graph, segment_of, order):
    """Heap size (units) of `first_fit_placement`."""
    return first_fit_placement(graph, segment_of, order)[0]


def target_units(graph):
    """The goal in 64 KiB units: floor(1.1 x 2 x aligned bytes / 136) bytes, rounded down to units."""
    total = sum(SIZE_UNITS[size] for size, _, _ in graph.transients) * UNIT
    bound = 2 * total / 136
    target_bytes = int(1.1 * bound)
    return target_bytes // UNIT, bound, target_bytes


def check(graph, schedule_files):
    asap = graph.earliest()
    segments = max(asap) + 1
    live = graph.live_units(asap, segments)
    print("as soon as possible: %d segments, peak %d units = %d bytes (shape_memory: 131 segments, segment bound 139.5 MB, placed 139,526,144)" % (segments, max(live), max(live) * UNIT))
    unaligned = graph.live_units(asap, segments, SIZE_BYTES)
    print("  unaligned bytes: %d (lanes_memory_model.py: 138.9 MB)" % max(unaligned))
    units, bound, target_bytes = target_units(graph)
    print("target: 1.1 x %.0f = %d bytes, i.e. peak <= %d units (%d bytes)" % (bound, target_bytes, units, units * UNIT))
    for path in schedule_files:
        with open(path) as f:
            data = json.load(f)
        segment_of, segments = graph.from_json(data)
        live = graph.live_units(segment_of, segments)
        print("%s: %d segments, model peak %d units = %d bytes" % (path, segments, max(live), max(live) * UNIT))
        if "segment_bound_bytes" in data:
            agree = "equal" if data["segment_bound_bytes"] == max(live) * UNIT else "DIFFERENT"
            print("  compiler's segment bound %d bytes: %s" % (data["segment_bound_bytes"], agree))
        print("  first fit replayed: largest first %d bytes, by first use %d, by last use from the end %d" % tuple(first_fit_units(graph, segment_of, order) * UNIT for order in ("largest", "first", "last")))


def variables_window(graph, segments):
    return graph.earliest(), graph.latest(segments)


def solve_cpsat(graph, segments, time_limit, target, hint):
    from ortools.sat.python import cp_model

    earliest, latest = variables_window(graph, segments)
    model = cp_model.CpModel()
    done = []  # done[n][t]: a literal, or the constants 0 / 1 outside the window
    for n in range(len(graph.nodes)):
        row = []
        for t in range(segments):
            if t < earliest[n]:
                row.append(0)
            elif t >= latest[n]:
                row.append(1)
            else:
                row.append(model.NewBoolVar("y%d_%d" % (n, t)))
        done.append(row)
        for t in range(earliest[n], latest[n] - 1):
            model.AddImplication(row[t], row[t + 1])
    for u, v in graph.edges:
        for t in range(earliest[v], latest[v]):
            # v done by t implies u done by t - 1
            if isinstance(done[v][t], int):
                continue
            before = done[u][t - 1] if t >= 1 else 0
            if isinstance(before, int):
                if before == 0:
                    model.Add(done[v][t] == 0)
            else:
                model.AddImplication(done[v][t], before)
    peak = model.NewIntVar(0, 10 ** 6, "peak")
    for t in range(segments):
        terms = []
        constant = 0
        for size, u, v in graph.transients:
            w = SIZE_UNITS[size]
            a = done[u][t]
            b = done[v][t - 1] if t >= 1 else 0
            for literal, sign in ((a, 1), (b, -1)):
                if isinstance(literal, int):
                    constant += sign * w * literal
                else:
                    terms.append(sign * w * literal)
        model.Add(sum(terms) + constant <= peak)
    if target is not None:
        model.Add(peak <= target)
    else:
        model.Minimize(peak)
    if hint is not None:
        for n in range(len(graph.nodes)):
            for t in range(segments):
                if not isinstance(done[n][t], int):
                    model.AddHint(done[n][t], 1 if hint[n] <= t else 0)
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.max_time_in_seconds = time_limit
    solver.parameters.log_search_progress = True
    status = solver.Solve(model)
    name = solver.StatusName(status)
    if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        segment_of = [next(t for t in range(segments) if (done[n][t] if isinstance(done[n][t], int) else solver.Value(done[n][t]))) for n in range(len(graph.nodes))]
        return name, solver.ObjectiveValue() if target is None else None, solver.BestObjectiveBound() if target is None else None, segment_of
    return name, None, solver.BestObjectiveBound() if target is None else None, None


def time_indexed(graph, segments):
    """The time-indexed model as plain rows. Variables 0..k-1 are done[n][t] inside each node's
    window, the last one the peak. Returns (done, variable count, rows) where done[n][t] is a
    variable index or the constant 0 / 1 (as the string "0" / "1") and each row is
    (terms, upper) meaning sum(coefficient x variable) <= upper."""
    earliest, latest = variables_window(graph, segments)
    done, count = [], 0
    for n in range(len(graph.nodes)):
        row = []
        for t in range(segments):
            if t < earliest[n]:
                row.append("0")
            elif t >= latest[n]:
                row.append("1")
            else:
                row.append(count)
                count += 1
        done.append(row)
    peak = count
    rows = []
    for n in range(len(graph.nodes)):
        for t in range(earliest[n], latest[n] - 1):
            rows.append(([(done[n][t], 1), (done[n][t + 1], -1)], 0))
    for u, v in graph.edges:
        for t in range(earliest[v], latest[v]):
            before = done[u][t - 1] if t >= 1 else "0"
            if before == "1":
                continue
            if before == "0":
                rows.append(([(done[v][t], 1)], 0))
            else:
                rows.append(([(done[v][t], 1), (before, -1)], 0))
    for t in range(segments):
        coefficients, constant = {}, 0
        for size, u, v in graph.transients:
            w = SIZE_UNITS[size]
            for value, sign in ((done[u][t], 1), (done[v][t - 1] if t >= 1 else "0", -1)):
                if isinstance(value, str):
                    constant += sign * w * int(value)
                elif coefficients.get(value, 0) + sign * w == 0:
                    del coefficients[value]
                else:
                    coefficients[value] = coefficients.get(value, 0) + sign * w
        rows.append((list(coefficients.items()) + [(peak, -1)], -constant))
    return done, count + 1, rows


def solve_highs(graph, segments, time_limit, target, relax_only):
    import highspy
    import numpy as np

    done, count, rows = time_indexed(graph, segments)
    h = highspy.Highs()
    h.setOptionValue("threads", 1)
    h.setOptionValue("time_limit", float(time_limit))
    h.setOptionValue("mip_rel_gap", 0.0)
    lower = np.zeros(count)
    upper = np.ones(count)
    upper[count - 1] = float(target) if target is not None else 1e7
    cost = np.zeros(count)
    cost[count - 1] = 1.0
    h.addCols(count, cost, lower, upper, 0, np.array([], dtype=np.int32), np.array([], dtype=np.int32), np.array([]))
    starts, indices, values, row_upper = [], [], [], []
    for terms, bound in rows:
        starts.append(len(indices))
        for index, value in terms:
            indices.append(index)
            values.append(value)
        row_upper.append(bound)
    h.addRows(len(rows), np.full(len(rows), -highspy.kHighsInf), np.array(row_upper, dtype=float), len(indices), np.array(starts, dtype=np.int32), np.array(indices, dtype=np.int32), np.array(values, dtype=float))
    if not relax_only:
        h.changeColsIntegrality(count - 1, np.arange(count - 1, dtype=np.int32), np.full(count - 1, highspy.HighsVarType.kInteger))
    h.run()
    info = h.getInfo()
    status = h.modelStatusToString(h.getModelStatus())
    if relax_only:
        return status, info.objective_function_value, info.objective_function_value, None
    segment_of = None
    if info.primal_solution_status == 2:
        x = h.getSolution().col_value
        value = lambda d: int(d) if isinstance(d, str) else (1 if x[d] > 0.5 else 0)
        segment_of = [next(t for t in range(segments) if value(done[n][t])) for n in range(len(graph.nodes))]
    return status, info.objective_function_value, info.mip_dual_bound, segment_of


def latest_merges_start(graph, segments):
    """A schedule of `segments` segments to start a search from: every lane node as soon as
    possible, the merges in the last 7 segments."""
    segment_of = graph.earliest()
    for m in range(1, MERGES + 1):
        segment_of[graph.index[("merge", m)]] = segments - 1 - MERGES + m
    return segment_of


def reoptimise_lanes(graph, segment_of, segments, group, cap):
    """Exact re-scheduling of the lanes in `group` with every other node fixed (merges
    included): a dynamic program over the lanes' joint progress (nodes done by the end of each
    segment) that minimises sum over segments of max(0, live - cap)^2. Returns (cost, schedule)."""
    import itertools

    import numpy as np

    size = [[SIZE_UNITS[size_class(k * LANE_LENGTH + j)] for j in range(LANE_LENGTH)] for k in range(LANES)]
    merge_at = [segment_of[graph.index[("merge", max(k, 1))]] for k in range(LANES)]
    others = np.array(graph.live_units(segment_of, segments), dtype=np.int64)
    for k in group:
        for j in range(LANE_LENGTH):
            first = segment_of[graph.index[("lane", k, j)]]
            last = segment_of[graph.index[("lane", k, j + 1)]] if j + 1 < LANE_LENGTH else merge_at[k]
            others[first:last + 1] -= size[k][j]
    slack = [merge_at[k] - LANE_LENGTH for k in group]
    # Progress p (nodes done by the end of segment t) of lane group[i] lies in [low, high].
    low = lambda i, t: min(LANE_LENGTH, max(0, t + 1 - slack[i]))
    high = lambda t: min(LANE_LENGTH, t + 1)
    combos = list(itertools.product((0, 1), repeat=len(group)))

    def held(k, done_before, advance, t):
        """Units lane k holds in segment t after `done_before` nodes, running one more or not."""
        if advance:
            return size[k][done_before] + (size[k][done_before - 1] if done_before else 0)
        if done_before == 0:
            return 0
        if done_before < LANE_LENGTH:
            return size[k][done_before - 1]
        return size[k][LANE_LENGTH - 1] if t <= merge_at[k] else 0

    value = np.zeros((1,) * len(group))
    low_before = [0] * len(group)
    trail = []
    for t in range(segments):
        lows = [low(i, t) for i in range(len(group))]
        shape = tuple(high(t) - lows[i] + 1 for i in range(len(group)))
        best = np.full(shape, np.inf)
        choice = np.full(shape, -1, dtype=np.int64)
        for combo_index, combo in enumerate(combos):
            cost = np.zeros(shape)
            valid = np.ones(shape, dtype=bool)
            index = []
            for i, k in enumerate(group):
                done = lows[i] + np.arange(shape[i])
                before = done - combo[i]
                ok = (before >= low_before[i]) & (before < low_before[i] + value.shape[i])
                units = np.array([held(k, b, combo[i], t) if o else 0 for b, o in zip(before, ok)], dtype=float)
                axis = [1] * len(group)
                axis[i] = shape[i]
                cost = cost + units.reshape(axis)
                valid = valid & ok.reshape(axis)
                index.append(np.clip(before - low_before[i], 0, value.shape[i] - 1))
            total = value[np.ix_(*index)] + np.maximum(0, others[t] + cost - cap) ** 2
            total = np.where(valid, total, np.inf)
            better = total < best
            best = np.where(better, total, best)
            choice = np.where(better, combo_index, choice)
        value, low_before = best, lows
        trail.append((choice, lows))
    state = [LANE_LENGTH - low_before[i] for i in range(len(group))]
    cost = value[tuple(state)]
    result = segment_of[:]
    for t in range(segments - 1, -1, -1):
        choice, lows = trail[t]
        combo = combos[choice[tuple(state)]]
        for i, k in enumerate(group):
            if combo[i]:
                result[graph.index[("lane", k, lows[i] + state[i] - 1)]] = t
        if t:
            lows_before = trail[t - 1][1]
            state = [lows[i] + state[i] - combo[i] - lows_before[i] for i in range(len(group))]
    return cost, result


def search(graph, segments, cap, rounds, group_size, seed, start):
    """Large-neighbourhood search: each round re-schedules `group_size` random lanes exactly
    (`reoptimise_lanes`) with the rest fixed, keeping the result when its cost is no worse.
    Stops when no segment is over `cap`. Returns the schedule and its peak."""
    import random

    rng = random.Random(seed)
    segment_of = start
    excess = lambda live: sum(max(0, units - cap) ** 2 for units in live)
    cost = excess(graph.live_units(segment_of, segments))
    for round_index in range(rounds):
        group = sorted(rng.sample(range(LANES), group_size))
        new_cost, candidate = reoptimise_lanes(graph, segment_of, segments, group, cap)
        live = graph.live_units(candidate, segments)
        assert excess(live) == new_cost, "the dynamic program disagrees with the model"
        if new_cost <= cost:
            segment_of, cost = candidate, new_cost
        print("round %d, lanes %s: peak %d units, cost %d" % (round_index, group, max(graph.live_units(segment_of, segments)), cost), flush=True)
        if cost == 0:
            break
    return segment_of, max(graph.live_units(segment_of, segments))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("command", choices=["check", "solve", "search"])
    parser.add_argument("schedules", nargs="*", help="schedule files for check")
    parser.add_argument("--solver", choices=["cpsat", "highs"], default="cpsat")
    parser.add_argument("--segments", type=int, default=137)
    parser.add_argument("--time-limit", type=float, default=1200)
    parser.add_argument("--target-units", type=int)
    parser.add_argument("--hint", help="a schedule file to start from")
    parser.add_argument("--out")
    parser.add_argument("--relax", action="store_true", help="highs: solve the LP relaxation only")
    parser.add_argument("--rounds", type=int, default=200, help="search: rounds at most")
    parser.add_argument("--group", type=int, default=4, help="search: lanes re-scheduled per round")
    parser.add_argument("--seed", type=int, default=1, help="search: random seed")
    args = parser.parse_args()
    graph = Lanes()
    if args.command == "check":
        check(graph, args.schedules)
        return
    if args.command == "search":
        cap = args.target_units if args.target_units is not None else target_units(graph)[0]
        start = latest_merges_start(graph, args.segments)
        if args.hint:
            with open(args.hint) as f:
                start, _ = graph.from_json(json.load(f))
        segment_of, peak = search(graph, args.segments, cap, args.rounds, args.group, args.seed, start)
        print("search: peak %d units = %d bytes (cap %d units)" % (peak, peak * UNIT, cap))
        if args.out:
            with open(args.out, "w") as f:
                json.dump(graph.schedule_json(segment_of, args.segments), f)
        return
    hint = None
    if args.hint:
        with open(args.hint) as f:
            hint, _ = graph.from_json(json.load(f))
    started = time.time()
    if args.solver == "highs":
        status, best, bound, segment_of = solve_highs(graph, args.segments, args.time_limit, args.target_units, args.relax)
    else:
        status, best, bound, segment_of = solve_cpsat(graph, args.segments, args.time_limit, args.target_units, hint)
    print("status %s after %.0f s; best peak %s units, proven lower bound %s units" % (status, time.time() - started, best, bound))
    if segment_of is not None:
        live = graph.live_units(segment_of, args.segments)
        print("schedule peak %d units = %d bytes" % (max(live), max(live) * UNIT))
        if args.out:
            with open(args.out, "w") as f:
                json.dump(graph.schedule_json(segment_of, args.segments), f)


if __name__ == "__main__":
    sys.exit(main())
