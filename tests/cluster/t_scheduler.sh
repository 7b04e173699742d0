# shellcheck shell=bash
# A real kube-scheduler with cpu-extender as its extender. Each test's
# KubeSchedulerConfiguration is built from $SCHEDULER_CONFIG_YAML: its
# leaderElection, profiles and extenders stanza, in
# kubescheduler.config.k8s.io/v1 (1.37) or v1beta1 (what 1.20 reads; the
# stanza's fields are the same), with urlPrefix pointed at the test's
# extender and the fields a test needs overridden (said at each test).
# t_scheduler_v1.sh runs the shipped files unmodified. kube-scheduler uses
# the manifests' account, kube-system/cpu-extender-scheduler, like the
# Deployment. 1.20.2 never calls the preempt verb (kubernetes#102971).

# sched_config FILE EXT-PORT [JQ-OVERRIDES]: the file, and SCHED_PORT,
# SCHED_HEALTHZ and SCHED_METRICS (URLs) for sched_start and the bench.
# 1.20 serves both on plain HTTP at the configuration's healthzBindAddress
# and metricsBindAddress; v1 (1.25+) has no such fields and kube-scheduler
# serves them on its secure port.
sched_config() {
    local api=v1
    SCHED_PORT=$(k8s_free_port)
    if k8s_since 25; then
        SCHED_HEALTHZ=https://127.0.0.1:$SCHED_PORT/healthz
    else
        api=v1beta1
        SCHED_HEALTHZ=http://127.0.0.1:$SCHED_PORT/healthz
    fi
    SCHED_METRICS=${SCHED_HEALTHZ%/healthz}/metrics
    "$Y2J" "$SCHEDULER_CONFIG_YAML" | jq --arg kc "$T/scheduler.kubeconfig" --arg hz "127.0.0.1:$SCHED_PORT" \
        --arg api "kubescheduler.config.k8s.io/$api" \
        --arg url "http://127.0.0.1:$2/scheduler" '{
            apiVersion: $api, kind: "KubeSchedulerConfiguration",
            clientConnection: {kubeconfig: $kc},
            leaderElection: .leaderElection,
            percentageOfNodesToScore: 100,
            profiles: .profiles,
            extenders: [.extenders[0] | .urlPrefix = $url]} +
            if ($api | endswith("v1beta1")) then {healthzBindAddress: $hz, metricsBindAddress: $hz} else {} end' |
        jq "${3:-.}" >"$1"
}

# sched_start NAME CONFIG: kube-scheduler with the account's token; waits
# for its healthz and for it to hold the lease of the manifests'
# leaderElection (kube-system/cpu-extender-scheduler).
sched_start() {
    local -a serve=(--secure-port=0)
    # /metrics too without credentials (bench/scheduler.sh reads it), as
    # 1.20's plain-HTTP metricsBindAddress served it.
    k8s_since 25 && serve=(--secure-port="$SCHED_PORT" --bind-address=127.0.0.1
        --authorization-always-allow-paths=/healthz,/readyz,/livez,/metrics)
    k8s_kubeconfig "$T/scheduler.kubeconfig" "token: $(cat "$T/sa/scheduler/token")"
    # The previous test's scheduler did not release the lease: without
    # this, the next one waits out its 15 s.
    must DELETE /apis/coordination.k8s.io/v1/namespaces/kube-system/leases/cpu-extender-scheduler "200 404"
    k8s_run "$1" "$K8S_BIN/kube-scheduler" --config="$2" "${serve[@]}" --v=2
    k8s_wait 20 "$1 healthz" curl -skf "$SCHED_HEALTHZ" ||
        { fail "$1 did not start: $(tail -n 5 "$K8S_DIR/logs/$1.log")"; return 1; }
    k8s_wait 20 "$1 holds the lease" sched_leads || { fail "$1 did not take the lease"; return 1; }
}

sched_leads() {
    api GET /apis/coordination.k8s.io/v1/namespaces/kube-system/leases/cpu-extender-scheduler
    [ "$CODE" = 200 ] && [ -n "$(jq -r '.spec.holderIdentity // ""' <<<"$RESP")" ]
}

