#!/usr/bin/env bash
# npm run bench [-- --peers]: set up, build, then time the engine natively, as WebAssembly in Node
# and in headless Chromium (single-thread build, threaded build with 1 and 2 threads); --peers also
# installs onnxruntime-web and TensorFlow.js (tests/bench/peers, its own lockfile) and compares.
# npm run bench -- --only gpt2: GPT-2 small from a file in Chromium beside onnxruntime-web alone
# (the peers installed, no native build).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
if [[ " $* " == *" --only gpt2 "* ]]; then
  bash scripts/build.sh engine web package
else
  bash scripts/build.sh native engine web package
fi
if [[ " $* " == *" --peers "* || " $* " == *" --only gpt2 "* ]]; then npm ci --prefix tests/bench/peers --no-audit --no-fund; fi
node tests/bench/run.mjs "$@"
