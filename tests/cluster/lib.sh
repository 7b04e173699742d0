# shellcheck shell=bash
# Helpers of the real-cluster suite (sourced by tests/cluster/run.sh after
# k8s.sh): assertions, requests to the API server, nodes and pods, and the
# extender and kube-scheduler processes. Every wait has a deadline.

# ---- assertions ----

T_FAILS=0   # its failed checks
T_CHECKS=0  # its checks

ok() {
    T_CHECKS=$((T_CHECKS + 1))
    printf '    ok   %s\n' "$1"
}

fail() {
    T_CHECKS=$((T_CHECKS + 1))
    T_FAILS=$((T_FAILS + 1))
    printf '    FAIL %s\n' "$1"
}

# check_eq WHAT EXPECTED ACTUAL
check_eq() {
    if [ "$2" == "$3" ]; then ok "$1: $2"; else fail "$1: expected '$2', got '$3'"; fi
}

# check WHAT COMMAND...: the command succeeds
check() {
    local what=$1
    shift
    if "$@"; then ok "$what"; else fail "$what"; fi
}

# check_le WHAT LIMIT VALUE (numbers, bc-style decimals allowed)
check_le() {
    if awk -v a="$3" -v b="$2" 'BEGIN { exit !(a <= b) }'; then
        ok "$1: $3 <= $2"
    else
        fail "$1: $3 is over $2"
    fi
}

info() { printf '    ..   %s\n' "$*"; }

# ---- the API server ----

# api METHOD PATH [BODY]: one request as the admin (or, with AS_TOKEN set,
# with that bearer token); BODY is JSON (CT overrides the content type).
# Sets CODE (000 when the request itself failed) and RESP (the body).
api() {
    local m=$1 p=$2 data=${3-}
    local -a args=(-sS --max-time 30 -X "$m" --cacert "$K8S_PKI/ca.crt" -o "$T/resp.body"
        -w '%{http_code}')
    if [ -n "${AS_TOKEN:-}" ]; then
        args+=(-H "Authorization: Bearer $AS_TOKEN")
    else
        args+=(--cert "$K8S_PKI/admin.crt" --key "$K8S_PKI/admin.key")
    fi
    [ -n "$data" ] && args+=(-H "Content-Type: ${CT:-application/json}" --data-binary "$data")
    : >"$T/resp.body"
    CODE=$(curl "${args[@]}" "$K8S_SERVER$p" 2>"$T/resp.err") || CODE=000
    RESP=$(cat "$T/resp.body")
}

# must METHOD PATH [BODY] EXPECTED-CODES: api, and a failed check naming
# the request unless CODE is one of EXPECTED-CODES ("200 201").
must() {
    local want=${*: -1}
    api "${@:1:$(($# - 1))}"
    case " $want " in
    *" $CODE "*) return 0 ;;
    esac
    fail "$1 $2: HTTP $CODE (wanted $want): $(head -c 400 <<<"$RESP")"
    return 1
}

# rv: the etcd revision now (what the next write's resourceVersion follows).
etcd_revision() { k8s_etcd /v3/kv/range '{"key":"AA=="}' | jq -r .header.revision; }

# ---- nodes and pods ----

# mk_node NAME CPU MEMORY [LABELS-JSON]: a Node as a kubelet would register
# it (status with capacity, allocatable and Ready), then without the
# node.kubernetes.io/not-ready taint that the TaintNodesByCondition
# admission plugin puts on every new node (the node lifecycle controller
# removes it once the node is Ready; that controller does not run here).
mk_node() {
    local name=$1 cpu=$2 mem=$3 labels=${4:-'{}'}
    local body
    body=$(jq -nc --arg n "$name" --arg c "$cpu" --arg m "$mem" --argjson l "$labels" '{
        apiVersion: "v1", kind: "Node",
        metadata: {name: $n, labels: ({"kubernetes.io/hostname": $n, "kubernetes.io/os": "linux",
                                       "kubernetes.io/arch": "amd64"} + $l)},
        status: {capacity: {cpu: $c, memory: $m, pods: "110"},
                 allocatable: {cpu: $c, memory: $m, pods: "110"},
                 conditions: [{type: "Ready", status: "True", reason: "KubeletReady",
                               message: "kubelet is posting ready status"}]}}')
    must POST /api/v1/nodes "$body" 201 || return 1
    CT=application/merge-patch+json must PATCH "/api/v1/nodes/$name" '{"spec":{"taints":null}}' 200
}

