# shellcheck shell=bash
# The real kube-scheduler calling our preempt and bind verbs (1.37; 1.20
# never calls preempt, kubernetes#102971). The stanza is the manifest's
# (nodeCacheCapable: true, preemptVerb: preempt) with bindVerb: bind
# added. Nodes are filled through the API (spec.nodeName) with pods of
# PriorityClasses made here; each pod has terminationGracePeriodSeconds 0,
# so the scheduler's deletion of a victim removes it at once (no kubelet
# would confirm a graceful one). A high-priority pod that fits nowhere makes
# DefaultPreemption pick victims, ask the extender (ExtenderPreemptionArgs
# with NodeNameToMetaVictims: victims by UID only, so what each victim
# frees comes from our own state), delete the victims it keeps, and place
# the pod once they are gone, through our bind verb.

PE_CLASSES="ce-low:10 ce-mid:100 ce-high:1000"

pe_classes() {
    local c
    for c in $PE_CLASSES; do
        must POST /apis/scheduling.k8s.io/v1/priorityclasses "{\"apiVersion\":\"scheduling.k8s.io/v1\",
            \"kind\":\"PriorityClass\",\"metadata\":{\"name\":\"${c%:*}\"},\"value\":${c#*:}}" 201 || return 1
    done
}

pe_cleanup() {
    local c
    k8s_stop "$1"
    k8s_stop "$2"
    del_pods pe
    for c in $PE_CLASSES; do must DELETE "/apis/scheduling.k8s.io/v1/priorityclasses/${c%:*}" "200 404"; done
    shift 2
    for c in "$@"; do del_node "$c"; done
}

# pe_pod NAME NODE CLASS CPU: a pod in ce-a on NODE (spec.nodeName), or,
# with NODE "-", one for the cpu-extender-scheduler to place.
pe_pod() {
    local where=".spec.nodeName = \"$2\""
    [ "$2" = - ] && where='.spec.schedulerName = "cpu-extender-scheduler"'
    mk_pod ce-a "$1" "$where | .spec.priorityClassName = \"$3\" | .spec.containers[0].resources.requests = {cpu: \"$4\"}"
}

# pe_start EXT SCHED [EXTENDER-OPTIONS...]: the extender, then kube-scheduler
# with preempt and bind.
pe_start() {
    local ext=$1 sched=$2
    shift 2
    ext_start "$ext" "$T/sa/scheduler" "$@" || return 1
    k8s_wait 20 "$ext ready" ext_ready || { fail "$ext not ready"; return 1; }
    k8s_wait 5 "$ext in sync" ext_in_sync
    sched_config "$T/$sched.json" "$EXT_PORT" '.extenders[0].preemptVerb = "preempt" | .extenders[0].bindVerb = "bind"'
    check_eq "the stanza: nodeCacheCapable, preemptVerb, bindVerb" "true preempt bind" \
        "$(jq -r '.extenders[0] | "\(.nodeCacheCapable) \(.preemptVerb) \(.bindVerb)"' "$T/$sched.json")"
    sched_start "$sched" "$T/$sched.json"
}

pod_gone() { api GET "/api/v1/namespaces/ce-a/pods/$1" && [ "$CODE" = 404 ]; }

# pe_bound_by_us EXT POD NODE MARK: POD ends on NODE, bound by our bind verb
# (the Binding created with the extender's user agent since audit MARK).
pe_bound_by_us() {
    local who=system:serviceaccount:kube-system:cpu-extender-scheduler
    k8s_wait 30 "$2 bound" pod_bound "$2" || { fail "$2 not bound within 30 s"; return 1; }
    check_eq "$2 placed" "$3" "$(node_of "$2")"
    check_eq "our bind verb called for $2" "200 $3" \
        "$(ext_log_requests "$1" bind | jq -r "select(.pod == \"ce-a/$2\") | \"\\(.status) \\(.node)\"" | paste -sd' ')"
    check_eq "$2's Binding made by the extender's user agent" "cpu-extender 201" \
        "$(audit_since "$4" ".objectRef.subresource == \"binding\" and .objectRef.name == \"$2\" and .user.username == \"$who\"" |
            jq -r '"\(.userAgent | split("/")[0]) \(.responseStatus.code)"' | paste -sd' ')"
}

