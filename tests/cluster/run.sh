#!/bin/bash
# make test-cluster: cpu-extender against a real kube-apiserver, etcd and
# kube-scheduler of one Kubernetes release (K8S_VERSION: 1.37.2 from Go
# modules, the default, or 1.20.2 from Debian 12's source; built once into a
# cache by tests/cluster/k8s.sh), all on 127.0.0.1. No kubelet runs: Node
# objects are created through the API and a pod's path ends at its Binding.
#
#   [K8S_VERSION=V] tests/cluster/run.sh BUILD_DIR [TEST...]
#
# BUILD_DIR holds cpu-extender and the two helpers (make test-cluster builds
# them). TEST names run only those tests (after the setup), e.g.
# `tests/cluster/run.sh build/release t_bind`. The work directory (logs of
# every process, the audit log) is removed after a passing run and kept,
# with its path printed, after a failing one (K8S_TEST_KEEP=1
# keeps it always). Exit 0 when every test passed.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
B=${1:?usage: tests/cluster/run.sh BUILD_DIR [TEST...]}
shift

# ---- what the suite reads from the repository: one place to edit after a
# move. Every YAML file under MANIFEST_DIR is dry-run (t_manifests_dry_run);
# the others are read by name.
MANIFEST_DIR=manifests
RBAC_YAML=$MANIFEST_DIR/rbac.yaml
# shellcheck disable=SC2034 # read by t_scheduler.sh
SCHEDULER_CONFIG_YAML=$MANIFEST_DIR/scheduler/scheduler-config.yaml
# shellcheck disable=SC2034 # read by t_scheduler.sh
EXTENDER_CONFIG_JSON=$MANIFEST_DIR/scheduler/config.json
# shellcheck disable=SC2034 # read by t_manifests.sh
KUBEADM_PATCH_YAML=$MANIFEST_DIR/kubeadm/kube-scheduler+strategic.yaml

EXT=$B/cpu-extender
PROBE=$B/cluster-informer-probe
Y2J=$B/cluster-yaml2json

# shellcheck source=tests/cluster/k8s.sh
. tests/cluster/k8s.sh
# shellcheck source=tests/support/server.sh
. tests/support/server.sh
# shellcheck source=tests/cluster/lib.sh
. tests/cluster/lib.sh
for f in tests/cluster/t_*.sh; do
    # shellcheck disable=SC1090
    . "$f"
done

for f in "$EXT" "$PROBE" "$Y2J"; do
    [ -x "$f" ] || { echo "run.sh: $f is missing (make test-cluster builds it)" >&2; exit 2; }
done

T0=$SECONDS
k8s_build || exit 1
T_BUILD=$((SECONDS - T0))

k8s_work_dir cluster run.sh

k8s_init "$T/k8s"
k8s_certs
k8s_start_etcd || exit 1
k8s_start_apiserver || exit 1
k8s_start_controller_manager
k8s_wait 60 "kube-controller-manager: ServiceAccount default/default with a token" \
    sa_has_token default default ||
    { tail -n 20 "$K8S_DIR/logs/kube-controller-manager.log" >&2; exit 1; }
echo "== control plane up after $((SECONDS - T0)) s (build or cache: $T_BUILD s); $K8S_SERVER"
k8s_versions | sed 's/^/   /'