del_node() { must DELETE "/api/v1/nodes/$1" "200 404"; }

# mk_pod NAMESPACE NAME JQ-FILTER: a pod with one container (no requests)
# changed by JQ-FILTER, e.g. '.spec.nodeName="n1" | .spec.containers[0].resources
# .requests={cpu:"1"}'. The image is never pulled: no kubelet runs.
pod_json() {
    jq -nc --arg ns "$1" --arg n "$2" '{
        apiVersion: "v1", kind: "Pod", metadata: {name: $n, namespace: $ns},
        spec: {containers: [{name: "c", image: "registry.invalid/pause:3.2"}],
               terminationGracePeriodSeconds: 0}}' | jq -c "${3:-.}"
}

mk_pod() {
    must POST "/api/v1/namespaces/$1/pods" "$(pod_json "$@")" 201
}

# Deletes at once, also when bound: no kubelet would confirm a graceful one.
del_pod() {
    must DELETE "/api/v1/namespaces/$1/pods/$2?gracePeriodSeconds=0" "200 404"
}

# set_phase NAMESPACE NAME PHASE: what the kubelet reports when the pod ends.
set_phase() {
    CT=application/merge-patch+json must PATCH "/api/v1/namespaces/$1/pods/$2/status" \
        "{\"status\":{\"phase\":\"$3\"}}" 200
}

# A namespace whose `default` ServiceAccount exists (with its token Secret
# on 1.20): before that, the ServiceAccount admission plugin refuses pods.
mk_namespace() {
    must POST /api/v1/namespaces "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"$1\"}}" 201 ||
        return 1
    k8s_wait 30 "ServiceAccount $1/default" sa_has_token "$1" default ||
        { fail "namespace $1: no default ServiceAccount within 30 s (kube-controller-manager)"; return 1; }
}

# The account exists and, on 1.20, has the token Secret that release makes
# for every account (the ServiceAccount admission plugin of 1.20 waits for
# it). Since 1.24 no Secret is made: sa_token creates one.
sa_has_token() {
    api GET "/api/v1/namespaces/$1/serviceaccounts/$2"
    [ "$CODE" = 200 ] || return 1
    k8s_since 24 || [ "$(jq -r '.secrets[0].name // ""' <<<"$RESP")" != "" ]
}

# The name of an account's token Secret: 1.20's own, or the one sa_token
# makes on newer releases.
sa_secret_name() {
    if k8s_since 24; then
        echo "$2-token"
    else
        api GET "/api/v1/namespaces/$1/serviceaccounts/$2"
        jq -r '.secrets[0].name' <<<"$RESP"
    fi
}

# A long-lived token Secret for the account, filled in by the
# serviceaccount-token controller: what 1.20 makes by itself, and what
# newer releases make when asked (a Secret of type
# kubernetes.io/service-account-token naming the account).
sa_secret_filled() {
    api GET "/api/v1/namespaces/$1/secrets/$2"
    [ "$CODE" = 200 ] && [ -n "$(jq -r '.data.token // ""' <<<"$RESP")" ]
}

# sa_token NAMESPACE NAME DIR: writes DIR/token, DIR/ca.crt and
# DIR/namespace from the account's token Secret (as the kubelet mounts it).
sa_token() {
    local secret
    k8s_wait 30 "ServiceAccount $1/$2" sa_has_token "$1" "$2" || return 1
    secret=$(sa_secret_name "$1" "$2")
    if k8s_since 24; then
        must POST "/api/v1/namespaces/$1/secrets" "{\"apiVersion\":\"v1\",\"kind\":\"Secret\",
            \"type\":\"kubernetes.io/service-account-token\",\"metadata\":{\"name\":\"$secret\",
            \"annotations\":{\"kubernetes.io/service-account.name\":\"$2\"}}}" "201 409" || return 1
    fi
    k8s_wait 30 "Secret $1/$secret with a token" sa_secret_filled "$1" "$secret" || return 1
    mkdir -p "$3"
    jq -r '.data.token' <<<"$RESP" | base64 -d >"$3/token"
    jq -r '.data["ca.crt"]' <<<"$RESP" | base64 -d >"$3/ca.crt"
    jq -r '.data.namespace' <<<"$RESP" | base64 -d >"$3/namespace"
    [ -s "$3/token" ] && [ -s "$3/ca.crt" ]
}

