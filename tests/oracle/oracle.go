package main

import (
	"context"
	"encoding/hex"
	"fmt"
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/inf.v0"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8stypes "k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apiserver/pkg/util/feature"
	resourcehelper "k8s.io/component-helpers/resource"
	v1helper "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	plfeature "k8s.io/kubernetes/pkg/scheduler/framework/plugins/feature"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/helper"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/nodeaffinity"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/nodename"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/noderesources"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/nodeunschedulable"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/tainttoleration"
	schedutil "k8s.io/kubernetes/pkg/scheduler/util"
)

// The exclusion rules: cases where cpu-extender differs on purpose. Each
// excluded case is counted under its rule and the counts are printed.
var exclusionWhy = map[string]string{
	"quantity-exponent-over-9999": "ParseQuantity takes seconds on an exponent near 2^31 " +
		"(inf.Dec raises 10 to it); scoring/quantity.c answers at once, tests/scoring/test_quantity.c " +
		"holds those cases",
	"binary-quantity-capped": "ParseQuantity clamps a binary-suffixed (Ki..Ei) value past int64 " +
		"to 2^63-1 bytes; scoring/quantity.c refuses it as out of range (an allocatable or request " +
		"of 8 EiB is an error, not a number)",
	"negative-dec-rounding": "a negative quantity held as inf.Dec (finer than nano, or too many " +
		"digits): its MilliValue()/Value() round a remainder up by one toward +inf (-9e-12 gives 1); " +
		"scoring/quantity.c rounds away from zero as int64Amount does, and the decoders refuse " +
		"negative quantities anyway",
	"requirement-value-not-a-label-value": "a matchExpressions value that is no label value " +
		"(\"+4\", \"-3\"): labels.NewRequirement fails the term; placement/constraints.c leaves that " +
		"check to the API server, which refuses such a pod",
	"pod-level-overhead-aliasing": "kube-scheduler v1.37.2 bug: a pod-level request held as inf.Dec " +
		"(\".5Gi\") shares its number with PodRequests' result, so adding spec.overhead writes into " +
		"the pod and NodeInfo (two PodRequests calls) charges the overhead twice, more on each " +
		"later call; we charge it once",
	"fit-scorer-gates-unset": "kube-scheduler v1.37.2 bug: NewFit never hands the feature gates to " +
		"the scorer it embeds, so LeastAllocated/MostAllocated score the pod without its pod-level " +
		"requests and resize status; we score it as the gates say (the pod cases compare that view)",
	"quantity-longer-than-256": "scoring/quantity.c refuses a quantity text over 256 bytes " +
		"(its exact arithmetic works on a stack buffer); canonical quantities are under 30",
	"pod-finer-than-unit": "a pod quantity finer than a millicore or a byte: the decoder rounds " +
		"each quantity up to int64 before summing, Kubernetes sums exactly and rounds once",
	"score-int64-overflow": "allocatable over MaxInt64/100 or requested past MaxInt64: " +
		"kube-scheduler's int64 products and sums wrap, ours are exact (128-bit) or saturate",
	"balanced-is-pre-1.36": "our balanced strategy is NodeResourcesBalancedAllocation before 1.36 " +
		"(1 - std) * 100; v1.37 scores the change in balance (50 + (50 + with - without) / 2)",
}

// An exponent's digits after its leading zeros.
var bigExponent = regexp.MustCompile(`[eE][+-]?0*([0-9]+)$`)

type oracle struct {
	ctx       context.Context
	fts       plfeature.Features
	fit       map[string]fwk.ScorePlugin
	affinity  fwk.PreFilterPlugin
	filters   []fwk.FilterPlugin // in kube-scheduler's default order
	ruleNames []string
}

// handle is the part of the framework the plugins reach for at New.
type handle struct{ fwk.Handle }

