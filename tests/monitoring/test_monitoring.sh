#!/bin/sh
# make test-monitoring: Debian's Prometheus (2.42) scrapes the running
# service, and promtool checks what manifests/monitoring ships.
#   - promtool: the rules file, its unit tests (tests/monitoring/rules_test.yaml,
#     one per alert), the exposition (`promtool check metrics`); the latency
#     alert's threshold is half the scheduler's httpTimeout, as the shipped
#     config.json reads it (schedulerConfig, `config check`);
#   - the service watches a fake cluster (bench-apiserver, HTTPS on
#     127.0.0.1) and gets a known number of requests of every verb, malformed
#     ones and an accepted and a rejected reload (the bind of one of its
#     pending pods gives the shadow report one comparison);
#   - Prometheus scrapes its metrics listener (metricsListen, which serves no
#     verb) with the job of scrape-config.yaml (its relabelling fed the
#     labels pod discovery would give, the port the Deployment's
#     prometheus.io/port annotation names replaced by the test's), evaluates
#     rules.yaml, and its HTTP API shows: the target up with the relabelled
#     labels; every family of /metrics with its type and help; every series;
#     the counts sent; histogram_quantile equal to the quantile worked out
#     from the scraped buckets; the alerts these requests must raise, and
#     no other; every query of dashboard.json parses and returns data;
#     every family is on the dashboard.
# Usage: tests/monitoring/test_monitoring.sh BUILD_DIR   (from the repository root)
set -eu
B=${1:?usage: test_monitoring.sh BUILD_DIR}
bin=$B/cpu-extender
rules=manifests/monitoring/rules.yaml
rules_test=tests/monitoring/rules_test.yaml
scrape=manifests/monitoring/scrape-config.yaml
dashboard=manifests/monitoring/dashboard.json
sched_config=manifests/scheduler/scheduler-config.yaml
job=cpu-extender
. "$(dirname "$0")/../support/server.sh"
# shellcheck source=tests/monitoring/prometheus_start.sh
. "$(dirname "$0")/prometheus_start.sh"
unset KUBECONFIG KUBERNETES_SERVICE_HOST
for tool in prometheus promtool jq curl; do
    command -v "$tool" >/dev/null || { echo "test_monitoring: $tool is missing (make ship-deps)" >&2; exit 1; }
done
work=$(mktemp -d)
pids=""
cleanup() {
    for p in $pids; do
        # || true: under set -e a killed child's status would end the trap
        # before the other processes and the directory.
        if kill "$p" 2>/dev/null; then wait "$p" 2>/dev/null || true; fi
    done
    rm -rf "$work"
}
trap cleanup EXIT HUP INT TERM
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
check() { if "$@"; then ok; else bad "$*"; fi; }
same() { if [ "$2" = "$3" ]; then ok; else bad "$1: got '$2', want '$3'"; fi; }

