#!/usr/bin/env python3
"""Model of transient memory on the lanes-1k shape (runtime/src/shapes.rs, `record_lanes`) by
barrier segment: a transient occupies memory from its writer's segment to its last reader's.

Prints the peak for the as-soon-as-possible level schedule (what our default schedule does), for
a greedy schedule that spends a batch budget on memory (each segment, the lanes with slack that
would allocate the most pause while the segment's memory is above a target; the target is
searched), and the floor 2 x total / segments that any schedule with that many segments meets.
`--random TRIES` also runs the greedy at 137 segments with randomised pause priorities (a mix of
the next allocation, the held size, the slack and noise) and targets, and prints the best peak.
`--delays` finds, by branch and bound over every combination, the least peak at 137 segments of
the schedules whose lanes only start late (no pause once started; merges in the last 7 segments).
See BENCHMARKS.md (sixth session; issue 19). Usage:
python3 scripts/bench/lanes_memory_model.py [--random TRIES]
"""
import random
import sys

W, N = 8, 1000
L = (N - 1) // W  # nodes per lane


def size_mb(i):
    """`shape_resource(i)`'s size in MB (a 32-bit multiplicative hash picks one of four)."""
    k = (((i * 2654435761) & 0xFFFFFFFF) >> 7) & 3
    return [1920 * 1080 * 8, 1920 * 1080 * 4, 960 * 540 * 8, 480 * 270 * 4][k] / 1e6


def peak(level):
    """Peak memory and segment count of lane-node levels `level[(lane, j)]`; the combining
    chain (node m reads the accumulator and lane m's head) runs as early as it can."""
    combine, previous = {}, level[(0, L - 1)]
    for m in range(1, W):
        previous = combine[m] = max(previous, level[(m, L - 1)]) + 1
    depth = previous + 1
    memory = [0.0] * (depth + 1)

    def live(first, last, size):
        for t in range(first, last + 1):
            memory[t] += size

    for lane in range(W):
        for j in range(L):
            reader = level[(lane, j + 1)] if j < L - 1 else combine[max(lane, 1)]
            live(level[(lane, j)], reader, size_mb(lane * L + j))
    for m in range(1, W - 1):
        live(combine[m], combine[m + 1], size_mb(W * L + m - 1))
    return max(memory), depth


def greedy(target, budget, priority=None):
    """Levels within `budget` segments keeping each segment near `target` MB, or None. Lanes with
    slack pause in ascending `priority(lane, next_node, slack)`; by default the lane that would
    allocate the most pauses first."""
    deadline = {lane: budget - 8 + max(lane, 1) - 1 for lane in range(W)}
    next_node, level = [0] * W, {}
    for s in range(budget):
        candidates = []
        for lane in range(W):
            if next_node[lane] >= L:
                continue
            slack = deadline[lane] - (s + L - next_node[lane] - 1)
            if slack < 0:
                return None
            candidates.append((slack, lane))
        held = sum(size_mb(lane * L + next_node[lane] - 1) for lane in range(W) if 0 < next_node[lane] <= L)
        advancing = [lane for _, lane in candidates]
        memory = held + sum(size_mb(lane * L + next_node[lane]) for lane in advancing)
        if priority is None:
            optional = sorted(((size_mb(lane * L + next_node[lane]), lane) for slack, lane in candidates if slack > 0), reverse=True)
        else:
            optional = sorted((priority(lane, next_node, slack), lane) for slack, lane in candidates if slack > 0)
        for _, lane in optional:
            if memory <= target:
                break
            advancing.remove(lane)
            memory -= size_mb(lane * L + next_node[lane])
        for lane in advancing:
            level[(lane, next_node[lane])] = s
            next_node[lane] += 1
    return level if all(n >= L for n in next_node) else None


def main():
    total = sum(size_mb(i) for i in range(W * L + W - 2))
    asap = {(lane, j): j for lane in range(W) for j in range(L)}
    print("as soon as possible: peak %.1f MB, %d segments" % peak(asap))
    for budget in (131, 134, 137):
        best = None
        for step in range(200, 600):
            level = greedy(step * 0.5, budget)
            if level:
                memory, depth = peak(level)
                if depth <= budget and (best is None or memory < best[0]):
                    best = (memory, depth)
        print("budget %d segments: greedy peak %.1f MB (%d segments); floor %.1f MB" % (budget, best[0], best[1], 2 * total / budget))
    if len(sys.argv) > 2 and sys.argv[1] == "--random":
        print("randomised greedy, 137 segments: best peak %.1f MB" % random_search(int(sys.argv[2])))
    if len(sys.argv) > 1 and sys.argv[1] == "--delays":
        memory, delays = best_start_delays()
        print("lanes started late only, 137 segments: least peak %.2f MB (delays %s)" % (memory, delays))


def best_start_delays(segments=137):
    """The least peak over every choice of lane start delays (each lane then advances every
    segment; lane k's head waits for merge max(k, 1), the merges run in the last 7 segments)."""
    merge = [segments - 8 + max(lane, 1) for lane in range(W)]
    base = [0.0] * segments
    for m in range(1, W - 1):
        for t in (segments - 8 + m, segments - 7 + m):
            base[t] += size_mb(W * L + m - 1)
    profiles = []
    for lane in range(W):
        options = []
        for delay in range(merge[lane] - L + 1):
            memory = [0.0] * segments
            for j in range(L):
                last = delay + j + 1 if j < L - 1 else merge[lane]
                for t in range(delay + j, last + 1):
                    memory[t] += size_mb(lane * L + j)
            options.append(memory)
        profiles.append(options)
    best = [float("inf"), None]

    def search(lane, memory, delays):
        if lane == W:
            best[0], best[1] = max(memory), list(delays)
            return
        for delay, profile in enumerate(profiles[lane]):
            summed = [a + b for a, b in zip(memory, profile)]
            if max(summed) < best[0]:
                search(lane + 1, summed, delays + [delay])

    search(0, base, [])
    return best[0], best[1]


def random_search(tries, budget=137):
    """The least peak of `tries` greedy runs with random pause priorities and targets (seeded)."""
    rng = random.Random(1)
    best = None
    for _ in range(tries):
        held_weight, slack_weight = rng.uniform(0, 1.5), rng.uniform(0, 0.3)

        def priority(lane, next_node, slack):
            held = size_mb(lane * L + next_node[lane] - 1) if next_node[lane] > 0 else 0.0
            allocation = size_mb(lane * L + next_node[lane])
            return -allocation + held_weight * held - slack_weight * slack + rng.uniform(0, 2)

        level = greedy(rng.uniform(105, 135), budget, priority)
        if level:
            memory, depth = peak(level)
            if depth <= budget and (best is None or memory < best):
                best = memory
    return best


if __name__ == "__main__":
    main()
