#pragma once
// Counts heap bytes in use and allocations made while enabled (native glibc builds only), to test
// memory bounds; and fails one chosen allocation, to test that a call failing at any point leaves
// its object as it was.
#include <cstddef>
#include <exception>
#include <stdexcept>
#include <string>

namespace attnlab::test {

// true where allocations can be observed (glibc, not WebAssembly)
bool allocation_tracking_available();
// starts counting from zero
void allocation_tracking_start();
// the largest number of bytes that were in use at once since the start
std::size_t allocation_tracking_peak();
// how many blocks malloc, calloc and realloc handed out since the start
std::size_t allocation_tracking_count();
void allocation_tracking_stop();
// the `index`-th operator new from now (1 = the next) throws std::bad_alloc; 0 disarms
void allocation_failure_at(std::size_t index);
// whether the armed failure has happened
bool allocation_failure_happened();

// Calls `call` with its first allocation failing, then with its second, and so on until it runs to
// its end with none failing; after each failed call, `unchanged()` checks that nothing changed.
// Returns the number of failures injected (0 where allocations cannot be observed: the call then
// runs once). A call that fails without the injected failure rethrows.
template <class Call, class Unchanged>
std::size_t fail_each_allocation(Call&& call, Unchanged&& unchanged) {
  if (!allocation_tracking_available()) {
    call();
    return 0;
  }
  for (std::size_t index = 1;; ++index) {
    allocation_failure_at(index);
    std::exception_ptr error;
    try {
      call();
    } catch (...) {
      error = std::current_exception();
    }
    const bool failed = allocation_failure_happened();
    allocation_failure_at(0);
    if (!failed) {
      if (error) std::rethrow_exception(error);
      return index - 1;
    }
    // a failed allocation must fail the call (a call that went on regardless would have changed it)
    if (!error) throw std::logic_error("the call completed although allocation " + std::to_string(index) + " failed");
    unchanged();
  }
}

}  // namespace attnlab::test
