# shellcheck shell=bash
# kube/informer.c against the real API server, through
# cluster-informer-probe (one informer, every callback printed with its
# time) and the audit log (every request it made, with the answer's status).

# probe_start NAME PATH [PROBE-OPTIONS...]: starts a probe as the admin;
# its lines go to $T/NAME.jsonl.
probe_start() {
    local name=$1 path=$2
    shift 2
    : >"$T/$name.jsonl"
    "$PROBE" --kubeconfig "$K8S_ADMIN_KUBECONFIG" --path "$path" "$@" >"$T/$name.jsonl" \
        2>>"$K8S_DIR/logs/$name.log" &
    K8S_PIDS[$name]=$!
}

# probe_lines NAME JQ-FILTER: the probe's lines that match, compact.
probe_lines() { jq -c "select($2)" "$T/$1.jsonl" 2>/dev/null; }

# probe_wait NAME SECONDS JQ-FILTER: until a line matches.
probe_has() { [ -n "$(probe_lines "$1" "$2" | head -n1)" ]; }
probe_wait() { k8s_wait "$2" "probe $1: a line with $3" probe_has "$1" "$3"; }

# Until the probe's view equals the server's.
probe_in_sync() { [ "$(probe_view "$1")" = "$(server_view "$2")" ]; }

# The probe's view: the names (namespace/name) it holds after all its lines,
# as the cluster state keeps them: a list replaces everything once it ends;
# events add, change and remove.
probe_view() {
    jq -rs 'reduce .[] as $l ({view: {}, pending: null};
        if $l.cb == "list_begin" then .pending = {}
        elif $l.cb == "list_end" then .view = .pending | .pending = null
        elif $l.cb == "object" then
            ($l.namespace + "/" + $l.name) as $k |
            if .pending != null then .pending[$k] = $l.rv
            elif $l.event == "DELETED" then .view |= del(.[$k])
            else .view[$k] = $l.rv end
        else . end) | .view | keys | join(" ")' "$T/$1.jsonl"
}

# The API server's view of a collection: namespace/name, sorted.
server_view() {
    api GET "$1"
    jq -r '[.items[] | "\(.metadata.namespace // "")/\(.metadata.name)"] | sort | join(" ")' <<<"$RESP"
}

# The admin's requests with the informer's user agent since MARK (the
# probe is the only admin client with it).
probe_requests() {
    audit_since "$1" '.user.username == "cpu-extender-test-admin" and (.userAgent | startswith("cpu-extender/"))' |
        jq -c "{verb, uri: .requestURI, code: .responseStatus.code} | select($2)"
}

now() { date +%s.%N; }

# latency_of NAME T0 JQ-FILTER: seconds from T0 to the probe's first line
# that matches (waits up to 5 s for it).
latency_of() {
    probe_wait "$1" 5 "$3" || { echo 99; return; }
    probe_lines "$1" "$3" | head -n1 | jq -r --arg t0 "$2" '.t - ($t0 | tonumber) | . * 1000 | round / 1000'
}

t_informer_paged_lists() {
    local i n pages m
    for i in 0 1 2 3 4 5 6; do mk_node "pl-$i" 2 4Gi || return 1; done
    mk_pod ce-a pl-p0 '.spec.nodeName="pl-0"' && mk_pod ce-a pl-p1 '.spec.nodeName="pl-1"' &&
        mk_pod ce-a pl-p2 && mk_pod ce-b pl-p3 '.spec.nodeName="pl-0"' && mk_pod ce-b pl-p4 || return 1

    for kind in nodes pods; do
        m=$(audit_mark)
        probe_start "probe-pl-$kind" "/api/v1/$kind" --limit 2
        probe_wait "probe-pl-$kind" 10 '.cb == "list_end"' ||
            { fail "$kind: no list_end within 10 s: $(tail -n 3 "$T/probe-pl-$kind.jsonl")"; k8s_stop "probe-pl-$kind"; return 1; }
        sleep 0.5 # the watch request that follows the list
        k8s_stop "probe-pl-$kind"
        n=$(api GET "/api/v1/$kind"; jq '.items | length' <<<"$RESP")
        # limit=2: ceil(n / 2) pages, the first without a continue token,
        # every later one with the token of the page before it.
        pages=$(((n + 1) / 2))
        check_eq "$kind: the first list holds what the server holds" "$(server_view "/api/v1/$kind")" \
            "$(probe_view "probe-pl-$kind")"
        check_eq "$kind: list requests for $n objects at limit=2" "$pages" \
            "$(probe_requests "$m" '.verb == "list"' | wc -l)"
        check_eq "$kind: pages answered 200" "$pages" \
            "$(probe_requests "$m" '.verb == "list" and .code == 200' | wc -l)"
        check_eq "$kind: pages with a continue token" "$((pages - 1))" \
            "$(probe_requests "$m" '.verb == "list" and (.uri | test("[?&]continue="))' | wc -l)"
        check_eq "$kind: pages asked with limit=2" "$pages" \
            "$(probe_requests "$m" '.verb == "list" and (.uri | test("[?&]limit=2(&|$)"))' | wc -l)"
        # The watch starts from the list's resourceVersion.
        local watch_rv
        watch_rv=$(probe_requests "$m" '.verb == "watch"' | head -n1 | jq -r '.uri | capture("resourceVersion=(?<rv>[0-9]+)").rv')
        check "$kind: then a watch from a resourceVersion ($watch_rv)" [ -n "$watch_rv" ]
        check_eq "$kind: the watch asks for bookmarks" 1 \
            "$(probe_requests "$m" '.verb == "watch" and (.uri | test("allowWatchBookmarks=true"))' | head -n1 | wc -l)"
    done
    check_eq "pods: nodeName as the server has it" '["pl-0","pl-1","","pl-0",""]' \
        "$(probe_lines probe-pl-pods '.cb == "object" and (.name | startswith("pl-p"))' |
            jq -cs 'sort_by(.namespace, .name) | map(.nodeName)')"

    for i in 0 1 2 3 4; do del_pod "$([ "$i" -lt 3 ] && echo ce-a || echo ce-b)" "pl-p$i"; done
    for i in 0 1 2 3 4 5 6; do del_node "pl-$i"; done
}

