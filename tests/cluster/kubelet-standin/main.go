// kubelet-standin serves GET /metrics/resource over HTTPS for each Node of
// tests/cluster, as a kubelet does, so that the real metrics-server can
// scrape Nodes that no kubelet runs. It is the only fake of the metrics
// pipeline: the usage it reports is what the test writes.
//
//	kubelet-standin --cert FILE --key FILE --usage-dir DIR --nodes-file FILE [--pid-file FILE]
//
// Each line of the nodes file is "NODE_NAME ADDR:PORT" (blank lines and
// lines starting with # are skipped): one HTTPS listener per node, all in
// this one process. DIR/NODE_NAME holds one line "CPU_CORES MEMORY_BYTES"
// (cores as a decimal number such as 1.25, memory an integer), read again
// at every scrape; a missing file means 0 and 0. The node's cumulative CPU
// counter grows by cores × seconds since the previous scrape, so the rate
// metrics-server computes between two scrapes is the file's cores. The
// process stops on SIGTERM or SIGINT.
package main

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"math"
	"math/bits"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// The counter starts above zero, as a booted machine's does: metrics-server
// drops a node whose cumulative CPU is 0 ("Failed getting complete node
// metric"), which would hide an idle node for its whole life. The rate it
// computes does not depend on the start.
const bootCPUNanos = 1_000_000_000

type node struct {
	name string
	addr string

	// The counter is whole nanoseconds of CPU, advanced by the same
	// millisecond timestamps the scrape reports: metrics-server's rate
	// (difference of counters over difference of timestamps) is then the
	// file's cores exactly, with no drift from the clock between reading
	// the time and formatting it.
	mu       sync.Mutex
	cpuNanos uint64 // the cumulative counter
	lastMs   int64  // the timestamp (ms) it was last advanced to
}

type standin struct {
	usageDir string
}

// readUsage reads DIR/NODE: cores and bytes; a missing file is 0 and 0.
func (s *standin) readUsage(name string) (uint64, uint64, error) {
	b, err := os.ReadFile(s.usageDir + "/" + name)
	if errors.Is(err, os.ErrNotExist) {
		return 0, 0, nil
	}
	if err != nil {
		return 0, 0, err
	}
	f := strings.Fields(string(b))
	if len(f) != 2 {
		return 0, 0, fmt.Errorf("%s/%s: want one line \"CPU_CORES MEMORY_BYTES\", got %q", s.usageDir, name, strings.TrimSpace(string(b)))
	}
	cores, err := strconv.ParseFloat(f[0], 64)
	if err != nil || cores < 0 || cores != cores || cores > 1e6 {
		return 0, 0, fmt.Errorf("%s/%s: CPU_CORES %q is not a number of cores from 0 to 1e6", s.usageDir, name, f[0])
	}
	mem, err := strconv.ParseUint(f[1], 10, 64)
	if err != nil {
		return 0, 0, fmt.Errorf("%s/%s: MEMORY_BYTES %q is not an integer >= 0", s.usageDir, name, f[1])
	}
	return uint64(math.Round(cores * 1e9)), mem, nil
}

// The text format of the kubelet's /metrics/resource (k8s.io/kubernetes
// pkg/kubelet/metrics/collectors/resource_metrics.go, through
// component-base's registry): HELP with the stability level, TYPE, the
// value as Go's %g-style float and a timestamp in milliseconds. No pods
// run on these nodes, so there are no container_* or pod_* series.
func formatFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

func (s *standin) metrics(n *node) string {
	nanocores, mem, err := s.readUsage(n.name)
	var b strings.Builder
	ms := time.Now().UnixMilli()
	if err != nil {
		// As a kubelet that could not get its stats: only the error gauge.
		fmt.Fprintf(os.Stderr, "kubelet-standin: node %s: %v\n", n.name, err)
		b.WriteString("# HELP resource_scrape_error [STABLE] 1 if there was an error while getting container metrics, 0 otherwise\n")
		b.WriteString("# TYPE resource_scrape_error gauge\n")
		b.WriteString("resource_scrape_error 1\n")
		return b.String()
	}
	n.mu.Lock()
	if ms > n.lastMs {
		// nanocores × ms / 1000 in 128 bits: no overflow for any file.
		hi, lo := bits.Mul64(nanocores, uint64(ms-n.lastMs))
		if hi < 1000 {
			q, _ := bits.Div64(hi, lo, 1000)
			n.cpuNanos += q
		}
		n.lastMs = ms
	}
	cpu := float64(n.cpuNanos) / 1e9
	ms = n.lastMs // never a timestamp older than the counter's
	n.mu.Unlock()
	b.WriteString("# HELP node_cpu_usage_seconds_total [STABLE] Cumulative cpu time consumed by the node in core-seconds\n")
	b.WriteString("# TYPE node_cpu_usage_seconds_total counter\n")
	fmt.Fprintf(&b, "node_cpu_usage_seconds_total %s %d\n", formatFloat(cpu), ms)
	b.WriteString("# HELP node_memory_working_set_bytes [STABLE] Current working set of the node in bytes\n")
	b.WriteString("# TYPE node_memory_working_set_bytes gauge\n")
	fmt.Fprintf(&b, "node_memory_working_set_bytes %s %d\n", formatFloat(float64(mem)), ms)
	b.WriteString("# HELP resource_scrape_error [STABLE] 1 if there was an error while getting container metrics, 0 otherwise\n")
	b.WriteString("# TYPE resource_scrape_error gauge\n")
	b.WriteString("resource_scrape_error 0\n")
	return b.String()
}