# ---- the extender ----

# ext_start NAME TOKEN-DIR [OPTIONS...]: cpu-extender in-cluster, as in its
# pod: KUBERNETES_SERVICE_HOST/PORT and the token and ca.crt at
# /var/run/secrets/kubernetes.io/serviceaccount, which a private mount
# namespace (a tmpfs over /run) provides without touching the host's
# /run. Without root (no mount namespace) it gets a kubeconfig with the
# same token file and CA instead. The environment is a pod's: nothing of
# the shell's (no KUBECONFIG, no CPU_EXTENDER_*). Sets EXT_PORT; logs in
# logs/NAME.log.
ext_start() {
    local name=$1 dir=$2 log="$K8S_DIR/logs/$1.log"
    shift 2
    : >"$log"
    if [ "$(id -u)" -eq 0 ] && unshare --mount true 2>/dev/null; then
        k8s_run "$name" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
            KUBERNETES_SERVICE_HOST=127.0.0.1 KUBERNETES_SERVICE_PORT="$K8S_API_PORT" \
            unshare --mount --propagation private -- /bin/sh -c '
                mount -t tmpfs -o size=1m,mode=755 tmpfs /run &&
                mkdir -p /run/secrets/kubernetes.io/serviceaccount &&
                cp "$0/token" "$0/ca.crt" "$0/namespace" /run/secrets/kubernetes.io/serviceaccount/ &&
                exec "$@"' "$dir" "$EXT" --listen 127.0.0.1:0 "$@"
    else
        k8s_kubeconfig "$dir/kubeconfig" "tokenFile: $dir/token"
        sed -i "s|certificate-authority: .*|certificate-authority: $dir/ca.crt|" "$dir/kubeconfig"
        k8s_run "$name" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
            "$EXT" --kubeconfig "$dir/kubeconfig" --listen 127.0.0.1:0 "$@"
    fi
    EXT_PORT=$(wait_port "$log") || { fail "$name did not start: $(tail -n 5 "$log")"; return 1; }
}

# ext GET|POST PATH [BODY]: a request to the extender on EXT_PORT; sets
# ECODE and ERESP.
ext() {
    local -a args=(-sS --max-time 10 -o "$T/ext.body" -w '%{http_code}')
    [ -n "${3-}" ] && args+=(-H 'Content-Type: application/json' --data-binary "$3")
    : >"$T/ext.body"
    ECODE=$(curl "${args[@]}" "http://127.0.0.1:$EXT_PORT$2" 2>/dev/null) || ECODE=000
    ERESP=$(cat "$T/ext.body")
}

ext_ready() { ext GET /readyz && [ "$ECODE" = 200 ]; }

# ext_counts_are NODES PODS: /readyz says the state holds that many.
ext_counts_are() {
    ext GET /readyz && [ "$(jq -r '"\(.nodes) \(.pods)"' <<<"$ERESP")" = "$1 $2" ]
}

# The extender's log lines for one verb, as JSON.
ext_log_requests() { grep '"msg":"request"' "$K8S_DIR/logs/$1.log" | jq -c "select(.verb == \"$2\")"; }

# ---- the audit log ----

# audit JQ-FILTER: the audit events (ResponseComplete stage) that match.
audit() {
    jq -c "select(.stage == \"ResponseComplete\") | select($1)" "$K8S_AUDIT_LOG" 2>/dev/null
}

# The audit events of one user agent prefix since the line count MARK
# (audit_mark prints the current count).
audit_mark() { wc -l <"$K8S_AUDIT_LOG"; }
audit_since() {
    tail -n +"$(($1 + 1))" "$K8S_AUDIT_LOG" |
        jq -c "select(.stage == \"ResponseComplete\") | select($2)" 2>/dev/null
}

