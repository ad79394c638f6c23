// Command report reads the `go tool test2json` stream of the azcosmos emulator tests on stdin,
// prints each top-level test's result as it arrives, then the output of every failed test, the
// tests that failed although not listed in known_failures.txt, the listed tests that now pass, and
// the counts. It exits 1 when a test failed that is not listed, when a selected test did not run
// to its end (a panic or a timeout ends the test binary), or when the stream held no test at all.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

type event struct {
	Action  string
	Test    string
	Output  string
	Elapsed float64
}

var resultLine = regexp.MustCompile(`^\s*--- (?:PASS|FAIL|SKIP): (\S+) \(([0-9.]+)s\)`)

type result struct {
	action  string // run (started, never finished), pass, fail, skip
	elapsed float64
	output  []string
}

func readList(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		out = append(out, line)
	}
	return out, sc.Err()
}

// readKnown parses known_failures.txt: a test name, blanks, a one-line reason.
func readKnown(path string) (map[string]string, error) {
	lines, err := readList(path)
	if err != nil {
		return nil, err
	}
	known := map[string]string{}
	for _, l := range lines {
		name, reason, _ := strings.Cut(l, " ")
		if i := strings.IndexAny(name, "\t"); i >= 0 {
			name, reason = name[:i], name[i+1:]+" "+reason
		}
		reason = strings.TrimSpace(reason)
		if reason == "" {
			return nil, fmt.Errorf("%s: %q has no reason", path, name)
		}
		known[name] = reason
	}
	return known, nil
}

// run is the test binary's event stream, read: every top-level test and subtest by name, in the
// order first seen, and what the binary printed outside any test.
type run struct {
	results   map[string]*result
	order     []string
	pkgOutput []string
	pkgAction string
}

func (r *run) get(name string) *result {
	res, ok := r.results[name]
	if !ok {
		res = &result{}
		r.results[name] = res
		r.order = append(r.order, name)
	}
	return res
}

