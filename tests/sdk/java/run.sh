#!/usr/bin/env bash
# The Java SDK suite: com.azure:azure-cosmos and Spring Data Cosmos against the emulator binary, in
# the connection mode $COSMOS_CONNECTION_MODE names: gateway (HTTPS; the default) or direct (the
# SDK's default: RNTBD over TLS to the emulator's Direct port, docs/direct-mode.md). The emulator
# binary is ${COSMOS_EMULATOR_BIN:-<repo>/build/emulator/cosmos-emulator}. Installs a JDK 17, Maven
# and python3 from Debian when missing, runs `mvn -B test` (dependencies cached in Maven's default
# ~/.m2, or in $MAVEN_REPO_LOCAL), and judges the run from the Surefire XML reports.
#
# Verdict: exit 0 when every failed test is listed in tests/sdk/java/known_failures.txt (or, in
# Direct mode, known_failures_direct.txt) (a test id `Class#method` as in the Surefire reports, e.g.
# `QueryTest#topWithAndWithoutOrderBy` or, for one invocation of a parameterized test,
# `FullTextTest#ranksByFullTextScoreAndByRrfWithVectors(int)[1]`; an id without the parameter part
# covers every invocation; blanks; a one-line reason). Exit 1 when a test not listed fails, when
# Maven fails for another reason than failed tests (a compile error, a crashed test JVM), when a
# test class produced no report, or when no test ran. Listed tests that pass are printed (remove
# them from the list). Prints the failed tests, the counts (`N passed, N failed, N skipped`, true
# counts, listed failures included), `known failures: K (listed)` and the wall time.
set -uo pipefail
start=$(date +%s)
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"

need_install=()
if ! command -v javac >/dev/null 2>&1 || ! javac -version 2>&1 | grep -Eq 'javac (1[7-9]|2[0-9])'; then
  need_install+=(openjdk-17-jdk-headless)
