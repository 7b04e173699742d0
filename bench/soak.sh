#!/bin/sh
# The soak (make soak): SOAK_SECONDS (default 600) at 80 % of the capacity
# measured first, against the release binary on 127.0.0.1 with the shipped
# configuration (manifests/scheduler/config.json, with the memory budget the
# Deployment's 256Mi limit gives it, 192 MiB), on two connections at once: a
# 100-node NodeList filter (nodeCacheCapable: false, 1.2 MB bodies) and
# 500-name prioritize calls (nodeCacheCapable: true). Meanwhile the config
# file is replaced every 30 s and changed for SIGHUP 15 s after each (a
# reload every 15 s, alternating), /metrics is scraped every second, and
# VmRSS and the open descriptors are sampled every 10 s.
#
# Passes with no 5xx and no answer but 200, every scrape 200, every reload
# accepted, RSS flat after the warm-up (SOAK_WARMUP, default 60 s: the
# least-squares slope of VmRSS, projected over the rest of the run, under
# 2 MiB) and no descriptor growth (none above the count at the warm-up but
# the scrape's own connection). Prints the figures docs/reliability.md
# quotes.
# Usage: bench/soak.sh build/release   (from the repo root; not part of make test)
set -eu
# Loopback only: never a cluster from the environment.
unset KUBECONFIG KUBERNETES_SERVICE_HOST
. "$(dirname "$0")/../tests/support/server.sh"
B=${1:-build/release}
secs=${SOAK_SECONDS:-600}
warm=${SOAK_WARMUP:-60}
budget=201326592 # server/http/budget.c's rule for 256Mi: 256 - max(64, 256 / 4) MiB
data=build/bench
mkdir -p "$data"
[ -f "$data/nodes-100.json" ] && [ -f "$data/names-500.json" ] || "$B/bench-gen" "$data" 100 500
tmp=$(mktemp -d)
pid="" bg=""
cleanup() {
    for p in $bg; do kill "$p" 2>/dev/null || true; done
    [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT HUP INT TERM

sed "s/\"memoryBudgetBytes\": 0/\"memoryBudgetBytes\": $budget/" manifests/scheduler/config.json \
    >"$tmp/config.json"
grep -q "\"memoryBudgetBytes\": $budget" "$tmp/config.json"
# The access log's info lines (one per request) are dropped on the way to
# the log file: a million of them say nothing the counters do not.
mkfifo "$tmp/fifo"
grep --line-buffered -v '"level":"info","msg":"request"' <"$tmp/fifo" >"$tmp/log" &
bg="$bg $!"
HOME=/nonexistent "$B/cpu-extender" --config "$tmp/config.json" --listen 127.0.0.1:0 \
    2>"$tmp/fifo" & # no ~/.kube/config
pid=$!
port=$(wait_port "$tmp/log")
url=http://127.0.0.1:$port

# Capacity of each workload alone, then 80 % of it for both at once.
cap() { "$B/bench-driver" case "$port" "$pid" "$1" "$2" "$3" 5 1 | awk -F'|' '{gsub(/ /,"",$15); print $15}'; }
c1=$(cap filter "$data/nodes-100.json" 100)
c2=$(cap prioritize "$data/names-500.json" 500)
r1=$(awk -v c="$c1" 'BEGIN{printf "%d", c * 0.4}')
r2=$(awk -v c="$c2" 'BEGIN{printf "%d", c * 0.4}')
echo "capacity: filter nodes-100 $c1/s, prioritize names-500 $c2/s alone;" \
    "soaking at $r1/s + $r2/s (80 % shared by both) for $secs s" >&2
metric() { curl -s "$url/metrics" | awk -v k="$1" '$1 == k { print $2 }'; }
reloads0=$(metric 'cpu_extender_config_reloads_total{result="accepted"}')

"$B/bench-driver" soak "$port" "$pid" "$data/nodes-100.json" filter "$r1" "$secs" >"$tmp/a" &
a=$!
"$B/bench-driver" soak "$port" "$pid" "$data/names-500.json" prioritize "$r2" "$secs" >"$tmp/b" &
b=$!

# /metrics every second.
(
    ok=0 bad=0
    while :; do
        code=$(curl -s -o /dev/null -w '%{http_code}' "$url/metrics" || echo 000)
        if [ "$code" = 200 ]; then ok=$((ok + 1)); else bad=$((bad + 1)); fi
        echo "$ok $bad" >"$tmp/scrapes"
        sleep 1
    done
) &
bg="$bg $!"
# A reload every 15 s, each a real change (an unchanged configuration is
# not reloaded): decisionsKept 100 -> 101 in a new file (as a ConfigMap
# update arrives), then back to 100 written in place with the file's
# stamp kept, so that only SIGHUP can notice it.
(
    n=0
    while :; do
        sleep 15
        sed 's/"decisionsKept": 100/"decisionsKept": 101/' "$tmp/config.json" >"$tmp/next"
        mv "$tmp/next" "$tmp/config.json"
        n=$((n + 1))
        echo "$n" >"$tmp/reloads"
        sleep 15
        cp -p "$tmp/config.json" "$tmp/stamp"
        sed 's/"decisionsKept": 101/"decisionsKept": 100/' "$tmp/stamp" >"$tmp/next"
        cat "$tmp/next" >"$tmp/config.json"
        touch -r "$tmp/stamp" "$tmp/config.json"
        kill -HUP "$pid"
        n=$((n + 1))
        echo "$n" >"$tmp/reloads"
    done
) &
bg="$bg $!"

# VmRSS (KiB) and open descriptors every 10 s, until both loads end.
start=$(date +%s)
while kill -0 "$a" 2>/dev/null || kill -0 "$b" 2>/dev/null; do
    t=$(($(date +%s) - start))
    rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status")
    fds=$(ls "/proc/$pid/fd" | wc -l)
    echo "$t $rss $fds" >>"$tmp/samples"
    sleep 10
done
status=0
wait "$a" || status=1
wait "$b" || status=1
for p in $bg; do kill "$p" 2>/dev/null || true; done
bg=""
sleep 2 # a reload in the last second is picked up
cat "$tmp/a" "$tmp/b"

made=$(cat "$tmp/reloads" 2>/dev/null || echo 0)
accepted=$(($(metric 'cpu_extender_config_reloads_total{result="accepted"}') - reloads0))
rejected=$(metric 'cpu_extender_config_reloads_total{result="rejected"}')
five=$(curl -s "$url/metrics" | awk '/^cpu_extender_requests_total/ && /status="5/ { s += $2 } END { print s + 0 }')
refused=$(curl -s "$url/metrics" | awk '/^cpu_extender_memory_refused_total/ { s += $2 } END { print s + 0 }')
read -r scrapes_ok scrapes_bad <"$tmp/scrapes"
echo "reloads: $made made, $accepted accepted, $rejected rejected"
echo "scrapes: $scrapes_ok answered 200, $scrapes_bad not"
echo "server: 5xx answers $five, refused for memory $refused," \
    "error lines $(grep -c '"level":"error"' "$tmp/log" || true)"
# RSS slope after the warm-up (least squares), and its projection over the
# measured window; descriptors at the warm-up and the most after it.
awk -v warm="$warm" '$1 >= warm {
        n++; sx += $1; sy += $2; sxx += $1 * $1; sxy += $1 * $2
        if (first == "") { first = $2; f0 = $3; t0 = $1 }
        last = $2; t1 = $1; if ($2 > hi || hi == "") hi = $2; if ($2 < lo || lo == "") lo = $2
        if ($3 > fmax) fmax = $3
    }
    END {
        slope = n > 1 ? (n * sxy - sx * sy) / (n * sxx - sx * sx) : 0
        printf "VmRSS after %d s: %.1f MiB at first, %.1f at the end, %.1f..%.1f; slope %.3f KiB/min (%.2f MiB over the %d s measured)\n", \
            warm, first / 1024, last / 1024, lo / 1024, hi / 1024, slope * 60, slope * (t1 - t0) / 1024, t1 - t0
        printf "descriptors: %d at %d s, at most %d after\n", f0, t0, fmax
        exit !(slope * (t1 - t0) < 2048 && fmax <= f0 + 1)
    }' "$tmp/samples" || { echo "FAIL: RSS or descriptors grew" >&2; status=1; }
[ "$five" = 0 ] && [ "$scrapes_bad" = 0 ] && [ "$accepted" = "$made" ] && [ "$rejected" = 0 ] ||
    { echo "FAIL: 5xx, failed scrapes or reloads not accepted" >&2; status=1; }
echo "samples (s, VmRSS KiB, descriptors):"
tr '\n' ';' <"$tmp/samples"
echo
exit $status
