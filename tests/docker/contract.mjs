// Helpers of tests/docker/run.sh: each subcommand checks one thing against files the script
// saved (raw container logs, downloaded certificates, probe answers), prints why when it fails
// and exits 0 (holds) or 1 (does not).
//
//   node contract.mjs log-pattern <java|python|go|node|dotnet> <stdout-file>
//   node contract.mjs startup-lines <stdout-file> <protocol> <port> <health-port|-> <explorer-port|->
//   node contract.mjs pem <file>                       one PEM certificate (a CA), nothing else
//   node contract.mjs probe-json <file> <explorer: healthy|disabled> <protocol>
//   node contract.mjs healthcheck-cmd <image-inspect-json>  prints the HEALTHCHECK command, one word a line
//   node contract.mjs started-ns <podman-logs-t-file>       prints the timestamp (ns) of the Started line
import { readFileSync } from 'node:fs';
import { X509Certificate } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';

const [cmd, ...args] = process.argv.slice(2);

function fail(why) {
  console.log(why);
  process.exit(1);
}
const show = (s) => JSON.stringify(s.length > 400 ? '…' + s.slice(-400) : s);

// The lines a log is made of, each with its terminator, as container log frames carry them.
const frames = (text) => text.split(/(?<=\n)/);

// How each official Testcontainers module (and Aspire for .NET) waits for the emulator.
const HARNESSES = {
  // Java (LogMessageWaitStrategy): some frame (one line with its terminator) matches the whole
  // regex `.*Started\r\n$`; `.` matches no line terminator, so the line must end in exactly CRLF.
  java: (log) => frames(log).some((line) => /^.*Started\r\n$/.test(line)),
  // Python: re.search(r"Started\s*$"), at the end of the output: Started is the last line printed.
  python: (log) => /Started\s*$/.test(log),
  // Go: wait.ForLog("Started"), a substring of the log.
  go: (log) => log.includes('Started'),
  // Node: Wait.forLogMessage("Now listening on: "), a substring of a line.
  node: (log) => frames(log).some((line) => line.includes('Now listening on: ')),
  // .NET: UntilMessageIsLogged("Started"), a regex over the output.
  dotnet: (log) => /Started/.test(log),
};

switch (cmd) {
  case 'log-pattern': {
    const [harness, file] = args;
    const log = readFileSync(file, 'latin1');  // raw bytes: CR and LF kept as they are
    if (!HARNESSES[harness]) fail(`unknown harness ${harness}`);
    if (!HARNESSES[harness](log)) fail(`${harness}: no match in the log ${show(log)}`);
    break;
  }

  case 'startup-lines': {
    // Optional `cosmos-emulator: ...` lines, then one "Now listening on:" per scheme served
    // (https first), "Health probes on:", "Explorer page on:", and "Started" + CRLF last.
    const [file, protocol, port, health, explorer] = args;
    const log = readFileSync(file, 'latin1');
    const lines = frames(log);
    const expected = [];
    if (protocol !== 'http') expected.push(`Now listening on: https://0.0.0.0:${port}\n`);
    if (protocol !== 'https' && protocol !== 'https-insecure') expected.push(`Now listening on: http://0.0.0.0:${port}\n`);
    if (health !== '-') expected.push(`Health probes on: http://0.0.0.0:${health}/ready\n`);
    if (explorer !== '-') expected.push(new RegExp(`^Explorer page on: https?://0\\.0\\.0\\.0:${explorer}/\\n$`));
    expected.push('Started\r\n');
    const isInfo = (l) => l.startsWith('cosmos-emulator: ');
    const firstRest = lines.findIndex((l) => !isInfo(l));
    const rest = firstRest < 0 ? [] : lines.slice(firstRest);
    if (rest.some(isInfo)) fail(`an info line after the listening lines: ${show(log)}`);
    if (rest.length !== expected.length) fail(`expected ${expected.length} start-up lines after the info lines, got ${show(rest.join(''))}`);
    rest.forEach((line, i) => {
      const e = expected[i];
      const ok = e instanceof RegExp ? e.test(line) : line === e;
      if (!ok) fail(`line ${i + 1} after the info lines: expected ${e instanceof RegExp ? e : JSON.stringify(e)}, got ${JSON.stringify(line)}`);
    });
    break;
  }

  case 'pem': {
    const text = readFileSync(args[0], 'utf8');
    const blocks = text.match(/-----BEGIN [A-Z0-9 ]+-----/g) ?? [];
    if (blocks.length !== 1 || blocks[0] !== '-----BEGIN CERTIFICATE-----')
      fail(`expected one CERTIFICATE block, found ${JSON.stringify(blocks)}`);
    if (!/^-----BEGIN CERTIFICATE-----\r?\n[A-Za-z0-9+/=\r\n]+-----END CERTIFICATE-----\r?\n?$/.test(text))
      fail(`not a lone PEM certificate: ${show(text)}`);
    let cert;
    try {
      cert = new X509Certificate(text);
    } catch (err) {
      fail(`does not parse: ${err.message}`);
    }
    // The emulator's root (a CA of its own), which signed the certificate it serves: trusting it
    // trusts that one (the https checks below connect as localhost and 127.0.0.1 trusting it alone).
    if (!cert.ca) fail(`not a CA certificate (the served certificate's root): ${cert.subject}`);
    if (new Date(cert.validTo) < new Date()) fail(`expired ${cert.validTo}`);
    console.log(`${cert.subject.replace(/\n/g, ', ')}; ${cert.subjectAltName}; valid to ${cert.validTo}`);
    break;
  }

  case 'probe-json': {
    const [file, explorer, protocol] = args;
    const text = readFileSync(file, 'utf8');
    let doc;
    try {
      doc = JSON.parse(text);
    } catch {
      fail(`not JSON: ${show(text)}`);
    }
    const expected = {
      alive: true,
      checks: { explorer, gateway: 'healthy', postgres: 'healthy', store: 'healthy' },
      overall: true,
      protocol,
      ready: true,
      status: 'healthy',
      emulator: 'cosmos-emulator',
    };
    if (!isDeepStrictEqual(doc, expected)) fail(`got ${text.trim()}, expected ${JSON.stringify(expected)}`);
    break;
  }

  case 'healthcheck-cmd': {
    // `podman/docker image inspect` output: the HEALTHCHECK's Test array, ["CMD", argv...].
    const [info] = JSON.parse(readFileSync(args[0], 'utf8'));
    // docker: Config.Healthcheck; podman: Healthcheck at the top level.
    const hc = info?.Config?.Healthcheck ?? info?.Healthcheck ?? info?.ContainerConfig?.Healthcheck;
    const test = hc?.Test;
    if (!Array.isArray(test) || test[0] !== 'CMD') fail(`no exec-form HEALTHCHECK in the image: ${JSON.stringify(hc)}`);
    console.log(test.slice(1).join('\n'));
    break;
  }

  case 'started-ns': {
    // `podman logs -t` lines: "<RFC 3339 time with ns> <line>".
    const line = readFileSync(args[0], 'latin1').split('\n').find((l) => / Started\r?$/.test(l));
    if (!line) fail('no Started line');
    const m = line.match(/^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d+))?(Z|[+-]\d\d:\d\d)/);
    if (!m) fail(`no timestamp on ${JSON.stringify(line)}`);
    const ms = Date.parse(m[1] + m[3]);
    console.log((BigInt(ms) * 1000000n + BigInt((m[2] ?? '').padEnd(9, '0').slice(0, 9))).toString());
    break;
  }

  default:
    fail(`unknown subcommand ${cmd}`);
}
