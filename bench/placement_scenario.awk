# The placement benchmark's scenario (bench/placement.sh), the same for
# every setup and every run with the same seed: its own Park-Miller
# generator (x = x * 16807 mod 2^31 - 1, exact in awk's doubles), not awk's
# rand(), whose sequence differs between mawk and gawk.
#
#   awk -v seed=S -v nodes=N -v pods=P -v nodes_out=FILE -v pods_out=FILE \
#       -f bench/placement_scenario.awk </dev/null
#
# nodes_out: "NAME CPU_CORES MEMORY_BYTES CLASS BG_LOW_M BG_HIGH_M PHASE_S"
# per node, every one 8 CPUs and 32 GiB. The background is usage that no pod
# requests (system daemons, work outside Kubernetes), in millicores:
#   hot    (every 5th node):             4000 + U(0, 800), steady;
#   spiky  (nodes 3, 13, 23, ...):       200 + U(0, 600), but 4800 for 20 s of
#                                        every 40 s from PHASE_S = U(0, 40);
#   quiet  (the others):                 200 + U(0, 600), steady.
# pods_out: "NAME CPU_M MEMORY_BYTES FACTOR_PERMILLE" per pod: requests
# 200m, 400m, 600m, 800m in turn with 128Mi; the pod uses FACTOR/1000 of
# its CPU request, FACTOR = 500 + U(0, 400) (mean 70 %), fixed per pod.
function u() {
    x = (x * 16807) % 2147483647
    return x / 2147483647
}
BEGIN {
    x = seed % 2147483647
    if (x <= 0) x += 2147483646
    for (i = 1; i <= nodes; i++) {
        name = sprintf("pl-%02d", i)
        if (i % 5 == 0) {
            cls = "hot"; lo = 4000 + int(u() * 800); hi = lo; ph = 0
        } else if (i % 10 == 3) {
            cls = "spiky"; lo = 200 + int(u() * 600); hi = 4800; ph = int(u() * 40)
        } else {
            cls = "quiet"; lo = 200 + int(u() * 600); hi = lo; ph = 0
        }
        printf "%s 8 %.0f %s %d %d %d\n", name, 32 * 1024 * 1024 * 1024, cls, lo, hi, ph >nodes_out
    }
    for (i = 1; i <= pods; i++) {
        printf "pp-%04d %d %d %d\n", i, 200 * (1 + (i - 1) % 4), 128 * 1024 * 1024, 500 + int(u() * 400) >pods_out
    }
}