fi
command -v mvn >/dev/null 2>&1 || need_install+=(maven)
command -v python3 >/dev/null 2>&1 || need_install+=(python3)
if [ ${#need_install[@]} -gt 0 ]; then
  echo "installing: ${need_install[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq && apt-get install -y -qq "${need_install[@]}" >/dev/null || { echo "apt-get install failed"; exit 1; }
fi

bin="${COSMOS_EMULATOR_BIN:-$repo/build/emulator/cosmos-emulator}"
if [ -z "${COSMOS_ENDPOINT:-}" ] && [ ! -x "$bin" ]; then
  echo "no emulator binary at $bin (build it: ninja -C build, or set COSMOS_EMULATOR_BIN)"
  exit 1
fi
export COSMOS_EMULATOR_BIN="$bin"

# Failed tests do not fail Maven (maven.test.failure.ignore): the verdict on tests comes from the
# reports and known_failures.txt, and a non-zero Maven exit then means something else went wrong.
# -fae: the spring module runs even when the sdk module fails.
mvn_args=(-B -q -fae test -Dsurefire.printSummary=false -Dmaven.test.failure.ignore=true)
[ -n "${MAVEN_REPO_LOCAL:-}" ] && mvn_args+=("-Dmaven.repo.local=$MAVEN_REPO_LOCAL")
cd "$here" || exit 1
rm -rf ./*/target/surefire-reports
nice -n 5 mvn "${mvn_args[@]}"
mvn_rc=$?

mode="${COSMOS_CONNECTION_MODE:-gateway}"
python3 - "$here" "$mvn_rc" "$start" "$mode" <<'PY'
import glob, os, re, sys, time
import xml.etree.ElementTree as ET

here, mvn_rc, start, mode = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
# known_failures.txt holds both modes' known failures; known_failures_direct.txt what fails in
# Direct mode only.
known_paths = [os.path.join(here, "known_failures.txt")]
if mode == "direct":
    known_paths.append(os.path.join(here, "known_failures_direct.txt"))
problems = []

known = {}
for known_path in (p for p in known_paths if os.path.exists(p)):
    for line in open(known_path, encoding="utf-8"):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        parts = line.split(None, 1)
        if len(parts) < 2:
            print(f"{known_path}: '{parts[0]}' has no reason")
            sys.exit(1)
        known[parts[0]] = parts[1].strip()

def listed(tid):
    """The known_failures.txt entry covering a test id: exact, or Class#method for every invocation."""
    if tid in known:
        return tid
    base = re.sub(r"[(\[].*$", "", tid)
    return base if base in known else None

# The test classes each module should report on: Surefire's default includes, with a test method,
# not abstract.
expected = []
for mod in sorted(glob.glob(os.path.join(here, "*", "src", "test", "java"))):
    module = mod.split(os.sep)[-4]
    for path in glob.glob(os.path.join(mod, "**", "*.java"), recursive=True):
        name = os.path.basename(path)[:-5]
        if not (name.startswith("Test") or name.endswith(("Test", "Tests", "TestCase"))):
            continue
        src = open(path, encoding="utf-8").read()
        if re.search(r"\babstract\s+class\b", src) or not re.search(r"@(Test|ParameterizedTest|RepeatedTest|TestFactory|TestTemplate)\b", src):
            continue
        fqcn = os.path.relpath(path, mod)[:-5].replace(os.sep, ".")
        expected.append((module, fqcn))

results = []  # (id, status, message)
reported = set()
for path in sorted(glob.glob(os.path.join(here, "*", "target", "surefire-reports", "TEST-*.xml"))):
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as e:
        problems.append(f"unreadable report {path}: {e}")
        continue
    reported.add(os.path.basename(path)[5:-4])
    for tc in root.iter("testcase"):
        cls = (tc.get("classname") or root.get("name") or "?").split(".")[-1]
        name = tc.get("name") or "(class)"
        tid = f"{cls}#{name}"
        bad = tc.find("failure")
        if bad is None:
            bad = tc.find("error")
        if bad is not None:
            msg = (bad.get("message") or bad.get("type") or "").strip().splitlines()
            results.append((tid, "failed", (bad.get("type") or "") + (": " + msg[0] if msg else "")))
        elif tc.find("skipped") is not None:
            results.append((tid, "skipped", ""))
        else:
            results.append((tid, "passed", ""))

for module, fqcn in expected:
    if fqcn not in reported:
        problems.append(f"no Surefire report for {fqcn} (module {module}): it did not compile or its JVM ended early")
if mvn_rc != 0:
    problems.append(f"maven exited with {mvn_rc} although failed tests do not fail it here: a compile error, a crashed test JVM or a plugin error (see above)")

passed = [t for t, s, _ in results if s == "passed"]
failed = [(t, m) for t, s, m in results if s == "failed"]
skipped = [t for t, s, _ in results if s == "skipped"]
new = [t for t, _ in failed if not listed(t)]
known_failed = [t for t, _ in failed if listed(t)]
now_pass = sorted({listed(t) for t in passed if listed(t)} - {listed(t) for t in known_failed})
used = {listed(t) for t, _, _ in results if listed(t)}
stale = sorted(set(known) - used)

print()
if failed:
    print("failed tests:")
    for t, m in failed:
        tag = "known: " + known[listed(t)] if listed(t) else "NEW FAILURE"
        print(f"  {t}  [{tag}]")
        print(f"      {m[:300]}")
for p in problems:
    print("PROBLEM:", p)
if now_pass:
    print("listed in known_failures.txt but PASSED now (remove them from the list):", ", ".join(now_pass))
if stale:
    print("listed in known_failures.txt but no such test ran:", ", ".join(stale))
if new:
    print("NEW FAILURES (not in known_failures.txt):", ", ".join(new))
print(f"java sdk tests ({mode} mode): {len(results)} tests in {len(reported)} classes (expected {len(expected)}), maven exit {mvn_rc}, wall time {int(time.time()) - start} s")
print(f"{len(passed)} passed, {len(failed)} failed, {len(skipped)} skipped")
print(f"known failures: {len(known_failed)} (listed)")
if not results:
    print("no test ran")
    sys.exit(1)
sys.exit(1 if new or problems else 0)
PY
