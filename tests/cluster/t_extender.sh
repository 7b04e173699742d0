# shellcheck shell=bash
# The cpu-extender binary against the real API server: scores from the
# cluster state of pods created through the API, bind, and /readyz. The
# extender runs in-cluster with the token of the manifests' account
# (kube-system/cpu-extender-scheduler, $T/sa/scheduler).

# A pod to be placed, as kube-scheduler sends it: name, namespace, uid and
# the containers' requests (CPU MEMORY).
incoming_pod() {
    jq -nc --arg c "$1" --arg m "$2" '{metadata: {name: "incoming", namespace: "ce-a",
        uid: "00000000-0000-0000-0000-000000000001"},
        spec: {containers: [{name: "c", resources: {requests: {cpu: $c, memory: $m}}}]}}'
}

# verb VERB POD-JSON NODE...: a NodeNames request (nodeCacheCapable: true);
# prints the answer, compact.
verb() {
    local v=$1 pod=$2
    shift 2
    ext POST "/scheduler/$v" "$(jq -nc --argjson p "$pod" '{Pod: $p, Nodes: null, NodeNames: $ARGS.positional}' --args "$@")"
    [ "$ECODE" = 200 ] || { echo "HTTP $ECODE: $ERESP"; return; }
    jq -c . <<<"$ERESP"
}

filter_answer() {
    verb filter "$@" | jq -c '{NodeNames, FailedNodes, FailedAndUnresolvableNodes, Error}'
}

# Waits until the extender holds as many nodes and pods as the server.
ext_in_sync() {
    local n p
    api GET /api/v1/nodes
    n=$(jq '.items | length' <<<"$RESP")
    api GET /api/v1/pods
    p=$(jq '.items | length' <<<"$RESP")
    ext_counts_are "$n" "$p"
}

prioritize_is() { [ "$(verb prioritize "$1" "${@:3}")" = "$2" ]; }

