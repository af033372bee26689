#!/usr/bin/env bash
# npm run bench [-- --peers]: set up, build, then time the engine natively, as WebAssembly in Node
# and in headless Chromium (single-thread build, threaded build with 1 and 2 threads); --peers also
# installs onnxruntime-web and TensorFlow.js (tests/bench/peers, its own lockfile) and compares.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh native engine web package
if [[ " $* " == *" --peers "* ]]; then npm ci --prefix tests/bench/peers --no-audit --no-fund; fi
node tests/bench/run.mjs "$@"
