// Emscripten's libc exports malloc and friends as weak aliases of dlmalloc, and keeps the
// originals as emscripten_builtin_*: these definitions take their place, count, and hand on.
// Eigen, std containers and Embind all allocate through them.
//
// dlmalloc guards its heap with one lock, so in the threaded build every thread's malloc and free
// queue on it: in a 2-thread training step the helper thread spent a fifth of its time waiting
// there. Blocks of up to 64 KiB are therefore kept, once freed, in a small per-thread cache sorted
// by power-of-two size class, and handed out again without the lock (the idea of tcmalloc's
// thread caches). A cached block stays a dlmalloc block, so malloc_usable_size and the counting
// below need nothing new, and a block freed on another thread than its own is simply cached there.
#include "bindings/heap_usage.hpp"

#include <emscripten/heap.h>
#include <malloc.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <new>

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

// ---- the per-thread cache ----
constexpr int kClasses = 13;                                  // 16 B, 32 B, … 64 KiB
constexpr std::size_t kSmallestBlock = 16;
constexpr std::size_t kLargestBlock = kSmallestBlock << (kClasses - 1);
constexpr std::size_t kBytesPerClass = 128 * 1024;            // what one class may keep per thread
constexpr std::uint32_t kBlocksPerClass = 64;

struct FreeBlock {
  FreeBlock* next;
};
struct SizeClass {
  FreeBlock* head;
  std::uint32_t count;
};
// Zero-initialised and trivially destructible, so it needs no constructor on a new thread. It holds
// at most 13 × 128 KiB per thread, for the thread's life (the pool's threads live as long as the
// module); that memory counts as free in heap_in_use().
thread_local SizeClass cache[kClasses];

std::size_t class_bytes(int c) { return kSmallestBlock << c; }

// the smallest class whose blocks hold `size` bytes (size ≤ kLargestBlock)
int class_for_request(std::size_t size) {
  int c = 0;
  while (class_bytes(c) < size) ++c;
  return c;
}

// the largest class a block of `usable` ≥ kSmallestBlock bytes can serve
int class_for_block(std::size_t usable) {
  int c = 0;
  while (c + 1 < kClasses && class_bytes(c + 1) <= usable) ++c;
  return c;
}

// A new thread runs a little of the runtime before its thread-local storage exists; until then
// (a null TLS base) the cache is not touched.
bool cache_ready() {
#ifdef __EMSCRIPTEN_PTHREADS__
  return __builtin_wasm_tls_base() != nullptr;
#else
  return true;
#endif
}

std::uint32_t class_capacity(int c) {
  const std::size_t by_bytes = kBytesPerClass / class_bytes(c);
  return static_cast<std::uint32_t>(by_bytes < kBlocksPerClass ? by_bytes : kBlocksPerClass);
}

void* cached_malloc(std::size_t size) {
  if (size > kLargestBlock || !cache_ready()) return emscripten_builtin_malloc(size);
  const int c = class_for_request(size);
  SizeClass& bin = cache[c];
  if (FreeBlock* block = bin.head) {
    bin.head = block->next;
    --bin.count;
    return block;
  }
  return emscripten_builtin_malloc(class_bytes(c));
}

void cached_free(void* ptr) {
  const std::size_t usable = malloc_usable_size(ptr);
  // a block of 128 KiB or more (from memalign, say) would waste half of itself in the last class
  if (usable >= kSmallestBlock && usable < 2 * kLargestBlock && cache_ready()) {
    const int c = class_for_block(usable);
    if (cache[c].count < class_capacity(c)) {
      SizeClass& bin = cache[c];
      bin.head = new (ptr) FreeBlock{bin.head};
      ++bin.count;
      return;
    }
  }
  emscripten_builtin_free(ptr);
}

}  // namespace

extern "C" {

void* malloc(std::size_t size) { return counted(cached_malloc(size)); }

void free(void* ptr) {
  if (!ptr) return;
  uncount(ptr);
  cached_free(ptr);
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
