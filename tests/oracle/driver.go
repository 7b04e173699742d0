package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync/atomic"
)

// driver is the C side: one child process, one case per line on its
// standard input, one answer per line on its standard output, in order. It
// flushes its answers at a line "F", so that a batch costs one write.
type driver struct {
	cmd *exec.Cmd
	in  *bufio.Writer
	inc io.WriteCloser
	out *bufio.Reader
}

func startDriver(path string) (*driver, error) {
	cmd := exec.Command(path)
	cmd.Stderr = os.Stderr
	inc, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	outc, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting the C driver %s: %w (make build/release/oracle-driver)", path, err)
	}
	return &driver{cmd: cmd, in: bufio.NewWriterSize(inc, 1<<16), inc: inc, out: bufio.NewReaderSize(outc, 1<<16)}, nil
}

func (d *driver) send(line string) {
	d.in.WriteString(line)
	d.in.WriteByte('\n')
}

func (d *driver) flush() {
	d.in.WriteString("F\n")
	if err := d.in.Flush(); err != nil {
		fmt.Fprintf(os.Stderr, "oracle: writing to the C driver: %v\n", err)
		os.Exit(2)
	}
}

func (d *driver) read() string {
	s, err := d.out.ReadString('\n')
	if err != nil {
		fmt.Fprintf(os.Stderr, "oracle: reading from the C driver: %v\n", err)
		os.Exit(2)
	}
	return strings.TrimSuffix(s, "\n")
}

// ask sends one case and waits for its answer (shrinking).
func (d *driver) ask(line string) string {
	d.send(line)
	d.flush()
	return d.read()
}

func (d *driver) close() {
	d.inc.Close()
	d.cmd.Wait()
}

type mismatch struct {
	index           uint64
	kind            string
	line, want, got string
}

type results struct {
	passed, nExcluded uint64
	perKind           map[string]uint64
	excluded          map[string]uint64
	mismatch          *mismatch
}

type pending struct {
	index uint64
	kind  string
	line  string
	want  string
}

// run compares cases [first, last): this goroutine generates them and asks
// Kubernetes' code, the C driver answers meanwhile, another goroutine reads
// its answers in order. It stops at the first mismatch, after reading every
// answer already asked for, so that the driver is in step for shrinking.
func run(o *oracle, d *driver, seed, first, last uint64) *results {
	res := &results{perKind: map[string]uint64{}, excluded: map[string]uint64{}}
	queue := make(chan pending, 8192)
	done := make(chan struct{})
	var stop atomic.Bool
	go func() {
		for p := range queue {
			got := d.read()
			if got == p.want {
				res.passed++
				res.perKind[p.kind]++
				continue
			}
			if res.mismatch == nil {
				res.mismatch = &mismatch{p.index, p.kind, p.line, p.want, got}
				stop.Store(true)
			}
		}
		close(done)
	}()
	// Kubernetes' answers are the costly part: one worker per CPU, each with
	// its own oracle, case i on worker i mod n; taken back in order.
	n := uint64(runtime.NumCPU())
	type answered struct {
		kind, line, want, rule string
	}
	workers := make([]chan answered, n)
	for w := range workers {
		workers[w] = make(chan answered, 1024)
		ow := o
		if w > 0 {
			ow = newOracle()
		}
		go func(w uint64, ow *oracle) {
			defer close(workers[w])
			for i := first + w; i < last && !stop.Load(); i += n {
				kind, line := generate(seed, i)
				want, rule := ow.answer(line)
				workers[w] <- answered{kind, line, want, rule}
			}
		}(uint64(w), ow)
	}
	batch := 0
	for i := first; i < last && !stop.Load(); i++ {
		a, ok := <-workers[(i-first)%n]
		if !ok {
			break
		}
		kind, line, want, rule := a.kind, a.line, a.want, a.rule
		if rule != "" {
			res.excluded[rule]++
			res.nExcluded++
			continue
		}
		queue <- pending{i, kind, line, want}
		d.send(line)
		if batch++; batch == 512 {
			d.flush()
			batch = 0
		}
	}
	d.flush()
	close(queue)
	<-done
	for _, c := range workers { // let the workers end
		for range c {
		}
	}
	return res
}
