# shellcheck shell=bash
# Pods of today's shapes as real API objects, scored exactly: sidecars
# (initContainers with restartPolicy: Always, beta and on by default since
# 1.29), ordinary init containers before and after them, overhead from a
# RuntimeClass and pod-level spec.resources (beta and on by default since
# 1.34: the PodLevelResources gate, no flag needed). The pods are created
# through the API and placed with spec.nodeName; the extender answers
# prioritize and filter from its cluster state for an incoming pod that is
# itself such an API object (read back and sent as kube-scheduler sends
# it), and every answer equals the value worked out below from the rules of
# scoring/podreq.h and README "How scores are computed" (spread, weights
# cpu 3 memory 1, integer arithmetic; Mi stands for 1048576 bytes: every
# quantity here is whole Mi, so the ratios are the same in bytes).
#
# 1.37's API server also defaults pod-level requests
# (PodLevelResourcesFixDefaulting, beta since 1.37, in PrepareForCreate):
# a key the containers request but spec.resources.requests lacks is set to
# the containers' aggregate. ps-b1 below shows it.

# ps-a1 on ps-n1 (8 CPU, 16384Mi): init0 before the sidecars, init1
# between them.
#   initContainers: init0 2/256Mi; sc1 (sidecar) 500m/128Mi;
#                   init1 1/1024Mi; sc2 (sidecar) 250m/-
#   containers:     app 1/512Mi; app2 -/-
# real cpu: containers 1000 + sidecars 750 = 1750; init0 alone 2000
#   (sidecars start after it), init1 1000 + sc1 500 = 1500: 2000m.
# real memory: 512 + 128 = 640; init0 256, init1 1024 + sc1 128 = 1152:
#   1152Mi (without sc1 under init1: 1024).
# non-zero (defaults 100m/200Mi per container lacking the key; no
#   pod-level requests): cpu 1000 + 100 + 750 = 1850 vs 2000: 2000m;
#   memory 512 + 200 + 128 + 200 = 1040 vs init1 1152: 1152Mi.
ps_pods_n1() {
    mk_pod ce-a ps-a1 '.spec.nodeName = "ps-n1" |
        .spec.initContainers = [
            {name: "init0", image: "registry.invalid/app:1", resources: {requests: {cpu: "2", memory: "256Mi"}}},
            {name: "sc1", image: "registry.invalid/app:1", restartPolicy: "Always",
             resources: {requests: {cpu: "500m", memory: "128Mi"}}},
            {name: "init1", image: "registry.invalid/app:1", resources: {requests: {cpu: "1", memory: "1Gi"}}},
            {name: "sc2", image: "registry.invalid/app:1", restartPolicy: "Always",
             resources: {requests: {cpu: "250m"}}}] |
        .spec.containers = [
            {name: "app", image: "registry.invalid/app:1", resources: {requests: {cpu: "1", memory: "512Mi"}}},
            {name: "app2", image: "registry.invalid/app:1"}]'
}

# On ps-n2 (4 CPU, 8192Mi):
# ps-b1: RuntimeClass ce-ps-overhead (podFixed 250m/64Mi), pod-level
#   requests cpu 1500m only; containers 500m/256Mi and -/128Mi. The API
#   server sets pod-level memory to the containers' 384Mi (checked).
#   real = non-zero (pod-level, both keys named): cpu 1500 + 250 = 1750m,
#   memory 384 + 64 = 448Mi.
# ps-b2: pod-level requests cpu 1, two containers without requests: no
#   memory anywhere, so nothing to default it from. real cpu 1000m, memory
#   0; non-zero: cpu 1000m (named at pod level), memory 2 x 200 = 400Mi
#   (a key the pod lacks altogether: every container's default).
# ps-n2 holds real 2750m/448Mi, non-zero 2750m/848Mi.
ps_pods_n2() {
    must POST /apis/node.k8s.io/v1/runtimeclasses '{"apiVersion":"node.k8s.io/v1","kind":"RuntimeClass",
        "metadata":{"name":"ce-ps-overhead"},"handler":"runc","overhead":{"podFixed":{"cpu":"250m","memory":"64Mi"}}}' 201 ||
        return 1
    mk_pod ce-b ps-b1 '.spec.nodeName = "ps-n2" | .spec.runtimeClassName = "ce-ps-overhead" |
        .spec.resources = {requests: {cpu: "1500m"}} |
        .spec.containers = [
            {name: "a", image: "registry.invalid/app:1", resources: {requests: {cpu: "500m", memory: "256Mi"}}},
            {name: "b", image: "registry.invalid/app:1", resources: {requests: {memory: "128Mi"}}}]' || return 1
    check_eq "ps-b1 as stored: overhead from the RuntimeClass, pod-level memory defaulted to the containers' sum" \
        '{"cpu":"250m","memory":"64Mi"} {"cpu":"1500m","memory":"384Mi"}' \
        "$(jq -c '.spec.overhead, .spec.resources.requests' <<<"$RESP" | paste -sd' ')"
    mk_pod ce-b ps-b2 '.spec.nodeName = "ps-n2" | .spec.resources = {requests: {cpu: "1"}} |
        .spec.containers = [{name: "a", image: "registry.invalid/app:1"}, {name: "b", image: "registry.invalid/app:1"}]' ||
        return 1
    check_eq "ps-b2 as stored: pod-level requests unchanged (no container names memory)" '{"cpu":"1"}' \
        "$(jq -c .spec.resources.requests <<<"$RESP")"
}