func (handle) SharedDRAManager() fwk.SharedDRAManager { return nil }

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func newOracle() *oracle {
	// The feature gates at their v1.37 defaults, as kube-scheduler builds
	// them (registry.go NewInTreeRegistry).
	fts := plfeature.NewSchedulerFeaturesFromGates(feature.DefaultFeatureGate)
	ctx := context.Background()
	o := &oracle{ctx: ctx, fts: fts, fit: map[string]fwk.ScorePlugin{}}
	h := handle{}
	na := must(nodeaffinity.New(ctx, &config.NodeAffinityArgs{}, h, fts))
	o.affinity = na.(fwk.PreFilterPlugin)
	// kube-scheduler's Filter order (apis/config/v1 default_plugins.go).
	o.filters = []fwk.FilterPlugin{
		must(nodeunschedulable.New(ctx, nil, h, fts)).(fwk.FilterPlugin),
		must(nodename.New(ctx, nil, h, fts)).(fwk.FilterPlugin),
		must(tainttoleration.New(ctx, nil, h, fts)).(fwk.FilterPlugin),
		na.(fwk.FilterPlugin),
	}
	return o
}

func (o *oracle) fitPlugin(strategy string, wc, wm int64) fwk.ScorePlugin {
	key := fmt.Sprintf("%s/%d/%d", strategy, wc, wm)
	if p, ok := o.fit[key]; ok {
		return p
	}
	typ := config.LeastAllocated
	if strategy == "most" {
		typ = config.MostAllocated
	}
	args := &config.NodeResourcesFitArgs{ScoringStrategy: &config.ScoringStrategy{
		Type:      typ,
		Resources: []config.ResourceSpec{{Name: "cpu", Weight: wc}, {Name: "memory", Weight: wm}},
	}}
	p := must(noderesources.NewFit(o.ctx, args, handle{}, o.fts)).(fwk.ScorePlugin)
	o.fit[key] = p
	return p
}

// answer is Kubernetes' answer to a case line, or the exclusion rule that
// leaves it out. A line that does not parse answers "unparsable" (shrinking
// makes such lines; they are never kept).
func (o *oracle) answer(line string) (string, string) {
	f := strings.Fields(line)
	if len(f) == 0 {
		return "unparsable", ""
	}
	switch f[0] {
	case "Q":
		if len(f) == 2 { // the empty quantity: its hex is ""
			f = append(f, "")
		}
		return o.quantity(f)
	case "P":
		return o.pod(f[1:])
	case "S":
		return o.score(line)
	case "T":
		return o.constraints(f)
	}
	return "unparsable", ""
}

// quantity: ParseQuantity, then MilliValue() (cpu) or Value() (memory);
// "range" where the exact value, rounded up as those round, is outside
// int64 (they return no error there, and we refuse the quantity).
func (o *oracle) quantity(f []string) (string, string) {
	if len(f) != 3 || f[1] != "c" && f[1] != "m" {
		return "unparsable", ""
	}
	text, err := hex.DecodeString(f[2])
	if err != nil {
		return "unparsable", ""
	}
	if len(text) > 256 {
		return "", "quantity-longer-than-256"
	}
	if m := bigExponent.FindStringSubmatch(string(text)); m != nil && len(m[1]) > 4 {
		return "", "quantity-exponent-over-9999"
	}
	q, err := resource.ParseQuantity(string(text))
	if err != nil {
		return "err", ""
	}
	scale := 0
	if f[1] == "c" {
		scale = 3
	}
	cp := q.DeepCopy()
	exact := cp.AsDec()
	if !fitsInt64(exact.UnscaledBig(), int(exact.Scale())-scale) {
		return "range", ""
	}
	if capped(string(text), exact) && f[1] == "m" {
		return "", "binary-quantity-capped"
	}
	v := q.Value()
	if f[1] == "c" {
		v = q.MilliValue()
	}
	if q.Sign() < 0 && v != roundAway(exact.UnscaledBig(), int(exact.Scale())-scale) {
		return "", "negative-dec-rounding"
	}
	return "ok " + strconv.FormatInt(v, 10), ""
}

// roundedAway: unscaled * 10^-scale rounded away from zero, exactly.
func roundedAway(unscaled *big.Int, scale int) *big.Int {
	v := new(big.Int).Set(unscaled)
	if scale <= 0 {
		return v.Mul(v, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(-scale)), nil))
	}
	d := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil)
	q, m := new(big.Int).QuoRem(v, d, new(big.Int))
	if m.Sign() > 0 {
		q.Add(q, big.NewInt(1))
	} else if m.Sign() < 0 {
		q.Sub(q, big.NewInt(1))
	}
	return q
}

// roundAway: roundedAway, known to fit.
func roundAway(unscaled *big.Int, scale int) int64 {
	return roundedAway(unscaled, scale).Int64()
}