# ---- the kubelet stand-in (tests/cluster/kubelet-standin, README.md
# "The metrics pipeline") ----
#
# Nodes here have no kubelet; the stand-in serves each one's
# /metrics/resource over HTTPS on its own loopback port, with the usage the
# test writes. Also used by bench-placement: keep these names and
# arguments.

# shellcheck source=tests/cluster/metrics_server.sh
. "$(dirname "${BASH_SOURCE[0]}")/metrics_server.sh"

declare -A KUBELET_STANDIN_PORT=() # node name -> its stand-in's port
KUBELET_STANDIN_DIR=""             # where the usage files are (DIR/usage)

# k8s_kubelet_standin_start DIR NODE...: builds the stand-in unless cached
# and starts one process (K8S_PIDS[kubelet-standin], stopped by its pid)
# serving NODE... on 127.0.0.1, each on a free port
# (KUBELET_STANDIN_PORT[NODE]), with a serving certificate for 127.0.0.1
# from the test CA ($K8S_PKI/ca.crt). Usage files: DIR/usage/NODE
# (kubelet_usage writes them). Returns when every listener is bound.
k8s_kubelet_standin_start() {
    local dir=$1 n
    shift
    ms_build || return 1
    mkdir -p "$dir/usage" || return 1
    KUBELET_STANDIN_DIR=$dir
    [ -f "$K8S_PKI/kubelet-standin.crt" ] ||
        (cd "$K8S_PKI" && k8s_leaf_cert kubelet-standin "/CN=kubelet-standin" "subjectAltName=IP:127.0.0.1,DNS:localhost
extendedKeyUsage=serverAuth
keyUsage=critical,digitalSignature,keyEncipherment") || return 1
    : >"$dir/nodes"
    for n in "$@"; do
        KUBELET_STANDIN_PORT[$n]=$(k8s_free_port) || return 1
        echo "$n 127.0.0.1:${KUBELET_STANDIN_PORT[$n]}" >>"$dir/nodes"
    done
    rm -f "$dir/pid"
    k8s_run kubelet-standin "$KUBELET_STANDIN" --cert "$K8S_PKI/kubelet-standin.crt" \
        --key "$K8S_PKI/kubelet-standin.key" --usage-dir "$dir/usage" --nodes-file "$dir/nodes" \
        --pid-file "$dir/pid"
    K8S_WAIT_ALIVE=kubelet-standin k8s_wait 30 "kubelet-standin listening" test -s "$dir/pid" ||
        { tail -n 5 "$K8S_DIR/logs/kubelet-standin.log" >&2; return 1; }
}

# kubelet_usage NODE CORES BYTES: what NODE's stand-in reports from its
# next scrape on (written whole, then renamed: a scrape never reads half a
# line). CORES is a decimal number of cores, BYTES an integer.
kubelet_usage() {
    printf '%s %s\n' "$2" "$3" >"$KUBELET_STANDIN_DIR/usage/.$1.tmp" &&
        mv "$KUBELET_STANDIN_DIR/usage/.$1.tmp" "$KUBELET_STANDIN_DIR/usage/$1"
}

# mk_kubelet_node NAME CPU MEMORY [LABELS-JSON]: mk_node, then the status a
# kubelet reports for where it listens (through the status subresource):
# InternalIP 127.0.0.1 and daemonEndpoints.kubeletEndpoint.Port, the
# stand-in's port for NAME (k8s_kubelet_standin_start first).
mk_kubelet_node() {
    local port=${KUBELET_STANDIN_PORT[$1]:-}
    [ -n "$port" ] || { fail "mk_kubelet_node $1: no kubelet stand-in serves it"; return 1; }
    mk_node "$@" || return 1
    CT=application/merge-patch+json must PATCH "/api/v1/nodes/$1/status" "{\"status\":{
        \"addresses\":[{\"type\":\"InternalIP\",\"address\":\"127.0.0.1\"},{\"type\":\"Hostname\",\"address\":\"$1\"}],
        \"daemonEndpoints\":{\"kubeletEndpoint\":{\"Port\":$port}}}}" 200
}
