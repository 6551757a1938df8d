#!/usr/bin/env python3
"""Can the lanes-1k schedules that meet issue 19's goal in live bytes also be *placed* within it?

`lanes_memory_bound.py search` finds schedules of 137 segments whose live peak is under the goal
of 1,823 units of 64 KiB (119,522,436 bytes); the issue's figure is the placed heap
(`CompiledFrame::transient_bytes`). This script asks, for one such schedule, whether a placement
exists: an offset (in 64 KiB units, as the memory planner aligns) for every transient, such that
two transients live in a common segment do not overlap in memory, and the heap (the highest
offset + size) is at most the cap. Liveness is `lanes_memory_bound.py`'s: a transient holds its
bytes in every segment from its writer's to its reader's, both included (`Lanes.live_units`), so
the x-extents are fixed and only the offsets are free (dynamic storage allocation).

Answer (2026-12-02): yes. Every schedule `search` finds with seeds 1 and 3 to 6 has a placement
of 1,823 units = 119,472,128 bytes, within the goal: seeds 1, 4 and 6 by CP-SAT on the whole
(82 to 164 s), seeds 3 and 5 (whole model: no answer in 400 s) by the rolling horizon. At their
live peak too, with no fragmentation (`--cap-units 1820` or 1812 `--horizon 16 --time-limit 60`,
32 to 66 s): seed 1's schedule and placement are `lanes_goal_schedule.json` and
`lanes_goal_placement.json` next to this script. The compiler's first-fit orders need 1,939 to
2,060 units on the same schedules. See BENCHMARKS.md,
"Issue 19: memory quality of the schedules".

The model (CP-SAT, one worker): an integer offset per transient, a fixed-size interval
[offset, offset + units) of it, and per segment one NoOverlap over the intervals of the
transients live there. Two transients share memory illegally exactly when they are live in a
common segment, so these per-segment constraints are the whole placement rule.

`window` proves infeasibility locally: the transients that touch segments [first, first + width)
with their lifetimes clipped to that window are a relaxation (fewer overlaps, fewer items), so if
that sub-problem has no placement under the cap, the whole schedule has none. It tries every
window of the given width (highest live bytes first) until one is infeasible.

Usage (`pip install ortools`; not run by CI; one solver thread, run it niced, one at a time):
  nice -n 19 python3 scripts/bench/lanes_placement.py place SCHEDULE.json [--cap-units 1823]
      [--minimise] [--time-limit 1200] [--horizon W] [--out placement.json]
      a placement within the cap (or, with --minimise, the least heap found and CP-SAT's proven
      lower bound), started from the best of the first-fit orders the compiler uses. With
      --horizon W (and --time-limit per window, e.g. 30) it places by `rolling_horizon` instead:
      W segments at a time, moving on by W / 2 (a heuristic: it can fail where a placement
      exists, never the other way round).
  nice -n 19 python3 scripts/bench/lanes_placement.py window SCHEDULE.json [--width 3]
      [--cap-units 1823] [--time-limit 60] [--first SEGMENT]
      windows of `width` segments: the first one with no placement under the cap is a proof
      that the schedule cannot be placed within the cap.
  python3 scripts/bench/lanes_placement.py verify SCHEDULE.json PLACEMENT.json
      checks a placement file independently of the solver and prints its heap.
SCHEDULE.json is `lanes_memory_bound.py search --out`'s format. A placement file is
{"cap_units": C, "heap_units": H, "offsets": [offset in units of transient i]} with transients
in `Lanes.transients` order (lane k's node j writes transient k * 124 + j, then the merges').
"""
import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lanes_memory_bound import SIZE_UNITS, UNIT, Lanes, first_fit_placement, target_units  # noqa: E402


def lifetimes(graph, segment_of):
    """(first segment, last segment, units) of every transient, in `graph.transients` order."""
    graph.live_units(segment_of, max(segment_of) + 1)  # rejects a schedule that breaks an edge
    return [(segment_of[u], segment_of[v], SIZE_UNITS[size]) for size, u, v in graph.transients]


