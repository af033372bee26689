#include <catch2/catch.hpp>
#include <limits>

#include "core/check.hpp"
#include "core/mask.hpp"
#include "support.hpp"

using namespace attnlab;
using namespace attnlab::test;

TEST_CASE("masks as additive matrices", "[mask]") {
  const float inf = std::numeric_limits<float>::infinity();
  SECTION("none is all zeros") {
    CHECK(Mask::none().empty());
    CHECK(Mask::none().materialize(2, 3).isZero(0));
  }
  SECTION("causal hides later keys; with n < m the queries are the last positions") {
    CHECK_THAT(Mask::causal_mask().materialize(3, 3),
               IsNear(rows({{0, -inf, -inf}, {0, 0, -inf}, {0, 0, 0}}), 0));
    CHECK_THAT(Mask::causal_mask().materialize(2, 4),
               IsNear(rows({{0, 0, 0, -inf}, {0, 0, 0, 0}}), 0));
  }
  SECTION("causal, padding and additive parts combine") {
    Mask mask = Mask::causal_mask();
    mask.key_padding = {1, 0, 0};
    mask.additive = rows({{0.5f, 0, 0}, {0, -2, 0}, {0, 0, 1}});
    CHECK_THAT(mask.materialize(3, 3),
               IsNear(rows({{-inf, -inf, -inf}, {-inf, -2, -inf}, {-inf, 0, 1}}), 0));
  }
  SECTION("shapes and values are validated") {
    CHECK_THROWS_AS(Mask::key_padding_mask({0, 1}).validate(2, 3), Error);
    CHECK_THROWS_AS(Mask::additive_mask(Matrix::Zero(2, 2)).validate(2, 3), Error);
    CHECK_THROWS_WITH(Mask::additive_mask(rows({{0, inf}})).validate(1, 2), Catch::Contains("+Inf"));
    CHECK_NOTHROW(Mask::additive_mask(rows({{0, -inf}})).validate(1, 2));
  }
}
