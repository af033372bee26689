#include "core/learned_positions.hpp"

#include <string>

#include "core/check.hpp"
#include "core/random.hpp"

namespace attnlab {

Matrix learned_positions_init(Index n_ctx, Index d, std::uint32_t seed) {
  require_size(n_ctx, d, "learned position table");
  Rng rng(seed);
  Matrix wpe(n_ctx, d);
  for (Index i = 0; i < wpe.size(); ++i) wpe.data()[i] = rng.normal(0.0f, 0.02f);
  return wpe;
}

Matrix learned_positions_lookup(const ConstMatrixRef& wpe, Index n, Index pos0) {
  require(n >= 1, "learned positions: n must be at least 1");
  require(pos0 >= 0, "learned positions: first position must not be negative");
  require(pos0 + n <= wpe.rows(),
          "learned positions: positions ", pos0, "..", pos0 + n - 1, " exceed the table's ", wpe.rows(),
          " rows (n_ctx)");
  return wpe.middleRows(pos0, n);
}

void learned_positions_backward(const ConstMatrixRef& dpositions, Index pos0, MatrixRef dwpe) {
  require(pos0 >= 0 && pos0 + dpositions.rows() <= dwpe.rows() && dpositions.cols() == dwpe.cols(),
          "learned positions backward: gradient rows do not fit the table");
  dwpe.middleRows(pos0, dpositions.rows()) += dpositions;
}

}  // namespace attnlab