def overlapping(items, offsets):
    """Pairs of transients live in a common segment whose memory overlaps (empty when legal)."""
    by_segment = {}
    for i, (first, last, _) in enumerate(items):
        for t in range(first, last + 1):
            by_segment.setdefault(t, []).append(i)
    bad = []
    for t, members in sorted(by_segment.items()):
        ranges = sorted((offsets[i], offsets[i] + items[i][2], i) for i in members)
        for (_, high, i), (low, _, j) in zip(ranges, ranges[1:]):
            if low < high:
                bad.append((t, i, j))
    return bad


def heap_units(items, offsets):
    return max(offset + units for offset, (_, _, units) in zip(offsets, items))


def best_first_fit(graph, segment_of):
    """The least heap over the memory planner's first-fit orders, with its offsets."""
    best = None
    for order in ("largest", "first", "last"):
        top, offsets = first_fit_placement(graph, segment_of, order)
        if best is None or top < best[0]:
            best = (top, offsets, order)
    return best


def solve(items, cap, time_limit, minimise, hint=None, log=True, fixed=None):
    """CP-SAT over offsets, `fixed` ({item: offset}) taken as given. Returns (status name,
    offsets or None, heap bound proven or None)."""
    from ortools.sat.python import cp_model

    model = cp_model.CpModel()
    upper = cap
    offsets, intervals = [], []
    for i, (_, _, units) in enumerate(items):
        if fixed is not None and i in fixed:
            offset = model.NewConstant(fixed[i])
        else:
            offset = model.NewIntVar(0, upper - units, "offset%d" % i)
        offsets.append(offset)
        intervals.append(model.NewFixedSizeIntervalVar(offset, units, "memory%d" % i))
    segments = {}
    for i, (first, last, _) in enumerate(items):
        for t in range(first, last + 1):
            segments.setdefault(t, []).append(i)
    for members in segments.values():
        model.AddNoOverlap([intervals[i] for i in members])
    heap = None
    if minimise:
        live_peak = max(sum(items[i][2] for i in members) for members in segments.values())
        heap = model.NewIntVar(live_peak, upper, "heap")
        for offset, (_, _, units) in zip(offsets, items):
            model.Add(offset + units <= heap)
        model.Minimize(heap)
    if hint is not None:
        for offset, value in zip(offsets, hint):
            model.AddHint(offset, value)
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.max_time_in_seconds = time_limit
    solver.parameters.log_search_progress = log
    status = solver.Solve(model)
    name = solver.StatusName(status)
    values = None
    if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        values = [solver.Value(offset) for offset in offsets]
    bound = int(solver.BestObjectiveBound()) if minimise else None
    return name, values, bound


def clipped(items, first, width):
    """The transients that touch segments [first, first + width), lifetimes clipped to it."""
    last = first + width - 1
    return [(max(a, first), min(b, last), units) for a, b, units in items if a <= last and first <= b]


