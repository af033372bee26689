// node scripts/test-report.mjs LOGS: the closing report of scripts/test.sh. Reads the phases it
// timed (LOGS/phases.tsv: kind, name, seconds, exit code) and each phase's log, counts the tests
// each runner reports passed and failed (ctest, node's TAP, vitest, the fuzzer's one line), prints
// a table of the phases and the ten slowest tests, writes both to LOGS/timings.json, and ends with
// "attnlab: N passed, N failed". Exits 1 when a test or a phase failed.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** ctest: "12/106 Test  #73: native.name ....   Passed    6.95 sec" */
export function ctest(text) {
  const tests = [];
  for (const m of text.matchAll(/^\s*\d+\/\d+ Test\s+#\d+: (.+?) \.+\**\s*(\S.*?)\s+([\d.]+) sec$/gm)) {
    tests.push({ name: m[1], seconds: Number(m[3]), passed: m[2] === 'Passed' });
  }
  return tests;
}

/** node's TAP: nested "# Subtest: name" … "ok N - name" with "duration_ms: …"; the leaves are the tests */
export function tap(text) {
  const tests = [];
  const stack = [];
  const lines = text.split('\n');
  for (const [i, line] of lines.entries()) {
    const subtest = line.match(/^(\s*)# Subtest: (.*)$/);
    if (subtest) {
      if (stack.length) stack[stack.length - 1].parent = true;
      stack.push({ name: subtest[2], parent: false });
      continue;
    }
    const result = line.match(/^(\s*)(not )?ok \d+ - (.*?)(?: # (SKIP|TODO).*)?$/);
    if (!result || !stack.length) continue;
    const test = stack.pop();
    if (test.parent) continue;
    const duration = lines.slice(i + 1, i + 8).map((l) => l.match(/^\s*duration_ms: ([\d.]+)/)).find(Boolean);
    const path = [...stack.map((t) => t.name.replace(/^.*\/tests\//, 'tests/')), test.name].join(' › ');
    tests.push({ name: path, seconds: duration ? Number(duration[1]) / 1000 : 0, passed: !result[2], skipped: Boolean(result[4]) });
  }
  return tests;
}

/** vitest's summary line: "      Tests  123 passed (123)" or "Tests  1 failed | 122 passed (123)" */
export function vitest(text) {
  const line = text.match(/^\s+Tests\s+(.*)$/m)?.[1] ?? '';
  const count = (word) => Number(line.match(new RegExp(`(\\d+) ${word}`))?.[1] ?? 0);
  return { passed: count('passed'), failed: count('failed') };
}

/** counts, times and prints the phases logged in `logs`; true when every test and phase passed */
export function report(logs) {
  const phases = readFileSync(join(logs, 'phases.tsv'), 'utf8').trim().split('\n').map((row) => {
    const [kind, name, seconds, code] = row.split('\t');
    return { kind, name, seconds: Number(seconds), exitCode: Number(code) };
  });

  const slowest = [];
  for (const phase of phases.filter((p) => p.kind === 'suite')) {
    const file = join(logs, `${phase.name}.log`);
    const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
    let counts;
    if (/Test\s+#\d+:/.test(text) || /tests passed, \d+ tests? failed/.test(text)) {
      const tests = ctest(text);
      slowest.push(...tests.map((t) => ({ suite: phase.name, name: t.name, seconds: t.seconds })));
      counts = { passed: tests.filter((t) => t.passed).length, failed: tests.filter((t) => !t.passed).length };
    } else if (/^TAP version/m.test(text)) {
      const tests = tap(text).filter((t) => !t.skipped);
      slowest.push(...tests.map((t) => ({ suite: phase.name, name: t.name, seconds: t.seconds })));
      counts = { passed: tests.filter((t) => t.passed).length, failed: tests.filter((t) => !t.passed).length };
    } else if (/^\s+Tests\s+/m.test(text)) {
      counts = vitest(text);
    } else if (/^fuzz: \d+ inputs/m.test(text)) {
      // one test: the run found nothing
      const clean = /^fuzz: \d+ inputs in \d+ s on \d+ cores?, 0 findings$/m.test(text);
      counts = { passed: clean ? 1 : 0, failed: clean ? 0 : 1 };
    } else {
      counts = { passed: 0, failed: 0 };
    }
    // a runner that failed without a failing test (it crashed, or could not start) counts as one failure
    if (phase.exitCode !== 0 && counts.failed === 0) counts.failed = 1;
    Object.assign(phase, counts);
  }
  slowest.sort((a, b) => b.seconds - a.seconds);
  slowest.splice(10);

  const total = phases.reduce((sum, p) => sum + p.seconds, 0);
  const passed = phases.reduce((sum, p) => sum + (p.passed ?? 0), 0);
  const failed = phases.reduce((sum, p) => sum + (p.failed ?? 0), 0) + phases.filter((p) => p.kind !== 'suite' && p.exitCode !== 0).length;
  writeFileSync(join(logs, 'timings.json'), `${JSON.stringify({ seconds: total, passed, failed, phases, slowest }, null, 2)}\n`);

  const width = Math.max(...phases.map((p) => p.name.length), ...slowest.map((t) => t.suite.length));
  const seconds = (s) => s.toFixed(1).padStart(8);
  console.log(`\n${'phase'.padEnd(width)}  ${'seconds'.padStart(8)}  tests`);
  for (const p of phases) {
    const tests = p.kind === 'suite' ? `${p.passed} passed, ${p.failed} failed` : p.exitCode === 0 ? '' : 'FAILED';
    console.log(`${p.name.padEnd(width)}  ${seconds(p.seconds)}  ${tests}`);
  }
  console.log(`${'total'.padEnd(width)}  ${seconds(total)}  (${(total / 60).toFixed(1)} min)`);
  console.log(`\nthe ten slowest tests\n${'suite'.padEnd(width)}  ${'seconds'.padStart(8)}  test`);
  for (const t of slowest) console.log(`${t.suite.padEnd(width)}  ${seconds(t.seconds)}  ${t.name}`);
  console.log(`\nattnlab: ${passed} passed, ${failed} failed`);
  return failed === 0 && phases.every((p) => p.exitCode === 0);
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) process.exit(report(process.argv[2] ?? 'build/test-logs') ? 0 : 1);
