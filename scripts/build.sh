#!/usr/bin/env bash
# Builds the parts named on the command line: native (library, tests, examples), wasm (the same
# sources with Emscripten, single-thread and threaded, with the JS modules, or one of them:
# wasm-single, wasm-threads; engine: the JS modules alone), web (the static page
# in web/dist with the widget bundle, and the offline file build/offline/attnlab.html), package
# (the npm package in build/package, and the reveal.js example deck in build/examples/reveal), or
# all (those four); and asan (the library and Catch2 tests with clang's AddressSanitizer, UBSan and
# LeakSanitizer, and the fuzzer in tests/fuzz, in build/asan).
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian's emscripten finds its JS tooling (acorn) through Debian's node modules.
export NODE_PATH=/usr/share/nodejs
# Emscripten caches system libraries; use a private cache where the system one is read-only.
if [ ! -w /usr/share/emscripten/cache ]; then export EM_CACHE="$PWD/build/em-cache"; fi
# ccache (CMakeLists.txt uses it where installed) rewrites paths under this folder to relative
# ones, so that another checkout of the same sources finds the objects this one compiled
export CCACHE_BASEDIR="$PWD"
jobs=$(nproc)

# build/gpt2-tokenizer.json: GPT-2's tokenizer as a Hugging Face tokenizer.json, derived from
# js-tiktoken's ranks by scripts/gpt2-tokenizer.mjs. The Catch2 tests read it and the package
# ships it, so every target writes it first; skipped when newer than the script and js-tiktoken.
build_gpt2_tokenizer() {
  local out=build/gpt2-tokenizer.json
  if [ -f "$out" ] && [ -z "$(find scripts/gpt2-tokenizer.mjs node_modules/js-tiktoken/package.json -newer "$out")" ]; then
    return
  fi
  mkdir -p build
  node scripts/gpt2-tokenizer.mjs "$out.next"
  mv "$out.next" "$out"
}

build_native() {
  cmake -S . -B build/native -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build build/native -j "$jobs"
}

build_asan() {
  cmake -S . -B build/asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
    -DATTNLAB_SANITIZE=ON -DATTNLAB_BUILD_EXAMPLES=OFF >/dev/null
  cmake --build build/asan -j "$jobs"
}

