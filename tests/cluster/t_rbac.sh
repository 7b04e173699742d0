# shellcheck shell=bash
# RBAC: the manifests' grants are sufficient (the extender becomes ready,
# scores and binds with the service-account token alone) and least
# privilege (the token is refused what the manifests do not grant). Writes
# are sent with dryRun=All: authorization is decided before the dry run,
# and nothing changes when a grant is there.

# can WHAT TOKEN-DIR EXPECT METHOD PATH [BODY]: the request with that
# account's token answers EXPECT (403 when refused; any other code, one of
# a space-separated list, means the authorizer let it through).
can() {
    local what=$1 dir=$2 want=$3
    shift 3
    AS_TOKEN=$(cat "$dir/token") api "$@"
    if [ "$want" = 403 ]; then
        check_eq "refused: $what" 403 "$CODE"
    elif [[ " $want " == *" $CODE "* ]]; then
        ok "allowed: $what: $CODE"
    else
        fail "allowed: $what: expected $want, got $CODE: $(head -c 300 <<<"$RESP")"
    fi
}

# The pairs "verb resource[/subresource]" (group-qualified unless core) a
# ClusterRole of the manifests grants.
granted_pairs() {
    "$Y2J" "$RBAC_YAML" | jq -r --arg n "$1" 'select(.kind == "ClusterRole" and .metadata.name == $n) |
        .rules[] | . as $r | $r.apiGroups[] as $g | $r.resources[] as $res | $r.verbs[] as $v |
        "\($v) \(if $g == "" then "" else $g + ":" end)\($res)"' | LC_ALL=C sort -u
}

# What a user asked for, as the same pairs, from the audit log since MARK.
used_pairs() {
    audit_since "$1" ".user.username == \"$2\" and .objectRef != null" |
        jq -r '.objectRef as $o | "\(.verb) \(if ($o.apiGroup // "") == "" then "" else $o.apiGroup + ":" end)\($o.resource)\(if $o.subresource then "/" + $o.subresource else "" end)"' |
        LC_ALL=C sort -u
}

rbac_binding() {
    jq -nc --arg p "$1" '{apiVersion: "v1", kind: "Binding", metadata: {name: $p},
        target: {apiVersion: "v1", kind: "Node", name: "rb-a"}}'
}

