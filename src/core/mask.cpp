#include "core/mask.hpp"

#include <limits>
#include <string>

#include "core/check.hpp"

namespace attnlab {

void Mask::validate(Index n, Index m) const {
  require(key_padding.empty() || static_cast<Index>(key_padding.size()) == m,
          "mask: key_padding has ", key_padding.size(), " flags for ", m, " keys");
  if (additive.size() != 0 && (additive.rows() != n || additive.cols() != m))  // shapes written only on failure
    throw_error({"mask: additive mask has shape ", shape_string(additive.rows(), additive.cols()), ", expected ",
                 shape_string(n, m)});
  for (Index i = 0; i < additive.size(); ++i)
    require(!std::isnan(additive.data()[i]) && additive.data()[i] != std::numeric_limits<Scalar>::infinity(),
            "mask: additive mask contains NaN or +Inf");
}

void Mask::apply(MatrixRef scores) const {
  const Index n = scores.rows(), m = scores.cols();
  validate(n, m);
  constexpr Scalar kHidden = -std::numeric_limits<Scalar>::infinity();
  if (additive.size() != 0) scores += additive;
  if (causal) {
    const Index first = first_query_position >= 0 ? first_query_position : m - n;
    for (Index i = 0; i < n; ++i) {
      const Index first_hidden = first + i + 1;  // query i sits at key position first + i
      for (Index j = std::max<Index>(first_hidden, 0); j < m; ++j) scores(i, j) = kHidden;
    }
  }
  for (Index j = 0; j < static_cast<Index>(key_padding.size()); ++j)
    if (key_padding[j]) scores.col(j).setConstant(kHidden);
}

Mask Mask::row_block(Index r0, Index rows, Index n, Index m) const {
  Mask block;
  block.causal = causal;
  block.key_padding = key_padding;
  if (additive.size()) block.additive = additive.middleRows(r0, rows);
  block.first_query_position = (first_query_position >= 0 ? first_query_position : m - n) + r0;
  return block;
}

Matrix Mask::materialize(Index n, Index m) const {
  Matrix mask = Matrix::Zero(n, m);
  apply(mask);
  return mask;
}

}  // namespace attnlab