# ---- promtool on the files ----
check promtool check rules "$rules" >/dev/null
out=$(promtool test rules "$rules_test" 2>&1) && ok || bad "promtool test rules: $out"
for alert in $(sed -n 's/^ *- alert: //p' "$rules"); do
    # Every alert has a unit test that expects it to fire.
    n=$(awk -v a="$alert" '$1 == "alertname:" && $2 == a { t = 1; next }
        t && /exp_alerts: \[\]/ { t = 0 } t && /exp_labels:/ { n++; t = 0 } END { print n + 0 }' "$rules_test")
    check test "$n" -ge 1 || echo "  ($alert has no unit test that fires it)" >&2
done
# The timeout as the extender reads it: config.json names the scheduler's
# file (schedulerConfig), whose httpTimeout is the only copy.
timeout_ms=$("$bin" config check manifests/scheduler/config.json 2>/dev/null |
    sed -n 's/^  "schedulerTimeoutMs": \([0-9]*\),$/\1/p')
same "httpTimeout as config check reads it from $sched_config" \
    "$timeout_ms" "$(($(sed -n 's/^ *httpTimeout: \([0-9]*\)s$/\1/p' "$sched_config") * 1000))"
same "CpuExtenderLatencyNearTimeout threshold (0.5 * httpTimeout)" \
    "$(sed -n 's/.*> 0\.5 \* \([0-9.]*\)$/\1/p' "$rules")" "$((timeout_ms / 1000))"
same "the Deployment's prometheus.io/port is its containerPort metrics" \
    "$(sed -n 's/^ *prometheus.io\/port: "\([0-9]*\)"$/\1/p' manifests/deployment.yaml)" \
    "$(awk '/- name: metrics$/ { m = 1; next } m && /containerPort:/ { print $2; exit }' manifests/deployment.yaml)"
same "the shipped metricsListen port is the annotation's" \
    "$(sed -n 's/^  "metricsListen": "0.0.0.0:\([0-9]*\)",$/\1/p' manifests/scheduler/config.json)" \
    "$(sed -n 's/^ *prometheus.io\/port: "\([0-9]*\)"$/\1/p' manifests/deployment.yaml)"

# ---- the service, watching a fake cluster ----
nodes=12
tests/e2e/make_certs.sh "$work/pki" >/dev/null
token="monitoring-$$"
"$B/bench-apiserver" "$work/pki/server.pem" "$work/pki/server.key" "$token" "$nodes" 8 600 \
    >"$work/apiserver.out" 2>"$work/apiserver.log" &
pids="$pids $!"
api_port=""
for _ in $(seq 300); do
    # Not there yet until the child opens it; a failing sed would end the script.
    api_port=$(sed -n 's/^port=\([0-9]*\)$/\1/p' "$work/apiserver.out" 2>/dev/null || true)
    [ -n "$api_port" ] && break
    sleep 0.1
done
[ -n "$api_port" ] || { cat "$work/apiserver.log" >&2; echo "bench-apiserver gave no port" >&2; exit 1; }
write_kubeconfig "$work/kubeconfig" "$api_port" "$work/pki/ca.pem" "$token"
# Memory used is the larger of requests and usage: the metrics.k8s.io poll
# (and its sample age) is part of what is scraped.
base='"listen":"127.0.0.1:0","metricsListen":"127.0.0.1:0","debugEndpoints":true,"memoryUsedSource":"max","metricsIntervalSeconds":1'
printf '{%s}\n' "$base" >"$work/config.json"
"$bin" --config "$work/config.json" --kubeconfig "$work/kubeconfig" 2>"$work/server.log" &
pids="$pids $!"
port=$(wait_port "$work/server.log")
mport=$(sed -n 's/.*"msg":"listening",.*"metricsAddr":"127.0.0.1:\([0-9]*\)".*/\1/p' "$work/server.log")
check test -n "$mport"
for _ in $(seq 100); do
    [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/readyz")" = 200 ] && break
    sleep 0.1
done
same "/readyz" "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/readyz")" 200
# Prometheus scrapes the metrics listener, which answers no verb.
target=127.0.0.1:$mport
same "a verb on the metrics listener" \
    "$(curl -s -o /dev/null -w '%{http_code}' --data-binary '{}' "http://$target/scheduler/filter")" 404
same "/readyz on the metrics listener" "$(curl -s -o /dev/null -w '%{http_code}' "http://$target/readyz")" 200

# ---- Prometheus, with the job of scrape-config.yaml ----
# Pod discovery replaced by one static target carrying the labels it would
# give the extender's pod; every relabelling step of the file runs as is.
cat >"$work/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files:
  - $PWD/$rules
EOF
awk -v host="${target%:*}" -v mport="${target##*:}" '
    /^scrape_configs:/ { s = 1 }
    !s { next }
    /^    kubernetes_sd_configs:/ {
        print "    static_configs:"
        print "      - targets: [\"" host "\"]"
        print "        labels:"
        print "          __meta_kubernetes_pod_annotation_prometheus_io_scrape: \"true\""
        print "          __meta_kubernetes_pod_annotation_prometheus_io_port: \"" mport "\""
        print "          __meta_kubernetes_pod_label_app_kubernetes_io_name: cpu-extender-scheduler"
        print "          __meta_kubernetes_namespace: kube-system"
        print "          __meta_kubernetes_pod_name: cpu-extender-scheduler-0"
        skip = 1; next
    }
    skip && /^      / { next }
    { skip = 0 }
    /^    scrape_interval:/ { print "    scrape_interval: 1s"; next }
    { print }
