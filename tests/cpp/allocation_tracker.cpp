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

#include <new>

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
// allocations left before the one that fails (0: none fails)
std::atomic<long long> until_failure{0};
std::atomic<bool> failed{false};

// true for the one allocation chosen to fail
bool fail_this() {
  if (until_failure.load(std::memory_order_relaxed) == 0) return false;
  if (--until_failure != 0) return false;
  failed = true;
  return true;
}

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

// operator new, whose allocations are the ones made to fail: the engine's containers and strings.
// Eigen's matrices come from malloc and are never failed: Eigen 3.4's DenseStorage::resize frees
// the old block before allocating the new one, so a failure there leaves a dangling pointer.
void* operator new(std::size_t size) {
  if (fail_this()) throw std::bad_alloc();
  if (void* p = malloc(size ? size : 1)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t size) { return ::operator new(size); }
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  try {
    return ::operator new(size);
  } catch (const std::bad_alloc&) {
    return nullptr;
  }
}
void* operator new[](std::size_t size, const std::nothrow_t& nothrow) noexcept { return ::operator new(size, nothrow); }
void operator delete(void* p) noexcept { free(p); }
void operator delete[](void* p) noexcept { free(p); }
void operator delete(void* p, std::size_t) noexcept { free(p); }
void operator delete[](void* p, std::size_t) noexcept { free(p); }

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
void allocation_failure_at(std::size_t index) {
  failed = false;
  until_failure = static_cast<long long>(index);
}
bool allocation_failure_happened() { return failed; }
}  // namespace attnlab::test

#else

namespace attnlab::test {
bool allocation_tracking_available() { return false; }
void allocation_tracking_start() {}
std::size_t allocation_tracking_peak() { return 0; }
std::size_t allocation_tracking_count() { return 0; }
void allocation_tracking_stop() {}
void allocation_failure_at(std::size_t) {}
bool allocation_failure_happened() { return false; }
}  // namespace attnlab::test

#endif
