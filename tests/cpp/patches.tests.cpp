#include <catch2/catch.hpp>

#include "core/check.hpp"
#include "core/patches.hpp"
#include "support.hpp"

using namespace attnlab;
using namespace attnlab::test;

TEST_CASE("image patches", "[patches]") {
  SECTION("match torch's F.unfold and the embedding") {
    for (const FixtureCase& f : load_fixture_cases("patches.json")) {
      INFO(f.name);
      const Matrix patches = image_patches(f.tensor("image"), f.get<Index>("patch"));
      CHECK_THAT(patches, IsNear(f.tensor("patches"), 0));
      CHECK_THAT(patch_embedding(patches, f.tensor("embedding")), IsNear(f.tensor("embedded"), 1e-5));
    }
  }

  SECTION("raster order, each patch row by row") {
    Matrix image(2, 4);
    image << 1, 2, 3, 4,
             5, 6, 7, 8;
    Matrix expected(2, 4);
    expected << 1, 2, 5, 6,
                3, 4, 7, 8;
    CHECK(image_patches(image, 2) == expected);
    CHECK(image_patches(image, 1).col(0).transpose() == RowVector::LinSpaced(8, 1, 8));
  }

  SECTION("bad input is refused with the reason") {
    CHECK_THROWS_WITH(image_patches(Matrix::Zero(6, 5), 2), Catch::Contains("does not cut into whole 2×2 patches"));
    CHECK_THROWS_WITH(image_patches(Matrix::Zero(4, 4), 0), Catch::Contains("at least 1"));
    Matrix nan = Matrix::Zero(2, 2);
    nan(1, 1) = std::numeric_limits<Scalar>::quiet_NaN();
    CHECK_THROWS_WITH(image_patches(nan, 1), Catch::Contains("non-finite"));
    CHECK_THROWS_WITH(patch_embedding(Matrix::Zero(3, 4), Matrix::Zero(5, 2)), Catch::Contains("E with as many rows"));
  }
}
