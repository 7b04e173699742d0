#!/bin/bash
# The metrics pipeline's programs for tests/cluster (t_metrics_pipeline.sh,
# and bench-placement through lib.sh): metrics-server, built from the Go
# module sigs.k8s.io/metrics-server at the version metrics-server-go/go.mod
# pins, and the kubelet stand-in (kubelet-standin/, standard library only).
# Test tooling only, as the control plane of k8s.sh is: built with the Go at
# /usr/local/go, once, into a cache outside the clone; nothing of it is
# linked into cpu-extender.
#
#   tests/cluster/metrics_server.sh build   build both unless cached, print their paths
#   . tests/cluster/metrics_server.sh       ms_build, $METRICS_SERVER, $KUBELET_STANDIN
#
# Cache: ${K8S_TEST_CACHE:-$HOME/.cache/cpu-extender}/metrics-server-vVERSION/bin
# and .../kubelet-standin/bin, each used while its bin/.recipe holds the
# recipe (the hash of go.mod and go.sum, and of the stand-in's source: a
# change builds again). The module cache is Go's own; the build cache is
# the build's and goes with it (GOCACHE=DIR keeps one of your own).

MS_GO=${MS_GO:-/usr/local/go/bin/go}
MS_HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
MS_MODULE=$MS_HERE/metrics-server-go
MS_VERSION=$(sed -n 's/^\tsigs.k8s.io\/metrics-server \(v[0-9.]*\).*/\1/p' "$MS_MODULE/go.mod")
MS_CACHE=${K8S_TEST_CACHE:-$HOME/.cache/cpu-extender}/metrics-server-$MS_VERSION
METRICS_SERVER=$MS_CACHE/bin/metrics-server
MS_RECIPE="metrics-server $MS_VERSION recipe 1: go modules $(cat "$MS_MODULE/go.mod" "$MS_MODULE/go.sum" 2>/dev/null |
    sha256sum | cut -c1-16), -trimpath, CGO_ENABLED=0"
KS_MODULE=$MS_HERE/kubelet-standin
KS_CACHE=${K8S_TEST_CACHE:-$HOME/.cache/cpu-extender}/kubelet-standin
KUBELET_STANDIN=$KS_CACHE/bin/kubelet-standin
KS_RECIPE="kubelet-standin recipe 1: $(cat "$KS_MODULE/go.mod" "$KS_MODULE"/*.go 2>/dev/null |
    sha256sum | cut -c1-16), -trimpath, CGO_ENABLED=0"