// capped: ParseQuantity clamps a value with a binary suffix to ±(2^63-1)
// instead of failing.
func capped(text string, exact *inf.Dec) bool {
	if !strings.HasSuffix(text, "i") || exact.Scale() != 0 {
		return false
	}
	u := new(big.Int).Abs(exact.UnscaledBig())
	return u.IsInt64() && u.Int64() == math.MaxInt64
}

// fitsInt64: unscaled * 10^-scale, rounded away from zero, within int64.
// The bounds keep the exact arithmetic small: 10^40 is past int64 for any
// nonzero value, and past 10^-400 every value rounds to ±1.
func fitsInt64(unscaled *big.Int, scale int) bool {
	switch {
	case unscaled.Sign() == 0:
		return true
	case scale < -40:
		return false
	case scale > 400:
		return true
	}
	return roundedAway(unscaled, scale).IsInt64()
}

var resourceKeys = map[string]v1.ResourceName{
	"cpu": v1.ResourceCPU, "memory": v1.ResourceMemory, "h": "hugepages-2Mi", "x": "example.com/gpu",
}

// parseList reads a <list>; fine says a quantity is finer than its unit.
func parseList(s string, fine *bool) (v1.ResourceList, bool) {
	l := v1.ResourceList{}
	if s == "-" {
		return l, true
	}
	for _, item := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(item, "=")
		name, known := resourceKeys[k]
		if !ok || !known {
			return nil, false
		}
		q, err := resource.ParseQuantity(v)
		if err != nil || q.Sign() < 0 {
			return nil, false
		}
		if k == "cpu" && q.MilliValue()*int64(1000000) != q.ScaledValue(resource.Nano) ||
			k == "memory" && q.Value()*1000 != q.MilliValue() {
			*fine = true
		}
		l[name] = q
	}
	return l, true
}

// parsePod builds the v1.Pod of a <pod>; containers are named c0, c1, ...
func parsePod(tokens []string) (*v1.Pod, bool, bool) {
	pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "default", UID: "u"}}
	fine := false
	always := v1.ContainerRestartPolicyAlways
	var lastName string
	var lastInit bool
	n := 0
	if len(tokens) == 1 && tokens[0] == "-" {
		return pod, false, true
	}
	status := func(name string, init bool) *v1.ContainerStatus {
		list := &pod.Status.ContainerStatuses
		if init {
			list = &pod.Status.InitContainerStatuses
		}
		for i := range *list {
			if (*list)[i].Name == name {
				return &(*list)[i]
			}
		}
		*list = append(*list, v1.ContainerStatus{Name: name})
		return &(*list)[len(*list)-1]
	}
	for _, t := range tokens {
		kind, rest, _ := strings.Cut(t, ":")
		switch kind {
		case "c", "i", "s":
			l, ok := parseList(rest, &fine)
			if !ok {
				return nil, false, false
			}
			c := v1.Container{Name: "c" + strconv.Itoa(n), Resources: v1.ResourceRequirements{Requests: l}}
			n++
			lastName, lastInit = c.Name, kind != "c"
			if kind == "c" {
				pod.Spec.Containers = append(pod.Spec.Containers, c)
			} else {
				if kind == "s" {
					c.RestartPolicy = &always
				}
				pod.Spec.InitContainers = append(pod.Spec.InitContainers, c)
			}
		case "a", "r":
			l, ok := parseList(rest, &fine)
			if !ok || lastName == "" {
				return nil, false, false
			}
			cs := status(lastName, lastInit)
			if kind == "a" {
				cs.AllocatedResources = l
			} else {
				cs.Resources = &v1.ResourceRequirements{Requests: l}
			}
		case "pl", "oh", "PA", "PR":
			l, ok := parseList(rest, &fine)
			if !ok {
				return nil, false, false
			}
			switch kind {
			case "pl":
				pod.Spec.Resources = &v1.ResourceRequirements{Requests: l}
			case "oh":
				pod.Spec.Overhead = l
			case "PA":
				pod.Status.AllocatedResources = l
			case "PR":
				pod.Status.Resources = &v1.ResourceRequirements{Requests: l}
			}
		case "PRn":
			pod.Status.Resources = &v1.ResourceRequirements{}
		case "inf", "def":
			reason := v1.PodReasonInfeasible
			if kind == "def" {
				reason = v1.PodReasonDeferred
			}
			pod.Status.Conditions = append(pod.Status.Conditions,
				v1.PodCondition{Type: v1.PodResizePending, Status: v1.ConditionTrue, Reason: reason})
		default:
			return nil, false, false
		}
	}
	return pod, fine, true
}

