#include "core/patches.hpp"

#include <string>

#include "core/check.hpp"

namespace attnlab {

Matrix image_patches(const ConstMatrixRef& image, Index patch) {
  require(patch >= 1, "image patches: the patch size must be at least 1, got ", patch);
  require(image.rows() % patch == 0 && image.cols() % patch == 0,
          "image patches: a ", image.rows(), "×", image.cols(), " image does not cut into whole ", patch, "×", patch,
          " patches");
  require(image.allFinite(), "image patches: the image has a non-finite pixel");
  const Index across = image.cols() / patch, down = image.rows() / patch;
  Matrix patches(across * down, patch * patch);
  for (Index r = 0; r < down; ++r)
    for (Index c = 0; c < across; ++c)
      for (Index i = 0; i < patch; ++i)
        patches.row(r * across + c).segment(i * patch, patch) = image.row(r * patch + i).segment(c * patch, patch);
  return patches;
}

Matrix patch_embedding(const ConstMatrixRef& patches, const ConstMatrixRef& embedding) {
  require(patches.cols() == embedding.rows(),
          "patch embedding: patches of ", patches.cols(), " pixels need E with as many rows, got ", embedding.rows());
  return patches * embedding;
}

}  // namespace attnlab