# Adds, updates and deletes, each seen by the watch within a second of the
# request that made it, with the resourceVersion the server gave it.
t_informer_follows_events() {
    local t0 rv lat
    probe_start probe-ev-nodes /api/v1/nodes
    probe_start probe-ev-pods /api/v1/pods
    probe_wait probe-ev-nodes 10 '.cb == "list_end"' && probe_wait probe-ev-pods 10 '.cb == "list_end"' ||
        { fail "no first list within 10 s"; return 1; }
    sleep 0.3 # the watches open

    t0=$(now)
    must POST /api/v1/nodes '{"apiVersion":"v1","kind":"Node","metadata":{"name":"ev-1"},"status":{"allocatable":{"cpu":"4","memory":"8Gi"}}}' 201 || return 1
    rv=$(jq -r .metadata.resourceVersion <<<"$RESP")
    lat=$(latency_of probe-ev-nodes "$t0" ".event == \"ADDED\" and .name == \"ev-1\" and .rv == \"$rv\"")
    check_le "node ev-1 ADDED (rv $rv), seconds after the create" 1.0 "$lat"

    t0=$(now)
    CT=application/merge-patch+json must PATCH /api/v1/nodes/ev-1 '{"metadata":{"labels":{"zone":"a"}}}' 200 || return 1
    rv=$(jq -r .metadata.resourceVersion <<<"$RESP")
    lat=$(latency_of probe-ev-nodes "$t0" ".event == \"MODIFIED\" and .name == \"ev-1\" and .rv == \"$rv\"")
    check_le "node ev-1 MODIFIED (rv $rv), seconds after the patch" 1.0 "$lat"

    t0=$(now)
    mk_pod ce-a ev-p || return 1
    rv=$(jq -r .metadata.resourceVersion <<<"$RESP")
    lat=$(latency_of probe-ev-pods "$t0" ".event == \"ADDED\" and .name == \"ev-p\" and .rv == \"$rv\" and .nodeName == \"\"")
    check_le "pod ev-p ADDED pending (rv $rv), seconds after the create" 1.0 "$lat"

    t0=$(now)
    must POST /api/v1/namespaces/ce-a/pods/ev-p/binding \
        '{"apiVersion":"v1","kind":"Binding","metadata":{"name":"ev-p"},"target":{"kind":"Node","name":"ev-1"}}' 201 || return 1
    lat=$(latency_of probe-ev-pods "$t0" '.event == "MODIFIED" and .name == "ev-p" and .nodeName == "ev-1"')
    check_le "pod ev-p MODIFIED with nodeName ev-1 by a Binding, seconds after it" 1.0 "$lat"

    t0=$(now)
    del_pod ce-a ev-p || return 1
    lat=$(latency_of probe-ev-pods "$t0" '.event == "DELETED" and .name == "ev-p"')
    check_le "pod ev-p DELETED, seconds after the delete" 1.0 "$lat"

    t0=$(now)
    del_node ev-1 || return 1
    lat=$(latency_of probe-ev-nodes "$t0" '.event == "DELETED" and .name == "ev-1"')
    check_le "node ev-1 DELETED, seconds after the delete" 1.0 "$lat"

    check_eq "node events, in order" "ADDED MODIFIED DELETED" \
        "$(probe_lines probe-ev-nodes '.cb == "object" and .name == "ev-1"' | jq -rs 'map(.event) | join(" ")')"
    # Deleting a bound pod, even with gracePeriodSeconds=0, first sets its
    # deletionTimestamp (MODIFIED), then removes it (DELETED).
    check_eq "pod events, in order" "ADDED MODIFIED MODIFIED DELETED" \
        "$(probe_lines probe-ev-pods '.cb == "object" and .name == "ev-p"' | jq -rs 'map(.event) | join(" ")')"
    check_eq "one list each: events never made the informer list again" "1 1" \
        "$(probe_lines probe-ev-nodes '.cb == "list_begin"' | wc -l) $(probe_lines probe-ev-pods '.cb == "list_begin"' | wc -l)"
    k8s_stop probe-ev-nodes
    k8s_stop probe-ev-pods
}