func (s *standin) handler(n *node) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /metrics/resource", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		_, _ = w.Write([]byte(s.metrics(n)))
	})
	// What a kubelet answers on its /healthz: for the tests' waits.
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte("ok"))
	})
	return mux
}

func readNodes(path string) ([]*node, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var nodes []*node
	seen := map[string]bool{}
	start := time.Now()
	for i, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 2 {
			return nil, fmt.Errorf("%s:%d: want \"NODE_NAME ADDR:PORT\", got %q", path, i+1, line)
		}
		if strings.Contains(f[0], "/") || f[0] == "." || f[0] == ".." {
			return nil, fmt.Errorf("%s:%d: %q is not a node name", path, i+1, f[0])
		}
		if _, _, err := net.SplitHostPort(f[1]); err != nil {
			return nil, fmt.Errorf("%s:%d: %q: %v", path, i+1, f[1], err)
		}
		if seen[f[0]] {
			return nil, fmt.Errorf("%s:%d: node %s named twice", path, i+1, f[0])
		}
		seen[f[0]] = true
		nodes = append(nodes, &node{name: f[0], addr: f[1], cpuNanos: bootCPUNanos, lastMs: start.UnixMilli()})
	}
	if len(nodes) == 0 {
		return nil, fmt.Errorf("%s: no nodes", path)
	}
	return nodes, nil
}

func main() {
	cert := flag.String("cert", "", "serving certificate (PEM)")
	key := flag.String("key", "", "its private key (PEM)")
	usageDir := flag.String("usage-dir", "", "directory of the per-node usage files")
	nodesFile := flag.String("nodes-file", "", "file of \"NODE_NAME ADDR:PORT\" lines")
	pidFile := flag.String("pid-file", "", "write the process id here once every listener is bound")
	flag.Parse()
	if *cert == "" || *key == "" || *usageDir == "" || *nodesFile == "" || flag.NArg() != 0 {
		fmt.Fprintln(os.Stderr, "usage: kubelet-standin --cert FILE --key FILE --usage-dir DIR --nodes-file FILE [--pid-file FILE]")
		os.Exit(2)
	}
	if err := run(*cert, *key, *usageDir, *nodesFile, *pidFile); err != nil {
		fmt.Fprintln(os.Stderr, "kubelet-standin:", err)
		os.Exit(1)
	}
}

func run(certFile, keyFile, usageDir, nodesFile, pidFile string) error {
	pair, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return err
	}
	if st, err := os.Stat(usageDir); err != nil || !st.IsDir() {
		return fmt.Errorf("--usage-dir %s is not a directory", usageDir)
	}
	nodes, err := readNodes(nodesFile)
	if err != nil {
		return err
	}
	s := &standin{usageDir: usageDir}
	tlsConf := &tls.Config{Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12}
	var servers []*http.Server
	var listeners []net.Listener
	for _, n := range nodes {
		ln, err := net.Listen("tcp", n.addr)
		if err != nil {
			for _, l := range listeners {
				_ = l.Close()
			}
			return fmt.Errorf("node %s: %v", n.name, err)
		}
		listeners = append(listeners, ln)
		servers = append(servers, &http.Server{Handler: s.handler(n), TLSConfig: tlsConf,
			ReadHeaderTimeout: 10 * time.Second})
	}
	if pidFile != "" {
		if err := os.WriteFile(pidFile, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644); err != nil {
			return err
		}
	}
	fmt.Fprintf(os.Stderr, "kubelet-standin: serving %d nodes\n", len(nodes))
	errc := make(chan error, len(servers))
	for i, srv := range servers {
		go func() { errc <- srv.Serve(tls.NewListener(listeners[i], tlsConf)) }()
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	select {
	case <-sig:
	case err := <-errc:
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, srv := range servers {
		_ = srv.Shutdown(ctx)
	}
	if pidFile != "" {
		_ = os.Remove(pidFile)
	}
	return nil
}
