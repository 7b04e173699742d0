# The placement benchmark's model of what each node uses (bench/placement.sh):
# background (bench/placement_scenario.awk) + Σ over the pods bound to it of
# request × the pod's factor. Bindings come from the pods' watch log
# (bench/cluster_bench.sh's watch_start: "TIME TYPE NAME NODE RV"; a pod's
# last event says where it is, DELETED that it is gone).
#
#   awk -v mode=tick -v now=SECONDS -v dir=DIR -f bench/placement_usage.awk NODES PODS WATCH-LOG
#       writes DIR/NAME = "CPU_CORES MEMORY_BYTES" for every node, the
#       kubelet stand-in's usage file (spiky nodes at their background of
#       the moment: high while (now + PHASE_S) mod 40 < 20);
#   awk -v mode=final -v out=FILE -f bench/placement_usage.awk NODES PODS WATCH-LOG
#       writes FILE: "NAME CLASS PODS REQUESTED_M USED_M PERCENT" per node,
#       spiky nodes at their peak (the background at its high), and prints
#       "BOUND MAX_PERCENT STDDEV_PERCENT NODES_OVER_80" (population
#       standard deviation of the nodes' percentages).
FILENAME == ARGV[1] {
    n[++nn] = $1; cpu[$1] = $2 * 1000; cls[$1] = $4; lo[$1] = $5; hi[$1] = $6; ph[$1] = $7
    next
}
FILENAME == ARGV[2] { req[$1] = $2; mem[$1] = $3; f[$1] = $4; next }
$2 == "DELETED" { delete at[$3]; next }
$4 != "-" && ($3 in req) { at[$3] = $4 }
END {
    for (p in at) {
        k = at[p]; bound++
        pm[k] += int(req[p] * f[p] / 1000); pmem[k] += int(mem[p] * f[p] / 1000)
        pr[k] += req[p]; pc[k]++
    }
    for (i = 1; i <= nn; i++) {
        k = n[i]
        if (mode == "tick") {
            bg = ((now + ph[k]) % 40 < 20) ? hi[k] : lo[k]
            printf "%.3f %.0f\n", (bg + pm[k]) / 1000, 1073741824 + pmem[k] >(dir "/" k)
            close(dir "/" k)
            continue
        }
        pct = (hi[k] + pm[k]) * 100 / cpu[k]
        printf "%s %s %d %d %d %.1f\n", k, cls[k], pc[k], pr[k], hi[k] + pm[k], pct >out
        s += pct; ss += pct * pct
        if (pct > max) max = pct
        if (pct > 80) over++
    }
    if (mode == "final") {
        mean = s / nn; var = ss / nn - mean * mean
        printf "%d %.1f %.1f %d\n", bound, max, sqrt(var > 0 ? var : 0), over
    }
}