# sched_pod NAME CPU MEMORY: a pod in ce-a for the cpu-extender-scheduler.
sched_pod() {
    mk_pod ce-a "$1" ".spec.schedulerName = \"cpu-extender-scheduler\" |
        .spec.containers[0].resources.requests = {cpu: \"$2\", memory: \"$3\"}"
}

pod_bound() { [ -n "$(node_of "$1")" ]; }

# place NAME CPU MEMORY: creates the pod and waits (20 s) for its node.
place() {
    sched_pod "$@" || return 1
    k8s_wait 20 "$1 bound" pod_bound "$1" || { fail "$1 not bound within 20 s"; return 1; }
    node_of "$1"
}

# The node counts of the pods named PREFIX-*, as "node:count" sorted.
spread_of() {
    api GET /api/v1/namespaces/ce-a/pods
    jq -r --arg p "$1-" '[.items[] | select(.metadata.name | startswith($p)) | .spec.nodeName] |
        group_by(.) | map("\(.[0]):\(length)") | join(" ")' <<<"$RESP"
}

del_pods() {
    local n
    api GET /api/v1/namespaces/ce-a/pods
    for n in $(jq -r --arg p "$1-" '.items[].metadata.name | select(startswith($p))' <<<"$RESP"); do
        del_pod ce-a "$n"
    done
}

# Nodes with the same memory and 2, 4 and 8 CPUs: CPU decides (and node
# sizes that are not multiples of each other in both resources keep the
# totals below free of ties).
sched_nodes() {
    mk_node ks-2 2 8Gi && mk_node ks-4 4 8Gi && mk_node ks-8 8 8Gi
}

sched_cleanup() {
    del_pods "$1"
    del_node ks-2
    del_node ks-4
    del_node ks-8
}

# The manifest's stanza as it is (nodeCacheCapable: true), strategy spread:
# seven pods of 1 CPU/256Mi, each after the one before is bound.
t_scheduler_cache() {
    sched_nodes || return 1
    ext_start ext-kc "$T/sa/scheduler" || return 1
    k8s_wait 20 "ext-kc ready" ext_ready || { fail "extender not ready"; return 1; }
    sched_config "$T/sched-cache.json" "$EXT_PORT"
    check_eq "nodeCacheCapable as in the manifest" true "$(jq .extenders[0].nodeCacheCapable "$T/sched-cache.json")"
    sched_start sched-kc "$T/sched-cache.json" || return 1
    # kube-scheduler's total per node for each pod, as NodeResourcesFit
    # (LeastAllocated) + NodeResourcesBalancedAllocation + the extender's
    # score x weight 1 x 10 (the other default score plugins give every node
    # the same here: no images, affinities, taints or owners).
    # LeastAllocated: mean of (alloc-req)*100/alloc for cpu and memory.
    # Balanced, 1.20: (1 - |cpu fraction - memory fraction|) * 100;
    # 1.37: with = (1 - |cpu fraction - memory fraction| / 2) * 100, the same
    # without the pod, then 50 + (50 + with - without) / 2.
    # The extender: spread, (cpu*3 + memory)/4, then (value+5)/10. req
    # includes the pod.
    #   1.20 pod  ks-2            ks-4            ks-8
    #   1         73+53+60 = 186  85+78+80 = 243  91+90+90 = 271  -> ks-8
    #   2         186             243             84+81+80 = 245  -> ks-8
    #   3         186             243             76+71+70 = 217  -> ks-4
    #   4         186             71+56+60 = 187  217             -> ks-8
    #   5         186             187             68+62+60 = 190  -> ks-8
    #   6         186             187             60+53+50 = 163  -> ks-4
    #   7         186             57+34+40 = 131  163             -> ks-2
    #   1.37 pod  ks-2            ks-4            ks-8
    #   1         73+63+60 = 196  85+69+80 = 234  91+72+90 = 253  -> ks-8
    #   2         196             234             84+72+80 = 236  -> ks-8
    #   3         196             234             76+72+70 = 218  -> ks-4
    #   4         196             71+69+60 = 200  218             -> ks-8
    #   5         196             200             68+73+60 = 201  -> ks-8
    #   6         196             200             60+72+50 = 182  -> ks-4
    #   7         196             57+69+40 = 166  182             -> ks-2
    # (No ties in either: kube-scheduler picks at random among equal
    # totals. 512Mi pods would tie twice on 1.37.)
    local i got=""
    for i in 1 2 3 4 5 6 7; do got="$got $(place "kc-$i" 1 256Mi)"; done
    check_eq "every pod bound, in this order" "ks-8 ks-8 ks-4 ks-8 ks-8 ks-4 ks-2" "${got# }"
    check_eq "more free CPU, more pods" "ks-2:1 ks-4:2 ks-8:4" "$(spread_of kc)"
    local calls
    calls=$(ext_log_requests ext-kc filter | wc -l)
    # The manifest registers prioritize only: with used = requests and
    # thresholds at 100 % the filter is redundant (issue 13), so no call.
    check_eq "filter calls: none (the stanza is prioritize-only)" 0 "$calls"
    check_eq "prioritize calls: one per pod" 7 "$(ext_log_requests ext-kc prioritize | wc -l)"
    check_eq "every call answered 200 with the three nodes" "200 3" \
        "$(ext_log_requests ext-kc prioritize | jq -r '"\(.status) \(.nodesIn)"' | sort -u | paste -sd' ')"
    k8s_stop sched-kc
    k8s_stop ext-kc
    sched_cleanup kc
}

# nodeCacheCapable: false (overridden): the scheduler sends whole Node
# objects. The extender reads used CPU from the node annotation
# cpu-extender.io/cpu-used (--cpu-used-source annotation), which says ks-8
# is nearly full while the in-tree plugins see it empty: the extender's
# scores must move the pod.
t_scheduler_nocache() {
    sched_nodes || return 1
    CT=application/merge-patch+json must PATCH /api/v1/nodes/ks-8 \
        '{"metadata":{"annotations":{"cpu-extender.io/cpu-used":"7"}}}' 200 || return 1
    ext_start ext-kn "$T/sa/scheduler" --cpu-used-source annotation || return 1
    k8s_wait 20 "ext-kn ready" ext_ready || { fail "extender not ready"; return 1; }
    sched_config "$T/sched-nocache.json" "$EXT_PORT" '.extenders[0].nodeCacheCapable = false'
    sched_start sched-kn "$T/sched-nocache.json" || return 1
    # Pod 1 CPU/512Mi on empty nodes (in-tree: LeastAllocated +
    # BalancedAllocation): 1.20 ks-2 71+56 = 127, ks-4 84+81 = 165, ks-8
    # 90+93 = 183; 1.37 ks-2 71+64 = 135, ks-4 84+70 = 154, ks-8 90+73 = 163.
    # The extender: ks-2 cpu 50, memory 93, (150+93)/4 = 60, score 6;
    # ks-4 cpu 75, (225+93)/4 = 79, score 8; ks-8 with 7 CPUs used, cpu 0,
    # 93/4 = 23, score 2. Totals 1.20: ks-2 187, ks-4 245, ks-8 203; 1.37:
    # 195, 234, 183: ks-4, where the in-tree plugins alone would pick ks-8.
    check_eq "the first pod goes where the extender says" ks-4 "$(place kn-1 1 512Mi)"
    # Two more: every pod bound.
    place kn-2 1 512Mi >/dev/null && place kn-3 1 512Mi >/dev/null
    check "every pod bound: $(spread_of kn)" [ "$(spread_of kn | tr ' ' '\n' | awk -F: '{s += $2} END {print s}')" = 3 ]
    # The requests carried Node objects: kilobytes, where the same calls in
    # t_scheduler_cache carried three names.
    local bytes
    bytes=$(ext_log_requests ext-kn prioritize | jq -s 'map(.bodyBytes) | min')
    check "prioritize bodies carry the NodeList (smallest $bytes bytes > 3 x 1000)" [ "$bytes" -gt 3000 ]
    k8s_stop sched-kn
    k8s_stop ext-kn
    sched_cleanup kn
}

# bindVerb: bind (added): the extender creates the Binding, not
# kube-scheduler.
t_scheduler_bind_verb() {
    local m who=system:serviceaccount:kube-system:cpu-extender-scheduler
    sched_nodes || return 1
    ext_start ext-kb "$T/sa/scheduler" || return 1
    k8s_wait 20 "ext-kb ready" ext_ready || { fail "extender not ready"; return 1; }
    sched_config "$T/sched-bind.json" "$EXT_PORT" '.extenders[0].bindVerb = "bind"'
    sched_start sched-kb "$T/sched-bind.json" || return 1
    m=$(audit_mark)
    check_eq "kb-1 placed as in t_scheduler_cache" ks-8 "$(place kb-1 1 256Mi)"
    check_eq "kb-2" ks-8 "$(place kb-2 1 256Mi)"
    check_eq "the extender's bind calls" "kb-1 200 kb-2 200" \
        "$(ext_log_requests ext-kb bind | jq -r '"\(.pod | sub("ce-a/"; "")) \(.status)"' | paste -sd' ')"
    check_eq "the Bindings' creators" "cpu-extender cpu-extender" \
        "$(audit_since "$m" ".objectRef.subresource == \"binding\" and .user.username == \"$who\"" |
            jq -r '.userAgent | split("/")[0]' | paste -sd' ')"
    k8s_stop sched-kb
    k8s_stop ext-kb
    sched_cleanup kb
}

