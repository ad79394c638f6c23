"""Verdict of a run of the azure-cosmos 4.x suite: counts, known failures, exit status.

usage: verdict.py RESULTS_JSON KNOWN_FAILURES_TXT PYTEST_EXIT_CODE WALL_SECONDS [subset]
("subset": pytest got extra arguments, so listed tests missing from the run are only counted)

Exit 1 when: pytest ran no test (exit 5) or could not run (exit 2/3/4, no results file),
or any test failed/errored that known_failures.txt does not list. Tests that are listed
but passed are reported (the list should shrink), they do not fail the run.
known_failures.txt: one node id a line, then " # " and a one-line reason; blank lines and
lines starting with "#" are ignored. A reason starting with "FLAKY" marks a test that fails only
sometimes (a race, not a steady deviation): it may fail or pass, and is not reported as fixed.
"""
import json
import sys


def load_known(path):
    known = {}
    with open(path, encoding="utf-8") as f:
        for n, raw in enumerate(f, 1):
            line = raw.rstrip("\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            nodeid, sep, reason = line.partition(" # ")
            nodeid = nodeid.strip()
            if not sep or not reason.strip():
                sys.exit("%s:%d: every entry needs ' # <reason>': %r" % (path, n, line))
            if nodeid in known:
                sys.exit("%s:%d: duplicate entry %s" % (path, n, nodeid))
            known[nodeid] = reason.strip()
    return known


def main():
    results_path, known_path, rc_text, wall_text = sys.argv[1:5]
    pytest_rc = int(rc_text)
    wall = float(wall_text)
    subset = len(sys.argv) > 5 and sys.argv[5] == "subset"
    known = load_known(known_path)
    try:
        with open(results_path, encoding="utf-8") as f:
            tests = json.load(f)["tests"]
    except (OSError, ValueError) as e:
        print("py4: no results from pytest (%s); pytest exit code %d" % (e, pytest_rc))
        return 1

    counts = {}
    for r in tests.values():
        counts[r["outcome"]] = counts.get(r["outcome"], 0) + 1
    bad = sorted(n for n, r in tests.items() if r["outcome"] in ("failed", "error"))
    unexpected = [n for n in bad if n not in known]
    expected = [n for n in bad if n in known]
    flaky = {n for n, reason in known.items() if reason.upper().startswith("FLAKY")}
    fixed = sorted(n for n in known if n not in flaky and n in tests and tests[n]["outcome"] in ("passed", "xpassed"))
    flaky_failed = sorted(n for n in flaky if n in tests and tests[n]["outcome"] in ("failed", "error"))
    stale = sorted(n for n in known if n not in tests)
    skipped_known = sorted(n for n in known if n in tests and tests[n]["outcome"] == "skipped")

    total = len(tests)
    skipped = counts.get("skipped", 0) + counts.get("xfailed", 0)
    passed = counts.get("passed", 0) + counts.get("xpassed", 0)
    failed = counts.get("failed", 0)
    errors = counts.get("error", 0)
    # "reached the emulator": the test (its setup, call or teardown) sent at least one HTTP request
    # to the emulator's port (counted by shim/py4_report.py) and was not skipped.
    # A class whose setUpClass failed records its requests under its first test only; its other tests
    # re-raise that error without a request. So a test counts when it, or a test of its class, sent one.
    def owner(nodeid):
        return nodeid.rsplit("::", 1)[0] if nodeid.count("::") >= 2 else nodeid
    classes_reaching = {owner(n) for n, r in tests.items() if r.get("requests", 0) > 0}
    reach = [r for n, r in tests.items()
             if (r.get("requests", 0) > 0 or owner(n) in classes_reaching)
             and r["outcome"] not in ("skipped", "xfailed")]
    reach_pass = sum(1 for r in reach if r["outcome"] in ("passed", "xpassed"))
    reach_bad = len(reach) - reach_pass

    print()
    print("=" * 78)
    print("azure-cosmos 4.x suite against the emulator")
    print("  tests selected: %d: passed %d, failed %d, errors %d, skipped %d" % (total, passed, failed, errors, skipped))
    print("  reached the emulator (it or its class sent >= 1 request; not skipped): %d: passed %d, failed/errors %d"
          % (len(reach), reach_pass, reach_bad))
    print("  no request to the emulator (unit tests under the marker): %d" % (total - skipped - len(reach)))
    if reach:
        print("  pass rate of tests reaching the emulator: %.1f%%" % (100.0 * reach_pass / len(reach)))
    print("  known failures (known_failures.txt): %d listed (%d of them flaky), %d failed as listed (%d flaky ones)"
          % (len(known), len(flaky), len(expected), len(flaky_failed)))
    if fixed:
        print("\nListed as known failures but PASSED now (remove them from known_failures.txt):")
        for n in fixed:
            print("  + " + n)
    if skipped_known:
        print("\nListed as known failures but SKIPPED in this run:")
        for n in skipped_known:
            print("  ~ " + n)
    if stale and subset:
        print("\n%d listed known failures were not selected by this partial run" % len(stale))
    elif stale:
        print("\nListed as known failures but not in this run (renamed? not selected?):")
        for n in stale:
            print("  ? " + n)
    if unexpected:
        print("\nFAILED / ERROR and NOT in known_failures.txt:")
        for n in unexpected:
            msg = tests[n]["message"].splitlines()
            print("  - %s [%s]%s" % (n, tests[n]["outcome"], (": " + msg[0][:200]) if msg else ""))
    print("\n  wall time: %.0f s (%.1f min)" % (wall, wall / 60))

    verdict_ok = True
    if pytest_rc == 5 or total == 0:
        print("py4: pytest ran no test (exit code %d): failing" % pytest_rc)
        verdict_ok = False
    elif pytest_rc not in (0, 1):
        print("py4: pytest stopped abnormally (exit code %d): failing" % pytest_rc)
        verdict_ok = False
    if unexpected:
        print("py4: %d unexpected failure(s)/error(s): failing" % len(unexpected))
        verdict_ok = False
    # The closing line in the plain form CI reads: 'N passed, N failed' (+ skipped).
    print("python4: %d passed, %d failed, %d skipped" % (passed, failed + errors, skipped))
    return 0 if verdict_ok else 1


if __name__ == "__main__":
    sys.exit(main())
