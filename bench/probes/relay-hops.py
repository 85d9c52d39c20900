#!/usr/bin/env python3
"""Per-hop breakdown of relayed 8 B ping-pong from a perf script dump (sched + syscall tracepoints).
usage: relay-hops.py DUMP.txt TIDS PIDS (written by relay-hops.sh)"""
import re, sys, statistics
dump, tidsf, pidsf = sys.argv[1:4]
pids = open(pidsf).read().split()
relay = pids[1]; ranks = pids[3:5]
comm = {}; proc = {}
for line in open(tidsf):
    p, t, c = line.split(None, 2); comm[t] = c.strip(); proc[t] = p
# main thread: the second thread of each rank ('java')
mains = {}
for r in ranks:
    ts = sorted((int(t) for t in proc if proc[t] == r and comm[t] == 'java'))
    mains[str(ts[1])] = r
relayconn = {t for t in proc if proc[t] == relay and comm[t].startswith('relay-conn')}
rankthreads = {t for t in proc if proc[t] in ranks and comm[t].startswith('railyard-relay')}
ev = re.compile(r'^\s*(.+?)\s+(\d+)\s+\[(\d+)\]\s+([\d.]+):\s+(\S+):\s*(.*)$')
msgs = []; cur = None
wake_other = []
for line in open(dump):
    m = ev.match(line)
    if not m: continue
    c, tid, cpu, t, e, rest = m.groups(); t = float(t) * 1e6
    if e == 'syscalls:sys_enter_write' and tid in mains:
        cur = {'src': mains[tid], 'write': t}; msgs.append(cur); continue
    if cur is None: continue
    if e == 'sched:sched_wakeup':
        w = re.search(r'pid=(\d+)', rest).group(1)
        if w in relayconn and 'rwake' not in cur: cur['rwake'] = t; cur['rtid'] = w
        elif w in rankthreads:
            cur.setdefault('rankwakes', []).append((t, comm[w], proc[w]))
            if tid == cur.get('rtid'): cur['byrelay'] = cur.get('byrelay', 0) + 1
        elif w in mains and mains[w] != cur['src'] and 'recvwake' not in cur: cur['recvwake'] = t
    elif e == 'sched:sched_switch':
        n = re.search(r'next_pid=(\d+)', rest).group(1)
        if 'rwake' in cur and n == cur['rtid'] and 'rrun' not in cur: cur['rrun'] = t
    elif e == 'syscalls:sys_exit_read' and tid == cur.get('rtid') and 'rread' not in cur:
        if int(rest.split()[0], 16) < (1 << 63): cur['rread'] = t
    elif e == 'syscalls:sys_enter_write' and tid == cur.get('rtid'):
        if 'rdeliver' not in cur: cur['rdeliver'] = t
        elif 'rstored' not in cur: cur['rstored'] = t
    elif e == 'syscalls:sys_exit_read' and tid in mains and mains[tid] != cur['src'] and 'got' not in cur:
        if int(rest.split()[0], 16) < (1 << 63) and 'rdeliver' in cur: cur['got'] = t
hops = [('write', 'rwake', 'sender write(STORE) entered -> relay reader woken'),
        ('rwake', 'rrun', 'relay reader woken -> on a core'),
        ('rrun', 'rread', 'on a core -> its read returns the STORE'),
        ('rread', 'rdeliver', 'STORE read -> write(DELIVER) entered (store, hand-over)'),
        ('rdeliver', 'rstored', 'write(DELIVER) -> write(STORED) entered'),
        ('rdeliver', 'got', 'write(DELIVER) entered -> receiver main thread read returns it'),
        ('write', 'got', 'one way: sender write -> receiver has it')]
full = [m for m in msgs if all(k in m for k in ('rwake', 'rrun', 'rread', 'rdeliver', 'got'))]
print(f'# messages {len(msgs)}, complete {len(full)}')
print('| hop | p25 | p50 | p75 |'); print('|---|---|---|---|')
for a, b, name in hops:
    d = sorted(m[b] - m[a] for m in full if b in m)
    if d: print(f'| {name} | {d[len(d)//4]:.1f} | {statistics.median(d):.1f} | {d[3*len(d)//4]:.1f} |')
rw = [len(m.get('rankwakes', [])) for m in full]
print(f'# rank relay-thread wake-ups per message: mean {statistics.mean(rw):.2f}')
names = {}
for m in full:
    for _, n, _ in m.get('rankwakes', []): names[n] = names.get(n, 0) + 1
print('#', names)
print(f"# rank relay threads woken by the relay's reader's own writes, per message: {sum(m.get('byrelay', 0) for m in full) / len(full):.2f}")
rv = [m for m in full if 'recvwake' in m]
print(f'# receiver main thread woken (was asleep) in {len(rv)} of {len(full)}')
