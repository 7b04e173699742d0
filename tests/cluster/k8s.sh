#!/bin/bash
# A real Kubernetes control plane on loopback for tests/cluster: etcd and
# kube-apiserver (plus kube-controller-manager for the ServiceAccount
# controllers, and kube-scheduler when a test starts one), built once into
# a cache outside the clone, so that a second run on the same machine
# reuses the binaries. Two releases, selected by K8S_VERSION:
#
#   1.37.2  the newest served as Go modules (the default): kube-* and
#           kubectl from k8s.io/kubernetes, etcd from go.etcd.io/etcd/server/v3
#           at the version that release requires (k8s_modules.sh, k8s-go/)
#   1.20.2  the oldest supported: Debian 12's source package with Debian's
#           Go 1.19 and Debian's etcd 3.4 (k8s_debian.sh)
#
#   K8S_VERSION=V tests/cluster/k8s.sh deps      install the Debian packages (root)
#   K8S_VERSION=V tests/cluster/k8s.sh build     deps, then build the binaries unless cached
#   K8S_VERSION=V tests/cluster/k8s.sh versions  print the versions of what runs
#   . tests/cluster/k8s.sh                       the functions below, for run.sh
#
# Cache: ${K8S_TEST_CACHE:-$HOME/.cache/cpu-extender}/k8s-vVERSION. (Not
# CPU_EXTENDER_*: cpu-extender refuses unknown variables of its own prefix.)
# Its bin/ is used when bin/.recipe holds the recipe's K8S_RECIPE; the
# recipe string names everything the build depends on (for the modules,
# the hash of k8s-go/go.mod and go.sum), so a changed recipe builds again.
# The build's work tree and Go's build cache are deleted after a good build
# unless K8S_TEST_KEEP_BUILD=1.
#
# Everything started here listens on 127.0.0.1 only and is stopped by its
# process id (k8s_stop_all, which run.sh calls from its EXIT trap).

K8S_VERSION=${K8S_VERSION:-1.37.2}
# The releases tests/cluster knows, newest first: `make test-cluster` runs
# each one named in K8S_VERSIONS (default: both).
K8S_KNOWN_VERSIONS="1.37.2 1.20.2"
K8S_MINOR=${K8S_VERSION#1.}
K8S_MINOR=${K8S_MINOR%%.*}
K8S_BINS="kube-apiserver kube-controller-manager kube-scheduler kubectl"
K8S_CACHE=${K8S_TEST_CACHE:-$HOME/.cache/cpu-extender}/k8s-v$K8S_VERSION
K8S_BIN=$K8S_CACHE/bin
K8S_HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# k8s_since MINOR: the release under test is 1.MINOR or newer (for the
# flags and API versions that changed between the two releases).
k8s_since() { [ "$K8S_MINOR" -ge "$1" ]; }

case " $K8S_KNOWN_VERSIONS " in
*" $K8S_VERSION "*) ;;
*)
    printf 'k8s: K8S_VERSION=%s is not one of: %s\n' "$K8S_VERSION" "$K8S_KNOWN_VERSIONS" >&2
    exit 2
    ;;
esac
if [ "$K8S_VERSION" = 1.20.2 ]; then
    # shellcheck source=tests/cluster/k8s_debian.sh
    . "$K8S_HERE/k8s_debian.sh"
else
    # shellcheck source=tests/cluster/k8s_modules.sh
    . "$K8S_HERE/k8s_modules.sh"
fi

