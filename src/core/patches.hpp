#pragma once
// The Vision Transformer's tokens: an image cut into P×P patches, each flattened and embedded
// (write-up 001: x_patch = Flatten(patch)·E), so that attention runs over patches as over words.
#include "core/tensor.hpp"

namespace attnlab {

// the (H/P)·(W/P) patches in raster order (left to right, top to bottom), each flattened row by
// row, as torch's F.unfold(image, P, stride=P)ᵀ   image:(H,W), P divides H and W → (N, P²)
Matrix image_patches(const ConstMatrixRef& image, Index patch);

// x_patch = Flatten(patch)·E   patches:(N, P²) E:(P², d) → (N, d)
Matrix patch_embedding(const ConstMatrixRef& patches, const ConstMatrixRef& embedding);

}  // namespace attnlab
