#!/bin/bash
# A real Kubernetes 1.20.2 control plane on loopback for tests/cluster:
# etcd 3.4 and kube-apiserver (plus kube-controller-manager for the
# ServiceAccount controllers, and kube-scheduler when a test starts one),
# built from Debian 12's `kubernetes` source package into a cache outside
# the clone, so that a second run on the same machine reuses the binaries.
#
#   tests/cluster/k8s.sh deps       install the Debian packages (root)
#   tests/cluster/k8s.sh build      deps, then build the binaries unless cached
#   tests/cluster/k8s.sh versions   print the versions of what runs
#   . tests/cluster/k8s.sh          the functions below, for tests/cluster/run.sh
#
# Cache: ${K8S_TEST_CACHE:-$HOME/.cache/cpu-extender/k8s-v1.20.2}. (Not
# CPU_EXTENDER_*: cpu-extender refuses unknown variables of its own prefix.)
# Its bin/ is used when bin/.recipe holds K8S_RECIPE below; change that string
# whenever the build changes, so that every cache builds again. The source
# tree and Go's build cache are deleted after a good build (about 800 MB)
# unless K8S_TEST_KEEP_BUILD=1.
#
# Everything started here listens on 127.0.0.1 only and is stopped by its
# process id (k8s_stop_all, which run.sh calls from its EXIT trap).

K8S_VERSION=1.20.2
K8S_GIT_COMMIT=faecb196815e248d3ecfb03c680a4507229c2a56 # tag v1.20.2
K8S_BUILD_DATE=2021-01-13T13:20:00Z                      # the release's date
# Debian 12's source package: upstream 1.20.2 under a 1.20.5 epoch-free
# version (Debian went back from a 1.20.5 upload to 1.20.2).
K8S_DEB_SOURCE=kubernetes
K8S_DEB_UPSTREAM=1.20.5+really1.20.2
K8S_BINS="kube-apiserver kube-controller-manager kube-scheduler kubectl"
K8S_RECIPE="k8s-v$K8S_VERSION recipe 1: dpkg-source, reflect2 1.0.2, openapi-gen, GOPATH, CGO_ENABLED=0: $K8S_BINS"
K8S_DEB_PACKAGES="golang-go etcd-server golang-github-modern-go-reflect2-dev dpkg-dev jq curl openssl"
K8S_CACHE=${K8S_TEST_CACHE:-$HOME/.cache/cpu-extender/k8s-v$K8S_VERSION}
K8S_BIN=$K8S_CACHE/bin

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

# The source package needs a deb-src line; Debian 12 images ship none.
k8s_fetch_source() {
    local dir=$1 list=/etc/apt/sources.list.d/cpu-extender-bookworm-src.sources
    if ! apt-get indextargets --format '$(CREATED_BY)' 2>/dev/null | grep -qx Sources; then
        [ "$(id -u)" -eq 0 ] || k8s_die "apt has no deb-src line: the Kubernetes source needs one (run as root)"
        k8s_log "adding $list (deb-src for bookworm)"
        printf '%s\n' 'Types: deb-src' 'URIs: http://deb.debian.org/debian' 'Suites: bookworm' \
            'Components: main' 'Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg' >"$list"
        DEBIAN_FRONTEND=noninteractive apt-get update -qq
    fi
    # apt and dpkg-source warn that they cannot check the .dsc signature
    # themselves: apt has checked its hash against the signed index.
    (cd "$dir" && apt-get source -qq --download-only "$K8S_DEB_SOURCE") >>"$K8S_CACHE/build.log" 2>&1 ||
        k8s_die "apt-get source $K8S_DEB_SOURCE failed (see $K8S_CACHE/build.log)"
    local dsc
    dsc=$(ls "$dir"/"${K8S_DEB_SOURCE}"_*.dsc 2>/dev/null | head -n1)
    [ -n "$dsc" ] || k8s_die "apt-get source left no .dsc in $dir"
    grep -q "^Version: $K8S_DEB_UPSTREAM-" "$dsc" ||
        k8s_die "$dsc is not upstream $K8S_DEB_UPSTREAM: $(grep '^Version:' "$dsc")"
    echo "$dsc"
}

