#include "allocation_tracker.hpp"

#include <atomic>

// AddressSanitizer replaces malloc itself: wrapping glibc's would hide every allocation from it
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ATTNLAB_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define ATTNLAB_ASAN 1
#endif

#if defined(__GLIBC__) && !defined(__EMSCRIPTEN__) && !defined(ATTNLAB_ASAN)
#include <malloc.h>

// The test executable's malloc family wraps glibc's and keeps a running total while tracking.
extern "C" {
void* __libc_malloc(size_t);
void* __libc_calloc(size_t, size_t);
void* __libc_realloc(void*, size_t);
void __libc_free(void*);
}

namespace {
std::atomic<bool> tracking{false};
std::atomic<long long> in_use{0};
std::atomic<long long> peak{0};
std::atomic<long long> allocations{0};

void add(void* p) {
  if (!p || !tracking) return;
  ++allocations;
  const long long now = in_use += static_cast<long long>(malloc_usable_size(p));
  long long seen = peak;
  while (now > seen && !peak.compare_exchange_weak(seen, now)) {}
}
void remove(void* p) {
  if (p && tracking) in_use -= static_cast<long long>(malloc_usable_size(p));
}
}  // namespace

extern "C" {
void* malloc(size_t size) {
  void* p = __libc_malloc(size);
  add(p);
  return p;
}
void* calloc(size_t count, size_t size) {
  void* p = __libc_calloc(count, size);
  add(p);
  return p;
}
void* realloc(void* old, size_t size) {
  remove(old);
  void* p = __libc_realloc(old, size);
  add(p ? p : old);
  return p;
}
void free(void* p) {
  remove(p);
  __libc_free(p);
}
}

namespace attnlab::test {
bool allocation_tracking_available() { return true; }
void allocation_tracking_start() {
  in_use = 0;
  peak = 0;
  allocations = 0;
  tracking = true;
}
std::size_t allocation_tracking_peak() { return static_cast<std::size_t>(peak.load()); }
std::size_t allocation_tracking_count() { return static_cast<std::size_t>(allocations.load()); }
void allocation_tracking_stop() { tracking = false; }
}  // namespace attnlab::test

#else

namespace attnlab::test {
bool allocation_tracking_available() { return false; }
void allocation_tracking_start() {}
std::size_t allocation_tracking_peak() { return 0; }
std::size_t allocation_tracking_count() { return 0; }
void allocation_tracking_stop() {}
}  // namespace attnlab::test

#endif
