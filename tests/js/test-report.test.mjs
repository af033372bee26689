// npm test's closing report: it reads each runner's own output, so a pass, a failure and a runner
// that never got to its tests are each counted, and the slowest tests named.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ctest, report, tap, vitest } from '../../scripts/test-report.mjs';

const CTEST = `Test project /x/build/native
      Start  1: native.softmax rows
 1/3 Test  #1: native.softmax rows .............................   Passed    0.05 sec
 2/3 Test  #2: native.reproduce.sort.first-100-steps ...........***Failed    2.51 sec
 3/3 Test  #3: native.the fortunes model predicts held-out English text ...   Passed    6.95 sec

67% tests passed, 1 tests failed out of 3
`;

const TAP = `TAP version 13
# Subtest: the deck
    # Subtest: walks every slide
    ok 1 - walks every slide
      ---
      duration_ms: 8073.6
      ...
    # Subtest: prints one slide per page
    not ok 2 - prints one slide per page
      ---
      duration_ms: 1853.5
      ...
    1..2
not ok 1 - the deck
  ---
  duration_ms: 9927.1
  type: 'suite'
  ...
# Subtest: a lone test
ok 2 - a lone test
  ---
  duration_ms: 12.5
  ...
# Subtest: not yet
ok 3 - not yet # SKIP
  ---
  duration_ms: 0.1
  ...
`;

it('reads ctest, node and vitest output', () => {
  assert.deepEqual(ctest(CTEST), [
    { name: 'native.softmax rows', seconds: 0.05, passed: true },
    { name: 'native.reproduce.sort.first-100-steps', seconds: 2.51, passed: false },
    { name: 'native.the fortunes model predicts held-out English text', seconds: 6.95, passed: true },
  ]);
  assert.deepEqual(tap(TAP).map((t) => [t.name, t.seconds, t.passed, t.skipped]), [
    ['the deck › walks every slide', 8.0736, true, false],
    ['the deck › prints one slide per page', 1.8535, false, false],
    ['a lone test', 0.0125, true, false],
    ['not yet', 0.0001, true, true],
  ]);
  assert.deepEqual(vitest('\n Test Files  2 failed | 20 passed (22)\n      Tests  3 failed | 120 passed (123)\n'), { passed: 120, failed: 3 });
});

it('tables the phases, counts every suite, and fails on a failed test or a runner that stopped', () => {
  const logs = mkdtempSync(join(tmpdir(), 'attnlab-report-'));
  writeFileSync(join(logs, 'phases.tsv'), ['setup\tsetup\t1.5\t0', 'build\tbuild-native\t100.0\t0', 'suite\tnative\t10.0\t8',
    'suite\tbrowser\t20.0\t1', 'suite\tfuzz\t61.0\t0', 'suite\ttypecheck\t3.0\t2'].join('\n'));
  writeFileSync(join(logs, 'native.log'), CTEST);
  writeFileSync(join(logs, 'browser.log'), TAP);
  writeFileSync(join(logs, 'fuzz.log'), 'fuzz: 1800 inputs in 30 s on 2 cores, 0 findings\n');
  writeFileSync(join(logs, 'typecheck.log'), 'error TS2322: nope\n');
  const lines = [];
  const log = console.log;
  console.log = (line) => lines.push(line);
  let ok;
  try {
    ok = report(logs);
  } finally {
    console.log = log;
  }
  assert.equal(ok, false);
  const timings = JSON.parse(readFileSync(join(logs, 'timings.json'), 'utf8'));
  assert.equal(timings.seconds, 195.5);
  assert.deepEqual(timings.phases.filter((p) => p.kind === 'suite').map((p) => [p.name, p.passed, p.failed]),
    [['native', 2, 1], ['browser', 2, 1], ['fuzz', 1, 0], ['typecheck', 0, 1]]);
  assert.deepEqual([timings.passed, timings.failed], [5, 3]);
  assert.deepEqual(timings.slowest.slice(0, 2).map((t) => [t.suite, t.seconds]), [['browser', 8.0736], ['native', 6.95]]);
  assert.equal(lines.at(-1), '\nattnlab: 5 passed, 3 failed');
  assert.ok(lines.some((line) => /^build-native +100\.0 *$/.test(line)), lines.join('\n'));
});