# The incoming pod ps-in, pending (a schedulerName no scheduler serves):
#   initContainers: sc (sidecar) 250m/-; init 500m/-
#   containers:     app 250m/-; app2 -/-
#   spec.resources.requests: cpu 1 (>= the containers' aggregate
#   max(250 + 250, 500 + 250) = 750m, as validation requires)
# real: cpu 1000m (pod level), memory 0 (named nowhere: not defaulted).
# scored (non-zero): cpu 1000m; memory defaulted per container: app 200 +
#   app2 200 + sc 200 = 600 vs init 200 + sc 200 = 400: 600Mi.
ps_incoming() {
    mk_pod ce-a ps-in '.spec.schedulerName = "ce-nobody" | .spec.resources = {requests: {cpu: "1"}} |
        .spec.initContainers = [
            {name: "sc", image: "registry.invalid/app:1", restartPolicy: "Always", resources: {requests: {cpu: "250m"}}},
            {name: "init", image: "registry.invalid/app:1", resources: {requests: {cpu: "500m"}}}] |
        .spec.containers = [
            {name: "app", image: "registry.invalid/app:1", resources: {requests: {cpu: "250m"}}},
            {name: "app2", image: "registry.invalid/app:1"}]' || return 1
    PS_IN=$(jq -c . <<<"$RESP")
    check_eq "ps-in as stored: pod-level requests" '{"cpu":"1"}' "$(jq -c .spec.resources.requests <<<"$PS_IN")"
}

# Prioritize ps-in, then its decision's used values in /debug/decisions.
# used = the node's non-zero sum, pod = ps-in's scored request, req = both:
# ps-n1: cpu (8000 - 3000) * 100 / 8000 = 62, memory (16384 - 1752) * 100
#   / 16384 = 89, (62 * 3 + 89) / 4 = 68, score (68 + 5) / 10 = 7.
# ps-n2: cpu (4000 - 3750) * 100 / 4000 = 6, memory (8192 - 1448) * 100
#   / 8192 = 82, (18 + 82) / 4 = 25, score 3.
# ps-n3 (2 CPU, 4096Mi, empty): cpu 50, memory (4096 - 600) * 100 / 4096
#   = 85, (150 + 85) / 4 = 58, score 6.
ps_check_prioritize() {
    local mi=1048576
    check_eq "prioritize ps-in" '[{"Host":"ps-n1","Score":7},{"Host":"ps-n2","Score":3},{"Host":"ps-n3","Score":6}]' \
        "$(verb prioritize "$PS_IN" ps-n1 ps-n2 ps-n3)"
    ext GET '/debug/decisions?pod=ce-a/ps-in&limit=1'
    check_eq "the decision's pod: real cpu/memory, scored cpu/memory" "1000 0 1000 $((600 * mi))" \
        "$(jq -r '.decisions[0].pod | "\(.cpuMillis) \(.memoryBytes) \(.cpuMillisForScoring) \(.memoryBytesForScoring)"' <<<"$ERESP")"
    check_eq "the decision's nodes: used cpu, used memory, value, score" \
        "ps-n1 2000 $((1152 * mi)) 68 7; ps-n2 2750 $((848 * mi)) 25 3; ps-n3 0 0 58 6" \
        "$(jq -r '[.decisions[0].nodes[] | "\(.name) \(.resources.cpu.used) \(.resources.memory.used) \(.value) \(.score)"] |
            join("; ")' <<<"$ERESP")"
}

