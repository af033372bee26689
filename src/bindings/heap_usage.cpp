// Emscripten's libc exports malloc and friends as weak aliases of dlmalloc, and keeps the
// originals as emscripten_builtin_*: these definitions take their place, count, and hand on.
// Eigen, std containers and Embind all allocate through them.
#include "bindings/heap_usage.hpp"

#include <emscripten/heap.h>
#include <malloc.h>

#include <atomic>
#include <cerrno>
#include <cstring>

extern "C" {
void* emscripten_builtin_malloc(std::size_t size);
void emscripten_builtin_free(void* ptr);
void* emscripten_builtin_memalign(std::size_t alignment, std::size_t size);
}

namespace {

std::atomic<std::size_t> in_use{0};
std::atomic<std::size_t> peak{0};

void* counted(void* ptr) {
  if (ptr) {
    const std::size_t now = in_use.fetch_add(malloc_usable_size(ptr), std::memory_order_relaxed) + malloc_usable_size(ptr);
    std::size_t seen = peak.load(std::memory_order_relaxed);
    while (now > seen && !peak.compare_exchange_weak(seen, now, std::memory_order_relaxed)) {
    }
  }
  return ptr;
}

void uncount(void* ptr) {
  if (ptr) in_use.fetch_sub(malloc_usable_size(ptr), std::memory_order_relaxed);
}

}  // namespace

extern "C" {

void* malloc(std::size_t size) { return counted(emscripten_builtin_malloc(size)); }

void free(void* ptr) {
  uncount(ptr);
  emscripten_builtin_free(ptr);
}

void* calloc(std::size_t count, std::size_t size) {
  if (size != 0 && count > static_cast<std::size_t>(-1) / size) {
    errno = ENOMEM;
    return nullptr;
  }
  void* ptr = malloc(count * size);
  if (ptr) std::memset(ptr, 0, count * size);
  return ptr;
}

void* realloc(void* ptr, std::size_t size) {
  if (!ptr) return malloc(size);
  if (size == 0) {
    free(ptr);
    return nullptr;
  }
  const std::size_t old_size = malloc_usable_size(ptr);
  if (size <= old_size) return ptr;
  void* grown = malloc(size);
  if (!grown) return nullptr;  // the old block stays valid, as realloc promises
  std::memcpy(grown, ptr, old_size);
  free(ptr);
  return grown;
}

void* memalign(std::size_t alignment, std::size_t size) { return counted(emscripten_builtin_memalign(alignment, size)); }

void* aligned_alloc(std::size_t alignment, std::size_t size) { return memalign(alignment, size); }

int posix_memalign(void** out, std::size_t alignment, std::size_t size) {
  if (alignment < sizeof(void*) || (alignment & (alignment - 1)) != 0) return EINVAL;
  void* ptr = memalign(alignment, size);
  if (!ptr) return ENOMEM;
  *out = ptr;
  return 0;
}

}  // extern "C"

namespace attnlab::js {

std::size_t heap_in_use() { return in_use.load(std::memory_order_relaxed); }
std::size_t heap_peak() { return peak.load(std::memory_order_relaxed); }

std::size_t heap_reset_peak() {
  const std::size_t now = in_use.load(std::memory_order_relaxed);
  peak.store(now, std::memory_order_relaxed);
  return now;
}

}  // namespace attnlab::js