# one Emscripten tree per variant: single thread (build/wasm) and threads (build/wasm-threads);
# build_wasm_variant TREE THREADS [TARGET…] builds the targets named, or all of them
build_wasm_variant() {
  cmake -S . -B "$1" -DCMAKE_BUILD_TYPE=Release -DATTNLAB_WASM_THREADS="$2" \
    -DCMAKE_TOOLCHAIN_FILE=/usr/share/emscripten/cmake/Modules/Platform/Emscripten.cmake \
    -DCMAKE_CROSSCOMPILING_EMULATOR="$(command -v node)" >/dev/null
  if [ $# -gt 2 ]; then cmake --build "$1" -j "$jobs" --target "${@:3}"; else cmake --build "$1" -j "$jobs"; fi
}

build_wasm_single() { build_wasm_variant build/wasm OFF; }
build_wasm_threads() { build_wasm_variant build/wasm-threads ON; }
build_wasm() {
  build_wasm_single
  build_wasm_threads
  build_engine_relaxed
}

# the threaded engine again, its products using relaxed SIMD's fused multiply-add (loaded where the
# runtime validates it: LoadOptions.relaxedSimd); the same JavaScript, another .wasm. `wasm` and
# `engine` build it.
build_engine_relaxed() {
  cmake -S . -B build/wasm-threads-relaxed -DCMAKE_BUILD_TYPE=Release -DATTNLAB_WASM_THREADS=ON \
    -DATTNLAB_WASM_RELAXED_SIMD=ON -DATTNLAB_BUILD_TESTS=OFF -DATTNLAB_BUILD_EXAMPLES=OFF \
    -DCMAKE_TOOLCHAIN_FILE=/usr/share/emscripten/cmake/Modules/Platform/Emscripten.cmake >/dev/null
  cmake --build build/wasm-threads-relaxed -j "$jobs" --target attnlab_module_web attnlab_module_node
}

# the three engine modules alone (no tests, no examples): what web and package ship, so both build
# them first and never pack an engine older than the sources
build_engine() {
  build_wasm_variant build/wasm OFF attnlab_module_web attnlab_module_node
  build_wasm_variant build/wasm-threads ON attnlab_module_web attnlab_module_node
  build_engine_relaxed
}

# the npm package in build/package: the TypeScript layer, its contract, GPT-2's tokenizer.json,
# both engine builds, the widget bundle and the reveal.js plugin (so it comes after web) with
# their declarations; then the reveal.js example deck. Skipped when nothing it reads (web/ and its build, the engine files, the
# example, the npm packages) changed since.
build_package() {
  build_engine
  local stamp=build/package.stamp
  if [ -f "$stamp" ] && [ -f build/package/index.js ] && [ -z "$(changed_since "$stamp" web build/web.stamp \
      build/wasm/module build/wasm-threads/module build/wasm-threads-relaxed/module build/gpt2-tokenizer.json examples/reveal package.json package-lock.json \
      node_modules/.package-lock.json)" ]; then
    echo "build: package is up to date"
    return
  fi
  touch "$stamp.next"
  rm -rf build/package
  npx tsc -p web/tsconfig.package.json
  cp web/src/engine/attnlab.d.mts build/package/
  cp build/gpt2-tokenizer.json build/package/
  # the declarations of attnlab/widgets and attnlab/reveal in build/package/types, beside those of
  # the sources they name (tsc writes no .d.mts it was given: the engine's contract is copied)
  npx tsc -p web/tsconfig.widgets.json
  cp web/src/engine/attnlab.d.mts build/package/types/engine/
  mkdir -p build/package/engine/web build/package/engine/node
  cp build/wasm/module/web/* build/wasm-threads/module/web/* build/package/engine/web/
  cp build/wasm/module/node/* build/wasm-threads/module/node/* build/package/engine/node/
  # the relaxed-SIMD engine shares the threaded engine's JavaScript, which must be the same file
  for platform in web node; do
    local glue=attnlab-threads.mjs
    [ "$platform" = node ] && glue=attnlab-threads.js
    cmp -s "build/wasm-threads/module/$platform/$glue" "build/wasm-threads-relaxed/module/$platform/$glue" ||
      { echo "build: the relaxed-SIMD engine's $glue differs from the threaded one's" >&2; return 1; }
    cp "build/wasm-threads-relaxed/module/$platform/attnlab-threads.wasm" "build/package/engine/$platform/attnlab-threads-relaxed.wasm"
  done
  echo '{ "type": "commonjs" }' > build/package/engine/node/package.json
  # attnlab/widgets: the page's build (the bundle, embed.html, the chunks, engine, models), with the
  # deck, where the glossary's links from a widget go
  mkdir -p build/package/widgets
  cp -r web/dist/attnlab-widgets.js web/dist/attnlab-reveal.js web/dist/embed.html web/dist/index.html web/dist/assets web/dist/models build/package/widgets/
  build_examples
  mv "$stamp.next" "$stamp"
}

# examples/reveal as a lecturer would ship it: the deck, reveal.js from npm, and the widget folder
build_examples() {
  local deck=build/examples/reveal
  rm -rf "$deck"
  mkdir -p "$deck/reveal/theme"
  cp examples/reveal/index.html "$deck/"
  cp node_modules/reveal.js/dist/reveal.mjs node_modules/reveal.js/dist/reveal.css "$deck/reveal/"
  cp node_modules/reveal.js/dist/theme/white.css "$deck/reveal/theme/"
  cp -r build/package/widgets "$deck/attnlab"
}

# changed_since STAMP PATH…: the first file or folder under the paths changed since STAMP was written;
# not the page's build (web/dist) nor vite's caches (web/node_modules), nor the web folder itself,
# whose time moves when vite makes its cache folder. A build stamps the time it started: a file
# changed during it is newer.
changed_since() {
  local stamp=$1
  shift
  find "$@" \( -path web/dist -o -path web/node_modules \) -prune -o -newer "$stamp" ! -path web -print -quit
}

# the page in web/dist (with the widget bundle), and the same deck as one file that runs from
# file:// in build/offline/attnlab.html; the engine files go beside the loader, which imports their
# URLs. Skipped when nothing it reads (web/, the engine files, the npm packages) changed since.
build_web() {
  build_engine
  mkdir -p web/src/engine/build
  cp -p build/wasm/module/web/* build/wasm-threads/module/web/* build/gpt2-tokenizer.json web/src/engine/build/
  cp -p build/wasm-threads-relaxed/module/web/attnlab-threads.wasm web/src/engine/build/attnlab-threads-relaxed.wasm
  local stamp=build/web.stamp
  if [ -f "$stamp" ] && [ -f web/dist/index.html ] && [ -f build/offline/attnlab.html ] \
      && [ -z "$(changed_since "$stamp" web package.json package-lock.json node_modules/.package-lock.json)" ]; then
    echo "build: web is up to date"
    return
  fi
  touch "$stamp.next"
  npx vite build web --logLevel warn
  npx vite build web --mode offline --logLevel warn
  mv "$stamp.next" "$stamp"
}

targets=("$@")
[ ${#targets[@]} -eq 0 ] || [ "${targets[0]}" = all ] && targets=(native wasm web package)
build_gpt2_tokenizer
for target in "${targets[@]}"; do
  echo "build: $target"
  "build_${target//-/_}"
done
