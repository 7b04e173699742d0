# shellcheck shell=bash
# The shipped KubeSchedulerConfiguration files, unmodified, read by the real
# kube-scheduler: $SCHEDULER_CONFIG_YAML (the Deployment's second scheduler)
# and $KUBEADM_SCHEDULER_CONFIG_YAML (default-scheduler of a kubeadm
# cluster). Their urlPrefix is fixed at http://127.0.0.1:8888/scheduler, so
# the extender listens there (the test fails at once if the port is taken).
#
# kube-scheduler 1.37 ignores --kubeconfig once --config is given
# (cmd/kube-scheduler/app/options/options.go ApplyTo applies the deprecated
# flags only without --config; deprecated.go's help text says so). The test
# passes it anyway, as sched_start's token, and checks where the
# credentials really come from:
#   - the shipped file has no clientConnection.kubeconfig: kube-scheduler
#     uses the in-cluster config, as in the Deployment's pod, so it runs in a
#     private mount namespace with the account's token under
#     /var/run/secrets/kubernetes.io/serviceaccount (a tmpfs over /run);
#   - the kubeadm file names /etc/kubernetes/scheduler.conf: a kubeconfig
#     with a client certificate for system:kube-scheduler (what kubeadm
#     writes) is put there by an overlay over /etc whose upper layer is on
#     that tmpfs. The host's /etc (which has no /etc/kubernetes here) is not
#     written: the overlay and the tmpfs end with the namespace.

KUBEADM_SCHEDULER_CONFIG_YAML=$MANIFEST_DIR/kubeadm/scheduler-config.yaml
SCHEDULER_CONFIG_V1BETA3_YAML=$MANIFEST_DIR/scheduler/scheduler-config-v1beta3.yaml
# Where every shipped stanza's urlPrefix points.
SHIPPED_EXT_ADDR=127.0.0.1:8888

