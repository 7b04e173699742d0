// The kubelet stand-in of tests/cluster: serves /metrics/resource for
// Nodes that have no kubelet. Test tooling only (standard library only).
module cpu-extender/tests/cluster/kubelet-standin

go 1.26.0