def rolling_horizon(items, cap, width, time_limit, log):
    """A placement built window by window: place the transients touching segments
    [first, first + width) exactly (CP-SAT) with those placed before fixed, then keep the
    offsets of those that come to life in the first half of the window and move on by half a
    window. A heuristic: a window without placement ends it (returns None), though another
    choice earlier might have worked. Returns the offsets, or None."""
    segments = max(last for _, last, _ in items) + 1
    offsets = {}
    step = max(1, width // 2)
    for first in range(0, segments, step):
        end = first + width if first + width < segments else segments
        members = [i for i, (a, b, _) in enumerate(items) if a < end and first <= b]
        window = [(max(items[i][0], first), min(items[i][1], end - 1), items[i][2]) for i in members]
        fixed = {position: offsets[i] for position, i in enumerate(members) if i in offsets}
        name, values, _ = solve(window, cap, time_limit, False, log=log, fixed=fixed)
        print("  window %d..%d: %d transients (%d placed before): %s" % (first, end - 1, len(window), len(fixed), name), flush=True)
        if values is None:
            return None
        keep_until = first + step if end < segments else segments
        for position, i in enumerate(members):
            if items[i][0] < keep_until:
                offsets[i] = values[position]
        if end == segments:
            break
    return [offsets[i] for i in range(len(items))]


def load_schedule(graph, path):
    with open(path) as f:
        segment_of, segments = graph.from_json(json.load(f))
    return segment_of, segments


def command_place(graph, args):
    segment_of, _ = load_schedule(graph, args.schedule)
    items = lifetimes(graph, segment_of)
    live = graph.live_units(segment_of, max(segment_of) + 1)
    top, hint, order = best_first_fit(graph, segment_of)
    print("%s: live peak %d units; first fit (best order: %s) %d units = %d bytes" % (args.schedule, max(live), order, top, top * UNIT))
    cap = args.cap_units
    if args.minimise:
        cap = max(top, cap)
    started = time.time()
    if args.horizon:
        offsets, bound = rolling_horizon(items, cap, args.horizon, args.time_limit, args.log), None
        name = "FEASIBLE (rolling horizon)" if offsets is not None else "no placement found (rolling horizon)"
    else:
        name, offsets, bound = solve(items, cap, args.time_limit, args.minimise, hint if top <= cap else None, log=args.log)
    print("CP-SAT status %s after %.0f s (cap %d units)" % (name, time.time() - started, cap))
    if bound is not None:
        print("  proven lower bound on the heap: %d units = %d bytes" % (bound, bound * UNIT))
    if offsets is not None:
        assert not overlapping(items, offsets), "the solver's placement overlaps"
        heap = heap_units(items, offsets)
        print("  placement: heap %d units = %d bytes (goal %d bytes)" % (heap, heap * UNIT, target_units(graph)[2]))
        if args.out:
            with open(args.out, "w") as f:
                json.dump({"cap_units": args.cap_units, "heap_units": heap, "offsets": offsets}, f)


def command_window(graph, args):
    segment_of, segments = load_schedule(graph, args.schedule)
    items = lifetimes(graph, segment_of)
    live = graph.live_units(segment_of, segments)
    if args.first is not None:
        starts = [args.first]
    else:
        starts = sorted(range(segments - args.width + 1), key=lambda s: -sum(live[s:s + args.width]))
    for first in starts:
        window = clipped(items, first, args.width)
        started = time.time()
        name, _, _ = solve(window, args.cap_units, args.time_limit, False, log=args.log)
        print("segments %d..%d (live %s): %d transients, %s in %.1f s" % (first, first + args.width - 1, live[first:first + args.width], len(window), name, time.time() - started), flush=True)
        if name == "INFEASIBLE":
            print("no placement of %s within %d units: segments %d..%d alone admit none" % (args.schedule, args.cap_units, first, first + args.width - 1))
            return


def command_verify(graph, args):
    segment_of, _ = load_schedule(graph, args.schedule)
    items = lifetimes(graph, segment_of)
    with open(args.placement) as f:
        offsets = json.load(f)["offsets"]
    if len(offsets) != len(items) or min(offsets) < 0:
        sys.exit("placement: %d offsets for %d transients (or a negative one)" % (len(offsets), len(items)))
    bad = overlapping(items, offsets)
    if bad:
        sys.exit("placement overlaps: segment %d, transients %d and %d" % bad[0])
    heap = heap_units(items, offsets)
    print("placement valid: heap %d units = %d bytes, goal %d bytes: %s" % (heap, heap * UNIT, target_units(graph)[2], "met" if heap * UNIT <= target_units(graph)[2] else "NOT met"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("command", choices=["place", "window", "verify"])
    parser.add_argument("schedule")
    parser.add_argument("placement", nargs="?", help="verify: the placement file")
    parser.add_argument("--cap-units", type=int, help="default: the goal, 1,823 units")
    parser.add_argument("--minimise", action="store_true")
    parser.add_argument("--time-limit", type=float)
    parser.add_argument("--width", type=int, default=3)
    parser.add_argument("--first", type=int)
    parser.add_argument("--horizon", type=int, help="place: window by window, this many segments each (time limit per window)")
    parser.add_argument("--out")
    parser.add_argument("--log", action="store_true", help="CP-SAT's search log")
    args = parser.parse_args()
    graph = Lanes()
    if args.cap_units is None:
        args.cap_units = target_units(graph)[0]
    if args.time_limit is None:
        args.time_limit = 1200 if args.command == "place" else 60
    {"place": command_place, "window": command_window, "verify": command_verify}[args.command](graph, args)


if __name__ == "__main__":
    sys.exit(main())