# A filter rejection in the pod's FailedScheduling event. filterVerb is
# set here whatever the manifest says (issue 13 makes the shipped stanza
# prioritize-only). The extender runs with --cpu-threshold-percent 50.
t_scheduler_filter_event() {
    sched_nodes || return 1
    mk_pod ce-a kf-fill '.spec.nodeName = "ks-8" | .spec.containers[0].resources.requests = {cpu: "2"}' || return 1
    ext_start ext-kf "$T/sa/scheduler" --cpu-threshold-percent 50 || return 1
    k8s_wait 20 "ext-kf ready" ext_ready || { fail "extender not ready"; return 1; }
    sched_config "$T/sched-filter.json" "$EXT_PORT" '.extenders[0].filterVerb = "filter"'
    sched_start sched-kf "$T/sched-filter.json" || return 1
    sched_pod kf-1 3 512Mi || return 1
    # The pod asks for 3 CPUs:
    #   ks-2: the in-tree filter rejects it (3 > 2): "Insufficient cpu";
    #   ks-4: passes in-tree; the extender's limit is 4 x 50 % = 2 CPUs and
    #         the request alone is over it: FailedAndUnresolvableNodes;
    #   ks-8: passes in-tree (2 + 3 <= 8); the extender: 2 + 3 > 4, the
    #         request alone fits: FailedNodes "Insufficient cpu".
    # kube-scheduler 1.20 reads only FailedNodes (ExtenderFilterResult has
    # no FailedAndUnresolvableNodes before 1.21's extender API), so ks-4
    # rejected with no reason: the event counts two reasons for three nodes.
    # 1.37 counts all three, then tries preemption: ks-8 could be freed
    # but kf-fill has the same priority (no victims); ks-2 (over its
    # allocatable) and ks-4 (the extender's unresolvable) cannot.
    local ev want="0/3 nodes are available: 2 Insufficient cpu."
    k8s_since 24 && want="0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are available: 1 No preemption victims found for incoming pod, 2 Preemption is not helpful for scheduling."
    k8s_wait 20 "kf-1 FailedScheduling" failed_scheduling kf-1
    ev=$(failed_scheduling kf-1)
    check_eq "kf-1's FailedScheduling event" "$want" "$ev"
    check_eq "kf-1 not bound" "" "$(node_of kf-1)"
    api GET /api/v1/namespaces/ce-a/pods/kf-1
    check_eq "PodScheduled False, Unschedulable" "False Unschedulable $want" \
        "$(jq -r '.status.conditions[] | select(.type == "PodScheduled") | "\(.status) \(.reason) \(.message)"' <<<"$RESP")"
    # The extender's access line: two nodes in (ks-2 was out already), none
    # passed.
    check_eq "the extender's filter call" "2 0" \
        "$(ext_log_requests ext-kf filter | jq -r 'select(.pod == "ce-a/kf-1") | "\(.nodesIn) \(.nodesPassed)"' | head -n1)"
    k8s_stop sched-kf
    k8s_stop ext-kf
    del_pod ce-a kf-fill
    sched_cleanup kf
}