t_scores_from_cluster_state() {
    mk_node sc-a 4 8Gi && mk_node sc-b 8 16Gi && mk_node sc-c 2 4Gi && mk_node sc-d 1 1Gi || return 1
    # Overhead comes from a RuntimeClass: its admission plugin copies
    # podFixed into the pod's spec.overhead (a pod cannot set it itself).
    must POST /apis/node.k8s.io/v1/runtimeclasses '{"apiVersion":"node.k8s.io/v1","kind":"RuntimeClass",
        "metadata":{"name":"ce-overhead"},"handler":"runc","overhead":{"podFixed":{"cpu":"2","memory":"64Mi"}}}' 201 ||
        return 1
    # sc-a: p1 (containers 500m/256Mi + 250m/128Mi, init container 2/64Mi)
    # and p2 (BestEffort).
    mk_pod ce-a p1 '.spec.nodeName = "sc-a" | .spec.containers = [
        {name: "a", image: "registry.invalid/app:1", resources: {requests: {cpu: "500m", memory: "256Mi"}}},
        {name: "b", image: "registry.invalid/app:1", resources: {requests: {cpu: "250m", memory: "128Mi"}}}] |
        .spec.initContainers = [{name: "init", image: "registry.invalid/app:1",
                                 resources: {requests: {cpu: "2", memory: "64Mi"}}}]' &&
        mk_pod ce-a p2 '.spec.nodeName = "sc-a"' || return 1
    # sc-b: q1, 1/1Gi with the RuntimeClass's overhead 2/64Mi.
    mk_pod ce-b q1 '.spec.nodeName = "sc-b" | .spec.runtimeClassName = "ce-overhead" |
        .spec.containers[0].resources.requests = {cpu: "1", memory: "1Gi"}' || return 1
    check_eq "q1: spec.overhead set by the RuntimeClass admission plugin" '{"cpu":"2","memory":"64Mi"}' \
        "$(jq -c .spec.overhead <<<"$RESP")"
    # sc-c: only terminal pods, which hold nothing.
    mk_pod ce-b p3 '.spec.nodeName = "sc-c" | .spec.containers[0].resources.requests = {cpu: "2", memory: "1Gi"}' &&
        mk_pod ce-b p4 '.spec.nodeName = "sc-c" | .spec.containers[0].resources.requests = {cpu: "1", memory: "1Gi"}' &&
        set_phase ce-b p3 Succeeded && set_phase ce-b p4 Failed || return 1
    # sc-d: three BestEffort pods.
    mk_pod ce-a d1 '.spec.nodeName = "sc-d"' && mk_pod ce-a d2 '.spec.nodeName = "sc-d"' &&
        mk_pod ce-b d3 '.spec.nodeName = "sc-d"' || return 1
    # A pending pod is on no node.
    mk_pod ce-a p5 '.spec.containers[0].resources.requests = {cpu: "3", memory: "1Gi"}' || return 1

    ext_start ext-sc "$T/sa/scheduler" || return 1
    k8s_wait 20 "ext-sc ready" ext_ready || { fail "not ready within 20 s: $ERESP"; return 1; }
    k8s_wait 5 "ext-sc holds what the server holds" ext_in_sync
    check "the state holds every node and pod of the server: $ERESP" ext_in_sync

    # prioritize, spread, weights cpu 3 memory 1 (kube-scheduler's
    # NonZeroRequested: 100m / 200Mi for a container without requests).
    # The pod: 1 CPU, 1Gi.
    # sc-a: p1 = max(containers 750m/384Mi, init 2000m/64Mi) = 2000m/384Mi,
    #   p2 = 100m/200Mi; with the pod 3100m/1608Mi of 4000m/8192Mi:
    #   cpu (4000-3100)*100/4000 = 22, memory (8192-1608)*100/8192 = 80,
    #   (22*3 + 80)/4 = 36, score (36+5)/10 = 4.
    #   (Init container ignored: 1850m, cpu 53, value 59, score 6.)
    # sc-b: q1 = 1000m + overhead 2000m, 1024Mi + 64Mi; with the pod
    #   4000m/2112Mi of 8000m/16384Mi: cpu 50, memory 87, (150+87)/4 = 59,
    #   score 6. (Overhead ignored: cpu 75, value 78, score 8.)
    # sc-c: the terminal pods hold nothing; 1000m/1024Mi of 2000m/4096Mi:
    #   cpu 50, memory 75, (150+75)/4 = 56, score 6. (Counted: score 1.)
    # sc-none: not in the cluster: passed with score 0.
    local pod
    pod=$(incoming_pod 1 1Gi)
    check_eq "prioritize 1 CPU/1Gi" \
        '[{"Host":"sc-a","Score":4},{"Host":"sc-b","Score":6},{"Host":"sc-c","Score":6},{"Host":"sc-none","Score":0}]' \
        "$(verb prioritize "$pod" sc-a sc-b sc-c sc-none)"
    # sc-d: three BestEffort pods are 300m/600Mi with the defaults; the
    # pod 100m/100Mi: 400m/700Mi of 1000m/1024Mi: cpu 60, memory
    # (1024-700)*100/1024 = 31, (180+31)/4 = 52, score 5. (Without the
    # defaults: cpu 80, memory 90, score 8.)
    check_eq "prioritize 100m/100Mi on the BestEffort node" '[{"Host":"sc-d","Score":5}]' \
        "$(verb prioritize "$(incoming_pod 100m 100Mi)" sc-d)"

    # filter: real requests (no defaults). sc-a holds 2000m/384Mi (the init
    # container's 2 CPUs), sc-b 3000m/1088Mi, sc-c nothing.
    check_eq "filter 2000m: fits sc-a exactly (2000+2000 = 4000) and sc-c (2000 of 2000)" \
        '{"NodeNames":["sc-a","sc-c"],"FailedNodes":{},"FailedAndUnresolvableNodes":{},"Error":""}' \
        "$(filter_answer "$(incoming_pod 2000m 1Gi)" sc-a sc-c)"
    check_eq "filter 2001m: sc-a short now (4001 > 4000), sc-c never (2001 > 2000)" \
        '{"NodeNames":["sc-b"],"FailedNodes":{"sc-a":"Insufficient cpu"},"FailedAndUnresolvableNodes":{"sc-c":"Insufficient cpu"},"Error":""}' \
        "$(filter_answer "$(incoming_pod 2001m 1Gi)" sc-a sc-b sc-c)"
    check_eq "filter 5000m on sc-b: 3000 (with the overhead) + 5000 = 8000 fits" \
        '{"NodeNames":["sc-b"],"FailedNodes":{},"FailedAndUnresolvableNodes":{},"Error":""}' \
        "$(filter_answer "$(incoming_pod 5000m 1Gi)" sc-b)"
    check_eq "filter 5001m on sc-b: 8001 > 8000" \
        '{"NodeNames":[],"FailedNodes":{"sc-b":"Insufficient cpu"},"FailedAndUnresolvableNodes":{},"Error":""}' \
        "$(filter_answer "$(incoming_pod 5001m 1Gi)" sc-b)"

    # Changes through the API move the scores within a second.
    # p1 deleted: sc-a holds p2 only, 100m/200Mi; with the pod 1100m/1224Mi:
    # cpu 72, memory 85, (216+85)/4 = 75, score 8.
    del_pod ce-a p1 || return 1
    k8s_wait 1 "sc-a rescored" prioritize_is "$pod" '[{"Host":"sc-a","Score":8}]' sc-a
    check_eq "within 1 s of deleting p1, sc-a" '[{"Host":"sc-a","Score":8}]' "$(verb prioritize "$pod" sc-a)"
    # q1 Failed: sc-b holds nothing; 1000m/1024Mi of 8000m/16384Mi: cpu 87,
    # memory 93, (261+93)/4 = 88, score 9.
    set_phase ce-b q1 Failed || return 1
    k8s_wait 1 "sc-b rescored" prioritize_is "$pod" '[{"Host":"sc-b","Score":9}]' sc-b
    check_eq "within 1 s of q1 failing, sc-b" '[{"Host":"sc-b","Score":9}]' "$(verb prioritize "$pod" sc-b)"

    k8s_stop ext-sc
    local p
    for p in ce-a/p2 ce-b/q1 ce-b/p3 ce-b/p4 ce-a/d1 ce-a/d2 ce-b/d3 ce-a/p5; do del_pod "${p%/*}" "${p#*/}"; done
    for p in sc-a sc-b sc-c sc-d; do del_node "$p"; done
    must DELETE /apis/node.k8s.io/v1/runtimeclasses/ce-overhead 200
}

