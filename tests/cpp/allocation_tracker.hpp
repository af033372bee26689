#pragma once
// Counts heap bytes in use and allocations made while enabled (native glibc builds only), to test
// memory bounds.
#include <cstddef>

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

}  // namespace attnlab::test
