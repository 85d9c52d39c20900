#!/usr/bin/env python3
"""Summary of bench/relay-compare.sh rows: per benchmark, size and relay configuration, the median
over rounds of each build's value (latency p50 in us, bandwidth in MB/s), the median of the
per-round ratios relay/tcp for each build (each round's relay run against the same round's tcp
run of the same build), and the median of the per-round ratios new/old.
Usage: bench/relay-compare-summary.py FILE.tsv"""
import statistics
import sys
from collections import defaultdict

rows = defaultdict(dict)  # (benchmark, bytes, config) -> {(round, build): value}
for line in open(sys.argv[1]):
    if line.startswith('#') or not line.strip():
        continue
    f = line.rstrip('\n').split('\t')
    rnd, build, config, bench, size = f[0], f[1], f[2], f[4], int(f[7])
    value = float(f[10]) if bench == 'latency' else float(f[13])  # p50 us, or MB/s
    rows[(bench, size, config)][(rnd, build)] = value

def med(v):
    return statistics.median(v) if v else float('nan')

print('benchmark\tbytes\tconfig\tunit\told\tnew\told/tcp\tnew/tcp\tnew/old\trounds')
for (bench, size, config) in sorted(rows, key=lambda k: (k[0], k[1], k[2])):
    if config == 'tcp':
        continue
    cell, tcp = rows[(bench, size, config)], rows.get((bench, size, 'tcp'), {})
    rounds = sorted({r for r, _ in cell})
    vals = {b: [cell[(r, b)] for r in rounds if (r, b) in cell] for b in ('old', 'new')}
    vs_tcp = {b: [cell[(r, b)] / tcp[(r, b)] for r in rounds if (r, b) in cell and (r, b) in tcp] for b in ('old', 'new')}
    new_old = [cell[(r, 'new')] / cell[(r, 'old')] for r in rounds if (r, 'new') in cell and (r, 'old') in cell]
    unit = 'p50 us' if bench == 'latency' else 'MB/s'
    print(f"{bench}\t{size}\t{config}\t{unit}\t{med(vals['old']):.1f}\t{med(vals['new']):.1f}\t"
          f"{med(vs_tcp['old']):.3f}\t{med(vs_tcp['new']):.3f}\t{med(new_old):.3f}\t{len(new_old)}")