# Watches that end (timeoutSeconds=2) are resumed from the last
# resourceVersion: no list again, no event lost.
t_informer_watch_resumes() {
    local m t0 lat
    m=$(audit_mark)
    probe_start probe-rs /api/v1/nodes --watch-seconds 2
    probe_wait probe-rs 10 '.cb == "list_end"' || { fail "no first list within 10 s"; return 1; }
    sleep 5.5 # two watches end and a third runs
    t0=$(now)
    mk_node rs-1 2 4Gi || return 1
    lat=$(latency_of probe-rs "$t0" '.event == "ADDED" and .name == "rs-1"')
    check_le "node rs-1 ADDED after two ended watches, seconds" 1.0 "$lat"
    sleep 2.5
    k8s_stop probe-rs
    local watches rvs
    watches=$(probe_requests "$m" '.verb == "watch"')
    check "at least 3 watches in 8 s of timeoutSeconds=2 ($(wc -l <<<"$watches"))" [ "$(wc -l <<<"$watches")" -ge 3 ]
    check_eq "lists: only the first" 1 "$(probe_requests "$m" '.verb == "list"' | wc -l)"
    check_eq "watch answers other than 200" "" "$(jq -c 'select(.code != 200)' <<<"$watches")"
    # Each watch resumes where the one before ended: resourceVersions never
    # go back, and after rs-1's two events the next watch starts at or past
    # the last of them.
    rvs=$(jq -r '.uri | capture("resourceVersion=(?<rv>[0-9]+)").rv' <<<"$watches" | paste -sd' ')
    check "watch resourceVersions never go back: $rvs" \
        awk -v s="$rvs" 'BEGIN { n = split(s, a, " "); for (i = 2; i <= n; i++) if (a[i] + 0 < a[i-1] + 0) exit 1 }'
    local last_event
    last_event=$(probe_lines probe-rs '.cb == "object" and .name == "rs-1"' | tail -n1 | jq -r .rv)
    check "the last watch starts at or after rs-1's last event ($last_event)" \
        [ "${rvs##* }" -ge "$last_event" ]
    check_eq "health reports: no failure" "" "$(probe_lines probe-rs '.cb == "health" and .ok == false')"
    check_eq "the view equals the server's" "$(server_view /api/v1/nodes)" "$(probe_view probe-rs)"
    del_node rs-1
}