# The preempt calls for POD in EXT's access log: "status nodesIn nodesPassed".
pe_preempt_calls() {
    ext_log_requests "$1" preempt | jq -r "select(.pod == \"ce-a/$2\") | \"\\(.status) \\(.nodesIn) \\(.nodesPassed)\"" |
        sort -u | paste -sd,
}

# pe_replay POD-JSON NODE UID...: the preempt request kube-scheduler makes
# with nodeCacheCapable (victims by UID); prints our answer.
pe_replay() {
    local pod=$1 node=$2
    shift 2
    ext POST /scheduler/preempt "$(jq -nc --argjson p "$pod" --arg n "$node" '{Pod: $p, NodeNameToVictims: null,
        NodeNameToMetaVictims: {($n): {Pods: ($ARGS.positional | map({UID: .})), NumPDBViolations: 0}}}' --args "$@")"
    echo "$ECODE $(jq -c . <<<"$ERESP")"
}

# pe-n1 (4 CPU) holds pe-lo1 (ce-mid, 2 CPU) and pe-lo2 (ce-low, 2 CPU);
# pe-hi1 (ce-high, 2 CPU) fits nowhere. DefaultPreemption removes both,
# then reprieves the more important pe-lo1 (2 + 2 = 4 fits): the victim is
# pe-lo2. Our preempt keeps pe-n1: our state says pe-lo2 holds 2000m, so
# 4000 - 2000 + 2000 = 4000 <= 4000.
t_scheduler_preempt() {
    local m lo1_uid lo2_uid
    mk_node pe-n1 4 8Gi && pe_classes || { pe_cleanup ext-pe sched-pe pe-n1; return 1; }
    pe_pod pe-lo1 pe-n1 ce-mid 2 && lo1_uid=$(jq -r .metadata.uid <<<"$RESP") &&
        pe_pod pe-lo2 pe-n1 ce-low 2 || { pe_cleanup ext-pe sched-pe pe-n1; return 1; }
    lo2_uid=$(jq -r .metadata.uid <<<"$RESP")
    check_eq "pe-lo2's priority from its class" 10 "$(jq -r .spec.priority <<<"$RESP")"
    pe_start ext-pe sched-pe || { pe_cleanup ext-pe sched-pe pe-n1; return 1; }
    pe_check_answer "$lo1_uid" "$lo2_uid"
    m=$(audit_mark)
    pe_pod pe-hi1 - ce-high 2 || { pe_cleanup ext-pe sched-pe pe-n1; return 1; }
    k8s_wait 30 "pe-lo2 deleted by the scheduler" pod_gone pe-lo2 || fail "pe-lo2 not deleted within 30 s"
    check_eq "kube-scheduler called our preempt for pe-hi1: status, nodes in, kept" "200 1 1" \
        "$(pe_preempt_calls ext-pe pe-hi1)"
    check "pe-lo2 deleted by kube-scheduler" pod_gone pe-lo2
    check_eq "pe-lo1 (more important) reprieved" pe-n1 "$(node_of pe-lo1)"
    check_eq "the deletion: kube-scheduler's, 200" "kube-scheduler 200" \
        "$(audit_since "$m" '.verb == "delete" and .objectRef.name == "pe-lo2"' |
            jq -r '"\(.userAgent | split("/")[0]) \(.responseStatus.code)"' | head -n1)"
    pe_bound_by_us ext-pe pe-hi1 pe-n1 "$m"
    pe_cleanup ext-pe sched-pe pe-n1
}

