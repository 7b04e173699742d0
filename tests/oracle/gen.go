package main

import (
	"encoding/hex"
	"math/rand/v2"
	"strconv"
	"strings"
)

// The cases, one line each, read by both sides (oracle.go here, driver.c in
// C). Case i of seed s depends on (s, i) alone, so one case can be run again.
//
//	Q c|m <hex of the quantity text>        cpu (MilliValue) or memory (Value)
//	P <pod>                                 the request views of a pod
//	S least|most|balanced <cpu weight> <memory weight> <alloc cpu> <alloc memory> | <pod> [| <pod on the node>]...
//	T <node> <unschedulable 0|1> <labels> <taints> <pod nodeName> <nodeSelector> <affinity> <tolerations>
//
// A <pod> is tokens: c:<list> (container), i:<list> (init container),
// s:<list> (sidecar: init, restartPolicy Always), each optionally followed by
// its status a:<list> (allocatedResources) and r:<list> (resources.requests);
// pl:<list> (spec.resources.requests), oh:<list> (spec.overhead), PA:<list>
// (status.allocatedResources), PR:<list> (status.resources.requests), PRn
// (status.resources without requests), inf and def (a PodResizePending
// condition, Infeasible or Deferred, in order). A <list> is "-" (an empty
// map) or key=quantity joined by ",", keys cpu, memory, h (hugepages-2Mi),
// x (example.com/gpu).
//
// In T, "~" is an empty string or list; lists join items with ";". Labels
// and the nodeSelector are k=v, taints k=v:Effect, tolerations
// k=Op=v:Effect. The affinity is "-" (none), "!" (required, no terms), or
// terms joined by "|", a term "0" (empty) or requirements joined by "&", each
// e (matchExpressions) or f (matchFields) then key=Op=count=v1,v2.

func generate(seed, i uint64) (string, string) {
	r := rand.New(rand.NewPCG(seed, i))
	switch n := r.IntN(100); {
	case n < 40:
		return "quantity", genQuantityCase(r)
	case n < 65:
		return "pod", "P " + genPod(r, 4)
	case n < 85:
		return "score", genScore(r)
	default:
		return "constraints", genConstraints(r)
	}
}

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

func digits(r *rand.Rand, n int) string {
	var b strings.Builder
	for range n {
		b.WriteByte(byte('0' + r.IntN(10)))
	}
	return b.String()
}

