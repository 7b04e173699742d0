# shellcheck shell=bash
# The Helm chart charts/cpu-extender: helm lint; helm template compared
# object by object with what the kustomization renders (kubectl kustomize
# manifests/) and, for the main-scheduler route, with
# manifests/kubeadm/rbac.yaml; the TLS values; values it refuses; every
# rendering in a server-side dry run (kubectl apply --dry-run=server) on
# this release's kube-apiserver. helm is built from Go modules into the
# cache (tests/cluster/helm.sh).

# shellcheck source=tests/cluster/helm.sh
. tests/cluster/helm.sh

CHART=charts/cpu-extender

# helm_objects FILE: the objects of a YAML stream, one JSON a line, sorted
# by kind and name (helm orders by kind, kustomize by its own rules).
helm_objects() {
    "$Y2J" "$1" | jq -c 'select(. != null)' | jq -sc 'sort_by(.kind, .metadata.name) | .[]'
}

# same_objects WHAT WANT-FILE GOT-FILE: the same kinds and names, and each
# object equal field by field.
same_objects() {
    local what=$1 want got key
    want=$(helm_objects "$2") || { fail "$what: $2 is not YAML"; return; }
    got=$(helm_objects "$3") || { fail "$what: $3 is not YAML"; return; }
    check_eq "$what: kinds and names" "$(jq -r '"\(.kind)/\(.metadata.name)"' <<<"$want" | tr '\n' ' ')" \
        "$(jq -r '"\(.kind)/\(.metadata.name)"' <<<"$got" | tr '\n' ' ')"
    while read -r key; do
        local a b
        a=$(jq -cS --arg k "$key" 'select("\(.kind)/\(.metadata.name)" == $k)' <<<"$want")
        b=$(jq -cS --arg k "$key" 'select("\(.kind)/\(.metadata.name)" == $k)' <<<"$got")
        if [ "$a" = "$b" ]; then
            ok "$what: $key equal field by field"
        else
            fail "$what: $key differs: $(diff <(jq -S . <<<"$a") <(jq -S . <<<"$b") | head -n 20 | tr '\n' ' ')"
        fi
    done < <(jq -r '"\(.kind)/\(.metadata.name)"' <<<"$want")
}

# dry_run_apply WHAT FILE: kubectl apply --dry-run=server of every object
# (created or, where setup made it already, patched: nothing is stored).
# 1.20 predates policy/v1 (1.21): there the PodDisruptionBudget is left
# out and said so, as t_manifests_dry_run does.
dry_run_apply() {
    local out list
    list=$("$Y2J" "$2" | jq -sc --argjson pdb "$(k8s_since 21 && echo true || echo false)" \
        '{apiVersion: "v1", kind: "List", items: [.[] | select(. != null) | select($pdb or .kind != "PodDisruptionBudget")]}')
    k8s_since 21 || ! grep -q '^kind: PodDisruptionBudget' "$2" ||
        info "$1: PodDisruptionBudget left out (policy/v1 is served since 1.21)"
    if out=$("$K8S_BIN/kubectl" --kubeconfig "$K8S_ADMIN_KUBECONFIG" apply --dry-run=server -f - <<<"$list" 2>&1); then
        ok "$1: kubectl apply --dry-run=server: $(grep -c 'server dry run' <<<"$out") of $(jq '.items | length' <<<"$list") objects accepted"
    else
        fail "$1: kubectl apply --dry-run=server: $out"
    fi
}