bind_args() {
    jq -nc --arg p "$1" --arg u "$2" --arg n "$3" '{PodName: $p, PodNamespace: "ce-a", PodUID: $u, Node: $n}'
}

pod_uid() { api GET "/api/v1/namespaces/ce-a/pods/$1" && jq -r .metadata.uid <<<"$RESP"; }
node_of() { api GET "/api/v1/namespaces/ce-a/pods/$1" && jq -r '.spec.nodeName // ""' <<<"$RESP"; }

t_bind() {
    local uid m sa_user=system:serviceaccount:kube-system:cpu-extender-scheduler
    mk_node bd-a 4 8Gi && mk_node bd-b 4 8Gi || return 1
    mk_pod ce-a b1 '.spec.containers[0].resources.requests = {cpu: "500m"}' || return 1
    uid=$(jq -r .metadata.uid <<<"$RESP")
    ext_start ext-bd "$T/sa/scheduler" || return 1
    k8s_wait 20 "ext-bd ready" ext_ready || { fail "not ready: $ERESP"; return 1; }

    m=$(audit_mark)
    ext POST /scheduler/bind "$(bind_args b1 "$uid" bd-b)"
    check_eq "bind b1 to bd-b" '200 {"Error":""}' "$ECODE $(jq -c . <<<"$ERESP")"
    check_eq "b1's nodeName" bd-b "$(node_of b1)"
    api GET /api/v1/namespaces/ce-a/pods/b1
    check_eq "b1's PodScheduled condition" True \
        "$(jq -r '.status.conditions[] | select(.type == "PodScheduled") | .status' <<<"$RESP")"
    check_eq "the Binding: created by the extender's account, 201" "create pods/binding 201" \
        "$(audit_since "$m" ".user.username == \"$sa_user\" and .objectRef.subresource == \"binding\"" |
            jq -r '"\(.verb) \(.objectRef.resource)/\(.objectRef.subresource) \(.responseStatus.code)"')"

    # kubernetes#96579: the scheduler may bind again when our first answer
    # was lost. The API server answers 409; the pod is on that node: success.
    m=$(audit_mark)
    ext POST /scheduler/bind "$(bind_args b1 "$uid" bd-b)"
    check_eq "bind b1 to bd-b again" '200 {"Error":""}' "$ECODE $(jq -c . <<<"$ERESP")"
    check_eq "the API server's answers: 409 to the Binding, then the pod read" "create 409 get 200" \
        "$(audit_since "$m" ".user.username == \"$sa_user\" and .objectRef.resource == \"pods\"" |
            jq -r '"\(.verb) \(.responseStatus.code)"' | paste -sd' ')"

    # To another node: the API server's message, as it wrote it
    # (pkg/registry/core/pod/storage: a Conflict on pods/binding).
    ext POST /scheduler/bind "$(bind_args b1 "$uid" bd-a)"
    check_eq "bind b1 to bd-a: the API server's message" \
        '{"Error":"API server answered 409: Operation cannot be fulfilled on pods/binding \"b1\": pod b1 is already assigned to node \"bd-b\""}' \
        "$(jq -c . <<<"$ERESP")"
    check_eq "b1 stays on bd-b" bd-b "$(node_of b1)"

    ext POST /scheduler/bind "$(bind_args nope 00000000-0000-0000-0000-000000000009 bd-a)"
    check_eq "bind a pod that does not exist" '{"Error":"API server answered 404: pods \"nope\" not found"}' \
        "$(jq -c . <<<"$ERESP")"

    # A pod being deleted (a finalizer holds it) cannot be bound.
    mk_pod ce-a b3 '.metadata.finalizers = ["cpu-extender.io/test-hold"]' || return 1
    uid=$(jq -r .metadata.uid <<<"$RESP")
    must DELETE /api/v1/namespaces/ce-a/pods/b3 200 || return 1
    ext POST /scheduler/bind "$(bind_args b3 "$uid" bd-a)"
    check_eq "bind a pod being deleted" \
        '{"Error":"API server answered 409: Operation cannot be fulfilled on pods/binding \"b3\": pod b3 is being deleted, cannot be assigned to a host"}' \
        "$(jq -c . <<<"$ERESP")"
    CT=application/merge-patch+json must PATCH /api/v1/namespaces/ce-a/pods/b3 '{"metadata":{"finalizers":null}}' 200

    # The UID kube-scheduler sends is that of the pod it placed. 1.20's
    # BindingREST ignores the Binding's metadata.uid (it passes no
    # precondition to the update), so a Binding for a pod deleted and
    # recreated under the same name binds the new one. 1.37 (and
    # tests/support/fake_apiserver.c) answer 409 "Precondition failed".
    mk_pod ce-a b2 && uid=$(jq -r .metadata.uid <<<"$RESP") && del_pod ce-a b2 && mk_pod ce-a b2 || return 1
    check "b2 recreated with a new uid" [ "$(jq -r .metadata.uid <<<"$RESP")" != "$uid" ]
    ext POST /scheduler/bind "$(bind_args b2 "$uid" bd-a)"
    if k8s_since 24; then
        # The API server checks the uid as a precondition: the Binding for
        # the deleted pod fails and the new one stays pending.
        check "bind with the old uid: 409, precondition failed on the uid ($(jq -r .Error <<<"$ERESP" | head -c 160)...)" \
            grep -q "^API server answered 409: .*Precondition failed: UID in precondition: $uid, UID in object meta: " \
            <<<"$(jq -r .Error <<<"$ERESP")"
        check_eq "the new b2 stays pending" "" "$(node_of b2)"
    else
        check_eq "bind with the old uid on 1.20: accepted" '{"Error":""}' "$(jq -c . <<<"$ERESP")"
        check_eq "the new b2 is bound" bd-a "$(node_of b2)"
    fi

    k8s_stop ext-bd
    del_pod ce-a b1
    del_pod ce-a b2
    del_node bd-a
    del_node bd-b
}

