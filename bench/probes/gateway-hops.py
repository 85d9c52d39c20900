#!/usr/bin/env python3
"""Per-hop split of gwbench's 1 B ping-pongs from pcaps of the three WAN lab namespaces.

Usage: gateway-hops.py DIR ID [GATEWAY_PORT]   (DIR holds sts0ID.pcap, sts1ID.pcap, stwanID.pcap)

A message of the ping-pong is one TCP segment on every hop (TCP_NODELAY everywhere; 89 bytes of
payload through the gateways, 49 direct). Rank 0 (site 0) sends the ping, rank 1 (site 1) answers.
Each ping is followed from rank 0's segment to its gateway through every capture point to the
reply reaching rank 0; a job is a run of messages with gaps under a second. The WAN emulator's
frames are seen on its side as "P" (not addressed to it) coming in and "Out" leaving.
"""
import bisect, re, statistics, subprocess, sys

LINE = re.compile(r'^(\d+\.\d+) \S+\s+(In|Out|P)\s+IP (\S+)\.(\d+) > (\S+)\.(\d+): .*length (\d+)')
A, B = "10.77.0.1", "10.77.0.2"


def packets(path):
    text = subprocess.run(["tcpdump", "-r", path, "-n", "-tt"], capture_output=True, text=True).stdout
    rows = []
    for line in text.splitlines():
        m = LINE.match(line)
        if m and int(m.group(7)) > 0:
            t, way, sa, sp, da, dp, n = m.groups()
            rows.append((float(t), way, sa, sp, da, dp, int(n)))
    return rows


def follow(streams):
    """Chains of times, one per message: each the first packet of the next stream at or after the last."""
    chains = []
    for t0 in streams[0]:
        chain = [t0]
        for s in streams[1:]:
            i = bisect.bisect_left(s, chain[-1] - 2e-6)
            if i == len(s):
                break
            chain.append(s[i])
        if len(chain) == len(streams) and chain[-1] - chain[0] < 0.2:
            chains.append(chain)
    return chains


def jobs(chains):
    out = []
    for c in sorted(chains):
        if out and c[0] - out[-1][-1][0] < 1.0:
            out[-1].append(c)
        else:
            out.append([c])
    return out


def report(label, steps, chains, windows):
    ms = lambda v: statistics.median(v) * 1e3
    for j, job in enumerate(jobs(chains)):
        for lo, hi in windows:
            part = job[lo:hi]
            if len(part) < 5:
                continue
            cells = [f"{name} {ms([c[a + 1] - c[a] for c in part]):.3f}" for a, name in steps]
            back = ms([job[i + 1][0] - job[i][-1] for i in range(lo, min(hi, len(job) - 1))])
            half = ms([job[i + 1][0] - job[i][0] for i in range(lo, min(hi, len(job) - 1))]) / 2
            print(f"{label} job {j} ({len(job)} messages), messages {lo}-{min(hi, len(job))}: "
                  + " | ".join(cells) + f" | rank 0 turns {back:.3f} | half round trip {half:.3f} ms")


def main():
    d, i = sys.argv[1], sys.argv[2]
    port = sys.argv[3] if len(sys.argv) > 3 else "7430"
    s0, s1, w = (packets(f"{d}/{ns}{i}.pcap") for ns in ("sts0", "sts1", "stwan"))
    gw = lambda r: port in (r[3], r[5])
    local = lambda r: r[2] == r[4]
    windows = [(5, 55), (55, 205), (205, 1005), (1005, 10**6)]
    t = lambda rows, size: [r[0] for r in rows if r[6] == size]
    # through the gateways: the hops of the ping, then of the pong
    g = [[r for r in s0 if local(r) and r[5] == port],
         [r for r in s0 if not local(r) and r[1] == "Out" and gw(r)],
         [r for r in w if r[2] == A and r[1] == "P" and gw(r)],
         [r for r in w if r[2] == A and r[1] == "Out" and gw(r)],
         [r for r in s1 if not local(r) and r[1] == "In" and gw(r)],
         [r for r in s1 if local(r) and r[3] == port],
         [r for r in s1 if local(r) and r[5] == port],
         [r for r in s1 if not local(r) and r[1] == "Out" and gw(r)],
         [r for r in w if r[2] == B and r[1] == "P" and gw(r)],
         [r for r in w if r[2] == B and r[1] == "Out" and gw(r)],
         [r for r in s0 if not local(r) and r[1] == "In" and gw(r)],
         [r for r in s0 if local(r) and r[3] == port]]
    report("gateway", [(0, "gw0 in->out"), (2, "wanem"), (4, "gw1 in->out"), (5, "rank 1 turns"),
                       (6, "gw1 in->out"), (8, "wanem"), (10, "gw0 in->out")],
           follow([t(s, 89) for s in g]), windows)
    d0 = [r for r in s0 if not gw(r) and not local(r)]
    d1 = [r for r in s1 if not gw(r) and not local(r)]
    dw = [r for r in w if not gw(r)]
    direct = [[r for r in d0 if r[1] == "Out"], [r for r in dw if r[2] == A and r[1] == "P"],
              [r for r in dw if r[2] == A and r[1] == "Out"], [r for r in d1 if r[1] == "In"],
              [r for r in d1 if r[1] == "Out"], [r for r in dw if r[2] == B and r[1] == "P"],
              [r for r in dw if r[2] == B and r[1] == "Out"], [r for r in d0 if r[1] == "In"]]
    report("direct", [(1, "wanem"), (3, "rank 1 turns"), (5, "wanem")], follow([t(s, 49) for s in direct]), windows)


if __name__ == "__main__":
    main()
