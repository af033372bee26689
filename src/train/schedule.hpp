#pragma once
// The learning rate over training: linear warm-up, then cosine decay.
#include "core/tensor.hpp"

namespace attnlab {

struct LearningRateSchedule {
  float peak = 3e-3f;           // η_max, reached at the end of warm-up
  Index warmup_steps = 50;
  Index total_steps = 1000;     // where the decay ends
  float final_fraction = 0.1f;  // η_min = final_fraction·η_max

  // η(t) = η_max·(t+1)/warmup for t < warmup;
  // η(t) = η_min + ½(η_max − η_min)(1 + cos(π·(t − warmup)/(total − warmup))) up to total, η_min after
  float at(Index step) const;
  // throws attnlab::Error unless η_max > 0, 0 ≤ warmup ≤ total, 0 ≤ final_fraction ≤ 1
  void validate() const;
};

}  // namespace attnlab