ms_log() { printf '%s metrics-server: %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

# ms_go_build CACHE RECIPE MODULE-DIR PACKAGE NAME LDFLAGS: CACHE/bin/NAME
# built from PACKAGE in MODULE-DIR unless CACHE/bin/.recipe is RECIPE.
ms_go_build() {
    local cache=$1 recipe=$2 module=$3 pkg=$4 name=$5 ld=$6 t0=$SECONDS work
    if [ -x "$cache/bin/$name" ] && [ "$(cat "$cache/bin/.recipe" 2>/dev/null)" = "$recipe" ]; then
        return 0
    fi
    [ -x "$MS_GO" ] || { ms_log "error: $MS_GO is missing: $name builds with Go 1.26 from /usr/local/go (MS_GO= to name another)"; return 1; }
    ms_log "building $name from $module into $cache/bin"
    # A work directory of this build's own: two runs on one machine (the
    # suite and the benchmark) may build at once; the later rename wins.
    mkdir -p "$cache" && work=$(mktemp -d "$cache/build.XXXXXX") || return 1
    mkdir -p "$work/bin"
    (
        cd "$module" &&
            GOCACHE=${GOCACHE:-$work/gocache} GOFLAGS=-mod=readonly CGO_ENABLED=0 GOTOOLCHAIN=local \
                "$MS_GO" build -trimpath -ldflags "$ld" -o "$work/bin/$name" "$pkg"
    ) >"$work/build.log" 2>&1 || {
        tail -n 20 "$work/build.log" >&2
        cp "$work/build.log" "$cache/build.log"
        rm -rf "$work"
        ms_log "error: go build $name failed (see $cache/build.log)"
        return 1
    }
    echo "$recipe" >"$work/bin/.recipe"
    rm -rf "$cache/bin.old"
    [ ! -d "$cache/bin" ] || mv "$cache/bin" "$cache/bin.old"
    mv "$work/bin" "$cache/bin" && rm -rf "$work" "$cache/bin.old"
    ms_log "built $name in $((SECONDS - t0)) s"
}

# ms_build: $METRICS_SERVER and $KUBELET_STANDIN, unless cached.
ms_build() {
    [ -n "$MS_VERSION" ] || { ms_log "error: $MS_MODULE/go.mod requires no sigs.k8s.io/metrics-server"; return 1; }
    ms_go_build "$KS_CACHE" "$KS_RECIPE" "$KS_MODULE" . kubelet-standin "-s -w" || return 1
    # The version metrics-server reports (--version, its /version), as its
    # Makefile stamps it.
    ms_go_build "$MS_CACHE" "$MS_RECIPE" "$MS_MODULE" sigs.k8s.io/metrics-server/cmd/metrics-server \
        metrics-server "-s -w -X k8s.io/client-go/pkg/version.gitVersion=$MS_VERSION"
}

# ---- metrics-server behind the aggregation layer (needs k8s.sh and
# lib.sh: the control plane up, `must`, `sa_token`) ----

# The upstream manifests' RBAC (metrics-server v0.8.0,
# manifests/base/rbac.yaml), as real objects: the ServiceAccount, its
# ClusterRole (nodes/metrics for the kubelet's endpoint, pods and nodes),
# auth-delegator (TokenReview, SubjectAccessReview for its clients) and the
# extension-apiserver-authentication-reader Role (the front-proxy CA and
# --requestheader-* settings it reads from that ConfigMap).
ms_rbac() {
    local sa='[{"kind":"ServiceAccount","name":"metrics-server","namespace":"kube-system"}]'
    must POST /api/v1/namespaces/kube-system/serviceaccounts \
        '{"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"metrics-server","namespace":"kube-system"}}' "201 409" &&
        must POST /apis/rbac.authorization.k8s.io/v1/clusterroles '{"apiVersion":"rbac.authorization.k8s.io/v1",
            "kind":"ClusterRole","metadata":{"name":"system:aggregated-metrics-reader","labels":{
              "rbac.authorization.k8s.io/aggregate-to-admin":"true","rbac.authorization.k8s.io/aggregate-to-edit":"true",
              "rbac.authorization.k8s.io/aggregate-to-view":"true"}},
            "rules":[{"apiGroups":["metrics.k8s.io"],"resources":["pods","nodes"],"verbs":["get","list","watch"]}]}' "201 409" &&
        must POST /apis/rbac.authorization.k8s.io/v1/clusterroles '{"apiVersion":"rbac.authorization.k8s.io/v1",
            "kind":"ClusterRole","metadata":{"name":"system:metrics-server"},
            "rules":[{"apiGroups":[""],"resources":["nodes/metrics"],"verbs":["get"]},
                     {"apiGroups":[""],"resources":["pods","nodes"],"verbs":["get","list","watch"]}]}' "201 409" &&
        must POST /apis/rbac.authorization.k8s.io/v1/clusterrolebindings "{\"apiVersion\":\"rbac.authorization.k8s.io/v1\",
            \"kind\":\"ClusterRoleBinding\",\"metadata\":{\"name\":\"system:metrics-server\"},\"subjects\":$sa,
            \"roleRef\":{\"apiGroup\":\"rbac.authorization.k8s.io\",\"kind\":\"ClusterRole\",\"name\":\"system:metrics-server\"}}" "201 409" &&
        must POST /apis/rbac.authorization.k8s.io/v1/clusterrolebindings "{\"apiVersion\":\"rbac.authorization.k8s.io/v1\",
            \"kind\":\"ClusterRoleBinding\",\"metadata\":{\"name\":\"metrics-server:system:auth-delegator\"},\"subjects\":$sa,
            \"roleRef\":{\"apiGroup\":\"rbac.authorization.k8s.io\",\"kind\":\"ClusterRole\",\"name\":\"system:auth-delegator\"}}" "201 409" &&
        must POST /apis/rbac.authorization.k8s.io/v1/namespaces/kube-system/rolebindings "{\"apiVersion\":\"rbac.authorization.k8s.io/v1\",
            \"kind\":\"RoleBinding\",\"metadata\":{\"name\":\"metrics-server-auth-reader\",\"namespace\":\"kube-system\"},\"subjects\":$sa,
            \"roleRef\":{\"apiGroup\":\"rbac.authorization.k8s.io\",\"kind\":\"Role\",\"name\":\"extension-apiserver-authentication-reader\"}}" "201 409"
}

