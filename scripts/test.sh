#!/usr/bin/env bash
# npm test: set up, build everything, then run every suite: Catch2 natively and as WebAssembly
# under node, single-thread and threaded (with the examples and the SIMD inspection), Catch2 again
# under ASan/UBSan/LSan, a minute of fuzzing the loaders on a fixed seed, the TypeScript checks and
# unit tests, the package's JavaScript API in Node (both builds, contract, hostile input, npm pack),
# and the page in headless Chromium. Ends with one line: "N passed, N failed".
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh all
bash scripts/build.sh asan

logs=build/test-logs
mkdir -p "$logs"
passed=0
failed=0
status=0

run() {  # run NAME COMMAND…: show the output, keep it for counting
  local name=$1; shift
  echo "== $name"
  if ! "$@" 2>&1 | tee "$logs/$name.log"; then status=1; fi
}

# The counters read the runners' closing lines; a missing line counts as nothing (and the run's
# exit status still fails the whole command).
count_ctest() {
  local line total failures
  line=$(grep -E "tests passed, [0-9]+ tests? failed out of [0-9]+" "$logs/$1.log" | tail -1 || true)
  total=$(sed -E 's/.*out of ([0-9]+).*/\1/' <<<"$line")
  failures=$(sed -E 's/.*passed, ([0-9]+) tests? failed.*/\1/' <<<"$line")
  passed=$((passed + ${total:-0} - ${failures:-0})); failed=$((failed + ${failures:-0}))
}

count_node() {
  local p f
  p=$(grep -E "^# pass [0-9]+" "$logs/$1.log" | tail -1 | awk '{print $3}' || true)
  f=$(grep -E "^# fail [0-9]+" "$logs/$1.log" | tail -1 | awk '{print $3}' || true)
  passed=$((passed + ${p:-0})); failed=$((failed + ${f:-0}))
}

count_fuzz() {  # one test: the run found nothing
  if grep -qE "^fuzz: [0-9]+ inputs in [0-9]+ s, 0 findings" "$logs/$1.log"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
  fi
}

count_vitest() {
  local line p f
  line=$(grep -E "^ +Tests +" "$logs/$1.log" | tail -1 || true)
  p=$(grep -oE "[0-9]+ passed" <<<"$line" | awk '{print $1}' || true)
  f=$(grep -oE "[0-9]+ failed" <<<"$line" | awk '{print $1}' || true)
  passed=$((passed + ${p:-0})); failed=$((failed + ${f:-0}))
}

run native ctest --test-dir build/native --output-on-failure -j 2
count_ctest native
run wasm ctest --test-dir build/wasm --output-on-failure -j 2
count_ctest wasm
run wasm-threads ctest --test-dir build/wasm-threads --output-on-failure -j 2
count_ctest wasm-threads
run asan ctest --test-dir build/asan --output-on-failure -j 2
count_ctest asan
run fuzz bash scripts/fuzz.sh 60 1
count_fuzz fuzz
run typecheck npx tsc -p web/tsconfig.json --noEmit
run unit npx vitest run --root web --reporter=default --color=false
count_vitest unit
run package node --test --test-reporter=tap tests/js/
count_node package
run browser node --test --test-reporter=tap tests/e2e/
count_node browser

echo "attnlab: $passed passed, $failed failed"
[ "$failed" -eq 0 ] || status=1
exit "$status"