# What the tests after the dry run use: two namespaces, the RBAC objects
# of the manifests (created for real) and the tokens of two accounts:
#   $T/sa/scheduler  kube-system/cpu-extender-scheduler, the manifests'
#                    account (what both containers of the Deployment use);
#   $T/sa/extender   kube-system/cpu-extender-only, bound to the
#                    manifests' ClusterRole cpu-extender and nothing else:
#                    the sidecar's own rules, standing on their own.
suite_setup() {
    echo "== setup: namespaces, $RBAC_YAML, service-account tokens"
    mk_namespace ce-a && mk_namespace ce-b || return 1
    local doc n=0
    while read -r doc; do
        create_object "$doc" || return 1
        n=$((n + 1))
    done < <("$Y2J" "$RBAC_YAML")
    echo "   $RBAC_YAML: $n objects created"
    sa_token kube-system cpu-extender-scheduler "$T/sa/scheduler" || return 1
    must POST /api/v1/namespaces/kube-system/serviceaccounts \
        '{"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"cpu-extender-only"}}' 201 &&
        must POST /apis/rbac.authorization.k8s.io/v1/clusterrolebindings '{"apiVersion":"rbac.authorization.k8s.io/v1",
            "kind":"ClusterRoleBinding","metadata":{"name":"cpu-extender-only"},
            "subjects":[{"kind":"ServiceAccount","name":"cpu-extender-only","namespace":"kube-system"}],
            "roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"cpu-extender"}}' 201 ||
        return 1
    sa_token kube-system cpu-extender-only "$T/sa/extender"
}
SETUP_DONE=0