# Directories whose Go files carry +k8s:openapi-gen= tags, as
# build/root/Makefile.generated_files finds them for pkg/generated/openapi:
# the tree without vendor/ (staging/src named as vendor/), minus
# code-generator and sample-apiserver.
k8s_openapi_dirs() {
    find -H . \( -path ./_\* -o -path ./.\* -o -path ./vendor \) -prune -o \
        -type f -name '*.go' -print |
        sed 's|^\./staging/src|vendor|; s|^\./||' |
        xargs grep -l '^// *+k8s:' | xargs grep -l '+k8s:openapi-gen=' |
        grep -v -e '^vendor/k8s.io/code-generator/' -e '^vendor/k8s.io/sample-apiserver/' |
        xargs -n1 dirname | LC_ALL=C sort -u | sed 's|^|k8s.io/kubernetes/|' | paste -sd,
}

k8s_build() {
    k8s_deps
    if k8s_cached; then
        k8s_log "using the binaries in $K8S_BIN"
        return 0
    fi
    # A subshell: the build changes directory and exports Go's settings.
    (k8s_build_tree)
}

k8s_build_tree() {
    local t0=$SECONDS work="$K8S_CACHE/build" dsc tree
    k8s_log "building Kubernetes $K8S_VERSION into $K8S_BIN (about 6 minutes on 2 cores)"
    rm -rf "$work" "$K8S_BIN" "$K8S_CACHE/build.log"
    mkdir -p "$work"
    dsc=$(k8s_fetch_source "$work") || exit 1
    tree="$work/gopath/src/k8s.io/kubernetes"
    mkdir -p "$(dirname "$tree")"
    # dpkg-source applies Debian's patches (kubectl printing fixes).
    dpkg-source -x "$dsc" "$tree" >>"$K8S_CACHE/build.log" 2>&1 ||
        k8s_die "dpkg-source -x $dsc failed (see $K8S_CACHE/build.log)"
    # The vendored reflect2 1.0.1 breaks under Go >= 1.18 (kube-apiserver
    # panics decoding JSON bodies); 1.0.2 from Debian is API-compatible.
    rm -rf "$tree/vendor/github.com/modern-go/reflect2"
    cp -rL /usr/share/gocode/src/github.com/modern-go/reflect2 "$tree/vendor/github.com/modern-go/reflect2"
    # GOPATH mode: the tree's go.mod and vendor/modules.txt do not agree with
    # -mod=vendor under Go 1.19; upstream 1.20 builds in GOPATH as well.
    export GOPATH="$work/gopath" GO111MODULE=off CGO_ENABLED=0 GOCACHE="$work/gocache" GOFLAGS=
    cd "$tree" || exit 1
    # kube-apiserver's OpenAPI definitions are generated by upstream's make
    # and not in the tarball.
    k8s_log "generating pkg/generated/openapi"
    go build -o "$work/openapi-gen" ./vendor/k8s.io/kube-openapi/cmd/openapi-gen ||
        k8s_die "building openapi-gen failed"
    "$work/openapi-gen" --logtostderr -i "$(k8s_openapi_dirs)" \
        -p k8s.io/kubernetes/pkg/generated/openapi -O zz_generated.openapi \
        -h vendor/k8s.io/code-generator/hack/boilerplate.go.txt \
        -r "$work/openapi-violations.report" 2>"$work/openapi-gen.log" ||
        { tail -n 20 "$work/openapi-gen.log" >&2; k8s_die "openapi-gen failed"; }
    [ -s pkg/generated/openapi/zz_generated.openapi.go ] || k8s_die "openapi-gen wrote nothing"
    local v=k8s.io/kubernetes/vendor ld="-s -w" key val
    for key in gitVersion=v$K8S_VERSION gitMajor=1 gitMinor=20 gitTreeState=clean \
        gitCommit=$K8S_GIT_COMMIT buildDate=$K8S_BUILD_DATE; do
        val=${key#*=}
        key=${key%%=*}
        ld="$ld -X $v/k8s.io/component-base/version.$key=$val -X $v/k8s.io/client-go/pkg/version.$key=$val"
    done
    local b pkgs=""
    for b in $K8S_BINS; do pkgs="$pkgs ./cmd/$b"; done
    k8s_log "go build$pkgs"
    mkdir -p "$work/bin"
    # shellcheck disable=SC2086
    go build -o "$work/bin/" -ldflags "$ld" $pkgs || k8s_die "go build failed"
    echo "$K8S_RECIPE" >"$work/bin/.recipe"
    basename "$dsc" .dsc >"$work/bin/.source"
    mv "$work/bin" "$K8S_BIN"
    [ "${K8S_TEST_KEEP_BUILD:-0}" = 1 ] || rm -rf "$work"
    k8s_log "built in $((SECONDS - t0)) s: $K8S_BINS"
}

k8s_versions() {
    local b
    for b in kube-apiserver kube-controller-manager kube-scheduler; do
        printf '%s: %s\n' "$b" "$("$K8S_BIN/$b" --version 2>&1)"
    done
    printf 'kubectl: %s\n' "$("$K8S_BIN/kubectl" version --client --short 2>&1)"
    printf 'etcd: %s\n' "$(etcd --version 2>&1 | head -n1)"
    printf 'built from: %s\n' "$(cat "$K8S_BIN/.source" 2>/dev/null)"
    printf 'go: %s\n' "$(go version 2>&1)"
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
        leaf() { # name subject extensions
            openssl genrsa -out "$1.key" 2048 2>/dev/null
            openssl req -new -key "$1.key" -subj "$2" -out "$1.csr" 2>/dev/null
            printf '%s\n' "$3" >"$1.ext"
            openssl x509 -req -in "$1.csr" -CA ca.crt -CAkey ca.key -CAcreateserial -days 2 \
                -extfile "$1.ext" -out "$1.crt" 2>/dev/null
            rm -f "$1.csr" "$1.ext"
        }
        leaf apiserver "/CN=kube-apiserver" "subjectAltName=IP:127.0.0.1,DNS:localhost,IP:10.96.0.1,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local
extendedKeyUsage=serverAuth
keyUsage=critical,digitalSignature,keyEncipherment"
        leaf admin "/O=system:masters/CN=cpu-extender-test-admin" "extendedKeyUsage=clientAuth
keyUsage=critical,digitalSignature,keyEncipherment"
        openssl genrsa -out sa.key 2048 2>/dev/null
        openssl rsa -in sa.key -pubout -out sa.pub 2>/dev/null
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
    k8s_run etcd etcd --name test --data-dir "$K8S_DIR/etcd" \
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
    k8s_run kube-apiserver "$K8S_BIN/kube-apiserver" \
        --etcd-servers="http://127.0.0.1:$K8S_ETCD_PORT" \
        --bind-address=127.0.0.1 --advertise-address=127.0.0.1 \
        --secure-port="$K8S_API_PORT" --insecure-port=0 \
        --tls-cert-file="$K8S_PKI/apiserver.crt" --tls-private-key-file="$K8S_PKI/apiserver.key" \
        --client-ca-file="$K8S_PKI/ca.crt" \
        --service-account-issuer=https://kubernetes.default.svc.cluster.local \
        --service-account-key-file="$K8S_PKI/sa.pub" \
        --service-account-signing-key-file="$K8S_PKI/sa.key" \
        --service-cluster-ip-range=10.96.0.0/24 \
        --authorization-mode=Node,RBAC \
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
# and the token Secrets of 1.20. The other controllers would act on a
# cluster without kubelets (the node lifecycle controller taints and evicts
# every node that never reports).
k8s_start_controller_manager() {
    k8s_run kube-controller-manager "$K8S_BIN/kube-controller-manager" \
        --kubeconfig="$K8S_ADMIN_KUBECONFIG" \
        --controllers=serviceaccount,serviceaccount-token \
        --service-account-private-key-file="$K8S_PKI/sa.key" \
        --root-ca-file="$K8S_PKI/ca.crt" \
        --use-service-account-credentials=false \
        --leader-elect=false --port=0 --secure-port=0 --v=1
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
