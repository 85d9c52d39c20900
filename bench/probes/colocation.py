#!/usr/bin/env python3
"""Do the two ranks of a job share one processor? Starts `railyard run -np 2 RepeatedSolves 48 8`
with the jars of LIBDIR (RAILYARD_BIND=MODE if given), finds each rank's busiest thread (its main
thread) after 6 s, and samples /proc/<pid>/task/<tid>/stat every 0.5 ms for 3 s: the processor
each last ran on and whether both are running or runnable. Linux only.
usage: colocation.py LIBDIR [MODE]"""
import os, sys, time, subprocess
lib = sys.argv[1]; env = dict(os.environ, RAILYARD_AOT='off')
if len(sys.argv) > 2: env['RAILYARD_BIND'] = sys.argv[2]
p = subprocess.Popen(['/usr/lib/jvm/temurin-25-jdk-amd64/bin/java', '--enable-native-access=ALL-UNNAMED', '-cp', lib + '/*',
     'org.railyard.cli.Main', 'run', '-np', '2', 'org.railyard.apps.obstacle.RepeatedSolves', '48', '8'], env=env,
     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
time.sleep(6)
kids = [int(x) for x in subprocess.run(['pgrep', '-P', str(p.pid)], capture_output=True, text=True).stdout.split()]
def stat(path):
    s = open(path).read(); r = s.rsplit(')', 1)[1].split()
    return r[0], int(r[36]), int(r[11]) + int(r[12])  # state, processor, utime+stime
mains = []
for k in kids:
    best = max(os.listdir(f'/proc/{k}/task'), key=lambda t: stat(f'/proc/{k}/task/{t}/stat')[2])
    mains.append(f'/proc/{k}/task/{best}/stat')
n = same = both = 0; t_end = time.time() + 3
while time.time() < t_end:
    try: a = stat(mains[0]); b = stat(mains[1])
    except Exception: break
    n += 1
    if a[1] == b[1]: same += 1
    if a[0] == 'R' and b[0] == 'R': both += 1
    time.sleep(0.0005)
p.wait()
print(f"bind={env.get('RAILYARD_BIND','default')} samples {n}: main threads last on the same processor {100*same/max(n,1):.0f}%, both running or runnable {100*both/max(n,1):.0f}%")