# ms_register PORT: the Service and APIService v1beta1.metrics.k8s.io that
# send metrics.k8s.io to metrics-server on 127.0.0.1:PORT. The Service is
# an ExternalName one (127.0.0.1): Endpoints and EndpointSlices refuse a
# loopback address, so --enable-aggregator-routing cannot reach a
# loopback server (k8s.sh). The API server then dials
# https://127.0.0.1:<the APIService's port> and checks the certificate for
# metrics-server.kube-system.svc against caBundle (the test CA).
ms_register() {
    local port=$1 ca
    ca=$(base64 -w0 <"$K8S_PKI/ca.crt")
    must DELETE /apis/apiregistration.k8s.io/v1/apiservices/v1beta1.metrics.k8s.io "200 404" &&
        must DELETE /api/v1/namespaces/kube-system/services/metrics-server "200 404" &&
        must POST /api/v1/namespaces/kube-system/services "{\"apiVersion\":\"v1\",\"kind\":\"Service\",
            \"metadata\":{\"name\":\"metrics-server\",\"namespace\":\"kube-system\",\"labels\":{\"k8s-app\":\"metrics-server\"}},
            \"spec\":{\"type\":\"ExternalName\",\"externalName\":\"127.0.0.1\",
                      \"ports\":[{\"name\":\"https\",\"port\":$port,\"protocol\":\"TCP\",\"targetPort\":$port}]}}" 201 &&
        must POST /apis/apiregistration.k8s.io/v1/apiservices "{\"apiVersion\":\"apiregistration.k8s.io/v1\",
            \"kind\":\"APIService\",\"metadata\":{\"name\":\"v1beta1.metrics.k8s.io\",\"labels\":{\"k8s-app\":\"metrics-server\"}},
            \"spec\":{\"group\":\"metrics.k8s.io\",\"version\":\"v1beta1\",\"groupPriorityMinimum\":100,\"versionPriority\":100,
                      \"caBundle\":\"$ca\",\"service\":{\"name\":\"metrics-server\",\"namespace\":\"kube-system\",\"port\":$port}}}" 201
}

# The APIService's Available condition is True.
ms_available() {
    api GET /apis/apiregistration.k8s.io/v1/apiservices/v1beta1.metrics.k8s.io
    [ "$CODE" = 200 ] &&
        [ "$(jq -r '.status.conditions[]? | select(.type == "Available") | .status' <<<"$RESP")" = True ]
}

# ms_start [RESOLUTION]: metrics-server (K8S_PIDS[metrics-server]) on a
# free loopback port, as its upstream Deployment runs it but outside a
# pod: its ServiceAccount's token in a kubeconfig, a serving certificate
# from the test CA, the kubelets (stand-ins) at each node's InternalIP and
# status port, their certificates checked against the test CA.
# RESOLUTION: --metric-resolution (default 10s, the least it accepts).
# Sets MS_PORT; returns once the APIService is Available.
ms_start() {
    local res=${1:-10s} d=$K8S_DIR/metrics-server
    ms_build || return 1
    ms_rbac || return 1
    mkdir -p "$d"
    [ -s "$d/sa/token" ] || sa_token kube-system metrics-server "$d/sa" || return 1
    k8s_kubeconfig "$d/kubeconfig" "tokenFile: $d/sa/token"
    [ -f "$K8S_PKI/metrics-server.crt" ] ||
        (cd "$K8S_PKI" && k8s_leaf_cert metrics-server "/CN=metrics-server" "subjectAltName=DNS:metrics-server.kube-system.svc,DNS:metrics-server.kube-system,DNS:metrics-server,IP:127.0.0.1
extendedKeyUsage=serverAuth
keyUsage=critical,digitalSignature,keyEncipherment") || return 1
    MS_PORT=$(k8s_free_port)
    ms_register "$MS_PORT" || return 1
    k8s_run metrics-server "$METRICS_SERVER" \
        --bind-address=127.0.0.1 --secure-port="$MS_PORT" \
        --tls-cert-file="$K8S_PKI/metrics-server.crt" --tls-private-key-file="$K8S_PKI/metrics-server.key" \
        --kubeconfig="$d/kubeconfig" \
        --authentication-kubeconfig="$d/kubeconfig" --authorization-kubeconfig="$d/kubeconfig" \
        --kubelet-preferred-address-types=InternalIP --kubelet-use-node-status-port \
        --kubelet-certificate-authority="$K8S_PKI/ca.crt" \
        --kubelet-request-timeout=5s --metric-resolution="$res" --v=2
    K8S_WAIT_ALIVE=metrics-server k8s_wait 90 "APIService v1beta1.metrics.k8s.io Available" ms_available ||
        { tail -n 20 "$K8S_DIR/logs/metrics-server.log" >&2; return 1; }
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    set -euo pipefail
    case "${1:-}" in
    build) ms_build && printf '%s\n%s\n' "$METRICS_SERVER" "$KUBELET_STANDIN" ;;
    *)
        echo "usage: tests/cluster/metrics_server.sh build" >&2
        exit 2
        ;;
    esac
fi
