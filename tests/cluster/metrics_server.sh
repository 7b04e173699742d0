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
    local cache=$1 recipe=$2 module=$3 pkg=$4 name=$5 ld=$6 t0=$SECONDS work=$1/build
    if [ -x "$cache/bin/$name" ] && [ "$(cat "$cache/bin/.recipe" 2>/dev/null)" = "$recipe" ]; then
        return 0
    fi
    [ -x "$MS_GO" ] || { ms_log "error: $MS_GO is missing: $name builds with Go 1.26 from /usr/local/go (MS_GO= to name another)"; return 1; }
    ms_log "building $name from $module into $cache/bin"
    rm -rf "$work" "$cache/bin"
    mkdir -p "$work/bin"
    (
        cd "$module" &&
            GOCACHE=${GOCACHE:-$work/gocache} GOFLAGS=-mod=readonly CGO_ENABLED=0 GOTOOLCHAIN=local \
                "$MS_GO" build -trimpath -ldflags "$ld" -o "$work/bin/$name" "$pkg"
    ) >"$cache/build.log" 2>&1 || {
        tail -n 20 "$cache/build.log" >&2
        ms_log "error: go build $name failed (see $cache/build.log)"
        return 1
    }
    echo "$recipe" >"$work/bin/.recipe"
    mv "$work/bin" "$cache/bin"
    rm -rf "$work"
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
