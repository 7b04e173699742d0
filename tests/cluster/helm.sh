#!/bin/bash
# Helm for the chart's tests (t_helm.sh): helm lint, helm template. Test
# tooling only, as the control plane of k8s.sh is: built from the Go module
# helm.sh/helm/v4 at the version tests/cluster/helm-go/go.mod pins (go.sum
# pins every module under it), with the Go at /usr/local/go, once, into a
# cache outside the clone; nothing of it is linked into cpu-extender.
#
#   tests/cluster/helm.sh build   build unless cached, then print the path
#   . tests/cluster/helm.sh       helm_build and $HELM, for t_helm.sh
#
# Cache: ${K8S_TEST_CACHE:-$HOME/.cache/cpu-extender}/helm-vVERSION/bin/helm,
# used while bin/.recipe holds HELM_RECIPE (the hash of go.mod and go.sum:
# a changed pin builds again). The module cache is Go's own; the build cache
# is the build's and goes with it (GOCACHE=DIR keeps one of your own).

HELM_GO=${HELM_GO:-/usr/local/go/bin/go}
HELM_MODULE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/helm-go
HELM_VERSION=$(sed -n 's/^\thelm.sh\/helm\/v4 \(v[0-9.]*\).*/\1/p' "$HELM_MODULE/go.mod")
HELM_CACHE=${K8S_TEST_CACHE:-$HOME/.cache/cpu-extender}/helm-$HELM_VERSION
HELM=$HELM_CACHE/bin/helm
HELM_RECIPE="helm $HELM_VERSION recipe 1: go modules $(cat "$HELM_MODULE/go.mod" "$HELM_MODULE/go.sum" 2>/dev/null |
    sha256sum | cut -c1-16), -trimpath, CGO_ENABLED=0"

helm_log() { printf '%s helm: %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

# helm_build: $HELM built from the pinned modules unless the cache has it.
helm_build() {
    [ -n "$HELM_VERSION" ] || { helm_log "error: $HELM_MODULE/go.mod requires no helm.sh/helm/v4"; return 1; }
    if [ -x "$HELM" ] && [ "$(cat "$HELM_CACHE/bin/.recipe" 2>/dev/null)" = "$HELM_RECIPE" ]; then
        return 0
    fi
    [ -x "$HELM_GO" ] || { helm_log "error: $HELM_GO is missing: helm builds with Go 1.26 from /usr/local/go (HELM_GO= to name another)"; return 1; }
    local t0=$SECONDS work=$HELM_CACHE/build
    helm_log "building helm $HELM_VERSION from Go modules into $HELM_CACHE/bin (a few minutes on 2 cores)"
    rm -rf "$work" "$HELM_CACHE/bin"
    mkdir -p "$work/bin"
    (
        cd "$HELM_MODULE" &&
            GOCACHE=${GOCACHE:-$work/gocache} GOFLAGS=-mod=readonly CGO_ENABLED=0 GOTOOLCHAIN=local \
                "$HELM_GO" build -trimpath \
                -ldflags "-s -w -X helm.sh/helm/v4/internal/version.version=$HELM_VERSION -X helm.sh/helm/v4/internal/version.gitTreeState=clean" \
                -o "$work/bin/helm" helm.sh/helm/v4/cmd/helm
    ) >"$HELM_CACHE/build.log" 2>&1 || {
        tail -n 20 "$HELM_CACHE/build.log" >&2
        helm_log "error: go build helm failed (see $HELM_CACHE/build.log)"
        return 1
    }
    echo "$HELM_RECIPE" >"$work/bin/.recipe"
    mv "$work/bin" "$HELM_CACHE/bin"
    rm -rf "$work"
    helm_log "built in $((SECONDS - t0)) s: $("$HELM" version --short 2>/dev/null)"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    set -euo pipefail
    case "${1:-}" in
    build) helm_build && echo "$HELM" ;;
    *)
        echo "usage: tests/cluster/helm.sh build" >&2
        exit 2
        ;;
    esac
fi