func cpuMem(l v1.ResourceList) (int64, int64) {
	c, m := l[v1.ResourceCPU], l[v1.ResourceMemory]
	return c.MilliValue(), m.Value()
}

// writesIntoPod: does PodRequests change the pod's own pod-level requests
// (see podViews)? Then NodeInfo, which calls it twice, charges the overhead
// twice, and more each time the pod is looked at again.
func writesIntoPod(p *v1.Pod) bool {
	if p.Spec.Resources == nil {
		return false
	}
	c := p.DeepCopy()
	resourcehelper.PodRequests(c, resourcehelper.PodResourcesOptions{})
	for k, q := range p.Spec.Resources.Requests {
		if after := c.Spec.Resources.Requests[k]; after.Cmp(q) != 0 {
			return true
		}
	}
	return false
}

// podViews: NodeResourcesFit's PreFilter request of the pod being placed
// (computePodResourceRequest's options), what NodeInfo charges for it once it
// runs on a node (PodInfo.CalculateResource itself), and what the
// NodeResourcesFit scorers take of it (calculatePodResourceRequest with the
// 100m / 200Mi defaults, and the options the plugin really passes: below).
//
// Each view gets its own copy of the pod: PodRequests writes into the pod
// it reads when a pod-level request is held as inf.Dec (".5Gi"):
// applyPodLevelResources copies the Quantity, whose inf.Dec pointer the
// overhead's Add then changes in place, so every call adds the overhead to
// spec.resources.requests again. What is compared is one call on an intact
// pod.
func (o *oracle) podViews(p *v1.Pod) [8]int64 {
	var v [8]int64
	pod := p.DeepCopy()
	v[0], v[1] = cpuMem(resourcehelper.PodRequests(pod, resourcehelper.PodResourcesOptions{
		SkipPodLevelResources:                    !o.fts.EnablePodLevelResources,
		UseDRANodeAllocatableResourceClaimStatus: o.fts.EnableDRANodeAllocatableResources,
	}))
	pi := must(framework.NewPodInfo(p.DeepCopy()))
	res := pi.CalculateResource()
	v[2], v[3] = res.Resource.GetMilliCPU(), res.Resource.GetMemory()
	v[4], v[5] = res.Non0CPU, res.Non0Mem
	v[6], v[7] = o.scored(p, true)
	return v
}

// scored: the request the NodeResourcesFit scorers take of the pod being
// placed (calculatePodResourceRequest), with the options its feature gates
// give (intended) or with those v1.37.2 really passes: NewFit sets the gates
// on Fit, never on the resourceAllocationScorer it embeds, whose
// calculatePodResourceRequest reads them, so LeastAllocated and
// MostAllocated run PodRequests with SkipPodLevelResources true and
// UseStatusResources false.
func (o *oracle) scored(p *v1.Pod, intended bool) (int64, int64) {
	opts := resourcehelper.PodResourcesOptions{
		SkipPodLevelResources: true,
		NonMissingContainerRequests: v1.ResourceList{
			v1.ResourceCPU:    *resource.NewMilliQuantity(schedutil.DefaultMilliCPURequest, resource.DecimalSI),
			v1.ResourceMemory: *resource.NewQuantity(schedutil.DefaultMemoryRequest, resource.DecimalSI),
		},
	}
	if intended {
		opts.UseStatusResources = o.fts.EnableInPlacePodVerticalScaling
		opts.InPlacePodLevelResourcesVerticalScalingEnabled = o.fts.EnableInPlacePodLevelResourcesVerticalScaling
		opts.SkipPodLevelResources = !o.fts.EnablePodLevelResources
	}
	return cpuMem(resourcehelper.PodRequests(p.DeepCopy(), opts))
}

func (o *oracle) pod(tokens []string) (string, string) {
	pod, fine, ok := parsePod(tokens)
	if !ok {
		return "unparsable", ""
	}
	if fine {
		return "", "pod-finer-than-unit"
	}
	if writesIntoPod(pod) {
		return "", "pod-level-overhead-aliasing"
	}
	v := o.podViews(pod)
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.FormatInt(x, 10)
	}
	return "ok " + strings.Join(s, " "), ""
}

