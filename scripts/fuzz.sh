#!/usr/bin/env bash
# npm run fuzz -- [SECONDS [SEED]]: fuzzes the loaders (tests/fuzz: safetensors, whole models,
# configs, vocabularies and the tokenizer) under ASan and UBSan for SECONDS (default 600) on every
# core (libFuzzer's fork mode: one fuzzing process per core, sharing one corpus), starting from the
# seeds the program writes; SEED fixes libFuzzer's random stream (default: a fresh one).
# A crash, sanitizer report, uncaught exception, timeout or wrong accept stops the run and is kept
# in build/fuzz/findings/. Ends with "fuzz: N inputs in S s on N cores, N findings".
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-600}
seed=${2:-0}
cores=$(nproc)

bash scripts/build.sh asan >/dev/null
fuzzer=build/asan/tests/fuzz/attnlab_fuzz
work=build/fuzz
rm -rf "$work/seeds" "$work/corpus"
mkdir -p "$work/seeds" "$work/corpus" "$work/findings"
ATTNLAB_FUZZ_SEEDS="$work/seeds" "$fuzzer"

status=0
"$fuzzer" "$work/corpus" "$work/seeds" -seed="$seed" -fork="$cores" -max_total_time="$seconds" -timeout=20 \
  -rss_limit_mb=4096 -dict=tests/fuzz/json.dict -artifact_prefix="$work/findings/" \
  -print_final_stats=1 >"$work/last-run.log" 2>&1 || status=$?
grep -E '^INFO: (Seed|fuzzed for)' "$work/last-run.log" || true
grep -E '^#[0-9]+: cov' "$work/last-run.log" | tail -n 1 || true

# the fork mode's last progress line counts every process's inputs ("#92269: cov: …")
runs=$(grep -oE '^#[0-9]+: cov' "$work/last-run.log" | tail -n 1 | tr -dc 0-9 || true)
took=$(grep -oE 'fuzzed for [0-9]+ seconds' "$work/last-run.log" | awk '{print $3}' || true)
findings=0
if [ "$status" -ne 0 ] || grep -qE 'ERROR: (libFuzzer|AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer)|runtime error:|wrong accept' "$work/last-run.log"; then
  findings=1
fi
[ "$findings" -eq 0 ] || tail -n 60 "$work/last-run.log"
echo "fuzz: ${runs:-0} inputs in ${took:-$seconds} s on $cores cores, $findings findings"
[ "$findings" -eq 0 ]
