#pragma once
// A small persistent pool of worker threads for splitting independent work (attention heads,
// blocks of query rows). Threads are created once, not per call; a build without threads (or a
// pool of size 1) runs everything on the calling thread.
#include <functional>

#include "core/tensor.hpp"

namespace attnlab {

// Threads this build may use at most (the WebAssembly thread pool is fixed at link time).
Index max_threads();
// Threads used from now on, 1 … max_threads(); a larger request is an error, never a hang.
void set_num_threads(Index threads);
Index num_threads();

// Runs body(i) for i = 0 … count−1, spread over the pool; returns when all are done. Bodies must
// write disjoint outputs. The first exception a body throws is rethrown here after all finish.
void parallel_for(Index count, const std::function<void(Index)>& body);

}  // namespace attnlab