// score: the NodeResourcesFit plugin's Score for the pod on a node holding
// the other pods (NodeInfo built by the framework's own NewNodeInfo).
func (o *oracle) score(line string) (string, string) {
	parts := strings.Split(line, " | ")
	head := strings.Fields(parts[0])
	if len(head) != 6 || len(parts) < 2 {
		return "unparsable", ""
	}
	wc, err1 := strconv.ParseInt(head[2], 10, 64)
	wm, err2 := strconv.ParseInt(head[3], 10, 64)
	ac, err3 := resource.ParseQuantity(head[4])
	am, err4 := resource.ParseQuantity(head[5])
	if err1 != nil || err2 != nil || err3 != nil || err4 != nil || wc < 1 || wc > 100 || wm < 1 || wm > 100 {
		return "unparsable", ""
	}
	pods := make([]*v1.Pod, 0, len(parts)-1)
	fine := false
	for i, p := range parts[1:] {
		pod, f, ok := parsePod(strings.Fields(p))
		if !ok {
			return "unparsable", ""
		}
		pod.Name, pod.UID = "p"+strconv.Itoa(i), k8stypes.UID("u"+strconv.Itoa(i))
		fine = fine || f
		pods = append(pods, pod)
	}
	if fine {
		return "", "pod-finer-than-unit"
	}
	for _, p := range pods {
		if writesIntoPod(p) {
			return "", "pod-level-overhead-aliasing"
		}
	}
	if c, m := o.scored(pods[0], true); true {
		if c2, m2 := o.scored(pods[0], false); c != c2 || m != m2 {
			return "", "fit-scorer-gates-unset"
		}
	}
	if head[1] == "balanced" {
		return "", "balanced-is-pre-1.36"
	}
	if head[1] != "least" && head[1] != "most" {
		return "unparsable", ""
	}
	node := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}, Status: v1.NodeStatus{Allocatable: v1.ResourceList{
		v1.ResourceCPU: ac, v1.ResourceMemory: am, v1.ResourcePods: resource.MustParse("110")}}}
	ni := framework.NewNodeInfo(pods[1:]...)
	ni.SetNode(node)
	// int64 is where kube-scheduler computes: leave out what wraps there.
	pod := o.podViews(pods[0])
	alloc := [2]int64{ni.GetAllocatable().GetMilliCPU(), ni.GetAllocatable().GetMemory()}
	used := [2]int64{ni.GetNonZeroRequested().GetMilliCPU(), ni.GetNonZeroRequested().GetMemory()}
	for r := range 2 {
		if alloc[r] > math.MaxInt64/100 || used[r] > math.MaxInt64-pod[6+r] || alloc[r] < 0 {
			return "", "score-int64-overflow"
		}
	}
	pl := o.fitPlugin(head[1], wc, wm)
	score, st := pl.Score(o.ctx, framework.NewCycleState(), pods[0], ni)
	if !st.IsSuccess() {
		return "status " + st.Message(), ""
	}
	return "ok " + strconv.FormatInt(score, 10), ""
}

func unempty(s string) string {
	if s == "~" {
		return ""
	}
	return s
}

func items(s string) []string {
	if s == "~" {
		return nil
	}
	return strings.Split(s, ";")
}

