#include <catch2/catch.hpp>

#include "core/check.hpp"
#include "train/schedule.hpp"

using namespace attnlab;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;

TEST_CASE("learning-rate schedule: warm-up then cosine decay", "[schedule]") {
  LearningRateSchedule s;
  s.peak = 1e-3f;
  s.warmup_steps = 10;
  s.total_steps = 110;
  s.final_fraction = 0.1f;
  SECTION("linear warm-up reaches the peak at the last warm-up step") {
    CHECK_THAT(s.at(0), WithinRel(1e-4f, 1e-5f));
    CHECK_THAT(s.at(4), WithinRel(5e-4f, 1e-5f));
    CHECK_THAT(s.at(9), WithinRel(1e-3f, 1e-5f));
  }
  SECTION("cosine: peak, the midpoint halfway between peak and floor, then the floor") {
    CHECK_THAT(s.at(10), WithinRel(1e-3f, 1e-5f));
    CHECK_THAT(s.at(60), WithinRel(0.55e-3f, 1e-5f));
    CHECK_THAT(s.at(110), WithinRel(1e-4f, 1e-5f));
    CHECK_THAT(s.at(5000), WithinRel(1e-4f, 1e-5f));
  }
  SECTION("never increases after warm-up") {
    for (Index t = 10; t < 120; ++t) CHECK(s.at(t + 1) <= s.at(t));
  }
  SECTION("no warm-up starts at the peak") {
    s.warmup_steps = 0;
    CHECK_THAT(s.at(0), WithinAbs(1e-3f, 1e-9f));
  }
  SECTION("bad settings are refused") {
    s.warmup_steps = 200;
    CHECK_THROWS_WITH(s.validate(), Catch::Contains("warm-up"));
    s.warmup_steps = 10;
    s.peak = -1.0f;
    CHECK_THROWS_WITH(s.validate(), Catch::Contains("peak"));
  }
}
