#!/usr/bin/env python3
"""Pools the rounds of several paired runs of bench/compare-coll.sh (--paired) and checks the
targets of issue 3 on the median of all per-round ratios of a cell.

Usage: bench/pool-paired.py DIR [DIR ...]

Each DIR is the output directory of one run (its raw.tsv). Runs of the same build at the same np
pool into one sample per cell: a cell measured in 3 rounds by one run and 5 by another gets the
median of its 8 per-round ratios. Targets: Railyard (heap arrays, off-heap buffers, the mpiJava
facade) faster than MPJ Express in every cell; at np 4, within 3x Open MPI up to 8 KiB and within
1.5x from 64 KiB.
"""
import statistics
import sys

RAILYARD = ["railyard-shm", "railyard-shm-offheap", "railyard-mpijava"]
PEERS = ["mpj-multicore", "ompi-vader"]


def rows(directory):
    """(collective, np, bytes) -> implementation -> round -> mean us."""
    out = {}
    with open(directory + "/raw.tsv") as f:
        for line in f:
            fields = line.rstrip("\n").split("\t")
            if len(fields) < 8:
                continue
            impl, rnd, coll, _, np, size, _, mean = fields[:8]
            out.setdefault((coll, int(np), int(size)), {}).setdefault(impl, {})[int(rnd)] = float(mean)
    return out


def limit(peer, np, size):
    """The target's bound on Railyard/peer for a cell, or None if no target covers it."""
    if peer == "mpj-multicore":
        return 1.0
    if np != 4:
        return None
    if size <= 8 * 1024:
        return 3.0
    return 1.5 if size >= 64 * 1024 else None


def main(dirs):
    if not dirs:
        sys.exit(__doc__.strip())
    ratios = {}
    for d in dirs:
        for cell, by_impl in rows(d).items():
            for impl in RAILYARD:
                for peer in PEERS:
                    if impl in by_impl and peer in by_impl and limit(peer, cell[1], cell[2]) is not None:
                        mine, theirs = by_impl[impl], by_impl[peer]
                        for r in mine:
                            if r in theirs and theirs[r] > 0:
                                ratios.setdefault((impl, peer), {}).setdefault(cell, []).append(mine[r] / theirs[r])
    for (impl, peer), cells in sorted(ratios.items()):
        medians = {cell: statistics.median(v) for cell, v in cells.items()}
        misses = sorted((cell, m) for cell, m in medians.items() if m > limit(peer, cell[1], cell[2]))
        worst = max(medians.items(), key=lambda kv: kv[1] / limit(peer, kv[0][1], kv[0][2]))
        rounds = sorted({len(v) for v in cells.values()})
        print("%s vs %s: %d of %d cells met (rounds a cell: %s); worst %.2f at %s %d B%s" % (
            impl, peer, len(medians) - len(misses), len(medians), "/".join(map(str, rounds)), worst[1],
            worst[0][0], worst[0][2], "".join("; MISS %s np %d %d B %.2f" % (c[0], c[1], c[2], m) for c, m in misses)))


if __name__ == "__main__":
    main(sys.argv[1:])
