# The pods t_simulate_agrees.sh places, one Pod object (JSON) a line:
#   awk -v n=COUNT -v seed=SEED -v prefix=NAME -v sched=SCHEDULER-NAME \
#       -f tests/cluster/simulate_pods.awk
# Deterministic for a seed: its own Park-Miller generator (16807 x < 2^53,
# exact in awk's doubles), not awk's rand(), whose sequence differs
# between mawk and gawk. Each kind below exercises one rule of the
# placement model (placement/constraints.h) or one part of the effective
# request (scoring/podreq.h); the last three fit no node by design. The
# node names, labels and taints are the ones sa_nodes() creates. No pod
# here has pod-level requests: t_simulate_agrees.sh says why, and puts
# such a pod among the pods bound before instead.
function rnd() {
    x = (x * 16807) % 2147483647
    return x / 2147483647
}
function pick(list, a, k) {
    k = split(list, a, " ")
    return a[int(rnd() * k) + 1]
}
function cpu() { return pick("100m 200m 250m 300m 500m 750m 1 1500m") }
function mem() { return pick("64Mi 128Mi 256Mi 300Mi 512Mi 1Gi 1536Mi 2Gi") }
function req(c, m, s) {
    s = ""
    if (c != "") s = "\"cpu\":\"" c "\""
    if (m != "") s = s (s != "" ? "," : "") "\"memory\":\"" m "\""
    return "{\"requests\":{" s "}}"
}
function ctr(name, c, m, more) {
    return "{\"name\":\"" name "\",\"image\":\"registry.invalid/pause:3.2\",\"resources\":" req(c, m) more "}"
}
function affinity(terms) {
    return "\"affinity\":{\"nodeAffinity\":{\"requiredDuringSchedulingIgnoredDuringExecution\":{\"nodeSelectorTerms\":[" terms "]}}},"
}
function expr(key, op, values) {
    return "{\"key\":\"" key "\",\"operator\":\"" op "\"" (values != "" ? ",\"values\":[" values "]" : "") "}"
}
# The spec members before "containers" and the containers, by kind k (0..99).
function body(k) {
    extra = ""
    if (k < 10) return "[" ctr("c", "", "") "]"                      # BestEffort: scored 100m/200Mi
    if (k < 18) return "[" ctr("c", cpu(), "") "]"                   # memory defaulted when scored
    if (k < 24) return "[" ctr("c", "", mem()) "]"
    if (k < 44) return "[" ctr("c", cpu(), mem()) "]"
    if (k < 52) {                                                     # a sidecar runs beside c
        extra = "\"initContainers\":[" ctr("proxy", "100m", "128Mi", ",\"restartPolicy\":\"Always\"") "],"
        return "[" ctr("c", cpu(), mem()) "]"
    }
    if (k < 58) {                                                     # an init container larger than c
        extra = "\"initContainers\":[" ctr("migrate", "2", "1Gi") "],"
        return "[" ctr("c", cpu(), mem()) "]"
    }
    if (k < 64) return "[" ctr("c", cpu(), mem()) "," ctr("log", "", "") "]"
    if (k < 69) { extra = "\"nodeSelector\":{\"disktype\":\"ssd\"},"; return "[" ctr("c", cpu(), mem()) "]" }
    if (k < 73) {
        extra = "\"tolerations\":[{\"key\":\"nvidia.com/gpu\",\"operator\":\"Equal\",\"value\":\"true\",\"effect\":\"NoSchedule\"}],"
        return "[" ctr("c", cpu(), mem()) "]"
    }
    if (k < 76) { extra = "\"tolerations\":[{\"operator\":\"Exists\"}],"; return "[" ctr("c", cpu(), mem()) "]" }
    if (k < 81) {
        extra = affinity("{\"matchExpressions\":[" expr("topology.kubernetes.io/zone", "In", "\"a\",\"b\"") "]}")
        return "[" ctr("c", cpu(), mem()) "]"
    }
    if (k < 84) {
        extra = affinity("{\"matchExpressions\":[" expr("gen", "Gt", "\"3\"") "]}")
        return "[" ctr("c", cpu(), mem()) "]"
    }
    if (k < 87) {
        extra = affinity("{\"matchExpressions\":[" expr("topology.kubernetes.io/zone", "NotIn", "\"c\"") "," expr("accel", "DoesNotExist", "") "]}")
        return "[" ctr("c", cpu(), mem()) "]"
    }
    if (k < 90) {                                                     # NodeAffinity's PreFilter narrows to two nodes (one value a term)
        extra = affinity("{\"matchFields\":[" expr("metadata.name", "In", "\"sa-a1\"") "]},{\"matchFields\":[" expr("metadata.name", "In", "\"sa-b1\"") "]}")
        return "[" ctr("c", cpu(), mem()) "]"
    }
    if (k < 93) return "[" ctr("c", cpu(), mem()) "," ctr("log", "", "") "," ctr("metrics", "50m", "") "]"
    if (k < 95) {
        extra = "\"tolerations\":[{\"key\":\"node.kubernetes.io/unschedulable\",\"operator\":\"Exists\",\"effect\":\"NoSchedule\"}],"
        return "[" ctr("c", cpu(), mem()) "]"
    }
    if (k < 97) { extra = "\"nodeSelector\":{\"topology.kubernetes.io/zone\":\"z\"},"; return "[" ctr("c", cpu(), mem()) "]" }
    if (k < 98) return "[" ctr("c", "64", mem()) "]"
    return "[" ctr("c", cpu(), "200Gi") "]"
}
BEGIN {
    x = seed
    for (i = 1; i <= n; i++) {
        c = body(int(rnd() * 100))
        printf "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"%s-%03d\",\"namespace\":\"ce-a\"},", prefix, i
        printf "\"spec\":{\"schedulerName\":\"%s\",\"terminationGracePeriodSeconds\":0,%s\"containers\":%s}}\n", sched, extra, c
    }
}
