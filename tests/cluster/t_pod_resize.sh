# shellcheck shell=bash
# A pod resized in place (the pods/resize subresource, InPlacePodVerticalScaling,
# GA in 1.35), charged to its node as kube-scheduler 1.37 charges it:
# component-helpers resource.PodRequests with UseStatusResources, per
# container the largest of the spec's request, status.containerStatuses[]
# .allocatedResources and .resources.requests (what the kubelet actuated),
# and without the spec while the resize is Infeasible
# (determineContainerReqs). No kubelet runs here: the test writes the
# status a kubelet writes during a resize (allocated and actuated
# resources, the PodResizePending / PodResizeInProgress conditions), which
# is all the scheduler reads of it.
#
# rz-n1 has 4 CPUs. rz-1 (one container "c", cpu 1) is bound to it. The
# extender's filter (real requests, threshold 100 %) says what the node is
# charged: an incoming pod of 4000m - charge fits, one millicore more does
# not.
#   as created              spec 1                      charged 1000m
#   resized to 2, no status spec 2 (nothing allocated)  2000m
#   resized down to 500m    spec 500m, allocated and
#     while the kubelet       actuated 1, InProgress    1000m (not 500m)
#     has not actuated it
#   asked for 3, still     spec 3, allocated and
#     in progress             actuated 1, InProgress    3000m
#   asked for 3, Infeasible spec 3, allocated and
#                             actuated 1, Pending
#                             reason Infeasible         1000m (not 3000m)
#   done at 500m            spec, allocated, actuated
#                             500m, no condition        500m

rz_incoming() {
    jq -nc --arg c "$1" '{metadata: {name: "rz-in", namespace: "ce-a", uid: "00000000-0000-0000-0000-0000000000a1"},
        spec: {containers: [{name: "c", resources: {requests: {cpu: $c}}}]}}'
}

# rz_charged_is MILLI: the filter passes an incoming pod of 4000 - MILLI
# and refuses one of a millicore more.
rz_charged_is() {
    local room=$((4000 - $1))
    [ "$(filter_answer "$(rz_incoming "${room}m")" rz-n1 | jq -c .NodeNames)" = '["rz-n1"]' ] &&
        [ "$(filter_answer "$(rz_incoming "$((room + 1))m")" rz-n1 | jq -c .NodeNames)" = '[]' ]
}

rz_expect() {
    k8s_wait 10 "rz-n1 charged $1m" rz_charged_is "$1"
    check "$2: rz-n1 charged ${1}m (filter: $((4000 - $1))m fits, one more does not)" rz_charged_is "$1"
}

# rz_resize CPU: the spec's request through the resize subresource.
rz_resize() {
    CT=application/strategic-merge-patch+json must PATCH /api/v1/namespaces/ce-a/pods/rz-1/resize \
        "{\"spec\":{\"containers\":[{\"name\":\"c\",\"resources\":{\"requests\":{\"cpu\":\"$1\"}}}]}}" 200
}

# rz_status ALLOCATED ACTUATED [CONDITION-JSON]: the status a kubelet
# writes for the container during a resize.
rz_status() {
    local cond=${3:-[]}
    CT=application/merge-patch+json must PATCH /api/v1/namespaces/ce-a/pods/rz-1/status "$(jq -nc \
        --arg a "$1" --arg r "$2" --argjson cond "$cond" '{status: {phase: "Running", conditions: $cond,
            containerStatuses: [{name: "c", image: "registry.invalid/pause:3.2", imageID: "", ready: true,
                restartCount: 0, started: true, state: {running: {startedAt: "2026-12-04T00:00:00Z"}},
                allocatedResources: {cpu: $a}, resources: {requests: {cpu: $r}}}]}}')" 200
}

rz_condition() {
    jq -nc --arg t "$1" --arg r "${2:-}" '[{type: $t, status: "True", lastTransitionTime: "2026-12-04T00:00:00Z"} +
        (if $r == "" then {} else {reason: $r} end)]'
}

t_pod_resize_charged() {
    mk_node rz-n1 4 8Gi || return 1
    mk_pod ce-a rz-1 '.spec.nodeName = "rz-n1" | .spec.containers[0].resources.requests = {cpu: "1"}' || return 1
    ext_start ext-rz "$T/sa/scheduler" --cpu-threshold-percent 100 || return 1
    k8s_wait 20 "ext-rz ready" ext_ready || { fail "not ready within 20 s: $ERESP"; return 1; }
    rz_expect 1000 "as created"
    rz_resize 2 || return 1
    check_eq "the resize is in the spec" 2 \
        "$(api GET /api/v1/namespaces/ce-a/pods/rz-1 && jq -r '.spec.containers[0].resources.requests.cpu' <<<"$RESP")"
    rz_expect 2000 "resized up, nothing allocated yet"
    rz_resize 500m && rz_status 1 1 "$(rz_condition PodResizeInProgress)" || return 1
    rz_expect 1000 "resized down, the kubelet not done: the allocated and actuated 1 CPU count"
    rz_resize 3 || return 1
    rz_expect 3000 "asked for 3 while in progress: the spec counts"
    rz_status 1 1 "$(rz_condition PodResizePending Infeasible)" || return 1
    rz_expect 1000 "asked for 3, Infeasible: the spec does not count"
    rz_resize 500m && rz_status 500m 500m || return 1
    rz_expect 500 "done at 500m"
    k8s_stop ext-rz
    del_pod ce-a rz-1
    del_node rz-n1
}