' "$scrape" >>"$work/prometheus.yml"
check promtool check config "$work/prometheus.yml" >/dev/null
prometheus_start "$work" 7
api="http://127.0.0.1:$pport/api/v1"
# query EXPR: the API's JSON answer for an instant query.
query() { curl -s --max-time 10 --get --data-urlencode "query=$1" "$api/query"; }
value() { query "$1" | jq -r '.data.result[0].value[1] // "none"'; }

# Traffic only once Prometheus has a sample from before it: rate() and
# increase() need the counters' values on both sides.
for _ in $(seq 100); do
    [ "$(value "up{job=\"$job\"}")" = 1 ] && break
    sleep 0.1
done
same "up before the requests" "$(value "up{job=\"$job\"}")" 1
sleep 1

# ---- requests, each counted, spread over a few scrapes ----
url=http://127.0.0.1:$port/scheduler
names=$(seq 0 $((nodes - 1)) | awk '{ printf "%s\"node-%05d\"", (NR > 1 ? "," : ""), $1 }')
# The pod scored is one of the fake cluster's pending pods, so that binding
# it gives the shadow report a comparison (its families then have data).
curl -s --max-time 10 --cacert "$work/pki/ca.pem" -H "Authorization: Bearer $token" \
    "https://127.0.0.1:$api_port/api/v1/pods" >"$work/pods.json"
pending=$(jq -c '[.items[] | select((.spec.nodeName // "") == "")][0].metadata | {name, namespace, uid}' \
    "$work/pods.json")
case $pending in *'"uid":"'?*) ok ;; *) bad "no pending pod in the fake cluster: $pending"; exit 1 ;; esac
pod_name=$(echo "$pending" | jq -r .name) pod_ns=$(echo "$pending" | jq -r .namespace)
pod_uid=$(echo "$pending" | jq -r .uid)
pod='{"metadata":'"$pending"',"spec":{"containers":[{"name":"app","resources":{"requests":{"cpu":"500m","memory":"256Mi"}}}]}}'
printf '{"Pod":%s,"NodeNames":[%s,"not-a-node"]}' "$pod" "$names" >"$work/names.json"
post() { curl -s -o /dev/null -w '%{http_code}' --max-time 10 --data-binary "@$2" "$url/$1"; }
n_filter=30 n_preempt=3 n_bind=2 n_bad=2
n_prioritize=$n_filter # one after each filter
preempt=tests/fixtures/captured/preempt-cache/raw/000001-preempt.req.json
for i in $(seq $n_filter); do
    post filter "$work/names.json" >/dev/null
    post prioritize "$work/names.json" >/dev/null
    [ $((i % 10)) -eq 0 ] && sleep 1
done
for _ in $(seq $n_preempt); do post preempt "$preempt" >/dev/null; done
# The first binds the pod (the watch shows it: one comparison, mode enforce:
# the debug endpoints are on); the second finds it bound there, a success.
printf '{"PodName":"%s","PodNamespace":"%s","PodUID":"%s","Node":"node-00001"}' \
    "$pod_name" "$pod_ns" "$pod_uid" >"$work/bind.json"
for _ in $(seq $n_bind); do post bind "$work/bind.json" >/dev/null; done
printf '{"Pod":{"spec":{"containers":[{"resources":{"requests":{"cpu":"2 cores"}}}]}},"NodeNames":["node-00000"]}' >"$work/bad.json"
for _ in $(seq $n_bad); do same "malformed filter" "$(post filter "$work/bad.json")" 400; done
# One accepted reload, one rejected (the file is re-read within a second).
printf '{%s,"strategy":"pack"}\n' "$base" >"$work/config.json.new"
mv "$work/config.json.new" "$work/config.json"
for _ in $(seq 50); do grep -q '"msg":"config reloaded' "$work/server.log" && break; sleep 0.1; done
printf '{%s,"strategy":"nonsense"}\n' "$base" >"$work/config.json.new"
mv "$work/config.json.new" "$work/config.json"
for _ in $(seq 50); do grep -q 'config reload rejected' "$work/server.log" && break; sleep 0.1; done
check grep -q 'config reload rejected' "$work/server.log"
curl -s "http://$target/metrics" >"$work/metrics.final"