# The extender on $SHIPPED_EXT_ADDR, or a failed check naming what holds it.
shipped_ext_start() {
    if (exec 3<>"/dev/tcp/${SHIPPED_EXT_ADDR%:*}/${SHIPPED_EXT_ADDR#*:}") 2>/dev/null; then
        fail "$SHIPPED_EXT_ADDR is taken (the shipped urlPrefix needs it): $(ss -Hltnp "sport = :${SHIPPED_EXT_ADDR#*:}" 2>/dev/null | head -n1)"
        return 1
    fi
    ext_start "$1" "$T/sa/scheduler" --listen "$SHIPPED_EXT_ADDR" || return 1
    check_eq "the extender listens where the shipped urlPrefix points" "${SHIPPED_EXT_ADDR#*:}" "$EXT_PORT"
    k8s_wait 20 "$1 ready" ext_ready || { fail "$1 not ready: $ERESP"; return 1; }
}

# A client certificate for system:kube-scheduler (kubeadm's scheduler.conf
# user, bound to the bootstrap ClusterRole system:kube-scheduler) and a
# kubeconfig with it: FILE.
kubeadm_scheduler_conf() {
    (cd "$K8S_PKI" && k8s_leaf_cert kube-scheduler "/CN=system:kube-scheduler" "extendedKeyUsage=clientAuth
keyUsage=critical,digitalSignature,keyEncipherment") || return 1
    k8s_kubeconfig "$1" "client-certificate: $K8S_PKI/kube-scheduler.crt" "client-key: $K8S_PKI/kube-scheduler.key"
}

# sched_ns_start NAME CONFIG incluster|SCHEDULER-CONF: kube-scheduler with
# --config CONFIG (the file itself) in a private mount namespace: with
# "incluster", the pod's environment and token; else SCHEDULER-CONF at
# /etc/kubernetes/scheduler.conf and no in-cluster environment (a static
# pod has none). Sets SCHED_HEALTHZ.
sched_ns_start() {
    local name=$1 config=$2 how=$3 port
    # The files are read unmodified, so their paths must exist as written:
    # only root can lay them out in a mount namespace of its own.
    [ "$(id -u)" -eq 0 ] && unshare --mount true 2>/dev/null ||
        { fail "$name: needs root and unshare --mount (the shipped files' paths exist only in a private mount namespace)"; return 1; }
    port=$(k8s_free_port)
    SCHED_HEALTHZ=https://127.0.0.1:$port/healthz
    k8s_kubeconfig "$T/scheduler.kubeconfig" "token: $(cat "$T/sa/scheduler/token")"
    local -a env=(env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin)
    [ "$how" = incluster ] && env+=(KUBERNETES_SERVICE_HOST=127.0.0.1 KUBERNETES_SERVICE_PORT="$K8S_API_PORT")
    k8s_run "$name" "${env[@]}" unshare --mount --propagation private -- /bin/sh -c '
        how=$1 sa=$2
        shift 2
        mount -t tmpfs -o size=1m,mode=755 tmpfs /run || exit 1
        if [ "$how" = incluster ]; then
            mkdir -p /run/secrets/kubernetes.io/serviceaccount &&
                cp "$sa/token" "$sa/ca.crt" "$sa/namespace" /run/secrets/kubernetes.io/serviceaccount/ || exit 1
        else
            mkdir -p /run/etc/up/kubernetes /run/etc/work &&
                cp "$how" /run/etc/up/kubernetes/scheduler.conf &&
                mount -t overlay overlay -o lowerdir=/etc,upperdir=/run/etc/up,workdir=/run/etc/work /etc ||
                exit 1
        fi
        exec "$@"' sh "$how" "$T/sa/scheduler" "$K8S_BIN/kube-scheduler" --config="$PWD/$config" \
        --kubeconfig="$T/scheduler.kubeconfig" --secure-port="$port" --bind-address=127.0.0.1 --v=2
    k8s_wait 30 "$name healthz" curl -skf "$SCHED_HEALTHZ" ||
        { fail "$name did not start: $(tail -n 5 "$K8S_DIR/logs/$name.log")"; return 1; }
}

lease_held() {
    api GET "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/$1"
    [ "$CODE" = 200 ] && [ -n "$(jq -r '.spec.holderIdentity // ""' <<<"$RESP")" ]
}

# shipped_placed EXT POD USER: POD (made by the caller, 1 CPU/256Mi) bound
# to ks-8 as in t_scheduler_cache (1.37's table, pod 1), one prioritize
# call for it answered 200 with the three nodes, and the Binding created by
# kube-scheduler as USER. MARK is the audit mark from before the pod.
shipped_placed() {
    local ext=$1 pod=$2 user=$3 mark=$4
    k8s_wait 20 "$pod bound" pod_bound "$pod" || { fail "$pod not bound within 20 s"; return 1; }
    check_eq "$pod placed as t_scheduler_cache's first pod" ks-8 "$(node_of "$pod")"
    check_eq "our prioritize called once for $pod: status, nodes in" "ce-a/$pod 200 3" \
        "$(ext_log_requests "$ext" prioritize | jq -r '"\(.pod) \(.status) \(.nodesIn)"' | paste -sd' ')"
    check_eq "the Binding: kube-scheduler as $user" "kube-scheduler 201" \
        "$(audit_since "$mark" ".objectRef.subresource == \"binding\" and .objectRef.name == \"$pod\" and .user.username == \"$user\"" |
            jq -r '"\(.userAgent | split("/")[0]) \(.responseStatus.code)"')"
}

# The Deployment's file: profile cpu-extender-scheduler, in-cluster.
t_scheduler_v1_shipped() {
    local m lease=cpu-extender-scheduler
    check_eq "the shipped file: its apiVersion, no clientConnection" "kubescheduler.config.k8s.io/v1 null" \
        "$("$Y2J" "$SCHEDULER_CONFIG_YAML" | jq -r '"\(.apiVersion) \(.clientConnection)"')"
    sched_nodes || return 1
    shipped_ext_start ext-v1 || return 1
    must DELETE "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/$lease" "200 404" || return 1
    sched_ns_start sched-v1 "$SCHEDULER_CONFIG_YAML" incluster || return 1
    k8s_wait 20 "lease $lease held" lease_held "$lease" || { fail "sched-v1 did not take lease $lease"; return 1; }
    check "kube-scheduler fell back to the in-cluster config (--kubeconfig ignored with --config)" \
        grep -q "Neither --kubeconfig nor --master was specified.  Using the inClusterConfig" \
        "$K8S_DIR/logs/sched-v1.log"
    m=$(audit_mark)
    sched_pod v1-1 1 256Mi || return 1
    shipped_placed ext-v1 v1-1 system:serviceaccount:kube-system:cpu-extender-scheduler "$m"
    k8s_stop sched-v1
    k8s_stop ext-v1
    must DELETE "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/$lease" "200 404"
    sched_cleanup v1
}

# kubeadm's file: profile default-scheduler, clientConnection.kubeconfig
# /etc/kubernetes/scheduler.conf, the default lease kube-system/kube-scheduler.
t_scheduler_v1_kubeadm() {
    local m lease=kube-scheduler
    check_eq "the kubeadm file: its apiVersion and kubeconfig" \
        "kubescheduler.config.k8s.io/v1 /etc/kubernetes/scheduler.conf" \
        "$("$Y2J" "$KUBEADM_SCHEDULER_CONFIG_YAML" | jq -r '"\(.apiVersion) \(.clientConnection.kubeconfig)"')"
    kubeadm_scheduler_conf "$T/kubeadm-scheduler.conf" || { fail "system:kube-scheduler certificate"; return 1; }
    sched_nodes || return 1
    shipped_ext_start ext-ka || return 1
    must DELETE "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/$lease" "200 404" || return 1
    sched_ns_start sched-ka "$KUBEADM_SCHEDULER_CONFIG_YAML" "$T/kubeadm-scheduler.conf" || return 1
    k8s_wait 20 "lease $lease held" lease_held "$lease" || { fail "sched-ka did not take lease $lease"; return 1; }
    check "no in-cluster fallback: the file's kubeconfig was read" \
        [ "$(grep -c "Using the inClusterConfig" "$K8S_DIR/logs/sched-ka.log")" = 0 ]
    check "nothing left on the host: no /etc/kubernetes/scheduler.conf" [ ! -e /etc/kubernetes/scheduler.conf ]
    m=$(audit_mark)
    # No schedulerName: default-scheduler's.
    mk_pod ce-a ka-1 '.spec.containers[0].resources.requests = {cpu: "1", memory: "256Mi"}' || return 1
    shipped_placed ext-ka ka-1 system:kube-scheduler "$m"
    k8s_stop sched-ka
    k8s_stop ext-ka
    must DELETE "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/$lease" "200 404"
    sched_cleanup ka
}

# The v1beta3 file is for 1.23 to 1.28 (its header says so): run as the v1
# one there. No release this suite knows can read it (1.20 reads up to
# v1beta1; 1.29 removed v1beta3), so it is listed for 23-28 and reported
# as skipped; t_scheduler_v1beta3_refused shows 1.37 refusing it.
t_scheduler_v1beta3_file() {
    local m
    sched_nodes || return 1
    shipped_ext_start ext-v3 || return 1
    must DELETE /apis/coordination.k8s.io/v1/namespaces/kube-system/leases/cpu-extender-scheduler "200 404"
    sched_ns_start sched-v3 "$SCHEDULER_CONFIG_V1BETA3_YAML" incluster || return 1
    k8s_wait 20 "lease held" lease_held cpu-extender-scheduler || { fail "sched-v3 took no lease"; return 1; }
    m=$(audit_mark)
    sched_pod v3-1 1 256Mi || return 1
    shipped_placed ext-v3 v3-1 system:serviceaccount:kube-system:cpu-extender-scheduler "$m"
    k8s_stop sched-v3
    k8s_stop ext-v3
    sched_cleanup v3
}

# 1.29+ refuses the v1beta3 file at start: an error naming the version,
# not a scheduler running without the extender.
t_scheduler_v1beta3_refused() {
    local out rc
    out=$(timeout 30 "$K8S_BIN/kube-scheduler" --config="$PWD/$SCHEDULER_CONFIG_V1BETA3_YAML" \
        --secure-port=0 2>&1)
    rc=$?
    check "kube-scheduler $K8S_VERSION exits with an error (status $rc; 124 would be the timeout)" \
        test "$rc" -ne 0 -a "$rc" -ne 124
    # klog quotes the error: its quotes come escaped.
    check "the error names kubescheduler.config.k8s.io/v1beta3: $(grep -m1 -o 'no kind .*' <<<"$out" | head -c 160)" \
        grep -qF 'no kind \"KubeSchedulerConfiguration\" is registered for version \"kubescheduler.config.k8s.io/v1beta3\"' <<<"$out"
}