k8s_log() { printf '%s k8s: %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
k8s_die() {
    k8s_log "error: $*"
    exit 1
}

# ---- packages and build ----

k8s_deps() {
    local missing="" p
    for p in $K8S_DEB_PACKAGES; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
            missing="$missing $p"
    done
    [ -z "$missing" ] && return 0
    [ "$(id -u)" -eq 0 ] || k8s_die "missing Debian packages:$missing (run as root, or: sudo apt-get install -y$missing)"
    k8s_log "installing:$missing"
    DEBIAN_FRONTEND=noninteractive apt-get update -qq
    # shellcheck disable=SC2086
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null
}

k8s_cached() {
    local b
    [ "$(cat "$K8S_BIN/.recipe" 2>/dev/null)" = "$K8S_RECIPE" ] || return 1
    for b in $K8S_BINS; do [ -x "$K8S_BIN/$b" ] || return 1; done
}

k8s_build() {
    k8s_deps
    if k8s_cached; then
        k8s_log "using the binaries in $K8S_BIN"
        return 0
    fi
    mkdir -p "$K8S_CACHE"
    # A subshell: the build changes directory and exports Go's settings.
    (k8s_build_tree)
}

k8s_versions() {
    local b
    for b in kube-apiserver kube-controller-manager kube-scheduler; do
        printf '%s: %s\n' "$b" "$("$K8S_BIN/$b" --version 2>&1)"
    done
    printf 'kubectl: %s\n' "$("$K8S_BIN/kubectl" version --client -o json 2>/dev/null | jq -r .clientVersion.gitVersion)"
    printf 'etcd: %s\n' "$("$K8S_ETCD" --version 2>&1 | head -n1)"
    printf 'built from: %s\n' "$(cat "$K8S_BIN/.source" 2>/dev/null | paste -sd' ')"
}

# ---- the control plane ----
#
# k8s_init DIR sets the ports and file names below; everything lives under
# DIR. K8S_PIDS maps a name (etcd, kube-apiserver, ...) to its process id.

declare -A K8S_PIDS=()
K8S_PORTS_FILE=""

# A loopback port nothing listens on now and not handed out before in this
# run, below the kernel's ephemeral range (whose ports outgoing connections
# and port-0 listeners take). Another program could still take it first:
# etcd and the API server are started again on new ports then.
k8s_free_port() {
    local p low
    low=$(cut -f1 /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || echo 32768)
    for _ in $(seq 200); do
        p=$((10000 + RANDOM % (low - 10000)))
        grep -qx "$p" "$K8S_PORTS_FILE" 2>/dev/null && continue
        (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null && continue
        [ -n "$K8S_PORTS_FILE" ] && echo "$p" >>"$K8S_PORTS_FILE"
        echo "$p"
        return 0
    done
    k8s_die "no free port found"
}

k8s_init() {
    K8S_DIR=$1
    mkdir -p "$K8S_DIR/pki" "$K8S_DIR/logs"
    K8S_PORTS_FILE=$K8S_DIR/ports
    K8S_ETCD_PORT=$(k8s_free_port)
    K8S_ETCD_PEER_PORT=$(k8s_free_port)
    K8S_API_PORT=$(k8s_free_port)
    K8S_SERVER=https://127.0.0.1:$K8S_API_PORT
    K8S_PKI=$K8S_DIR/pki
    K8S_ADMIN_KUBECONFIG=$K8S_DIR/admin.kubeconfig
    K8S_AUDIT_LOG=$K8S_DIR/logs/audit.log
}

# k8s_leaf_cert NAME SUBJECT EXTENSIONS: NAME.key and NAME.crt in the
# current directory, signed by ca.crt there (k8s_certs runs it in $K8S_PKI).
k8s_leaf_cert() {
    openssl genrsa -out "$1.key" 2048 2>/dev/null &&
        openssl req -new -key "$1.key" -subj "$2" -out "$1.csr" 2>/dev/null &&
        printf '%s\n' "$3" >"$1.ext" &&
        openssl x509 -req -in "$1.csr" -CA ca.crt -CAkey ca.key -CAcreateserial -days 2 \
            -extfile "$1.ext" -out "$1.crt" 2>/dev/null &&
        rm -f "$1.csr" "$1.ext"
}

# The PKI: a CA, the apiserver's serving certificate (127.0.0.1, localhost
# and the kubernetes Service's names and first IP), an admin client
# certificate (group system:masters) and the service-account signing key.
k8s_certs() {
    local d=$K8S_PKI
    (
        set -e
        cd "$d"
        openssl genrsa -out ca.key 2048 2>/dev/null
        openssl req -x509 -new -key ca.key -subj "/CN=cpu-extender-test-kubernetes-ca" -days 2 \
            -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign \
            -out ca.crt 2>/dev/null
        k8s_leaf_cert apiserver "/CN=kube-apiserver" "subjectAltName=IP:127.0.0.1,DNS:localhost,IP:10.96.0.1,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local
extendedKeyUsage=serverAuth
keyUsage=critical,digitalSignature,keyEncipherment"
        k8s_leaf_cert admin "/O=system:masters/CN=cpu-extender-test-admin" "extendedKeyUsage=clientAuth
keyUsage=critical,digitalSignature,keyEncipherment"
        openssl genrsa -out sa.key 2048 2>/dev/null
        openssl rsa -in sa.key -pubout -out sa.pub 2>/dev/null
        # The aggregation layer's: a CA of its own (as kubeadm makes
        # front-proxy-ca) and the client certificate kube-apiserver shows
        # an aggregated API server (metrics-server) when it proxies to it.
        mkdir -p front-proxy
        cd front-proxy
        openssl genrsa -out ca.key 2048 2>/dev/null
        openssl req -x509 -new -key ca.key -subj "/CN=cpu-extender-test-front-proxy-ca" -days 2 \
            -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign \
            -out ca.crt 2>/dev/null
        k8s_leaf_cert client "/CN=front-proxy-client" "extendedKeyUsage=clientAuth
keyUsage=critical,digitalSignature,keyEncipherment"
    ) || k8s_die "making certificates in $d failed"
    k8s_kubeconfig "$K8S_ADMIN_KUBECONFIG" \
        "client-certificate: $d/admin.crt" "client-key: $d/admin.key"
}

# k8s_kubeconfig FILE USER-LINE... : a kubeconfig for the apiserver with
# the given user fields (e.g. "token: ..." or client-certificate/-key).
k8s_kubeconfig() {
    local f=$1 line
    shift
    {
        echo "apiVersion: v1"
        echo "kind: Config"
        echo "clusters:"
        echo "- name: test"
        echo "  cluster:"
        echo "    server: $K8S_SERVER"
        echo "    certificate-authority: $K8S_PKI/ca.crt"
        echo "users:"
        echo "- name: test"
        echo "  user:"
        for line in "$@"; do echo "    $line"; done
        echo "contexts:"
        echo "- name: test"
        echo "  context: {cluster: test, user: test}"
        echo "current-context: test"
    } >"$f"
}

# k8s_wait SECONDS WHAT COMMAND...: runs COMMAND every 0.1 s until it
# succeeds; fails with WHAT after SECONDS (or at once when the process
# K8S_WAIT_ALIVE names has died).
k8s_wait() {
    local deadline=$((SECONDS + $1)) what=$2
    shift 2
    until "$@" >/dev/null 2>&1; do
        if [ -n "${K8S_WAIT_ALIVE:-}" ] && ! k8s_alive "$K8S_WAIT_ALIVE"; then
            k8s_log "$K8S_WAIT_ALIVE exited: $what"
            return 1
        fi
        [ "$SECONDS" -lt "$deadline" ] || { k8s_log "timed out: $what"; return 1; }
        sleep 0.1
    done
}

# k8s_run NAME COMMAND...: starts COMMAND in the background with its output
# in logs/NAME.log (appended: a restart keeps the earlier run's lines).
k8s_run() {
    local name=$1
    shift
    "$@" >>"$K8S_DIR/logs/$name.log" 2>&1 &
    K8S_PIDS[$name]=$!
}

# k8s_stop NAME [GRACE]: SIGTERM, up to GRACE (15) seconds, then SIGKILL;
# by process id only.
k8s_stop() {
    local name=$1 pid=${K8S_PIDS[$1]:-} grace=${2:-15}
    [ -n "$pid" ] || return 0
    unset "K8S_PIDS[$name]"
    kill "$pid" 2>/dev/null || return 0
    kill -CONT "$pid" 2>/dev/null # a test may have stopped it
    for _ in $(seq $((grace * 10))); do
        kill -0 "$pid" 2>/dev/null || { wait "$pid" 2>/dev/null; return 0; }
        sleep 0.1
    done
    k8s_log "$name ($pid) did not stop on SIGTERM: SIGKILL"
    kill -9 "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    return 0
}

# Stops everything started here: the clients first (an API server waits
# for open watches to end before it exits), then the control plane.
k8s_stop_all() {
    local name
    for name in "${!K8S_PIDS[@]}"; do
        case "$name" in
        kube-controller-manager | kube-apiserver | etcd) ;;
        *) k8s_stop "$name" ;;
        esac
    done
    for name in kube-controller-manager kube-apiserver etcd; do k8s_stop "$name"; done
}