// constraints: NodeAffinity's PreFilter, then the Filters NodeUnschedulable,
// NodeName, TaintToleration, NodeAffinity in kube-scheduler's order; the
// answer is the first rule that rejects (as placement/constraints.h numbers
// them) and, for TaintToleration, the index of the untolerated taint.
func (o *oracle) constraints(f []string) (string, string) {
	if len(f) != 9 {
		return "unparsable", ""
	}
	node := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: unempty(f[1]), Labels: map[string]string{}}}
	node.Spec.Unschedulable = f[2] == "1"
	for _, l := range items(f[3]) {
		k, v, _ := strings.Cut(l, "=")
		node.Labels[k] = v
	}
	for _, t := range items(f[4]) {
		k, rest, _ := strings.Cut(t, "=")
		v, e, _ := strings.Cut(rest, ":")
		node.Spec.Taints = append(node.Spec.Taints, v1.Taint{Key: k, Value: v, Effect: v1.TaintEffect(e)})
	}
	pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "default"}}
	pod.Spec.NodeName = unempty(f[5])
	if f[6] != "~" {
		pod.Spec.NodeSelector = map[string]string{}
		for _, l := range items(f[6]) {
			k, v, _ := strings.Cut(l, "=")
			pod.Spec.NodeSelector[k] = v
		}
	}
	invalidValue := false
	if f[7] != "-" {
		ns := &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{}}
		if f[7] != "!" {
			for _, t := range strings.Split(f[7], "|") {
				term, ok := parseTerm(t, &invalidValue)
				if !ok {
					return "unparsable", ""
				}
				ns.NodeSelectorTerms = append(ns.NodeSelectorTerms, term)
			}
		}
		pod.Spec.Affinity = &v1.Affinity{NodeAffinity: &v1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: ns}}
	}
	if invalidValue {
		return "", "requirement-value-not-a-label-value"
	}
	for _, t := range items(f[8]) {
		p := strings.SplitN(t, "=", 3)
		if len(p) != 3 {
			return "unparsable", ""
		}
		v, e, _ := strings.Cut(p[2], ":")
		pod.Spec.Tolerations = append(pod.Spec.Tolerations, v1.Toleration{Key: p[0],
			Operator: v1.TolerationOperator(p[1]), Value: v, Effect: v1.TaintEffect(e)})
	}
	ni := framework.NewNodeInfo()
	ni.SetNode(node)
	taint := -1
	if t, untolerated := v1helper.FindMatchingUntoleratedTaint(klog.Background(), node.Spec.Taints,
		pod.Spec.Tolerations, helper.DoNotScheduleTaintsFilterFunc(), o.fts.EnableTaintTolerationComparisonOperators); untolerated {
		for i := range node.Spec.Taints {
			if node.Spec.Taints[i] == t {
				taint = i
				break
			}
		}
	}
	state := framework.NewCycleState()
	result, st := o.affinity.PreFilter(o.ctx, state, pod, []fwk.NodeInfo{ni})
	if !st.IsSuccess() && !st.IsSkip() {
		// PLACE_RULE_PREFILTER, PLACE_REASON_AFFINITY_CONFLICT: no node at all
		return "rule 1 reasons 1 taint -1", ""
	}
	if result != nil && !result.AllNodes() && !result.NodeNames.Has(node.Name) {
		// PLACE_REASON_PREFILTER_AFFINITY: outside the node names
		return "rule 1 reasons 2 taint -1", ""
	}
	for i, pl := range o.filters {
		if s := pl.Filter(o.ctx, state, pod, ni); !s.IsSuccess() {
			// PLACE_RULE_UNSCHEDULABLE, NODE_NAME, TAINT, NODE_AFFINITY and
			// their reasons PLACE_REASON_UNSCHEDULABLE .. NODE_AFFINITY.
			rule, reason := 2+i, 2+i
			t := -1
			if i == 2 {
				t = taint
			}
			return fmt.Sprintf("rule %d reasons %d taint %d", rule, 1<<reason, t), ""
		}
	}
	return "rule 0 reasons 0 taint -1", ""
}

func parseTerm(t string, invalid *bool) (v1.NodeSelectorTerm, bool) {
	var term v1.NodeSelectorTerm
	if t == "0" {
		return term, true
	}
	for _, req := range strings.Split(t, "&") {
		if len(req) < 2 {
			return term, false
		}
		p := strings.SplitN(req[1:], "=", 4)
		if len(p) != 4 {
			return term, false
		}
		n, err := strconv.Atoi(p[2])
		if err != nil {
			return term, false
		}
		r := v1.NodeSelectorRequirement{Key: p[0], Operator: v1.NodeSelectorOperator(p[1])}
		if n > 0 {
			r.Values = strings.Split(p[3], ",")
			if len(r.Values) != n {
				return term, false
			}
		}
		if req[0] == 'e' {
			for _, v := range r.Values {
				if len(validation.IsValidLabelValue(v)) > 0 {
					*invalid = true
				}
			}
			term.MatchExpressions = append(term.MatchExpressions, r)
		} else {
			term.MatchFields = append(term.MatchFields, r)
		}
	}
	return term, true
}

// The plugin arguments are the internal config types, as the framework
// hands them over after defaulting.
var _ runtime.Object = (*config.NodeResourcesFitArgs)(nil)
