"""pytest plugin (loaded with `-p py4_report`): one outcome per test node id, written as JSON.

Outcome of a node = the worst of its phases: a failing setup or teardown is "error", a failing
call is "failed", a skip in any phase is "skipped" (unless something failed), xfail/xpass are
kept apart. Collection errors are recorded under the collector's node id as "error".
The file named by PY4_RESULTS receives {"exitstatus": N, "tests": {nodeid: {...}}}.

Each entry also counts the HTTP requests the test sent to the emulator ("requests": setup + call +
teardown; PY4_PORT names the emulator's port): the suite's cosmosEmulator marker also covers pure unit
tests, and this tells which tests actually reached the emulator. The count comes from pass-through
wrappers around urllib3's HTTPConnectionPool.urlopen (sync client, via requests) and aiohttp's
ClientSession._request (async client); they change nothing in the requests.
"""
import functools
import json
import os
import time

import pytest

_results = {}
_started = time.time()
_port = int(os.environ.get("PY4_PORT", "8081"))
_requests = [0]


def _is_emulator(host, port):
    return host in ("localhost", "127.0.0.1", "::1", "[::1]") and port == _port


def _install_counters():
    try:
        import urllib3.connectionpool as cp
        orig = cp.HTTPConnectionPool.urlopen

        @functools.wraps(orig)
        def urlopen(self, *args, **kwargs):
            if _is_emulator(self.host, self.port):
                _requests[0] += 1
            return orig(self, *args, **kwargs)
        cp.HTTPConnectionPool.urlopen = urlopen
    except ImportError:
        pass
    try:
        import aiohttp
        from yarl import URL
        orig_req = aiohttp.ClientSession._request

        @functools.wraps(orig_req)
        def _request(self, method, str_or_url, *args, **kwargs):
            try:
                u = URL(str_or_url)
                if _is_emulator(u.host, u.port):
                    _requests[0] += 1
            except Exception:  # counting must never break a request
                pass
            return orig_req(self, method, str_or_url, *args, **kwargs)
        aiohttp.ClientSession._request = _request
    except ImportError:
        pass


def pytest_configure(config):
    _install_counters()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    before = _requests[0]
    yield
    entry = _results.get(item.nodeid)
    if entry is not None:
        entry["requests"] = _requests[0] - before

_RANK = {"passed": 0, "xpassed": 1, "xfailed": 1, "skipped": 2, "failed": 3, "error": 4}


def _short(report):
    text = getattr(report, "longreprtext", "") or ""
    if report.skipped and isinstance(report.longrepr, tuple) and len(report.longrepr) == 3:
        text = str(report.longrepr[2])
    lines = [l for l in text.splitlines() if l.strip()]
    # The "E   ..." lines carry the assertion / exception; keep the first few of them.
    e_lines = [l.strip() for l in lines if l.lstrip().startswith("E ")]
    picked = e_lines[:6] if e_lines else lines[-3:]
    return "\n".join(picked)[:1500]


def _set(nodeid, outcome, report, when):
    cur = _results.get(nodeid)
    entry = {"outcome": outcome, "when": when, "duration": round(getattr(report, "duration", 0.0), 3),
             "message": _short(report) if outcome not in ("passed",) else ""}
    if cur is None:
        _results[nodeid] = entry
        return
    cur["duration"] = round(cur["duration"] + entry["duration"], 3)
    if _RANK[outcome] > _RANK[cur["outcome"]]:
        cur.update(outcome=outcome, when=when, message=entry["message"])


def pytest_runtest_logreport(report):
    if report.when == "call":
        if hasattr(report, "wasxfail"):
            outcome = "xpassed" if report.passed else "xfailed"
        elif report.passed:
            outcome = "passed"
        elif report.skipped:
            outcome = "skipped"
        else:
            outcome = "failed"
    else:  # setup / teardown
        if report.passed:
            outcome = "passed"
        elif report.skipped:
            outcome = "skipped"
        else:
            outcome = "error"
    _set(report.nodeid, outcome, report, report.when)


def pytest_collectreport(report):
    if report.failed:
        _set(report.nodeid or "<collection>", "error", report, "collect")


def pytest_sessionfinish(session, exitstatus):
    path = os.environ.get("PY4_RESULTS")
    if not path:
        return
    with open(path, "w", encoding="utf-8") as f:
        json.dump({"exitstatus": int(exitstatus), "seconds": round(time.time() - _started, 1),
                   "tests": _results}, f, indent=1, sort_keys=True)
