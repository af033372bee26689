#include "train/schedule.hpp"

#include <cmath>

#include "core/check.hpp"

namespace attnlab {

void LearningRateSchedule::validate() const {
  require(std::isfinite(peak) && peak > 0 && peak <= 10, "learning rate: the peak must lie in (0, 10]");
  require(warmup_steps >= 0 && total_steps >= 1 && warmup_steps <= total_steps,
          "learning rate: warm-up steps must lie between 0 and the total steps");
  require(std::isfinite(final_fraction) && final_fraction >= 0 && final_fraction <= 1,
          "learning rate: the final fraction must lie in [0, 1]");
}

float LearningRateSchedule::at(Index step) const {
  if (step < warmup_steps) return peak * static_cast<float>(step + 1) / static_cast<float>(warmup_steps);
  const float floor = final_fraction * peak;
  if (step >= total_steps) return floor;
  const double progress = static_cast<double>(step - warmup_steps) / static_cast<double>(total_steps - warmup_steps);
  return floor + 0.5f * (peak - floor) * static_cast<float>(1 + std::cos(3.141592653589793 * progress));
}

}  // namespace attnlab
