# shellcheck shell=bash
# Every object in the manifests, created in a server-side dry run
# (?dryRun=All: admission and validation run, nothing is stored).

declare -A DISCOVERY=() # "group/version" -> the discovery document, "" when not served

# resource_of APIVERSION KIND: prints "NAME NAMESPACED" for the kind from
# the server's discovery; fails when the group/version is not served.
resource_of() {
    local gv=$1 kind=$2 path
    if [ -z "${DISCOVERY[$gv]+set}" ]; then
        case "$gv" in
        v1) path=/api/v1 ;;
        *) path=/apis/$gv ;;
        esac
        api GET "$path"
        if [ "$CODE" = 200 ]; then DISCOVERY[$gv]=$RESP; else DISCOVERY[$gv]=""; fi
    fi
    [ -n "${DISCOVERY[$gv]}" ] || return 1
    jq -er --arg k "$kind" '.resources[] | select(.kind == $k and (.name | contains("/") | not)) |
        "\(.name) \(.namespaced)"' <<<"${DISCOVERY[$gv]}"
}

# The versions of a group the server serves, for a skip's reason.
served_versions() {
    api GET "/apis/${1%/*}"
    [ "$CODE" = 200 ] && jq -r '[.versions[].groupVersion] | join(", ")' <<<"$RESP" || echo none
}

# dropped_fields IN OUT: the leaf paths of IN that OUT does not hold with
# the same value. The 1.20 API server drops fields it does not know without
# an error (strict field validation came in 1.25), so acceptance alone
# would not show a field too new for it.
dropped_fields() {
    jq -rn --argjson a "$1" --argjson b "$2" \
        '[$a | paths(scalars) as $p | select(($b | getpath($p)) != ($a | getpath($p))) |
          $p | map(tostring) | join(".")] | join(" ")'
}

# collection_of JSON: the path of the object's collection
# (/apis/GROUP/VERSION[/namespaces/NS]/RESOURCE); fails when the server does
# not serve its group/version.
collection_of() {
    local obj=$1 gv kind ns res namespaced path
    gv=$(jq -r .apiVersion <<<"$obj")
    kind=$(jq -r .kind <<<"$obj")
    ns=$(jq -r '.metadata.namespace // "default"' <<<"$obj")
    read -r res namespaced < <(resource_of "$gv" "$kind") || return 1
    case "$gv" in
    v1) path=/api/v1 ;;
    *) path=/apis/$gv ;;
    esac
    [ "$namespaced" = true ] && path="$path/namespaces/$ns"
    echo "$path/$res"
}

# create_object JSON: creates it for real (201).
create_object() {
    local path
    path=$(collection_of "$1") || { fail "$(jq -r '"\(.kind)/\(.metadata.name)"' <<<"$1"): not served"; return 1; }
    must POST "$path" "$1" 201
}

# dry_run_create WHAT JSON: POST JSON to its collection with dryRun=All;
# the object must be accepted (201) with every field kept.
dry_run_create() {
    local what=$1 obj=$2 gv kind name path
    gv=$(jq -r .apiVersion <<<"$obj")
    kind=$(jq -r .kind <<<"$obj")
    name=$(jq -r .metadata.name <<<"$obj")
    if ! path=$(collection_of "$obj"); then
        # 1.20 predates policy/v1 (1.21): the oldest release may skip what
        # it does not serve; the current one must serve every object.
        if k8s_since 25; then
            fail "$what $kind/$name: $gv is not served by kube-apiserver v$K8S_VERSION (it serves $(served_versions "$gv"))"
            return 0
        fi
        SKIPPED+=("$what $kind/$name: $gv is not served by kube-apiserver v$K8S_VERSION (it serves $(served_versions "$gv"))")
        info "skipped $what $kind/$name: $gv not served"
        return 0
    fi
    api POST "$path?dryRun=All" "$obj"
    if [ "$CODE" != 201 ]; then
        fail "$what $kind/$name: dry run answered $CODE: $(jq -r '.message // .' <<<"$RESP" | head -c 600)"
        return 0
    fi
    local dropped
    dropped=$(dropped_fields "$obj" "$RESP")
    if [ -n "$dropped" ]; then
        fail "$what $kind/$name: accepted, but the server dropped or changed: $dropped"
    else
        ok "$what $kind/$name: accepted, every field kept"
    fi
    # Nothing was stored: a dry run must leave no trace.
    api GET "$path/$name"
    check_eq "$kind/$name not stored by the dry run" 404 "$CODE"
}

