// Command oracle is the differential test of cpu-extender's scoring/ rules
// against Kubernetes' own code (issue 20, item 3): it generates random cases
// from a seed, answers each with the v1.37.2 kube-scheduler plugins and
// component-helpers/apimachinery functions, has the C driver (the project's
// scoring/ objects) answer the same case over a pipe, and compares. A
// mismatch prints the seed, the case number and a shrunk case, and fails.
//
// Usage: oracle -driver build/release/oracle-driver
// Environment: ORACLE_SEED (default 1), ORACLE_CASES (default 1000000).
package main

import (
	"flag"
	"fmt"
	"os"
	"sort"
	"strconv"
	"time"
)

func envInt(name string, def uint64) uint64 {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		fmt.Fprintf(os.Stderr, "oracle: %s=%q: want an unsigned integer\n", name, s)
		os.Exit(2)
	}
	return v
}

func main() {
	driverPath := flag.String("driver", "build/release/oracle-driver", "the C driver (make build/release/oracle-driver)")
	only := flag.Int64("case", -1, "run this one case number only (as a mismatch prints it)")
	flag.Parse()
	seed := envInt("ORACLE_SEED", 1)
	cases := envInt("ORACLE_CASES", 1000000)

	drv, err := startDriver(*driverPath)
	if err != nil {
		fmt.Fprintf(os.Stderr, "oracle: %v\n", err)
		os.Exit(2)
	}
	defer drv.close()
	o := newOracle()

	start := time.Now()
	first, last := uint64(0), cases
	if *only >= 0 {
		first, last = uint64(*only), uint64(*only)+1
	}
	res := run(o, drv, seed, first, last)
	elapsed := time.Since(start)

	kinds := make([]string, 0, len(res.perKind))
	for k := range res.perKind {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	for _, k := range kinds {
		fmt.Printf("oracle: %-11s %d compared\n", k, res.perKind[k])
	}
	rules := make([]string, 0, len(res.excluded))
	for r := range res.excluded {
		rules = append(rules, r)
	}
	sort.Strings(rules)
	for _, r := range rules {
		fmt.Printf("oracle: excluded %-28s %d  (%s)\n", r, res.excluded[r], exclusionWhy[r])
	}
	if res.mismatch != nil {
		m := res.mismatch
		fmt.Printf("oracle: MISMATCH ORACLE_SEED=%d case %d (%s)\n", seed, m.index, m.kind)
		fmt.Printf("  case:     %s\n  kubernetes: %s\n  ours:     %s\n", m.line, m.want, m.got)
		shrunk := shrink(o, drv, m.line)
		w, _ := o.answer(shrunk)
		g := drv.ask(shrunk)
		fmt.Printf("  shrunk:   %s\n  kubernetes: %s\n  ours:     %s\n", shrunk, w, g)
		fmt.Printf("  reproduce: ORACLE_SEED=%d go run . -driver <driver> -case %d\n", seed, m.index)
	}
	failed := 0
	if res.mismatch != nil {
		failed = 1
	}
	fmt.Printf("oracle: seed %d, %d cases in %.1f s\n", seed, last-first, elapsed.Seconds())
	fmt.Printf("oracle: %d passed, %d excluded, %d failed\n", res.passed, res.nExcluded, failed)
	if failed != 0 {
		os.Exit(1)
	}
}