# The newest FailedScheduling note of a pod (events.k8s.io/v1, which
# kube-scheduler 1.20 writes).
failed_scheduling() {
    api GET /apis/events.k8s.io/v1/namespaces/ce-a/events
    local note
    note=$(jq -r --arg p "$1" '[.items[] | select(.regarding.name == $p and .reason == "FailedScheduling")] |
        sort_by(.metadata.creationTimestamp) | last | .note // empty' <<<"$RESP")
    [ -n "$note" ] && echo "$note"
}

# The extender stopped, ignorable: true (the manifest's): the scheduler
# skips it and every pod still binds.
t_scheduler_extender_down() {
    sched_nodes || return 1
    ext_start ext-kd "$T/sa/scheduler" || return 1
    sched_config "$T/sched-down.json" "$EXT_PORT" '.extenders[0].filterVerb = "filter"'
    check_eq "ignorable as in the manifest" true "$(jq .extenders[0].ignorable "$T/sched-down.json")"
    k8s_stop ext-kd
    sched_start sched-kd "$T/sched-down.json" || return 1
    local a b
    a=$(place kd-1 1 512Mi) && b=$(place kd-2 1 512Mi)
    check "kd-1 and kd-2 bound without the extender ($a, $b)" test -n "$a" -a -n "$b"
    check "the scheduler skipped the extender" \
        grep -Eq "Skipping extender.* as it returned error.* and has ignorable flag set" "$K8S_DIR/logs/sched-kd.log"
    k8s_stop sched-kd
    sched_cleanup kd
}

# schedulerWeight and schedulerTimeoutMs set once: the extender runs with
# the shipped config.json (schedulerConfig, no weight or timeout of its
# own) pointed at the very file kube-scheduler runs with, whose stanza says
# weight 3 and httpTimeout 2500ms here. Both read it: kube-scheduler
# accepts it and calls prioritize, and the extender's decisions carry
# weight 3 (config check says 3 and 2500 ms).
t_scheduler_one_file() {
    sched_nodes || return 1
    local port
    port=$(k8s_free_port)
    sched_config "$T/sched-one.json" "$port" '.extenders[0].weight = 3 | .extenders[0].httpTimeout = "2500ms"'
    check_eq "the shipped config.json sets neither value itself" "false false" \
        "$(jq -r '[has("schedulerWeight"), has("schedulerTimeoutMs")] | map(tostring) | join(" ")' "$EXTENDER_CONFIG_JSON")"
    jq --arg sc "$T/sched-one.json" '.schedulerConfig = $sc | .metricsListen = ""' \
        "$EXTENDER_CONFIG_JSON" >"$T/ext-one.json"
    check_eq "config check: weight and timeout from kube-scheduler's file" "3 2500" \
        "$("$EXT" config check "$T/ext-one.json" 2>/dev/null | jq -r '"\(.schedulerWeight) \(.schedulerTimeoutMs)"')"
    ext_start ext-k1 "$T/sa/scheduler" --config "$T/ext-one.json" --listen "127.0.0.1:$port" || return 1
    check_eq "the extender listens where the stanza's urlPrefix points" "$port" "$EXT_PORT"
    k8s_wait 20 "ext-k1 ready" ext_ready || { fail "extender not ready"; return 1; }
    sched_start sched-k1 "$T/sched-one.json" || return 1
    local node
    node=$(place k1-1 1 512Mi)
    check "k1-1 bound ($node)" [ -n "$node" ]
    check_eq "prioritize calls: one" 1 "$(ext_log_requests ext-k1 prioritize | wc -l)"
    ext GET /debug/decisions
    check_eq "the decision's schedulerWeight and influenceMax (10 x 3 x 10)" "200 3 300" \
        "$ECODE $(jq -r '.decisions[0] | "\(.schedulerWeight) \(.influenceMax)"' <<<"$ERESP")"
    k8s_stop sched-k1
    k8s_stop ext-k1
    sched_cleanup k1
}