k8s_alive() { kill -0 "${K8S_PIDS[$1]:-0}" 2>/dev/null; }

# k8s_work_dir NAME WHO: T, a new /tmp/cpu-extender-NAME.XXXXXX for the
# run's control plane and logs; at exit everything started here stops (by
# pid), and T goes after a passing run or is kept, its path printed by
# WHO, after a failing one (K8S_TEST_KEEP=1 keeps it always).
k8s_work_dir() {
    T=$(mktemp -d "/tmp/cpu-extender-$1.XXXXXX") || exit 2
    K8S_WORK_WHO=$2
    trap k8s_work_end EXIT
    trap 'exit 130' INT TERM
}

k8s_work_end() {
    local rc=$?
    k8s_stop_all
    if [ "$rc" -eq 0 ] && [ "${K8S_TEST_KEEP:-0}" != 1 ]; then
        rm -rf "$T"
    else
        echo "$K8S_WORK_WHO: logs kept in $T/k8s/logs" >&2
    fi
}

# Both start functions try again on new ports when a port was taken
# between k8s_free_port and the bind.
k8s_start_etcd() {
    for _ in 1 2 3; do
        k8s_start_etcd_once && return 0
        grep -q "address already in use" "$K8S_DIR/logs/etcd.log" || break
        k8s_log "etcd: a port was taken, new ports"
        K8S_ETCD_PORT=$(k8s_free_port)
        K8S_ETCD_PEER_PORT=$(k8s_free_port)
        : >"$K8S_DIR/logs/etcd.log"
    done
    tail -n 20 "$K8S_DIR/logs/etcd.log" >&2
    return 1
}

