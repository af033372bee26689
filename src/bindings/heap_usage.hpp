#pragma once
// The WebAssembly heap's use, counted at every allocation: bytes in use now and the most that
// were in use at once (the high-water mark), so that a page can measure what a call really needs.
#include <cstddef>

namespace attnlab::js {

// bytes allocated and not yet freed
std::size_t heap_in_use();
// the largest heap_in_use() since the last reset (or since the module started)
std::size_t heap_peak();
// starts a new high-water mark from what is in use now, and returns that
std::size_t heap_reset_peak();

}  // namespace attnlab::js