# The Pod kubeadm writes to /etc/kubernetes/manifests/kube-scheduler.yaml
# with its default ClusterConfiguration, as the base the kubeadm patch is
# merged into: kubeadm v1.37's (cmd/kubeadm/app/phases/controlplane/
# manifests.go and util/staticpod of that release: /livez and /readyz
# probes on the named port probe-port, the RuntimeDefault seccomp profile,
# priority 2000001000) or, on 1.20, that release's.
KUBEADM_SCHEDULER_IMAGE=registry.k8s.io/kube-scheduler:v$K8S_VERSION
k8s_since 24 || KUBEADM_SCHEDULER_IMAGE=k8s.gcr.io/kube-scheduler:v$K8S_VERSION
kubeadm_scheduler_pod() {
    if k8s_since 24; then
        cat <<EOF
{"apiVersion":"v1","kind":"Pod","metadata":{"name":"kube-scheduler","namespace":"kube-system",
 "labels":{"component":"kube-scheduler","tier":"control-plane"}},
 "spec":{"containers":[{"name":"kube-scheduler","image":"$KUBEADM_SCHEDULER_IMAGE",
   "imagePullPolicy":"IfNotPresent",
   "command":["kube-scheduler","--authentication-kubeconfig=/etc/kubernetes/scheduler.conf",
     "--authorization-kubeconfig=/etc/kubernetes/scheduler.conf","--bind-address=127.0.0.1",
     "--kubeconfig=/etc/kubernetes/scheduler.conf","--leader-elect=true"],
   "livenessProbe":{"failureThreshold":8,"httpGet":{"host":"127.0.0.1","path":"/livez","port":"probe-port","scheme":"HTTPS"},
     "initialDelaySeconds":10,"periodSeconds":10,"timeoutSeconds":15},
   "readinessProbe":{"failureThreshold":3,"httpGet":{"host":"127.0.0.1","path":"/readyz","port":"probe-port","scheme":"HTTPS"},
     "periodSeconds":1,"timeoutSeconds":15},
   "startupProbe":{"failureThreshold":24,"httpGet":{"host":"127.0.0.1","path":"/livez","port":"probe-port","scheme":"HTTPS"},
     "initialDelaySeconds":10,"periodSeconds":10,"timeoutSeconds":15},
   "ports":[{"containerPort":10259,"name":"probe-port","protocol":"TCP"}],
   "resources":{"requests":{"cpu":"100m"}},
   "volumeMounts":[{"mountPath":"/etc/kubernetes/scheduler.conf","name":"kubeconfig","readOnly":true}]}],
  "hostNetwork":true,"priority":2000001000,"priorityClassName":"system-node-critical",
  "securityContext":{"seccompProfile":{"type":"RuntimeDefault"}},
  "volumes":[{"hostPath":{"path":"/etc/kubernetes/scheduler.conf","type":"FileOrCreate"},"name":"kubeconfig"}]}}
EOF
        return
    fi
    cat <<EOF
{"apiVersion":"v1","kind":"Pod","metadata":{"name":"kube-scheduler","namespace":"kube-system",
 "labels":{"component":"kube-scheduler","tier":"control-plane"}},
 "spec":{"containers":[{"name":"kube-scheduler","image":"$KUBEADM_SCHEDULER_IMAGE",
   "imagePullPolicy":"IfNotPresent",
   "command":["kube-scheduler","--authentication-kubeconfig=/etc/kubernetes/scheduler.conf",
     "--authorization-kubeconfig=/etc/kubernetes/scheduler.conf","--bind-address=127.0.0.1",
     "--kubeconfig=/etc/kubernetes/scheduler.conf","--leader-elect=true","--port=0"],
   "livenessProbe":{"failureThreshold":8,"httpGet":{"host":"127.0.0.1","path":"/healthz","port":10259,"scheme":"HTTPS"},
     "initialDelaySeconds":10,"periodSeconds":10,"timeoutSeconds":15},
   "startupProbe":{"failureThreshold":24,"httpGet":{"host":"127.0.0.1","path":"/healthz","port":10259,"scheme":"HTTPS"},
     "initialDelaySeconds":10,"periodSeconds":10,"timeoutSeconds":15},
   "resources":{"requests":{"cpu":"100m"}},
   "volumeMounts":[{"mountPath":"/etc/kubernetes/scheduler.conf","name":"kubeconfig","readOnly":true}]}],
  "hostNetwork":true,"priorityClassName":"system-node-critical",
  "volumes":[{"hostPath":{"path":"/etc/kubernetes/scheduler.conf","type":"FileOrCreate"},"name":"kubeconfig"}]}}
EOF
}

