#!/usr/bin/env bash
# Builds the parts named on the command line: native (library, tests, examples), wasm (the same
# sources with Emscripten, plus the browser module), web (the static page in web/dist), or all.
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian's emscripten finds its JS tooling (acorn) through Debian's node modules.
export NODE_PATH=/usr/share/nodejs
# Emscripten caches system libraries; use a private cache where the system one is read-only.
if [ ! -w /usr/share/emscripten/cache ]; then export EM_CACHE="$PWD/build/em-cache"; fi
jobs=$(nproc)

build_native() {
  cmake -S . -B build/native -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build build/native -j "$jobs"
}

build_wasm() {
  cmake -S . -B build/wasm -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_TOOLCHAIN_FILE=/usr/share/emscripten/cmake/Modules/Platform/Emscripten.cmake \
    -DCMAKE_CROSSCOMPILING_EMULATOR="$(command -v node)" >/dev/null
  cmake --build build/wasm -j "$jobs"
}

build_web() {
  cp build/wasm/web/attnlab.mjs build/wasm/web/attnlab.wasm web/src/engine/
  npx vite build web --logLevel warn
}

targets=("$@")
[ ${#targets[@]} -eq 0 ] || [ "${targets[0]}" = all ] && targets=(native wasm web)
for target in "${targets[@]}"; do
  echo "build: $target"
  "build_$target"
done