# /readyz: 503 with the reason until the first lists are in; 200 after,
# with the counts following the cluster, also across an API server
# restart with changes the extender could only learn by listing again.
t_readyz_follows() {
    local m n_before
    mk_node rz-keep 2 4Gi && mk_node rz-gone 2 4Gi || return 1
    # Started while the API server is down. (kube-apiserver does not exit
    # on SIGTERM while clients hold watches open: 5 s, then SIGKILL.)
    k8s_stop kube-apiserver 5
    ext_start ext-rz "$T/sa/scheduler" || return 1
    ext GET /readyz
    check_eq "with the API server down: 503" 503 "$ECODE"
    check_eq "ready false" false "$(jq -r .ready <<<"$ERESP")"
    check "the reason names both lists: $(jq -r .reason <<<"$ERESP")" \
        grep -q '^cluster state incomplete: nodes: .*; pods: ' <<<"$(jq -r .reason <<<"$ERESP")"
    k8s_start_apiserver || { fail "kube-apiserver did not come back"; return 1; }
    # The extender retries with a capped backoff (200 ms doubling, 30 s cap,
    # 50 % jitter): within 45 s of the API server's return.
    k8s_wait 45 "ext-rz ready" ext_ready
    check_eq "once the API server is back: 200" 200 "$ECODE"
    k8s_wait 5 "ext-rz in sync" ext_in_sync
    check "counts equal the server's: $(jq -c '{nodes, pods}' <<<"$ERESP")" ext_in_sync

    api GET /api/v1/nodes
    n_before=$(jq '.items | length' <<<"$RESP")
    mk_node rz-new 2 4Gi || return 1
    k8s_wait 1 "nodes +1" ext_in_sync
    check_eq "within 1 s of a new node: nodes" "$((n_before + 1))" "$(ext GET /readyz; jq .nodes <<<"$ERESP")"
    mk_pod ce-a rz-p '.spec.nodeName = "rz-new"' || return 1
    k8s_wait 1 "pods +1" ext_in_sync
    check "within 1 s of a new pod: $(jq -c '{nodes, pods}' <<<"$ERESP")" ext_in_sync

    # Stopped (SIGSTOP) across a restart, with a node deleted and a pod
    # added meanwhile: it must end with the server's view (the watch from
    # its old version gets 410 from the restarted server: list again).
    kill -STOP "${K8S_PIDS[ext-rz]}"
    m=$(audit_mark)
    k8s_stop kube-apiserver 5
    k8s_start_apiserver || { fail "kube-apiserver did not come back"; return 1; }
    del_node rz-gone && mk_pod ce-b rz-q '.spec.nodeName = "rz-keep"' || return 1
    kill -CONT "${K8S_PIDS[ext-rz]}"
    ext GET /readyz
    check_eq "right after the restart: still ready (the state is kept)" 200 "$ECODE"
    k8s_wait 20 "ext-rz in sync after the restart" ext_in_sync
    check "within 20 s, the counts equal the server's: $(jq -c '{nodes, pods}' <<<"$ERESP")" ext_in_sync
    local who=system:serviceaccount:kube-system:cpu-extender-scheduler
    info "its requests after the restart: $(audit_since "$m" ".user.username == \"$who\" and (.verb == \"list\" or .verb == \"watch\")" |
        jq -r '"\(.verb) \(.objectRef.resource) \(.responseStatus.code)"' | paste -sd, | sed 's/,/, /g')"
    # The deleted node is gone from the state: its name is unknown now.
    # rz-keep holds rz-q (BestEffort: 100m/200Mi); with the pod 1100m/1224Mi
    # of 2000m/4096Mi: cpu 45, memory 70, (135+70)/4 = 51, score 5.
    ext POST /scheduler/prioritize "$(jq -nc --argjson p "$(incoming_pod 1 1Gi)" '{Pod: $p, NodeNames: ["rz-gone", "rz-keep"]}')"
    check_eq "rz-gone unknown (score 0), rz-keep scored with rz-q" '[{"Host":"rz-gone","Score":0},{"Host":"rz-keep","Score":5}]' \
        "$(jq -c . <<<"$ERESP")"
    k8s_stop ext-rz
    del_pod ce-a rz-p
    del_pod ce-b rz-q
    del_node rz-keep
    del_node rz-new
}