# Wait until Prometheus holds the last scrape of that final state.
want_filter=$((n_filter + n_bad))
for _ in $(seq 100); do
    [ "$(value "sum(cpu_extender_requests_total{job=\"$job\",verb=\"filter\"})")" = "$want_filter" ] &&
        [ "$(value "cpu_extender_config_reloads_total{job=\"$job\",result=\"rejected\"}")" = 1 ] && break
    sleep 0.2
done
sleep 2 # two more scrapes: the same values, now stable
curl -s "http://$target/metrics" >"$work/metrics.txt"
# (not the figures that move by themselves: the process's, the sample's age)
moving='^cpu_extender_build_info|^process_|^cpu_extender_usage_sample_age_seconds '
same "the exposition is stable" "$(grep -Ev "$moving" "$work/metrics.txt" | md5sum)" \
    "$(grep -Ev "$moving" "$work/metrics.final" | md5sum)"

# ---- what Prometheus has ----
tj=$(curl -s "$api/targets?state=active")
same "targets" "$(echo "$tj" | jq '[.data.activeTargets[] | select(.labels.job == "'$job'")] | length')" 1
same "target health" "$(echo "$tj" | jq -r '.data.activeTargets[0].health')" up
same "target address (relabelled)" "$(echo "$tj" | jq -r '.data.activeTargets[0].labels.instance')" "$target"
same "target namespace label" "$(echo "$tj" | jq -r '.data.activeTargets[0].labels.namespace')" kube-system
same "target pod label" "$(echo "$tj" | jq -r '.data.activeTargets[0].labels.pod')" cpu-extender-scheduler-0

# The counts sent, as ingested.
same "filter 200" "$(value "cpu_extender_requests_total{verb=\"filter\",status=\"200\"}")" "$n_filter"
same "filter 400" "$(value "cpu_extender_requests_total{verb=\"filter\",status=\"400\"}")" "$n_bad"
same "prioritize 200" "$(value "cpu_extender_requests_total{verb=\"prioritize\",status=\"200\"}")" "$n_prioritize"
same "preempt" "$(value "sum(cpu_extender_requests_total{verb=\"preempt\"})")" "$n_preempt"
same "bind" "$(value "sum(cpu_extender_requests_total{verb=\"bind\"})")" "$n_bind"
# One per filter and prioritize (not-a-node), every candidate of preempt
# (node names of the captured cluster).
preempt_nodes=$(jq '.NodeNameToMetaVictims | length' "$preempt")
same "unknown node names" "$(value "cpu_extender_unknown_nodes_total")" \
    "$((n_filter + n_prioritize + n_preempt * preempt_nodes))"
same "cluster nodes" "$(value "cpu_extender_cluster_nodes")" "$nodes"
same "cluster ready" "$(value "cpu_extender_cluster_ready")" 1
same "reloads accepted" "$(value "cpu_extender_config_reloads_total{result=\"accepted\"}")" 1
same "last reload successful (the rejected one)" "$(value "cpu_extender_config_last_reload_successful")" 0
same "node metrics polls failed" "$(value "cpu_extender_api_errors_total{resource=\"nodes.metrics.k8s.io\"}")" 0
age=$(value "cpu_extender_usage_sample_age_seconds")
case $age in none | NaN | "") bad "usage sample age: $age" ;; *) ok ;; esac
same "resident memory ingested" "$(value "count(process_resident_memory_bytes{job=\"$job\"} > 0)")" 1
same "nodes per filter (histogram count)" \
    "$(value "cpu_extender_request_nodes_count{verb=\"filter\"}")" "$n_filter"
same "nodes per filter (histogram sum)" \
    "$(value "cpu_extender_request_nodes_sum{verb=\"filter\"}")" "$((n_filter * (nodes + 1)))"
# The binding, compared with the pod's last prioritize decision.
same "shadow report: bindings compared" \
    "$(value "cpu_extender_shadow_decisions_compared_total{mode=\"enforce\"}")" 1
same "shadow report: rank observed" \
    "$(value "cpu_extender_shadow_bound_rank_count{mode=\"enforce\"}")" 1
same "shadow report: nothing in shadow mode" \
    "$(value "sum(cpu_extender_shadow_decisions_compared_total{mode=\"shadow\"})")" 0

# Every family with its type and help; every series of the exposition.
curl -s --get --data-urlencode "match_target={job=\"$job\"}" "$api/targets/metadata" >"$work/meta.json"
families=$(sed -n 's/^# TYPE \([^ ]*\) .*/\1/p' "$work/metrics.txt")
check test "$(echo "$families" | wc -l)" -ge 18
for f in $families; do
    type=$(sed -n "s/^# TYPE $f //p" "$work/metrics.txt")
    help=$(sed -n "s/^# HELP $f //p" "$work/metrics.txt")
    same "$f type" "$(jq -r --arg m "$f" '.data[] | select(.metric == $m) | .type' "$work/meta.json")" "$type"
    same "$f help" "$(jq -r --arg m "$f" '.data[] | select(.metric == $m) | .help' "$work/meta.json")" "$help"
    n=$(grep -c -E "^${f}(_bucket|_sum|_count)?[{ ]" "$work/metrics.txt")
    same "$f series" "$(value "count({__name__=~\"${f}(_bucket|_sum|_count)?\",job=\"$job\"})")" "$n"
done
lint=$(promtool check metrics <"$work/metrics.txt" 2>&1) && ok || bad "promtool check metrics: $lint"
same "promtool check metrics findings" "$lint" ""

# histogram_quantile over the ingested buckets equals the quantile worked out
# from the scraped text (Prometheus' rule: linear within the bucket of rank
# q * count, the lower bound 0 for the first bucket, the upper bound of the
# last finite bucket when the rank falls in +Inf).
# bucket_quantile Q NAME SELECTOR-REGEX: from metrics.txt.
bucket_quantile() {
    grep -E "^$2_bucket\\{$3" "$work/metrics.txt" | sed 's/.*le="\([^"]*\)"} \(.*\)/\1 \2/' |
        awk -v q="$1" '{ le[NR] = $1; c[NR] = $2 } END {
            n = NR; total = c[n]; if (total == 0) { print "NaN"; exit }
            rank = q * total
            for (b = 1; b < n && c[b] < rank; b++);
            if (b == n) { printf "%.9g\n", le[n - 1]; exit }
            if (b == 1 && le[1] <= 0) { printf "%.9g\n", le[1]; exit }
            start = b > 1 ? le[b - 1] : 0; cnt = c[b]; if (b > 1) { cnt -= c[b - 1]; rank -= c[b - 1] }
            printf "%.9g\n", start + (le[b] - start) * rank / cnt }'
}
close_to() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 1e-9 * (b < 0 ? -b : b) + 1e-12) }'; }
for case in \
    "cpu_extender_request_duration_seconds verb=\"filter\",status=\"200\"" \
    "cpu_extender_request_duration_seconds verb=\"prioritize\",status=\"200\"" \
    "cpu_extender_request_nodes verb=\"filter\"" \
    "cpu_extender_prioritize_score_spread le"; do
    name=${case%% *} sel=${case#* }
    psel=$sel
    [ "$sel" = le ] && psel=""
    for q in 0.5 0.9 0.99; do
        want=$(bucket_quantile "$q" "$name" "$sel")
        got=$(value "histogram_quantile($q, ${name}_bucket{$psel})")
        if close_to "$got" "$want"; then ok; else bad "histogram_quantile($q, $name{$psel}): got $got, want $want"; fi
    done
done
# Per verb over a rate window, as the dashboard and the alert use it. The
# preempt calls come in one burst between two scrapes: rate() sees them only
# if the verb's 200 series was exposed (at 0) before them.
for verb in filter prioritize preempt; do
    v=$(value "histogram_quantile(0.99, sum by (le) (rate(cpu_extender_request_duration_seconds_bucket{verb=\"$verb\",status=\"200\"}[1m])))")
    case $v in
    none | NaN | "") bad "p99 of $verb over 1m: $v (is its duration histogram exposed before its first call?)" ;;
    *) ok ;;
    esac
    # Every call seen as an increase (no extrapolation: max - min over 1m).
    c="cpu_extender_request_duration_seconds_count{verb=\"$verb\",status=\"200\"}"
    same "$verb calls seen as an increase over 1m" \
        "$(value "sum(max_over_time($c[1m]) - min_over_time($c[1m]))")" \
        "$(value "sum(cpu_extender_requests_total{verb=\"$verb\",status=\"200\"})")"
done

# ---- the rules, on the real series ----
rj=$(curl -s "$api/rules")
same "rule groups" "$(echo "$rj" | jq '.data.groups | length')" 1
same "rules loaded" "$(echo "$rj" | jq '[.data.groups[].rules[]] | length')" "$(grep -c '^ *- alert: ' "$rules")"
same "rules in error" "$(echo "$rj" | jq -r '[.data.groups[].rules[] | select(.health != "ok") | .name] | join(",")')" ""
# What these requests must raise: a rejected reload (no for: firing), unknown
# names and 400/500 answers (pending, their for: has not passed), and not
# "not ready", "stale" or "near the timeout".
sleep 2
alerts=$(curl -s "$api/alerts" | jq -r '[.data.alerts[] | "\(.labels.alertname)/\(.labels.verb // "-")/\(.state)"] | sort | unique | join(" ")')
case " $alerts " in *" CpuExtenderConfigReloadRejected/-/firing "*) ok ;; *) bad "alerts: $alerts (want CpuExtenderConfigReloadRejected firing)" ;; esac
case " $alerts " in *" CpuExtenderUnknownNodeNames/-/pending "*) ok ;; *) bad "alerts: $alerts (want CpuExtenderUnknownNodeNames pending)" ;; esac
case " $alerts " in *" CpuExtenderErrors/filter/pending "*) ok ;; *) bad "alerts: $alerts (want CpuExtenderErrors pending for filter)" ;; esac
for quiet in CpuExtenderClusterNotReady CpuExtenderClusterStateStale CpuExtenderLatencyNearTimeout CpuExtenderDeadlineNeutralAnswers; do
    case " $alerts " in *" $quiet/"*) bad "alerts: $quiet is active: $alerts" ;; *) ok ;; esac
done
echo "test_monitoring: active alerts: $alerts"

# ---- the dashboard ----
check jq -e '.panels | length > 0' "$dashboard" >/dev/null
jq -r '.panels[].targets[]?.expr' "$dashboard" >"$work/exprs"
check test "$(wc -l <"$work/exprs")" -ge 20
while IFS= read -r e; do
    # Grafana's variables as a user's Grafana fills them for this job.
    pe=$(printf '%s' "$e" | sed -e "s/\\\$job/$job/g" -e 's/\$__rate_interval/1m/g')
    r=$(query "$pe")
    if [ "$(echo "$r" | jq -r .status)" != success ]; then
        bad "dashboard query does not run: $e: $(echo "$r" | jq -r .error)"
        continue
    fi
    # Data: at least one series with a number (NaN is no data).
    n=$(echo "$r" | jq '[.data.result[] | .value[1] | select(. != "NaN")] | length')
    if [ "$n" -gt 0 ]; then ok; else bad "dashboard query returns no data: $e"; fi
done <"$work/exprs"
for f in $families; do
    if grep -q -E "${f}(_bucket|_sum|_count)?[{ )]" "$work/exprs"; then ok; else bad "dashboard shows no $f"; fi
done

echo "test_monitoring: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