k8s_start_etcd_once() {
    mkdir -p "$K8S_DIR/etcd"
    k8s_run etcd "$K8S_ETCD" --name test --data-dir "$K8S_DIR/etcd" \
        --listen-client-urls "http://127.0.0.1:$K8S_ETCD_PORT" \
        --advertise-client-urls "http://127.0.0.1:$K8S_ETCD_PORT" \
        --listen-peer-urls "http://127.0.0.1:$K8S_ETCD_PEER_PORT" \
        --initial-advertise-peer-urls "http://127.0.0.1:$K8S_ETCD_PEER_PORT" \
        --initial-cluster "test=http://127.0.0.1:$K8S_ETCD_PEER_PORT" \
        --logger zap --log-level warn
    K8S_WAIT_ALIVE=etcd k8s_wait 30 "etcd on port $K8S_ETCD_PORT" \
        curl -sf "http://127.0.0.1:$K8S_ETCD_PORT/health"
}

# etcd's JSON gateway: k8s_etcd PATH BODY (for the revision and compaction).
k8s_etcd() {
    curl -sf --max-time 10 -X POST -d "$2" "http://127.0.0.1:$K8S_ETCD_PORT$1"
}

# The audit log records every request with its user, verb, URI, status and
# the authorizer's decision: the tests read what the extender asked for.
k8s_audit_policy() {
    cat >"$K8S_DIR/audit-policy.yaml" <<'EOF'
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
  - level: Metadata
EOF
}

k8s_start_apiserver() {
    for _ in 1 2 3; do
        k8s_start_apiserver_once "$@" && return 0
        tail -n 5 "$K8S_DIR/logs/kube-apiserver.log" | grep -q "address already in use" || break
        k8s_log "kube-apiserver: port $K8S_API_PORT was taken, a new one"
        K8S_API_PORT=$(k8s_free_port)
        K8S_SERVER=https://127.0.0.1:$K8S_API_PORT
        k8s_kubeconfig "$K8S_ADMIN_KUBECONFIG" \
            "client-certificate: $K8S_PKI/admin.crt" "client-key: $K8S_PKI/admin.key"
    done
    tail -n 30 "$K8S_DIR/logs/kube-apiserver.log" >&2
    return 1
}

