/* Intentionally empty. Emscripten's SSE emulation (-msse4.1) would otherwise pull clang's x86 MMX
   header, which does not compile for wasm; nothing in this project uses MMX. */
