# shellcheck shell=bash
# The build recipe of the newest release tests/cluster runs: kube-apiserver,
# kube-controller-manager, kube-scheduler and kubectl from the module
# k8s.io/kubernetes, and etcd from go.etcd.io/etcd/server/v3 at the version
# that release's go.mod requires, all through the Go module proxy with the
# Go at /usr/local/go (the release's go.mod asks for go 1.26). The module
# graph is pinned by tests/cluster/k8s-go/go.mod and go.sum (every staging
# module replaced by its v0.X.Y, as out-of-tree schedulers build
# kube-scheduler). Sourced by k8s.sh, which selects the recipe by version.

K8S_GO=${K8S_GO:-/usr/local/go/bin/go}
K8S_GO_MODULE=$K8S_HERE/k8s-go
K8S_BINS="$K8S_BINS etcd"
# etcd built from the release's own module graph (k8s-go/go.mod).
K8S_ETCD=$K8S_BIN/etcd
# ca-certificates: the Go module proxy is reached over HTTPS.
K8S_DEB_PACKAGES="jq curl openssl ca-certificates"
K8S_RECIPE="k8s-v$K8S_VERSION recipe 1: go modules $(cat "$K8S_GO_MODULE/go.mod" "$K8S_GO_MODULE/go.sum" 2>/dev/null |
    sha256sum | cut -c1-16), -trimpath, CGO_ENABLED=0: $K8S_BINS"

# The module of this release in go.mod must be the version asked for: the
# go.mod pins one release; another needs its own go.mod.
k8s_module_version() {
    sed -n 's/^require k8s.io\/kubernetes \(v[0-9.]*\)$/\1/p' "$K8S_GO_MODULE/go.mod"
}

k8s_build_tree() {
    local t0=$SECONDS work="$K8S_CACHE/build" ld key val b v
    [ -x "$K8S_GO" ] || k8s_die "$K8S_GO is missing: the newest release builds with Go 1.26 from /usr/local/go (K8S_GO= to name another)"
    v=$(k8s_module_version)
    [ "$v" = "v$K8S_VERSION" ] ||
        k8s_die "tests/cluster/k8s-go/go.mod requires k8s.io/kubernetes $v, not v$K8S_VERSION"
    k8s_log "building Kubernetes $K8S_VERSION and etcd from Go modules into $K8S_BIN (about 12 minutes on 2 cores)"
    rm -rf "$work" "$K8S_BIN"
    mkdir -p "$work/bin"
    # The module cache is Go's own (GOMODCACHE, shared with every other Go
    # build on the machine); the build cache is this build's and goes with it.
    export GOCACHE="$work/gocache" GOFLAGS=-mod=readonly CGO_ENABLED=0 GOTOOLCHAIN=local
    cd "$K8S_GO_MODULE" || exit 1
    # The release's version, as upstream's hack/lib/version.sh stamps it
    # (kube-apiserver --version, /version and kubectl version read these).
    ld="-s -w"
    for key in gitVersion=v$K8S_VERSION gitMajor=1 gitMinor=$K8S_MINOR gitTreeState=clean; do
        val=${key#*=}
        key=${key%%=*}
        ld="$ld -X k8s.io/component-base/version.$key=$val -X k8s.io/client-go/pkg/version.$key=$val"
    done
    for b in kube-apiserver kube-controller-manager kube-scheduler kubectl; do
        k8s_log "go build k8s.io/kubernetes/cmd/$b"
        "$K8S_GO" build -trimpath -ldflags "$ld" -o "$work/bin/$b" "k8s.io/kubernetes/cmd/$b" \
            >>"$K8S_CACHE/build.log" 2>&1 ||
            { tail -n 20 "$K8S_CACHE/build.log" >&2; k8s_die "go build $b failed (see $K8S_CACHE/build.log)"; }
    done
    k8s_log "go build go.etcd.io/etcd/server/v3 (etcd)"
    "$K8S_GO" build -trimpath -ldflags "-s -w" -o "$work/bin/etcd" go.etcd.io/etcd/server/v3 \
        >>"$K8S_CACHE/build.log" 2>&1 ||
        { tail -n 20 "$K8S_CACHE/build.log" >&2; k8s_die "go build etcd failed (see $K8S_CACHE/build.log)"; }
    echo "$K8S_RECIPE" >"$work/bin/.recipe"
    "$K8S_GO" list -m -f '{{.Path}} {{.Version}}' k8s.io/kubernetes go.etcd.io/etcd/server/v3 \
        >"$work/bin/.source" 2>/dev/null
    "$K8S_GO" version >>"$work/bin/.source"
    mv "$work/bin" "$K8S_BIN"
    [ "${K8S_TEST_KEEP_BUILD:-0}" = 1 ] || rm -rf "$work"
    k8s_log "built in $((SECONDS - t0)) s: $K8S_BINS"
}