# manifests/monitoring/prometheusrule.yaml is a prometheus-operator
# PrometheusRule: the API server serves that kind once its CRD is
# installed. The operator's own CRD is not available here (no registry), so
# the dry run runs against a CRD of the same group, version, kind and scope
# whose schema keeps every field: it shows the object is well-formed and
# addressed where the operator serves it, not the operator's validation
# (promtool checks the rules themselves in make test-ship).
PROMETHEUS_RULE_CRD='{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
 "metadata":{"name":"prometheusrules.monitoring.coreos.com"},
 "spec":{"group":"monitoring.coreos.com","scope":"Namespaced",
  "names":{"kind":"PrometheusRule","listKind":"PrometheusRuleList","plural":"prometheusrules","singular":"prometheusrule"},
  "versions":[{"name":"v1","served":true,"storage":true,
   "schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}}'

crd_established() {
    api GET /apis/apiextensions.k8s.io/v1/customresourcedefinitions/prometheusrules.monitoring.coreos.com
    [ "$(jq -r '.status.conditions[]? | select(.type == "Established") | .status' <<<"$RESP")" = True ] &&
        api GET /apis/monitoring.coreos.com/v1 && [ "$CODE" = 200 ]
}

t_manifests_dry_run() {
    SKIPPED=()
    must POST /apis/apiextensions.k8s.io/v1/customresourcedefinitions "$PROMETHEUS_RULE_CRD" 201 || return 1
    k8s_wait 30 "the PrometheusRule CRD established and served" crd_established ||
        { fail "the PrometheusRule CRD was not served within 30 s"; return 1; }
    local f doc kind n=0
    while read -r f; do
        while read -r doc; do
            n=$((n + 1))
            kind=$(jq -r '.kind // ""' <<<"$doc")
            if [ -z "$kind" ]; then
                SKIPPED+=("$f: not a Kubernetes object (a Prometheus rules or scrape file)")
                continue
            fi
            if [ "$kind" = Kustomization ]; then
                # What kubectl apply -k sends, the generated ConfigMap
                # included: rendered by the kustomize of this kubectl.
                local rendered
                if ! rendered=$("$K8S_BIN/kubectl" kustomize "$(dirname "$f")" 2>&1); then
                    fail "$f: kubectl kustomize: $rendered"
                    continue
                fi
                local obj
                while read -r obj; do
                    dry_run_create "$f (rendered)" "$obj"
                done < <("$Y2J" /dev/stdin <<<"$rendered")
                continue
            fi
            if [ "$kind" = KubeSchedulerConfiguration ]; then
                SKIPPED+=("$f: KubeSchedulerConfiguration $(jq -r .apiVersion <<<"$doc") is kube-scheduler's --config, not an API object (the t_scheduler_* tests run kube-scheduler with its extenders stanza)")
                continue
            fi
            if [ "$f" = "$KUBEADM_PATCH_YAML" ]; then
                # A strategic-merge patch, not a whole Pod: merged into
                # kubeadm's Pod by the same code kubeadm uses (kubectl
                # patch --local, strategic), then the result is dry-run.
                local merged
                kubeadm_scheduler_pod >"$T/kubeadm-base.json"
                if ! merged=$("$K8S_BIN/kubectl" --kubeconfig "$K8S_ADMIN_KUBECONFIG" patch --local \
                    -f "$T/kubeadm-base.json" --type strategic -p "$doc" -o json 2>&1); then
                    fail "$f: kubectl patch --local --type strategic: $merged"
                    continue
                fi
                merged=$(jq -c . <<<"$merged")
                check_eq "$f: the kube-scheduler container keeps kubeadm's image" \
                    "$KUBEADM_SCHEDULER_IMAGE" \
                    "$(jq -r '.spec.containers[] | select(.name == "kube-scheduler") | .image' <<<"$merged")"
                check_eq "$f: the patch's command replaces kubeadm's" \
                    "$(jq -c '.spec.containers[] | select(.name == "kube-scheduler") | .command' <<<"$doc")" \
                    "$(jq -c '.spec.containers[] | select(.name == "kube-scheduler") | .command' <<<"$merged")"
                check_eq "$f: volumes after the merge" "cpu-extender-config cpu-extender-kubeconfig kubeconfig" \
                    "$(jq -r '[.spec.volumes[].name] | sort | join(" ")' <<<"$merged")"
                # Every field of the patch is in the merged Pod (the
                # command lists are replaced, so they compare equal too).
                local missing
                missing=$(dropped_fields "$doc" "$merged")
                check_eq "$f: fields of the patch missing from the merged Pod" "" "$missing"
                dry_run_create "$f (merged into kubeadm's Pod)" "$merged"
                continue
            fi
            dry_run_create "$f" "$doc"
        done < <("$Y2J" "$f")
    done < <(find "$MANIFEST_DIR" -name '*.yaml' | LC_ALL=C sort)
    check "manifests read: $n documents" [ "$n" -gt 0 ]
    local s
    for s in "${SKIPPED[@]}"; do info "skipped: $s"; done
    must DELETE /apis/apiextensions.k8s.io/v1/customresourcedefinitions/prometheusrules.monitoring.coreos.com 200
}