t_helm_chart() {
    helm_build || { fail "helm $HELM_VERSION could not be built (tests/cluster/helm.sh build)"; return 1; }
    info "$("$HELM" version --short)"
    local d=$T/helm out
    mkdir -p "$d"

    # helm lint, with each route and with TLS.
    check "helm lint $CHART" "$HELM" lint --strict "$CHART"
    check "helm lint $CHART (route main-scheduler)" "$HELM" lint --strict "$CHART" --set route=main-scheduler
    check "helm lint $CHART (tls)" "$HELM" lint --strict "$CHART" --set tls.enabled=true,tls.secretName=cpu-extender-tls

    # The second scheduler: what kubectl apply -k manifests/ sends.
    "$HELM" template cpu-extender "$CHART" --namespace kube-system >"$d/default.yaml" ||
        { fail "helm template $CHART failed"; return 1; }
    "$K8S_BIN/kubectl" kustomize manifests/ >"$d/kustomize.yaml" ||
        { fail "kubectl kustomize manifests/ failed"; return 1; }
    same_objects "helm template = kubectl kustomize manifests/" "$d/kustomize.yaml" "$d/default.yaml"

    # The main scheduler: the one API object of manifests/kubeadm/.
    "$HELM" template cpu-extender "$CHART" --namespace kube-system --set route=main-scheduler >"$d/kubeadm.yaml" ||
        { fail "helm template --set route=main-scheduler failed"; return 1; }
    same_objects "helm template (main-scheduler) = manifests/kubeadm/rbac.yaml" manifests/kubeadm/rbac.yaml "$d/kubeadm.yaml"

    # The image from the values: a tag, a digest over it.
    out=$("$HELM" template cpu-extender "$CHART" --set image.repository=r.example/ce,image.tag=9.9 | "$Y2J" /dev/stdin |
        jq -r 'select(.kind == "Deployment") | .spec.template.spec.containers[] | select(.name == "cpu-extender") | .image')
    check_eq "image.repository and image.tag" r.example/ce:9.9 "$out"
    local digest=sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
    out=$("$HELM" template cpu-extender "$CHART" --set image.repository=r.example/ce,image.digest=$digest | "$Y2J" /dev/stdin |
        jq -r 'select(.kind == "Deployment") | .spec.template.spec.containers[] | select(.name == "cpu-extender") | .image')
    check_eq "image.digest over the tag" "r.example/ce@$digest" "$out"

    # TLS: the extender serves HTTPS (variables, which its exec probes
    # inherit) with the Secret's certificate; the extender stanza calls
    # https:// and verifies with the Secret's ca.crt.
    "$HELM" template cpu-extender "$CHART" --namespace kube-system \
        --set tls.enabled=true,tls.secretName=cpu-extender-tls >"$d/tls.yaml" ||
        { fail "helm template --set tls.enabled=true failed"; return 1; }
    local dep cm sched
    dep=$("$Y2J" "$d/tls.yaml" | jq -c 'select(.kind == "Deployment")')
    cm=$("$Y2J" "$d/tls.yaml" | jq -c 'select(.kind == "ConfigMap")')
    check_eq "tls: the Secret volume" cpu-extender-tls "$(jq -r '.spec.template.spec.volumes[] | select(.name == "tls") | .secret.secretName' <<<"$dep")"
    check_eq "tls: the extender's certificate and key" \
        "CPU_EXTENDER_TLS_CERT=/etc/cpu-extender/tls/tls.crt CPU_EXTENDER_TLS_KEY=/etc/cpu-extender/tls/tls.key" \
        "$(jq -r '[.spec.template.spec.containers[] | select(.name == "cpu-extender") | .env[] | "\(.name)=\(.value)"] | join(" ")' <<<"$dep")"
    check_eq "tls: mounted in both containers" "/etc/kubernetes/scheduler/tls /etc/cpu-extender/tls" \
        "$(jq -r '[.spec.template.spec.containers[].volumeMounts[] | select(.name == "tls") | .mountPath] | join(" ")' <<<"$dep")"
    sched=$(jq -r '.data["scheduler-config.yaml"]' <<<"$cm" | "$Y2J" /dev/stdin | jq -c '.extenders[0]')
    check_eq "tls: the extender stanza" \
        '{"caFile":"/etc/kubernetes/scheduler/tls/ca.crt","enableHTTPS":true,"urlPrefix":"https://127.0.0.1:8888/scheduler"}' \
        "$(jq -cS '{urlPrefix, enableHTTPS, caFile: .tlsConfig.caFile}' <<<"$sched")"
    # Everything else as without TLS.
    local plain
    plain=$(jq -r '.data["scheduler-config.yaml"]' < <("$Y2J" "$d/default.yaml" | jq -c 'select(.kind == "ConfigMap")') |
        "$Y2J" /dev/stdin | jq -cS '.extenders[0] | del(.urlPrefix, .enableHTTPS)')
    check_eq "tls: the rest of the stanza unchanged" "$plain" "$(jq -cS 'del(.urlPrefix, .enableHTTPS, .tlsConfig)' <<<"$sched")"

    # Values it refuses, saying what to set.
    local bad
    for bad in "route=nope|second-scheduler or main-scheduler" "image.tag=|image.tag (or image.digest) is empty" \
        "tls.enabled=true|tls.secretName names the Secret" \
        "tls.enabled=true,tls.secretName=x,route=main-scheduler|configured on the node"; do
        if out=$("$HELM" template cpu-extender "$CHART" --set "${bad%%|*}" 2>&1); then
            fail "helm template --set ${bad%%|*}: rendered, want a refusal"
        elif grep -qF "${bad#*|}" <<<"$out"; then
            ok "helm template --set ${bad%%|*}: refused ($(head -n 1 <<<"$out" | cut -c1-160))"
        else
            fail "helm template --set ${bad%%|*}: refused without saying \"${bad#*|}\": $out"
        fi
    done

    # On the API server.
    dry_run_apply "helm template $CHART" "$d/default.yaml"
    dry_run_apply "helm template $CHART (main-scheduler)" "$d/kubeadm.yaml"
    dry_run_apply "helm template $CHART (tls)" "$d/tls.yaml"
}
