# shellcheck shell=bash
# What the benchmarks on tests/cluster's control plane share
# (bench/scheduler.sh, bench/placement.sh; sourced after tests/cluster's
# k8s.sh and lib.sh): progress and failure, parallel requests with curl,
# the pods of namespace $NS, and a resuming watch on them. Reads T (the
# run's directory) and NS.

say() { printf '%s %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() {
    say "error: $*"
    exit 1
}
# lib.sh's checks count failures in T_FAILS; here any failure ends the run.
no_failures() { [ "$T_FAILS" -eq 0 ] || die "${1:-a request failed} (see above)"; }

# ---- requests ----

# curl_op FILE URL METHOD DATA CONTENT-TYPE: appends one operation to a
# curl config for --parallel (curl's --next resets every option that is not
# global: each operation names its own credentials).
curl_op() {
    [ -s "$1" ] && echo next >>"$1"
    printf '%s\n' "url = \"$2\"" "request = \"$3\"" "data-binary = \"$4\"" "header = \"Content-Type: $5\"" \
        "cacert = \"$K8S_PKI/ca.crt\"" "cert = \"$K8S_PKI/admin.crt\"" "key = \"$K8S_PKI/admin.key\"" \
        'output = "/dev/null"' 'write-out = "%{http_code}\n"' >>"$1"
}

# curl_all FILE WANT-CODE: runs the operations, 50 in flight over one
# HTTP/2 connection; dies unless every one answered WANT-CODE.
curl_all() {
    local codes n
    n=$(grep -c '^url = ' "$1")
    codes=$(curl -sS --parallel --parallel-max 50 --http2 -K "$1" 2>"$T/curl.err" | sort | uniq -c | awk '{print $2 "x" $1}')
    [ "$codes" = "$2x$n" ] || die "$1: HTTP $codes, wanted $2x$n $(head -c 300 "$T/curl.err")"
}

# ---- the pods of $NS ----

pods_left() {
    api GET "/api/v1/namespaces/$NS/pods?limit=1"
    jq -r '(.items | length) + (if .metadata.continue then 1 else 0 end)' <<<"$RESP"
}
pods_gone() { [ "$(pods_left)" = 0 ]; }

# Between runs: every pod at once (deletecollection; bound pods go at once
# with gracePeriodSeconds=0, as no kubelet confirms).
delete_pods() {
    must DELETE "/api/v1/namespaces/$NS/pods?gracePeriodSeconds=0" 200 || die "deleting pods"
    k8s_wait 120 "every pod of $NS deleted" pods_gone || die "pods left in $NS: $(pods_left)"
}

# ---- the watch on the pods ----

# watch_start NAME: curl streams the pods' events from the current list
# version (nothing is missed however late it connects) into a FIFO; jq
# stamps each one with its own clock as it reads it (now, microseconds)
# and writes "TIME TYPE NAME NODE RESOURCEVERSION" lines to
# logs/NAME-jq.log. 1.37's API server closes a watch whose reader falls
# behind a burst ("Forcing pods watcher close due to unresponsiveness", the
# scheduler's own watch included, when 500 pods arrive at once on 2
# cores), so the curl runs in a loop that resumes from the last version jq
# wrote, as an informer does; the FIFO stays open across the loop (fd 3),
# so jq never sees its end. Two processes, each stopped by its id.
watch_start() {
    local rv fifo=$T/$1.fifo log=$K8S_DIR/logs/$1-jq.log
    api GET "/api/v1/namespaces/$NS/pods?limit=1"
    rv=$(jq -r .metadata.resourceVersion <<<"$RESP")
    { [ -n "$rv" ] && [ "$rv" != null ]; } || die "no list version: $RESP"
    mkfifo "$fifo"
    k8s_run "$1-jq" jq --unbuffered -r \
        '"\(now) \(.type) \(.object.metadata.name // "-") \(.object.spec.nodeName // "-") \(.object.metadata.resourceVersion // "-")"' "$fifo"
    k8s_run "$1-curl" bash -c '
        exec 3>"$1"
        rv=$2 c=""
        trap '\''[ -n "$c" ] && kill "$c" 2>/dev/null; exit 0'\'' TERM
        while :; do
            curl -sS -N --max-time 600 --cacert "$3/ca.crt" --cert "$3/admin.crt" --key "$3/admin.key" \
                "$4&resourceVersion=$rv" >&3 &
            c=$!
            wait "$c"
            last=$(awk '\''$5 ~ /^[0-9]+$/ { v = $5 } END { print v }'\'' "$5")
            [ -n "$last" ] && rv=$last
            sleep 0.1
        done' watch "$fifo" "$rv" "$K8S_PKI" \
        "$K8S_SERVER/api/v1/namespaces/$NS/pods?watch=1&allowWatchBookmarks=false" "$log"
    WATCH_LOG=$log
}

bound_count() { awk '$4 != "-" { b[$3] = 1 } END { print length(b) }' "$WATCH_LOG" 2>/dev/null; }
