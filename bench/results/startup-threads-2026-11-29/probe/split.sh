#!/bin/bash
# split.sh "SIZES" ROUNDS: old (no exit flag) and new (bin/railyard's flags) alternating; cpu split per job
J=/usr/lib/jvm/temurin-25-jdk-amd64/bin
# WORK holds old/lib and new/lib (copies of two builds' railyard-cli/target/lib) and probe/ (the two
# classes, compiled with javac -cp "new/lib/*" -d probe probe/*.java)
cd "${WORK:-/tmp/t25}"
for ((i=1;i<=$2;i++)); do for n in $1; do for v in old new; do
  if [ $v = new ]; then f=-XX:UserThreadWaitAttemptsAtExit=0; else f=-XX:UserThreadWaitAttemptsAtExit=30; fi
  s=$(date +%s%6N)
  RAILYARD_LAUNCH_US=$s $J/java $f --enable-native-access=ALL-UNNAMED -cp "$v/lib/*:probe" ExitProbe run -np $n --threads -cp probe SplitProbe > sp.$v.log 2>&1
  e=$(date +%s%6N)
  awk -v v=$v -v n=$n -v r=$i -v wall=$(( (e-s)/1000 )) -v load=$(cut -d' ' -f1 /proc/loadavg) '
    /SPLIT/ { for (k=1;k<=NF;k++){split($k,kv,"="); x[kv[1]]=kv[2]} seen++; ci+=x["cpu_init"]; cb+=x["cpu_barrier"]; cc+=x["cpu_close"]; cm+=x["cpu_main"];
              if (x["w_init"]>wi) wi=x["w_init"]; if (x["w_barrier"]>wb) wb=x["w_barrier"]; if (x["w_close"]>wc) wc=x["w_close"]; if (!fm || x["w_main"]<fm) fm=x["w_main"] }
    /PROC/ { for (k=1;k<=NF;k++){split($k,kv,"="); p[kv[1]]=kv[2]} c1=$0; sub(/.*C1=/,"",c1); c1+=0; c2=$0; sub(/.*C2=/,"",c2); c2+=0; mn=$0; sub(/.*main=/,"",mn); mn+=0; car=$0; sub(/.*carriers=/,"",car); car+=0 }
    END { printf "%s n=%d r=%d ok=%d | wall: first main %d, all init %d, all barrier %d, all closed %d, exit %d | cpu ms: total %d, jit %d, launcher main %d, carriers %d, ranks main+init+barrier+close %d (per rank init %.0f barrier %.0f) | load %s\n",
      v, n, r, seen, fm, wi, wb, wc, wall, p["total"], c1+c2, mn, car, cm+ci+cb+cc, ci/seen, cb/seen, load }' sp.$v.log
done; done; done