k8s_start_apiserver_once() {
    [ -f "$K8S_DIR/audit-policy.yaml" ] || k8s_audit_policy
    # The aggregation layer (--requestheader-*, --proxy-client-*): what
    # metrics-server behind an APIService needs (t_metrics_pipeline.sh).
    # Not --enable-aggregator-routing: it proxies to the Service's
    # endpoints, and both Endpoints and EndpointSlices refuse a loopback
    # address ("may not be in the loopback range"); without it the API
    # server goes to the Service's cluster IP (nothing routes one here: no
    # kube-proxy) or, for an ExternalName Service, to that name, which is
    # what metrics_server.sh registers (ExternalName 127.0.0.1).
    # 1.20: --insecure-port=0 turns off its unauthenticated port; the flag
    # is gone since 1.24.
    # Newer releases refuse a loopback advertise address for the endpoint
    # reconciler of the kubernetes Service, which nothing here reaches
    # through the Service anyway.
    local -a old=(--endpoint-reconciler-type=none)
    k8s_since 24 || old=(--insecure-port=0)
    k8s_run kube-apiserver "$K8S_BIN/kube-apiserver" \
        --etcd-servers="http://127.0.0.1:$K8S_ETCD_PORT" \
        --bind-address=127.0.0.1 --advertise-address=127.0.0.1 \
        --secure-port="$K8S_API_PORT" "${old[@]}" \
        --tls-cert-file="$K8S_PKI/apiserver.crt" --tls-private-key-file="$K8S_PKI/apiserver.key" \
        --client-ca-file="$K8S_PKI/ca.crt" \
        --service-account-issuer=https://kubernetes.default.svc.cluster.local \
        --service-account-key-file="$K8S_PKI/sa.pub" \
        --service-account-signing-key-file="$K8S_PKI/sa.key" \
        --service-cluster-ip-range=10.96.0.0/24 \
        --authorization-mode=Node,RBAC \
        --requestheader-client-ca-file="$K8S_PKI/front-proxy/ca.crt" \
        --requestheader-allowed-names=front-proxy-client \
        --requestheader-username-headers=X-Remote-User \
        --requestheader-group-headers=X-Remote-Group \
        --requestheader-extra-headers-prefix=X-Remote-Extra- \
        --proxy-client-cert-file="$K8S_PKI/front-proxy/client.crt" \
        --proxy-client-key-file="$K8S_PKI/front-proxy/client.key" \
        --audit-policy-file="$K8S_DIR/audit-policy.yaml" --audit-log-path="$K8S_AUDIT_LOG" \
        --profiling=false --v=1 "$@"
    K8S_WAIT_ALIVE=kube-apiserver k8s_wait 60 "kube-apiserver /readyz on port $K8S_API_PORT" k8s_ready
}

k8s_ready() {
    k8s_alive kube-apiserver &&
        [ "$(curl -s --max-time 5 --cacert "$K8S_PKI/ca.crt" --cert "$K8S_PKI/admin.crt" \
            --key "$K8S_PKI/admin.key" "$K8S_SERVER/readyz")" = ok ]
}

# Only the two ServiceAccount controllers: the `default` account of every
# namespace (the ServiceAccount admission plugin refuses pods without it)
# and the token Secrets (made by 1.20 for every account; since 1.24 only
# filled in for the Secrets sa_token creates). The other controllers would act on a
# cluster without kubelets (the node lifecycle controller taints and evicts
# every node that never reports).
k8s_start_controller_manager() {
    local -a old=()
    k8s_since 24 || old=(--port=0) # the insecure port, gone since 1.24
    k8s_run kube-controller-manager "$K8S_BIN/kube-controller-manager" \
        --kubeconfig="$K8S_ADMIN_KUBECONFIG" \
        --controllers=serviceaccount,serviceaccount-token \
        --service-account-private-key-file="$K8S_PKI/sa.key" \
        --root-ca-file="$K8S_PKI/ca.crt" \
        --use-service-account-credentials=false \
        --leader-elect=false "${old[@]}" --secure-port=0 --v=1
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    set -euo pipefail
    case "${1:-}" in
    deps) k8s_deps ;;
    build) k8s_build ;;
    versions) k8s_versions ;;
    *)
        echo "usage: $0 deps|build|versions" >&2
        exit 2
        ;;
    esac
fi