var suffixes = []string{"", "", "", "n", "u", "m", "k", "M", "G", "T", "P", "E", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"}
var badSuffixes = []string{"K", "mi", "ki", "x", "EiB", "e", "E+", "e-", "i", "KiB", "mm", "ee3", "e1.5", " ", "e+-1", "MiMi"}

func genQuantity(r *rand.Rand) string {
	switch r.IntN(20) {
	case 0: // noise from the alphabet of quantities
		const alpha = "0123456789.+-eEiKMGTPnumk x\t_"
		n := r.IntN(9)
		var b strings.Builder
		for range n {
			b.WriteByte(alpha[r.IntN(len(alpha))])
		}
		return b.String()
	case 1: // longer than the C parser's bound
		return digits(r, 250+r.IntN(20))
	}
	var b strings.Builder
	switch r.IntN(10) {
	case 0:
		b.WriteByte('-')
	case 1:
		b.WriteByte('+')
	}
	if r.IntN(6) == 0 {
		b.WriteString(strings.Repeat("0", r.IntN(4)))
	}
	b.WriteString(digits(r, pick(r, []int{0, 1, 1, 2, 3, 4, 6, 9, 12, 15, 18, 19, 20, 25, 40})))
	if r.IntN(4) == 0 {
		b.WriteByte('.')
		b.WriteString(digits(r, pick(r, []int{0, 1, 2, 3, 4, 9, 12, 20})))
	}
	switch n := r.IntN(12); {
	case n < 8:
		b.WriteString(pick(r, suffixes))
	case n < 11:
		b.WriteString(pick(r, []string{"e", "E"}))
		b.WriteString(pick(r, []string{"", "", "+", "-"}))
		if r.IntN(8) == 0 {
			b.WriteString(pick(r, []string{"2147483647", "2147483648", "9999999999", "00000000003", "2147483646"}))
		} else {
			b.WriteString(strconv.Itoa(r.IntN(25)))
		}
	default:
		b.WriteString(pick(r, badSuffixes))
	}
	return b.String()
}

func genQuantityCase(r *rand.Rand) string {
	unit := pick(r, []string{"c", "m"})
	return "Q " + unit + " " + hex.EncodeToString([]byte(genQuantity(r)))
}

// Pod quantities: valid, non-negative, of every form, small enough that no
// sum leaves int64; now and then one finer than a millicore or a byte.
var cpuQuantities = []string{"0", "1", "2", "100m", "250m", "500m", "1500m", "0.5", "1.25", "3", "8", "64", "1k", "2e-1", "0.1"}
var memQuantities = []string{"0", "1", "64Mi", "128Mi", "200Mi", "256M", "1Gi", "1.5Gi", "2G", "4Gi", "16Gi", "1e6", "512Ki", "100"}
var fineQuantities = []string{"0.5m", "100u", "250n", "0.3", "1.0001"}

func genValue(r *rand.Rand, key string) string {
	if r.IntN(60) == 0 {
		return pick(r, fineQuantities)
	}
	switch key {
	case "cpu":
		if r.IntN(3) == 0 {
			return strconv.Itoa(r.IntN(20000)) + "m"
		}
		return pick(r, cpuQuantities)
	case "memory":
		if r.IntN(3) == 0 {
			return strconv.Itoa(r.IntN(1<<20)) + pick(r, []string{"Ki", "", "k"})
		}
		return pick(r, memQuantities)
	}
	return pick(r, []string{"1", "2", "1Gi", "0"})
}

func genList(r *rand.Rand, keys []string) string {
	var items []string
	for _, k := range keys {
		if r.IntN(100) < 55 {
			items = append(items, k+"="+genValue(r, k))
		}
	}
	if len(items) == 0 {
		return "-"
	}
	r.Shuffle(len(items), func(a, b int) { items[a], items[b] = items[b], items[a] })
	return strings.Join(items, ",")
}

var containerKeys = []string{"cpu", "memory", "x"}

func genPod(r *rand.Rand, most int) string {
	var t []string
	n := r.IntN(most + 1)
	for range n {
		t = append(t, "c:"+genList(r, containerKeys))
		t = append(t, genContainerStatus(r)...)
	}
	for range r.IntN(most + 1) {
		t = append(t, pick(r, []string{"i:", "s:"})+genList(r, containerKeys))
		t = append(t, genContainerStatus(r)...)
	}
	// Interleave the init and regular containers: order within each kind is
	// what counts, and both sides keep it.
	if r.IntN(4) == 0 {
		t = append(t, "pl:"+genList(r, []string{"cpu", "memory", "h"}))
	}
	if r.IntN(6) == 0 {
		t = append(t, "oh:"+genList(r, []string{"cpu", "memory"}))
	}
	if r.IntN(8) == 0 {
		t = append(t, "PA:"+genList(r, []string{"cpu", "memory"}))
	}
	switch r.IntN(12) {
	case 0, 1:
		t = append(t, "PR:"+genList(r, []string{"cpu", "memory"}))
	case 2:
		t = append(t, "PRn")
	}
	for range r.IntN(3) {
		if r.IntN(3) == 0 {
			t = append(t, pick(r, []string{"inf", "def"}))
		}
	}
	if len(t) == 0 {
		return "-"
	}
	return strings.Join(t, " ")
}

func genContainerStatus(r *rand.Rand) []string {
	var t []string
	if r.IntN(6) == 0 {
		t = append(t, "a:"+genList(r, containerKeys))
	}
	if r.IntN(6) == 0 {
		t = append(t, "r:"+genList(r, containerKeys))
	}
	return t
}

func genScore(r *rand.Rand) string {
	strategy := "least"
	switch n := r.IntN(100); {
	case n < 47:
		strategy = "most"
	case n < 53:
		strategy = "balanced"
	}
	w := func() int {
		if r.IntN(2) == 0 {
			return pick(r, []int{1, 3})
		}
		return 1 + r.IntN(100)
	}
	alloc := func(small, big int64, suffix string) string {
		switch r.IntN(50) {
		case 0:
			return "0"
		case 1:
			return strconv.FormatInt(r.Int64(), 10) + suffix // int64 arithmetic's edge
		}
		return strconv.FormatInt(small+r.Int64N(big-small), 10) + suffix
	}
	parts := []string{"S " + strategy + " " + strconv.Itoa(w()) + " " + strconv.Itoa(w()) + " " +
		alloc(100, 128000, "m") + " " + alloc(1<<20, 1<<40, ""), genPod(r, 3)}
	for range r.IntN(5) {
		parts = append(parts, genPod(r, 2))
	}
	return strings.Join(parts, " | ")
}

var labelKeys = []string{"zone", "disk", "gpu", "k8s.io/role", "num"}
var labelValues = []string{"a", "b", "c", "", "5", "-3", "007", "+4", "x1", "9223372036854775808"}
var taintKeys = []string{"dedicated", "node.kubernetes.io/unschedulable", "node.kubernetes.io/not-ready", "gpu"}
var effects = []string{"NoSchedule", "PreferNoSchedule", "NoExecute"}
var nodeNames = []string{"n1", "n2", "n3"}

func orEmpty(items []string) string {
	if len(items) == 0 {
		return "~"
	}
	return strings.Join(items, ";")
}

func genConstraints(r *rand.Rand) string {
	node := pick(r, nodeNames)
	if r.IntN(30) == 0 {
		node = "~"
	}
	unsched := "0"
	if r.IntN(5) == 0 {
		unsched = "1"
	}
	var labels, taints, sel, tols []string
	labels = uniqueKeys(r, r.IntN(5))
	for range r.IntN(4) {
		taints = append(taints, pick(r, taintKeys)+"="+pick(r, []string{"", "a", "b"})+":"+pick(r, effects))
	}
	podNode := "~"
	if r.IntN(8) == 0 {
		podNode = pick(r, nodeNames)
	}
	if r.IntN(3) == 0 {
		sel = uniqueKeys(r, 1+r.IntN(2))
	}
	aff := "-"
	if r.IntN(2) == 0 {
		var terms []string
		for range r.IntN(4) {
			terms = append(terms, genTerm(r))
		}
		aff = "!"
		if len(terms) > 0 {
			aff = strings.Join(terms, "|")
		}
	}
	for range r.IntN(4) {
		key := ""
		if r.IntN(4) != 0 {
			key = pick(r, taintKeys)
		}
		tols = append(tols, key+"="+pick(r, []string{"", "Equal", "Exists"})+"="+
			pick(r, []string{"", "a", "b"})+":"+pick(r, []string{"", "NoSchedule", "PreferNoSchedule", "NoExecute"}))
	}
	return strings.Join([]string{"T", node, unsched, orEmpty(labels), orEmpty(taints), podNode,
		orEmpty(sel), aff, orEmpty(tols)}, " ")
}

func genTerm(r *rand.Rand) string {
	var reqs []string
	for range r.IntN(4) {
		op := pick(r, []string{"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"})
		var values []string
		n := r.IntN(3)
		if op == "Gt" || op == "Lt" {
			n = pick(r, []int{1, 1, 1, 0, 2})
		} else if op == "Exists" || op == "DoesNotExist" {
			n = pick(r, []int{0, 0, 0, 1})
		}
		for range n {
			values = append(values, pick(r, labelValues))
		}
		reqs = append(reqs, "e"+pick(r, labelKeys)+"="+op+"="+strconv.Itoa(len(values))+"="+strings.Join(values, ","))
	}
	for range r.IntN(3) {
		key := "metadata.name"
		if r.IntN(8) == 0 {
			key = "metadata.namespace"
		}
		op := pick(r, []string{"In", "In", "NotIn", "Exists"})
		var values []string
		for range pick(r, []int{1, 1, 1, 2, 0}) {
			values = append(values, pick(r, nodeNames))
		}
		reqs = append(reqs, "f"+key+"="+op+"="+strconv.Itoa(len(values))+"="+strings.Join(values, ","))
	}
	if len(reqs) == 0 {
		return "0"
	}
	return strings.Join(reqs, "&")
}

// uniqueKeys: n labels with distinct keys, as a map holds them.
func uniqueKeys(r *rand.Rand, n int) []string {
	var out []string
	for _, i := range r.Perm(len(labelKeys))[:n] {
		out = append(out, labelKeys[i]+"="+pick(r, labelValues))
	}
	return out
}
