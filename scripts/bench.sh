#!/usr/bin/env bash
# npm run bench: set up, build, then time the attention kernels natively, as WebAssembly in Node
# and in headless Chromium (single-thread build, threaded build with 1 and 2 threads).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh native wasm package
node tests/bench/run.mjs