// readEvents reads test2json events from in, printing a line for each top-level test as it ends.
func readEvents(in io.Reader) (*run, error) {
	r := &run{results: map[string]*result{}}
	rd := bufio.NewReaderSize(in, 1<<20)
	for {
		line, err := rd.ReadBytes('\n')
		if len(line) > 0 {
			r.add(line)
		}
		if err == io.EOF {
			return r, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

func (r *run) add(line []byte) {
	var ev event
	if json.Unmarshal(line, &ev) != nil || ev.Action == "" {
		r.pkgOutput = append(r.pkgOutput, strings.TrimRight(string(line), "\n"))
		return
	}
	if ev.Test == "" {
		switch ev.Action {
		case "output":
			r.pkgOutput = append(r.pkgOutput, strings.TrimRight(ev.Output, "\n"))
		case "pass", "fail", "skip":
			r.pkgAction = ev.Action
		}
		return
	}
	res := r.get(ev.Test)
	switch ev.Action {
	case "run":
		res.action = "run"
	case "output":
		res.output = append(res.output, strings.TrimRight(ev.Output, "\n"))
		// test2json leaves Elapsed out with -test.v=test2json: take it from "--- PASS: name (1.23s)".
		if m := resultLine.FindStringSubmatch(ev.Output); m != nil && m[1] == ev.Test {
			res.elapsed, _ = strconv.ParseFloat(m[2], 64)
		}
	case "pass", "fail", "skip":
		res.action = ev.Action
		if ev.Elapsed > 0 {
			res.elapsed = ev.Elapsed
		}
		if !strings.Contains(ev.Test, "/") {
			fmt.Printf("%-4s %s (%.2fs)\n", strings.ToUpper(ev.Action), ev.Test, res.elapsed)
		}
	}
}

// outcome sorts the selected tests by how they ended, against the list of known failures.
type outcome struct {
	passed, failed, skipped         []string
	unexpected, nowPass, unfinished []string
	stale                           []string // listed as known but not selected
}

func classify(selected []string, r *run, known map[string]string) outcome {
	var o outcome
	for _, name := range selected {
		res := r.results[name]
		switch {
		case res == nil || res.action == "":
			o.unfinished = append(o.unfinished, name+" (never started)")
			o.failed = append(o.failed, name)
		case res.action == "run":
			o.unfinished = append(o.unfinished, name+" (started, never finished: the test binary ended)")
			o.failed = append(o.failed, name)
		case res.action == "pass":
			o.passed = append(o.passed, name)
		case res.action == "skip":
			o.skipped = append(o.skipped, name)
		default:
			o.failed = append(o.failed, name)
		}
	}
	for _, name := range o.failed {
		if _, ok := known[name]; !ok {
			o.unexpected = append(o.unexpected, name)
		}
	}
	for _, name := range o.passed {
		if _, ok := known[name]; ok {
			o.nowPass = append(o.nowPass, name)
		}
	}
	sel := map[string]bool{}
	for _, n := range selected {
		sel[n] = true
	}
	for name := range known {
		if !sel[name] {
			o.stale = append(o.stale, name)
		}
	}
	sort.Strings(o.stale)
	return o
}

// printFailure prints a failed test's tag, failed subtests and up to maxLines of its output.
func printFailure(name string, r *run, known map[string]string, maxLines int) {
	reason, isKnown := known[name]
	tag := "NEW FAILURE"
	if isKnown {
		tag = "known: " + reason
	}
	fmt.Printf("\n--- %s [%s]\n", name, tag)
	var failedSubs []string
	for _, sub := range r.order {
		if strings.HasPrefix(sub, name+"/") && r.results[sub].action == "fail" {
			failedSubs = append(failedSubs, sub)
		}
	}
	if len(failedSubs) > 0 {
		fmt.Printf("    failed subtests: %s\n", strings.Join(failedSubs, ", "))
	}
	var lines []string
	for _, n := range r.order {
		if n != name && !strings.HasPrefix(n, name+"/") {
			continue
		}
		for _, l := range r.results[n].output {
			t := strings.TrimSpace(l)
			if strings.HasPrefix(t, "=== RUN") || strings.HasPrefix(t, "=== PAUSE") || strings.HasPrefix(t, "=== CONT") || strings.HasPrefix(t, "=== NAME") {
				continue
			}
			lines = append(lines, "    "+l)
		}
	}
	if len(lines) > maxLines {
		more := len(lines) - maxLines
		lines = append(lines[:maxLines], fmt.Sprintf("    ... %d more lines in the JSON log", more))
	}
	for _, l := range lines {
		fmt.Println(l)
	}
}

func main() {
	testsPath := flag.String("tests", "", "file listing the selected top-level tests, one per line")
	knownPath := flag.String("known", "", "known_failures.txt")
	label := flag.String("label", "azcosmos", "word printed before the counts")
	maxLines := flag.Int("max-lines", 40, "lines of output shown per failed test")
	start := flag.Float64("start", 0, "unix time (seconds) the whole run started, for the wall time")
	testsStart := flag.Float64("tests-start", 0, "unix time (seconds) the test binary started")
	flag.Parse()

	selected, err := readList(*testsPath)
	if err != nil {
		fmt.Fprintln(os.Stderr, "report:", err)
		os.Exit(2)
	}
	known, err := readKnown(*knownPath)
	if err != nil {
		fmt.Fprintln(os.Stderr, "report:", err)
		os.Exit(2)
	}
	r, err := readEvents(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "report:", err)
		os.Exit(2)
	}
	o := classify(selected, r, known)

	if len(o.failed) > 0 {
		fmt.Println("\n==== output of the failed tests ====")
	}
	for _, name := range o.failed {
		printFailure(name, r, known, *maxLines)
	}

	fmt.Println()
	if r.pkgAction == "fail" && len(o.failed) == 0 {
		fmt.Println("the test binary failed outside any test:")
		for _, l := range r.pkgOutput {
			fmt.Println("    " + l)
		}
	}
	for _, u := range o.unfinished {
		fmt.Println("did not finish:", u)
	}
	if len(o.nowPass) > 0 {
		fmt.Printf("listed in known_failures.txt but PASSED now (remove them from the list): %s\n", strings.Join(o.nowPass, ", "))
	}
	if len(o.stale) > 0 {
		fmt.Printf("listed in known_failures.txt but not among the selected tests: %s\n", strings.Join(o.stale, ", "))
	}
	knownFailed := len(o.failed) - len(o.unexpected)
	fmt.Printf("selected emulator tests: %d; passed %d, failed %d (%d listed as known, %d new), skipped %d\n",
		len(selected), len(o.passed), len(o.failed), knownFailed, len(o.unexpected), len(o.skipped))
	if len(o.unexpected) > 0 {
		fmt.Printf("NEW FAILURES (not in known_failures.txt): %s\n", strings.Join(o.unexpected, ", "))
	}
	if *start > 0 {
		now := float64(time.Now().UnixNano()) / 1e9
		if *testsStart > 0 {
			fmt.Printf("wall time: %.1f s (tests %.1f s, setup before them %.1f s)\n", now-*start, now-*testsStart, *testsStart-*start)
		} else {
			fmt.Printf("wall time: %.1f s\n", now-*start)
		}
	}
	fmt.Printf("%s: %d passed, %d failed, %d skipped\n", *label, len(o.passed), len(o.failed), len(o.skipped))

	if len(o.unexpected) > 0 || len(selected) == 0 || len(r.results) == 0 || (r.pkgAction == "fail" && len(o.failed) == 0) {
		os.Exit(1)
	}
}
