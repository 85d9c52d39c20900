#!/usr/bin/env python3
"""Where a warm iteration of the synchronous obstacle solve goes, at np 2, from per-iteration stamps.

The stamps come from a temporary build: apply bench/probes/warm-iteration-trace.patch (it adds
org.railyard.WaitTrace, stamps in util/BackoffIdle for the traced thread, and stamps in
apps/obstacle/ParallelSolver), build railyard-cli/target/lib, and run
    railyard run -np 2 --jvm-arg=-Dobstacle.trace=DIR org.railyard.apps.obstacle.RepeatedSolves 48 4
Every rank writes DIR/trace-r<rank>-s<solve>.txt, one line of 28 numbers per iteration
(System.nanoTime, comparable between the ranks' processes on Linux):
  0 iteration start   1/2 halo isend called/returned   3 halo wait begins   4 halo wait ends
  5-11 halo wait's waiter idle: spins, yields, parks*1e6+sleeps, ns idle, last action (0 spin,
       1 yield, 2 park, 3 sleep, -1 none), last action began, ended
  12 boundary sweep done   13 allreduce begins   14 allreduce ends   15-21 as 5-11 for the allreduce
  22 iteration end   23/24 halo wait's first yield/park began   25/26 the allreduce's

usage: warm-iteration.py breakdown DIR SOLVE          per rank: means and medians (us)
       warm-iteration.py timeline DIR SOLVE K COUNT   iterations K.. side by side (us from the earlier start)

Each wait W splits into (a) waiting for the partner (the partner's send, or its entry into the
allreduce, came after this rank began to wait), (c) wake-up (the partner's frame came while this
rank was in a yield, park or sleep: from the later of the frame and the idle action's start to
the action's end) and (b) the rest (message path, and for the allreduce its own steps)."""
import statistics as st
import sys

KIND = {-1: '-', 0: 'spin', 1: 'yield', 2: 'park', 3: 'sleep'}


def load(d, r, s):
    with open(f"{d}/trace-r{r}-s{s}.txt") as f:
        return [list(map(int, line.split())) for line in f]


def split(begin, end, partner_at, kind, idle_from, idle_to):
    w = end - begin
    a = min(max(partner_at - begin, 0), w)
    c = 0
    if kind >= 1 and idle_to > partner_at:
        c = max(min(idle_to - max(partner_at, idle_from), w - a), 0)
    return w, a, w - a - c, c


def breakdown(d, s):
    ranks = [load(d, 0, s), load(d, 1, s)]
    n = min(len(ranks[0]), len(ranks[1]))
    for r in (0, 1):
        me, pa = ranks[r], ranks[1 - r]
        acc = {k: [] for k in ('iteration', 'compute', 'halo', 'halo(a)', 'halo(b)', 'halo(c)',
                               'test', 'test(a)', 'test(b)', 'test(c)')}
        last = {'halo': [0] * 5, 'test': [0] * 5}
        for k in range(1, n):
            m, p = me[k], pa[k]
            if k + 1 < n:
                acc['iteration'].append(max(me[k + 1][0], pa[k + 1][0]) - max(m[0], p[0]))
            acc['compute'].append((m[3] - m[2]) + (m[12] - m[4]))
            for name, b, e, pat, at in (('halo', 3, 4, p[2], 5), ('test', 13, 14, p[13], 15)):
                w, a, bb, c = split(m[b], m[e], pat, m[at + 4], m[at + 5], m[at + 6])
                acc[name].append(w)
                acc[name + '(a)'].append(a)
                acc[name + '(b)'].append(bb)
                acc[name + '(c)'].append(c)
                last[name][m[at + 4] + 1] += 1
        print(f"solve {s} rank {r}, {n} iterations, mean/median us:")
        print("  " + "  ".join(f"{k} {st.mean(v) / 1e3:.1f}/{st.median(v) / 1e3:.1f}" for k, v in acc.items()))
        print("  last idle action of a wait (none, spin, yield, park, sleep): halo", last['halo'], "test", last['test'])


def timeline(d, s, k0, count):
    ranks = [load(d, 0, s), load(d, 1, s)]
    for k in range(k0, k0 + count):
        base = min(ranks[0][k][0], ranks[1][k][0])
        for r in (0, 1):
            m = ranks[r][k]
            t = lambda x: f"{(x - base) / 1e3:7.1f}" if x else "      -"
            print(f"k{k} r{r} start{t(m[0])} sent{t(m[2])} halo{t(m[3])}..{t(m[4])} [{KIND[m[9]]} spins {m[5]} yields {m[6]}"
                  f" first yield{t(m[23])} first park{t(m[24])}] allreduce{t(m[13])}..{t(m[14])} [{KIND[m[19]]}"
                  f" spins {m[15]} yields {m[16]} first yield{t(m[25])} first park{t(m[26])}]")


if __name__ == '__main__':
    if len(sys.argv) == 4 and sys.argv[1] == 'breakdown':
        breakdown(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 6 and sys.argv[1] == 'timeline':
        timeline(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]))
    else:
        sys.exit(__doc__)
