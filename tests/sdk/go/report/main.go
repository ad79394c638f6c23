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

	results := map[string]*result{} // top-level tests and subtests
	var order []string              // first-seen order
	var pkgOutput []string          // output outside any test
	pkgAction := ""
	get := func(name string) *result {
		r, ok := results[name]
		if !ok {
			r = &result{}
			results[name] = r
			order = append(order, name)
		}
		return r
	}

	rd := bufio.NewReaderSize(os.Stdin, 1<<20)
	for {
		line, err := rd.ReadBytes('\n')
		if len(line) > 0 {
			var ev event
			if json.Unmarshal(line, &ev) != nil || ev.Action == "" {
				pkgOutput = append(pkgOutput, strings.TrimRight(string(line), "\n"))
			} else if ev.Test == "" {
				switch ev.Action {
				case "output":
					pkgOutput = append(pkgOutput, strings.TrimRight(ev.Output, "\n"))
				case "pass", "fail", "skip":
					pkgAction = ev.Action
				}
			} else {
				r := get(ev.Test)
				switch ev.Action {
				case "run":
					r.action = "run"
				case "output":
					r.output = append(r.output, strings.TrimRight(ev.Output, "\n"))
					// test2json leaves Elapsed out with -test.v=test2json: take it from "--- PASS: name (1.23s)".
					if m := resultLine.FindStringSubmatch(ev.Output); m != nil && m[1] == ev.Test {
						r.elapsed, _ = strconv.ParseFloat(m[2], 64)
					}
				case "pass", "fail", "skip":
					r.action = ev.Action
					if ev.Elapsed > 0 {
						r.elapsed = ev.Elapsed
					}
					if !strings.Contains(ev.Test, "/") {
						fmt.Printf("%-4s %s (%.2fs)\n", strings.ToUpper(ev.Action), ev.Test, r.elapsed)
					}
				}
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "report:", err)
			os.Exit(2)
		}
	}

	var passed, failed, skipped []string
	var unexpected, nowPass, unfinished []string
	for _, name := range selected {
		r := results[name]
		switch {
		case r == nil || r.action == "":
			unfinished = append(unfinished, name+" (never started)")
			failed = append(failed, name)
		case r.action == "run":
			unfinished = append(unfinished, name+" (started, never finished: the test binary ended)")
			failed = append(failed, name)
		case r.action == "pass":
			passed = append(passed, name)
		case r.action == "skip":
			skipped = append(skipped, name)
		default:
			failed = append(failed, name)
		}
	}
	for _, name := range failed {
		if _, ok := known[name]; !ok {
			unexpected = append(unexpected, name)
		}
	}
	for _, name := range passed {
		if _, ok := known[name]; ok {
			nowPass = append(nowPass, name)
		}
	}
	sel := map[string]bool{}
	for _, n := range selected {
		sel[n] = true
	}
	var stale []string
	for name := range known {
		if !sel[name] {
			stale = append(stale, name)
		}
	}
	sort.Strings(stale)

	if len(failed) > 0 {
		fmt.Println("\n==== output of the failed tests ====")
	}
	for _, name := range failed {
		reason, isKnown := known[name]
		tag := "NEW FAILURE"
		if isKnown {
			tag = "known: " + reason
		}
		fmt.Printf("\n--- %s [%s]\n", name, tag)
		var failedSubs []string
		for _, sub := range order {
			if strings.HasPrefix(sub, name+"/") && results[sub].action == "fail" {
				failedSubs = append(failedSubs, sub)
			}
		}
		if len(failedSubs) > 0 {
			fmt.Printf("    failed subtests: %s\n", strings.Join(failedSubs, ", "))
		}
		var lines []string
		for _, n := range order {
			if n != name && !strings.HasPrefix(n, name+"/") {
				continue
			}
			for _, l := range results[n].output {
				t := strings.TrimSpace(l)
				if strings.HasPrefix(t, "=== RUN") || strings.HasPrefix(t, "=== PAUSE") || strings.HasPrefix(t, "=== CONT") || strings.HasPrefix(t, "=== NAME") {
					continue
				}
				lines = append(lines, "    "+l)
			}
		}
		if len(lines) > *maxLines {
			more := len(lines) - *maxLines
			lines = append(lines[:*maxLines], fmt.Sprintf("    ... %d more lines in the JSON log", more))
		}
		for _, l := range lines {
			fmt.Println(l)
		}
	}

	fmt.Println()
	if pkgAction == "fail" && len(failed) == 0 {
		fmt.Println("the test binary failed outside any test:")
		for _, l := range pkgOutput {
			fmt.Println("    " + l)
		}
	}
	for _, u := range unfinished {
		fmt.Println("did not finish:", u)
	}
	if len(nowPass) > 0 {
		fmt.Printf("listed in known_failures.txt but PASSED now (remove them from the list): %s\n", strings.Join(nowPass, ", "))
	}
	if len(stale) > 0 {
		fmt.Printf("listed in known_failures.txt but not among the selected tests: %s\n", strings.Join(stale, ", "))
	}
	knownFailed := len(failed) - len(unexpected)
	fmt.Printf("selected emulator tests: %d; passed %d, failed %d (%d listed as known, %d new), skipped %d\n",
		len(selected), len(passed), len(failed), knownFailed, len(unexpected), len(skipped))
	if len(unexpected) > 0 {
		fmt.Printf("NEW FAILURES (not in known_failures.txt): %s\n", strings.Join(unexpected, ", "))
	}
	if *start > 0 {
		now := float64(time.Now().UnixNano()) / 1e9
		if *testsStart > 0 {
			fmt.Printf("wall time: %.1f s (tests %.1f s, setup before them %.1f s)\n", now-*start, now-*testsStart, *testsStart-*start)
		} else {
			fmt.Printf("wall time: %.1f s\n", now-*start)
		}
	}
	fmt.Printf("%s: %d passed, %d failed, %d skipped\n", *label, len(passed), len(failed), len(skipped))

	if len(unexpected) > 0 || len(selected) == 0 || len(results) == 0 || (pkgAction == "fail" && len(failed) == 0) {
		os.Exit(1)
	}
}