# The tests in order; each cleans up the nodes and pods it made. A test
# that only one release can show is listed as NAME@SINCE-UNTIL (minor
# versions, either side may be empty) with the reason in TEST_NEEDS; on
# another release it is reported as skipped with that reason, never as a
# pass.
ALL_TESTS=(
    t_manifests_dry_run
    t_helm_chart
    t_informer_paged_lists
    t_informer_follows_events
    t_informer_watch_resumes
    t_informer_410_continue
    t_informer_apiserver_restart
    t_wire_shapes
    t_scores_from_cluster_state
    t_bind
    t_readyz_follows
    t_rbac_least_privilege
    t_scheduler_cache
    t_scheduler_nocache
    t_scheduler_bind_verb
    t_scheduler_filter_event
    t_scheduler_extender_down
    t_scheduler_one_file
    t_scheduler_v1_shipped@25-
    t_scheduler_v1_kubeadm@25-
    t_scheduler_v1beta3_file@23-28
    t_scheduler_v1beta3_refused@29-
    t_pod_shapes_scored@34-
    t_pod_resize_charged@33-
    t_scheduler_preempt@25-
    t_scheduler_preempt_drops@25-
    t_simulate_agrees@37-
    t_metrics_pipeline
)
declare -A TEST_NEEDS=(
    [t_scheduler_v1_shipped]="the shipped file is kubescheduler.config.k8s.io/v1, read since 1.25 (1.20 reads up to v1beta1)"
    [t_scheduler_v1_kubeadm]="the kubeadm file is kubescheduler.config.k8s.io/v1, read since 1.25 (1.20 reads up to v1beta1)"
    [t_scheduler_v1beta3_file]="kubescheduler.config.k8s.io/v1beta3 is read by 1.23 to 1.28 only: removed in 1.29 (t_scheduler_v1beta3_refused shows 1.37 refusing it), not yet in 1.20"
    [t_scheduler_v1beta3_refused]="kube-scheduler refuses v1beta3 since 1.29, which removed it"
    [t_scheduler_preempt]="kube-scheduler 1.20 never calls the preempt verb (kubernetes#102971); 1.37 does, and its configuration is v1 (1.25+)"
    [t_scheduler_preempt_drops]="kube-scheduler 1.20 never calls the preempt verb (kubernetes#102971); 1.37 does, and its configuration is v1 (1.25+)"
    [t_pod_shapes_scored]="pod-level spec.resources is on by default since 1.34 (sidecars since 1.29); 1.20 drops both fields"
    [t_pod_resize_charged]="the pods/resize subresource and the resize status fields exist since 1.33 (in-place resize GA in 1.35); 1.20 has neither"
    [t_simulate_agrees]="NodeResourcesFit's scoringStrategy (LeastAllocated, MostAllocated with resource weights) and the v1 profile that turns every other plugin off arrived after 1.20, whose v1beta1 has separate NodeResources{Least,Most}Allocated plugins and older reason texts"
)
if [ $# -gt 0 ]; then TESTS=("$@"); else TESTS=("${ALL_TESTS[@]}"); fi

# test_runs_here NAME@SINCE-UNTIL: the release under test is in the range.
test_runs_here() {
    local range=${1#*@} since until
    [ "$range" != "$1" ] || return 0
    since=${range%-*}
    until=${range#*-}
    { [ -z "$since" ] || [ "$K8S_MINOR" -ge "$since" ]; } &&
        { [ -z "$until" ] || [ "$K8S_MINOR" -le "$until" ]; }
}

# After each test, whatever it left: its processes, nodes and pods (a
# failing test returns early), and the API server if it stopped it.
suite_reset() {
    local name
    for name in "${!K8S_PIDS[@]}"; do
        case "$name" in
        etcd | kube-apiserver | kube-controller-manager) ;;
        *) k8s_stop "$name" ;;
        esac
    done
    if ! k8s_alive kube-apiserver; then
        echo "   (restarting kube-apiserver)"
        k8s_start_apiserver || exit 1
    fi
    [ "$SETUP_DONE" = 1 ] || return 0
    local ns
    for ns in ce-a ce-b; do
        api GET "/api/v1/namespaces/$ns/pods"
        for name in $(jq -r '.items[].metadata.name' <<<"$RESP"); do
            CT=application/merge-patch+json api PATCH "/api/v1/namespaces/$ns/pods/$name" '{"metadata":{"finalizers":null}}'
            api DELETE "/api/v1/namespaces/$ns/pods/$name?gracePeriodSeconds=0"
        done
    done
    api GET /api/v1/nodes
    for name in $(jq -r '.items[].metadata.name' <<<"$RESP"); do api DELETE "/api/v1/nodes/$name"; done
}

PASSED=() FAILED=() SKIPPED_TESTS=()
for entry in "${TESTS[@]}"; do
    t=${entry%@*}
    declare -F "$t" >/dev/null || { echo "run.sh: no test $t" >&2; exit 2; }
    if ! test_runs_here "$entry"; then
        SKIPPED_TESTS+=("$t")
        echo "SKIP $t on Kubernetes $K8S_VERSION: ${TEST_NEEDS[$t]:-runs on 1.${entry#*@} only}"
        continue
    fi
    # The dry run comes first, before the RBAC objects exist for real.
    if [ "$t" != t_manifests_dry_run ] && [ "$SETUP_DONE" = 0 ]; then
        suite_setup || { echo "run.sh: setup failed" >&2; exit 1; }
        SETUP_DONE=1
    fi
    T_FAILS=0 T_CHECKS=0
    t_start=$SECONDS
    echo "== $t"
    "$t"
    rc=$?
    if [ "$rc" -ne 0 ] && [ "$T_FAILS" -eq 0 ]; then fail "$t ended early (status $rc)"; fi
    suite_reset
    if [ "$T_FAILS" -eq 0 ]; then
        PASSED+=("$t")
        echo "PASS $t ($T_CHECKS checks, $((SECONDS - t_start)) s)"
    else
        FAILED+=("$t")
        echo "FAIL $t ($T_FAILS of $T_CHECKS checks failed, $((SECONDS - t_start)) s)"
    fi
done

echo "== Kubernetes $K8S_VERSION in $((SECONDS - T0)) s (build or cache: $T_BUILD s)"
echo "test-cluster: ${#PASSED[@]} passed, ${#FAILED[@]} failed, ${#SKIPPED_TESTS[@]} skipped"
[ "${#SKIPPED_TESTS[@]}" -eq 0 ] || printf 'skipped on %s: %s\n' "$K8S_VERSION" "${SKIPPED_TESTS[*]}"
[ "${#FAILED[@]}" -eq 0 ] || { printf 'failed: %s\n' "${FAILED[*]}"; exit 1; }