t_rbac_least_privilege() {
    local s=$T/sa/scheduler e=$T/sa/extender m uid
    mk_node rb-a 4 8Gi || return 1
    mk_pod ce-a rb-p || return 1

    # 1. The sidecar's own ClusterRole cpu-extender, bound alone (account
    # kube-system/cpu-extender-only): the extender is ready, scores and
    # binds, with the usage source on so that it reads node metrics too.
    local who=system:serviceaccount:kube-system:cpu-extender-only
    m=$(audit_mark)
    ext_start ext-rb "$e" --cpu-used-source max || return 1
    k8s_wait 20 "ext-rb ready" ext_ready
    check_eq "ClusterRole cpu-extender alone: ready" 200 "$ECODE"
    uid=$(pod_uid rb-p)
    ext POST /scheduler/bind "$(bind_args rb-p "$uid" rb-a)"
    check_eq "ClusterRole cpu-extender alone: binds" '{"Error":""}' "$(jq -c . <<<"$ERESP")"
    check_eq "rb-p's nodeName" rb-a "$(node_of rb-p)"
    ext POST /scheduler/bind "$(bind_args rb-p "$uid" rb-a)" # the 409 path reads the pod
    check_eq "ClusterRole cpu-extender alone: a second bind" '{"Error":""}' "$(jq -c . <<<"$ERESP")"
    sleep 1 # a metrics poll
    k8s_stop ext-rb
    check_eq "none of its requests refused" "" \
        "$(audit_since "$m" ".user.username == \"$who\" and .responseStatus.code == 403" | jq -r .requestURI)"
    check_eq "every decision: allow" allow \
        "$(audit_since "$m" ".user.username == \"$who\"" | jq -r '.annotations["authorization.k8s.io/decision"]' | sort -u | paste -sd' ')"
    local used granted unused
    used=$(used_pairs "$m" "$who")
    granted=$(granted_pairs cpu-extender)
    info "it asked for: $(paste -sd, <<<"$used" | sed 's/,/, /g')"
    check_eq "asked for and not granted" "" "$(LC_ALL=C comm -23 <(echo "$used") <(echo "$granted") | paste -sd,)"
    # Granted and not used: "get" on nodes and on node metrics. The
    # extender lists and watches nodes and lists node metrics; it never
    # reads one (it does read a pod, after a 409 on bind). Both rules read
    # get/list/watch as Kubernetes' own read roles do; dropping the two
    # gets would lose nothing the extender does today.
    unused=$(LC_ALL=C comm -13 <(echo "$used") <(echo "$granted") | paste -sd,)
    check_eq "granted and not used" "get metrics.k8s.io:nodes,get nodes" "$unused"

    # The same account is refused everything else.
    can "list secrets (cpu-extender)" "$e" 403 GET /api/v1/secrets
    can "delete a pod (cpu-extender)" "$e" 403 DELETE "/api/v1/namespaces/ce-a/pods/rb-p?dryRun=All"
    can "create a pod (cpu-extender)" "$e" 403 POST "/api/v1/namespaces/ce-a/pods?dryRun=All" "$(pod_json ce-a rb-x)"
    CT=application/merge-patch+json can "patch a node (cpu-extender)" "$e" 403 \
        PATCH "/api/v1/nodes/rb-a?dryRun=All" '{"metadata":{"labels":{"x":"y"}}}'
    can "create an event (cpu-extender)" "$e" 403 POST "/apis/events.k8s.io/v1/namespaces/ce-a/events?dryRun=All" '{}'
    can "read a lease (cpu-extender)" "$e" 403 GET /apis/coordination.k8s.io/v1/namespaces/kube-system/leases/cpu-extender-scheduler

    # 2. The manifests' account kube-system/cpu-extender-scheduler, which
    # both containers of the Deployment use: the sidecar's role plus
    # kube-scheduler's (system:kube-scheduler, system:volume-scheduler, the
    # leases Role, the authentication reader). The extender works with it
    # (t_scores_from_cluster_state, t_bind); here what it may and may not do.
    can "list nodes" "$s" 200 GET /api/v1/nodes
    can "watch pods in all namespaces" "$s" 200 GET "/api/v1/pods?watch=1&timeoutSeconds=1"
    can "read a pod" "$s" 200 GET /api/v1/namespaces/ce-a/pods/rb-p
    # 404: authorized, and no metrics API is served here.
    can "list node metrics (metrics.k8s.io)" "$s" 404 GET /apis/metrics.k8s.io/v1beta1/nodes
    mk_pod ce-a rb-q || return 1
    can "create a Binding" "$s" 201 POST "/api/v1/namespaces/ce-a/pods/rb-q/binding?dryRun=All" "$(rbac_binding rb-q)"
    check_eq "(a dry run: rb-q still pending)" "" "$(node_of rb-q)"
    # kube-scheduler deletes pods when it preempts (system:kube-scheduler):
    # the shared account may too.
    can "delete a pod (system:kube-scheduler, for preemption)" "$s" 200 DELETE "/api/v1/namespaces/ce-a/pods/rb-p?dryRun=All"
    can "create an event" "$s" 201 POST "/apis/events.k8s.io/v1/namespaces/ce-a/events?dryRun=All" \
        '{"apiVersion":"events.k8s.io/v1","kind":"Event","metadata":{"name":"rb.1"},"eventTime":"2026-01-01T00:00:00.000000Z","reportingController":"x/y","reportingInstance":"i","action":"Binding","reason":"Scheduled","regarding":{"kind":"Pod","namespace":"ce-a","name":"rb-p"},"type":"Normal"}'
    can "read its own lease (Role cpu-extender-scheduler-leader-election)" "$s" "200 404" \
        GET /apis/coordination.k8s.io/v1/namespaces/kube-system/leases/cpu-extender-scheduler
    can "read the authentication ConfigMap" "$s" 200 \
        GET /api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication
    can "list CSI drivers (ClusterRole cpu-extender-scheduler)" "$s" 200 GET /apis/storage.k8s.io/v1/csidrivers
    # system:kube-scheduler grants get/update on the lease named
    # kube-scheduler: the main scheduler's. The second scheduler's account
    # could take the default scheduler's leadership; no narrower bootstrap
    # role exists. Leases are created on update: with no such lease here
    # the dry run answers 201 (update and create are both granted).
    can "update the default scheduler's lease kube-system/kube-scheduler (system:kube-scheduler)" "$s" "200 201" \
        PUT "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-scheduler?dryRun=All" \
        '{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"kube-scheduler","namespace":"kube-system"}}'

    can "list secrets" "$s" 403 GET /api/v1/secrets
    can "read its own token Secret" "$s" 403 \
        GET "/api/v1/namespaces/kube-system/secrets/$(sa_secret_name kube-system cpu-extender-scheduler)"
    CT=application/merge-patch+json can "patch a node" "$s" 403 \
        PATCH "/api/v1/nodes/rb-a?dryRun=All" '{"metadata":{"labels":{"x":"y"}}}'
    can "delete a node" "$s" 403 DELETE "/api/v1/nodes/rb-a?dryRun=All"
    can "create a pod" "$s" 403 POST "/api/v1/namespaces/ce-a/pods?dryRun=All" "$(pod_json ce-a rb-x)"
    CT=application/merge-patch+json can "patch a pod's spec" "$s" 403 \
        PATCH "/api/v1/namespaces/ce-a/pods/rb-p?dryRun=All" '{"metadata":{"labels":{"x":"y"}}}'
    can "list ConfigMaps" "$s" 403 GET /api/v1/namespaces/kube-system/configmaps
    can "create a Deployment" "$s" 403 POST "/apis/apps/v1/namespaces/ce-a/deployments?dryRun=All" '{}'
    can "read a lease in another namespace" "$s" 403 GET /apis/coordination.k8s.io/v1/namespaces/default/leases/cpu-extender-scheduler
    can "mint a token for an account" "$s" 403 POST /api/v1/namespaces/kube-system/serviceaccounts/default/token '{}'

    del_pod ce-a rb-p
    del_node rb-a
}