# filter_with CPU [MEMORY]: ps-in with its pod-level requests changed (the
# rest as stored), filtered against ps-n1 and ps-n2.
filter_with() {
    filter_answer "$(jq -c --arg c "$1" --arg m "${2:-}" '.spec.resources.requests.cpu = $c |
        if $m != "" then .spec.resources.requests.memory = $m else . end' <<<"$PS_IN")" ps-n1 ps-n2
}

# Filter on real requests: ps-n1 holds 2000m/1152Mi, ps-n2 2750m/448Mi
# (with ps-b1's overhead; ps-b2's memory is 0).
ps_check_filter() {
    check_eq "filter ps-in as stored (1 CPU, no memory): both fit" \
        '{"NodeNames":["ps-n1","ps-n2"],"FailedNodes":{},"FailedAndUnresolvableNodes":{},"Error":""}' \
        "$(verb filter "$PS_IN" ps-n1 ps-n2 | jq -c '{NodeNames, FailedNodes, FailedAndUnresolvableNodes, Error}')"
    check_eq "1250m: ps-n2 full to the millicore (2750 + 1250 = 4000)" \
        '{"NodeNames":["ps-n1","ps-n2"],"FailedNodes":{},"FailedAndUnresolvableNodes":{},"Error":""}' \
        "$(filter_with 1250m)"
    check_eq "1251m: ps-n2 short by one (the overhead counted)" \
        '{"NodeNames":["ps-n1"],"FailedNodes":{"ps-n2":"Insufficient cpu"},"FailedAndUnresolvableNodes":{},"Error":""}' \
        "$(filter_with 1251m)"
    check_eq "1 CPU, 15232Mi: ps-n1 full (1152 + 15232 = 16384; init1 with sc1 counted)" \
        '{"NodeNames":["ps-n1"],"FailedNodes":{},"FailedAndUnresolvableNodes":{"ps-n2":"Insufficient memory"},"Error":""}' \
        "$(filter_with 1 15232Mi)"
    check_eq "1 CPU, 15233Mi: ps-n1 short by 1Mi" \
        '{"NodeNames":[],"FailedNodes":{"ps-n1":"Insufficient memory"},"FailedAndUnresolvableNodes":{"ps-n2":"Insufficient memory"},"Error":""}' \
        "$(filter_with 1 15233Mi)"
    check_eq "1 CPU, 7744Mi: ps-n2 full (448 + 7744 = 8192)" \
        '{"NodeNames":["ps-n1","ps-n2"],"FailedNodes":{},"FailedAndUnresolvableNodes":{},"Error":""}' \
        "$(filter_with 1 7744Mi)"
    check_eq "1 CPU, 7745Mi: ps-n2 short by 1Mi" \
        '{"NodeNames":["ps-n1"],"FailedNodes":{"ps-n2":"Insufficient memory"},"FailedAndUnresolvableNodes":{},"Error":""}' \
        "$(filter_with 1 7745Mi)"
}

t_pod_shapes_scored() {
    mk_node ps-n1 8 16Gi && mk_node ps-n2 4 8Gi && mk_node ps-n3 2 4Gi || return 1
    ps_pods_n1 && ps_pods_n2 && ps_incoming || { ps_cleanup; return 1; }
    ext_start ext-ps "$T/sa/scheduler" --debug-endpoints || { ps_cleanup; return 1; }
    k8s_wait 20 "ext-ps ready" ext_ready || { fail "not ready within 20 s: $ERESP"; ps_cleanup; return 1; }
    k8s_wait 5 "ext-ps holds what the server holds" ext_in_sync
    check "the state holds every node and pod of the server: $ERESP" ext_in_sync
    ps_check_prioritize
    ps_check_filter
    ps_cleanup
}

ps_cleanup() {
    k8s_stop ext-ps
    local p
    for p in ce-a/ps-a1 ce-b/ps-b1 ce-b/ps-b2 ce-a/ps-in; do del_pod "${p%/*}" "${p#*/}"; done
    for p in ps-n1 ps-n2 ps-n3; do del_node "$p"; done
    must DELETE /apis/node.k8s.io/v1/runtimeclasses/ce-ps-overhead "200 404"
}
