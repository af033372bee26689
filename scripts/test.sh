#!/usr/bin/env bash
# npm test: set up, build what the suites run, then run every suite: Catch2 natively (with the
# first steps of each shipped model's training) and as WebAssembly under node (in full on the
# single-thread build, what differs on the threaded one), Catch2 again under ASan/UBSan/LSan, half
# a minute of fuzzing the loaders on every core on a fixed seed, the TypeScript checks and unit
# tests, the package's JavaScript API in Node (both builds, contract, hostile input, npm pack), and
# the page in headless Chromium.
# npm run test:full (`test.sh full`) runs the same and then the long tier: the shipped models
# retrained in full, every hostile call repeated 10,000 times, and the widgets that measure the
# engine at the deck's own sizes.
# Ends with a table of the phases and the slowest tests (also build/test-logs/timings.json) and
# one line: "N passed, N failed".
set -euo pipefail
cd "$(dirname "$0")/.."
tier=${1:-default}
logs=build/test-logs
rm -rf "$logs"
mkdir -p "$logs"
status=0

# phase KIND NAME COMMAND…: runs the command, shows its output, keeps it in $logs/NAME.log and its
# seconds in $logs/phases.tsv; a setup or build that fails stops the run, a suite that fails does not
phase() {
  local kind=$1 name=$2 start code
  shift 2
  echo "== $name"
  start=$(date +%s.%N)
  set +e
  "$@" 2>&1 | tee "$logs/$name.log"
  code=${PIPESTATUS[0]}
  set -e
  printf '%s\t%s\t%s\t%s\n' "$kind" "$name" "$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }')" \
    "$code" >> "$logs/phases.tsv"
  if [ "$code" -ne 0 ]; then
    status=1
    if [ "$kind" != suite ]; then
      node scripts/test-report.mjs "$logs" || true
      echo "$name failed" >&2
      exit "$code"
    fi
  fi
}

phase setup setup bash scripts/setup.sh
phase build build-native bash scripts/build.sh native
phase build build-wasm bash scripts/build.sh wasm-single
phase build build-wasm-threads bash scripts/build.sh wasm-threads
phase build build-engine-relaxed bash scripts/build.sh engine-relaxed
phase build build-web bash scripts/build.sh web
phase build build-package bash scripts/build.sh package
phase build build-asan bash scripts/build.sh asan

phase suite native ctest --test-dir build/native --output-on-failure -j 2 -LE full
phase suite wasm ctest --test-dir build/wasm --output-on-failure -j 2
phase suite wasm-threads ctest --test-dir build/wasm-threads --output-on-failure -j 2
phase suite asan ctest --test-dir build/asan --output-on-failure -j 2
phase suite fuzz bash scripts/fuzz.sh 30 1
phase suite typecheck npx tsc -p web/tsconfig.json --noEmit
phase suite unit npx vitest run --root web --reporter=default --color=false
phase suite package node --test --test-concurrency=2 --test-reporter=tap tests/js/
# The page's tests, two files at a time (one page loads while the other's widget draws); those
# in timed/ time the engine or the page's tasks, and run alone.
phase suite browser node --test --test-concurrency=2 --test-reporter=tap tests/e2e/*.test.mjs
phase suite browser-timed node --test --test-concurrency=1 --test-reporter=tap tests/e2e/timed/*.test.mjs
if [ "$tier" = full ]; then
  phase suite native-full ctest --test-dir build/native --output-on-failure -j 2 -L full
  # the package's tests with a long form (they read ATTNLAB_TEST_TIER), in it
  phase suite package-full env ATTNLAB_TEST_TIER=full node --test --test-concurrency=1 --test-reporter=tap \
    $(grep -l ATTNLAB_TEST_TIER tests/js/*.test.mjs)
  # the browser tests with a long form (they read ATTNLAB_TEST_TIER), in it
  phase suite browser-full env ATTNLAB_TEST_TIER=full node --test --test-concurrency=1 --test-reporter=tap \
    $(grep -l ATTNLAB_TEST_TIER tests/e2e/*.test.mjs tests/e2e/timed/*.test.mjs)
fi

node scripts/test-report.mjs "$logs" || status=1
exit "$status"