# A continue token that etcd compacted away mid-list: on 1.20 410 Expired,
# and the informer starts the list over (its first page is not trusted);
# on 1.37 the watch cache still serves it and the list completes.
t_informer_410_continue() {
    local i m rev
    for i in 0 1 2 3 4; do mk_node "cc-$i" 2 4Gi || return 1; done
    m=$(audit_mark)
    rm -f "$T/cc-go"
    probe_start probe-cc /api/v1/nodes --limit 2 --pause-after 2 --pause-file "$T/cc-go"
    probe_wait probe-cc 10 '.cb == "paused"' || { fail "the probe did not pause after its first page"; return 1; }
    # One write so that the compaction passes the first page's revision,
    # outside /registry (the API server never reads it), then compact.
    k8s_etcd /v3/kv/put "{\"key\":\"$(printf /cpu-extender-test/bump | base64)\",\"value\":\"eA==\"}" >/dev/null
    rev=$(etcd_revision)
    k8s_etcd /v3/kv/compaction "{\"revision\":\"$rev\",\"physical\":true}" >/dev/null ||
        { fail "etcd compaction at $rev failed"; return 1; }
    info "etcd compacted at revision $rev during the list"
    touch "$T/cc-go"
    probe_wait probe-cc 10 '.cb == "list_end"' || { fail "no list_end after the compaction"; return 1; }
    sleep 0.3
    k8s_stop probe-cc
    local lists
    lists=$(probe_requests "$m" '.verb == "list"')
    if k8s_since 34; then
        # Since 1.34 (ListFromCacheSnapshot, beta and on) the watch cache
        # serves the continuation from its snapshot of the first page's
        # revision, whatever etcd compacted: no 410, the list goes on.
        check_eq "the page after the compaction: 200 from the watch cache's snapshot" 200 \
            "$(jq -r 'select(.uri | test("continue=")) | .code' <<<"$lists" | head -n1)"
        check_eq "list_begin once, list_end once (the list was never broken)" "1 1" \
            "$(probe_lines probe-cc '.cb == "list_begin"' | wc -l) $(probe_lines probe-cc '.cb == "list_end"' | wc -l)"
    else
        check_eq "the page after the compaction: 410 with the continue token" 410 \
            "$(jq -r 'select(.uri | test("continue=")) | .code' <<<"$lists" | head -n1)"
        check_eq "then a new list from the start (no continue token)" 200 \
            "$(sed -n 3p <<<"$lists" | jq -r 'select(.uri | test("continue=") | not) | .code')"
        check_eq "list_begin twice, list_end once (the broken list is never ended)" "2 1" \
            "$(probe_lines probe-cc '.cb == "list_begin"' | wc -l) $(probe_lines probe-cc '.cb == "list_end"' | wc -l)"
    fi
    check_eq "the view equals the server's" "$(server_view /api/v1/nodes)" "$(probe_view probe-cc)"
    for i in 0 1 2 3 4; do del_node "cc-$i"; done
}

# The API server restarts while the informer is stopped (SIGSTOP), and
# nodes change before it runs again: it must try to resume from its
# resourceVersion first, relist only if the server answers 410, and end
# with the server's view either way.
t_informer_apiserver_restart() {
    local m last_rv resume
    mk_node ar-keep 2 4Gi && mk_node ar-gone 2 4Gi || return 1
    probe_start probe-ar /api/v1/nodes
    probe_wait probe-ar 10 '.cb == "list_end"' || { fail "no first list"; return 1; }
    sleep 0.3
    kill -STOP "${K8S_PIDS[probe-ar]}"
    last_rv=$(probe_lines probe-ar '.cb == "object"' | jq -rs 'map(.rv | tonumber) | max')
    m=$(audit_mark)
    # A graceful stop waits for the stopped client's watch to drain; 5 s,
    # then SIGKILL (a crash is a restart as well).
    k8s_stop kube-apiserver 5
    k8s_start_apiserver || { fail "kube-apiserver did not come back"; return 1; }
    info "kube-apiserver restarted"
    del_node ar-gone && mk_node ar-new 2 4Gi || return 1
    kill -CONT "${K8S_PIDS[probe-ar]}"
    local view
    k8s_wait 15 "probe-ar consistent" probe_in_sync probe-ar /api/v1/nodes
    view=$(probe_view probe-ar)
    check_eq "the view equals the server's after the restart (ar-gone gone, ar-new there)" \
        "$(server_view /api/v1/nodes)" "$view"
    resume=$(probe_requests "$m" '.verb == "watch" or .verb == "list"' | head -n1)
    check_eq "first request after the restart: a watch (resume), not a list" watch "$(jq -r .verb <<<"$resume")"
    info "resume: $(jq -r .uri <<<"$resume")"
    # What the server says to that resourceVersion now decides what the
    # informer had to do: the restarted API server's watch cache starts at
    # the etcd revision of its first list, so a version before it is 410.
    local rv answer
    rv=$(jq -r '.uri | capture("resourceVersion=(?<rv>[0-9]+)").rv' <<<"$resume")
    check "the resume asks from the newest version the informer saw or later ($rv >= $last_rv)" [ "$rv" -ge "$last_rv" ]
    answer=$(curl -sN --max-time 3 --cacert "$K8S_PKI/ca.crt" --cert "$K8S_PKI/admin.crt" \
        --key "$K8S_PKI/admin.key" "$K8S_SERVER/api/v1/nodes?watch=1&resourceVersion=$rv&timeoutSeconds=1" |
        head -n1 | jq -c 'select(.type == "ERROR") | .object | {code, reason, message}')
    local lists
    lists=$(probe_lines probe-ar '.cb == "list_begin"' | wc -l)
    if [ -n "$answer" ]; then
        info "the server answers that version with $answer"
        check_eq "410 from the server: the informer listed again" 2 "$lists"
    else
        info "the server accepts a watch from $rv"
        check_eq "resumed: the informer did not list again" 1 "$lists"
    fi
    k8s_stop probe-ar
    del_node ar-keep
    del_node ar-new
}
