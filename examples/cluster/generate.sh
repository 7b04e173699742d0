#!/bin/sh
# Writes the example cluster of docs/usage.md "Choosing a strategy: simulate":
# nodes.json (kubectl get nodes -o json), existing.json (the pods already
# running, kubectl get pods -A -o json) and pods.json (the pods to place).
# Deterministic: the same files on every run (no randomness at all), so
# the README's output stays what the binary prints.
#   examples/cluster/generate.sh [DIR]     (default: the script's directory)
set -eu
dir=${1:-$(dirname "$0")}

# ---- nodes: name cpu memory pods zone arch taint(key=value:effect or -) unschedulable
nodes() {
    cat <<'LIST'
general-01 8 30Gi 110 a amd64 - no
general-02 8 30Gi 110 b amd64 - no
general-03 8 30Gi 110 c amd64 - no
general-04 8 30Gi 110 a amd64 - no
general-05 8 30Gi 110 b amd64 - no
general-06 8 30Gi 110 c amd64 - no
general-07 8 30Gi 110 a amd64 - no
general-08 8 30Gi 110 b amd64 - no
general-09 8 30Gi 110 c amd64 - no
general-10 8 30Gi 110 a amd64 - no
general-11 8 30Gi 110 b amd64 - no
general-12 8 30Gi 110 c amd64 node.kubernetes.io/unschedulable=:NoSchedule yes
large-01 16 62Gi 110 a amd64 - no
large-02 16 62Gi 110 b amd64 - no
large-03 16 62Gi 110 c amd64 - no
large-04 16 62Gi 58 a amd64 - no
arm-01 8 30Gi 110 b arm64 - no
arm-02 8 30Gi 110 c arm64 - no
gpu-01 32 120Gi 110 a amd64 nvidia.com/gpu=true:NoSchedule no
control-plane-01 4 14Gi 110 b amd64 node-role.kubernetes.io/control-plane=:NoSchedule no
LIST
}

nodes | awk '
BEGIN { printf "{\n  \"apiVersion\": \"v1\",\n  \"kind\": \"List\",\n  \"items\": [" }
{
    taint = ""
    if ($7 != "-") {
        split($7, kv, "="); split(kv[2], ve, ":")
        value = ""
        if (ve[1] != "")
            value = "\"value\": \"" ve[1] "\", "
        taint = sprintf(", \"taints\": [{\"key\": \"%s\", %s\"effect\": \"%s\"}]", kv[1], value, ve[2])
    }
    spec = substr(taint, 3)
    if ($8 == "yes")
        spec = "\"unschedulable\": true" taint
    printf "%s\n    {\"apiVersion\": \"v1\", \"kind\": \"Node\", \"metadata\": {\"name\": \"%s\", \"labels\": {\"kubernetes.io/hostname\": \"%s\", \"kubernetes.io/arch\": \"%s\", \"kubernetes.io/os\": \"linux\", \"topology.kubernetes.io/zone\": \"eu-west-1%s\"}}, \"spec\": {%s}, \"status\": {\"allocatable\": {\"cpu\": \"%s\", \"memory\": \"%s\", \"pods\": \"%s\"}}}",
        (NR > 1 ? "," : ""), $1, $1, $6, $5, spec, $2, $3, $4
}
END { printf "\n  ]\n}\n" }' >"$dir/nodes.json"

# A pod: name namespace priority node cpu memory extra-spec-members.
# The pods of a Deployment share everything but the name.
pod() { # NAME NS PRIORITY NODE CPU MEMORY EXTRA PHASE
    req=""
    [ "$5" != - ] && req="\"cpu\": \"$5\""
    [ "$6" != - ] && req="$req${req:+, }\"memory\": \"$6\""
    node=""
    [ "$4" != - ] && node="\"nodeName\": \"$4\", "
    printf '{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "%s", "namespace": "%s", "uid": "%s"}, "spec": {%s"priority": %s, %s"containers": [{"name": "main", "image": "registry.example.com/%s:1.0", "resources": {"requests": {%s}}}]}, "status": {"phase": "%s"}}' \
        "$1" "$2" "uid-$2-$1" "$node" "$3" "$7" "${1%-*}" "$req" "$8"
}

# A Deployment's replicas: NAME NS REPLICAS PRIORITY CPU MEMORY EXTRA
replicas() {
    i=1
    while [ "$i" -le "$3" ]; do
        printf '%s\n    ' "${sep:-}"
        pod "$(printf '%s-%03d' "$1" "$i")" "$2" "$4" - "$5" "$6" "$7" Pending
        sep=,
        i=$((i + 1))
    done
}

envoy='"initContainers": [{"name": "envoy", "image": "envoyproxy/envoy:v1.30", "restartPolicy": "Always", "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}}}], '
migrate='"initContainers": [{"name": "migrate", "image": "registry.example.com/migrate:1.0", "resources": {"requests": {"cpu": "2", "memory": "1Gi"}}}], '
gpu='"tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}], '
arm='"nodeSelector": {"kubernetes.io/arch": "arm64"}, '
amd='"nodeSelector": {"kubernetes.io/arch": "amd64"}, '

{
    printf '{\n  "apiVersion": "v1",\n  "kind": "List",\n  "items": ['
    sep=""
    replicas web shop 40 0 500m 512Mi "$envoy"
    replicas api shop 16 0 1 1Gi ""
    replicas worker jobs 60 0 250m 256Mi ""
    replicas batch jobs 8 1000 2 4Gi ""
    replicas cache shop 12 0 500m 4Gi "$amd"
    replicas train ml 2 1000 8 32Gi "$gpu"
    replicas edge shop 20 0 1 2Gi "$arm"
    replicas report jobs 6 0 200m 256Mi "$migrate"
    replicas probe ops 50 0 - - ""
    replicas render ml 2 0 24 16Gi ""
    printf '\n  ]\n}\n'
} >"$dir/pods.json"

# What runs already: a node agent on every node (a DaemonSet), and a few
# pods of earlier releases on some.
{
    printf '{\n  "apiVersion": "v1",\n  "kind": "List",\n  "items": ['
    sep=""
    for n in $(nodes | awk '{ print $1 }'); do
        printf '%s\n    ' "$sep"
        pod "agent-$n" kube-system 2000001000 "$n" 100m 200Mi "" Running
        sep=,
    done
    k=1
    for n in general-01 general-02 large-01; do
        for j in 1 2; do
            printf '%s\n    ' "$sep"
            pod "legacy-$k" shop 0 "$n" 1500m 3Gi "" Running
            k=$((k + 1))
        done
    done
    printf '%s\n    ' "$sep"
    pod "migrate-old" jobs 0 general-05 4 8Gi "" Succeeded
    printf '\n  ]\n}\n'
} >"$dir/existing.json"
echo "wrote $dir/nodes.json, $dir/existing.json, $dir/pods.json" >&2