# Our answer to the request kube-scheduler makes, sent before it runs
# (the state as it will see it; the answer does not depend on the pod's
# name or uid, named pe-probe to keep its lines apart in the access log):
# the meta form, the victims' UIDs as given. The victim
# frees what our state says it holds: pe-lo2 or pe-lo1 (2000m each) keeps
# pe-n1; a UID our state does not hold frees nothing (4000 + 2000 > 4000)
# and pe-n1 is dropped.
pe_check_answer() {
    local hi
    hi=$(pod_json ce-a pe-probe '.spec.schedulerName = "cpu-extender-scheduler" | .spec.priority = 1000 |
        .spec.containers[0].resources.requests = {cpu: "2"}')
    check_eq "preempt, victim pe-lo2: pe-n1 kept" \
        "200 {\"NodeNameToMetaVictims\":{\"pe-n1\":{\"Pods\":[{\"UID\":\"$2\"}],\"NumPDBViolations\":0}}}" \
        "$(pe_replay "$hi" pe-n1 "$2")"
    check_eq "preempt, victim pe-lo1: pe-n1 kept" \
        "200 {\"NodeNameToMetaVictims\":{\"pe-n1\":{\"Pods\":[{\"UID\":\"$1\"}],\"NumPDBViolations\":0}}}" \
        "$(pe_replay "$hi" pe-n1 "$1")"
    check_eq "preempt, a victim our state does not hold: pe-n1 dropped" \
        '200 {"NodeNameToMetaVictims":{}}' \
        "$(pe_replay "$hi" pe-n1 00000000-0000-0000-0000-00000000dead)"
}

# Our preempt drops a candidate, and kube-scheduler takes the other. The
# extender runs with --cpu-threshold-percent 75 (its filter allows 75 % of
# a node's CPU; the stanza has no filterVerb, so only preempt applies it).
#   pe-na (4 CPU): pe-keep (ce-high, 1 CPU, not a victim: the preemptor's
#     own priority) and pe-loa (ce-low, 3 CPU);
#   pe-nb (8 CPU): pe-lob (ce-mid, 6 CPU);
#   pe-hi2 (ce-high, 3 CPU) fits on neither (1 + 3 + 3 > 4, 6 + 3 > 8).
# Candidates: pe-na with victim pe-loa, pe-nb with victim pe-lob; kube-
# scheduler alone picks pe-na (pickOneNodeForPreemption: the lowest
# highest-priority victim, 10 < 100). Ours: pe-na 1000 + 3000 = 4000 >
# 3000 (75 % of 4000): dropped; pe-nb 0 + 3000 <= 6000: kept. So pe-lob is
# evicted, pe-loa stays, and pe-hi2 lands on pe-nb.
t_scheduler_preempt_drops() {
    local m
    mk_node pe-na 4 8Gi && mk_node pe-nb 8 8Gi && pe_classes &&
        pe_pod pe-keep pe-na ce-high 1 && pe_pod pe-loa pe-na ce-low 3 && pe_pod pe-lob pe-nb ce-mid 6 ||
        { pe_cleanup ext-pd sched-pd pe-na pe-nb; return 1; }
    pe_start ext-pd sched-pd --cpu-threshold-percent 75 || { pe_cleanup ext-pd sched-pd pe-na pe-nb; return 1; }
    m=$(audit_mark)
    pe_pod pe-hi2 - ce-high 3 || { pe_cleanup ext-pd sched-pd pe-na pe-nb; return 1; }
    k8s_wait 30 "pe-lob deleted by the scheduler" pod_gone pe-lob || fail "pe-lob not deleted within 30 s"
    check_eq "kube-scheduler called our preempt for pe-hi2: status, nodes in, kept" "200 2 1" \
        "$(pe_preempt_calls ext-pd pe-hi2)"
    check "pe-lob (on the node we kept) deleted" pod_gone pe-lob
    check_eq "pe-loa (on the node we dropped) stays" pe-na "$(node_of pe-loa)"
    pe_bound_by_us ext-pd pe-hi2 pe-nb "$m"
    check_eq "the pods deleted since: pe-lob only" pe-lob \
        "$(audit_since "$m" '.verb == "delete" and .objectRef.resource == "pods" and .objectRef.subresource == null' |
            jq -r .objectRef.name | sort -u | paste -sd' ')"
    pe_cleanup ext-pd sched-pd pe-na pe-nb
}
