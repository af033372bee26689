#include "core/flash_attention.hpp"

#include <algorithm>
#include <limits>

#include "core/attention.hpp"
#include "core/check.hpp"
#include "core/exp.hpp"
#include "core/matmul.hpp"
#include "core/thread_pool.hpp"

namespace attnlab {

namespace {

constexpr Scalar kNegInf = -std::numeric_limits<Scalar>::infinity();

// One query block against one key block: updates the running max, sum and unnormalised output.
[[gnu::noinline]] void flash_tile(const ConstMatrixRef& q, const ConstMatrixRef& k, const ConstMatrixRef& v,
                                  Scalar scale, Index first_hidden_offset, bool causal,
                                  Matrix& s, RowVector& max, RowVector& sum, MatrixRef out) {
  const Index rows = q.rows(), cols = k.rows();
  s.resize(rows, cols);  // no reallocation after the first, largest tile
  attention_scores(q, k, s);
  attention_scale_scores(s, scale, s);
  for (Index i = 0; i < rows; ++i) {
    if (causal) {
      // key j (relative to this tile) is hidden when it lies after query i
      const Index first_hidden = std::max<Index>(0, std::min<Index>(cols, first_hidden_offset + i));
      for (Index j = first_hidden; j < cols; ++j) s(i, j) = kNegInf;
    }
    const Scalar tile_max = s.row(i).maxCoeff();
    const Scalar new_max = std::max(max(i), tile_max);
    if (new_max == kNegInf) {
      s.row(i).setZero();  // nothing visible yet: contributes nothing
      continue;
    }
    const Scalar rescale = max(i) == kNegInf ? Scalar(0) : std::exp(max(i) - new_max);
    s.row(i).array() -= new_max;
    exp_inplace(s.row(i).data(), cols);
    sum(i) = rescale * sum(i) + s.row(i).sum();
    out.row(i) *= rescale;
    max(i) = new_max;
  }
  matmul(s, v, out, true);
}

}  // namespace

Matrix flash_attention_forward(const ConstMatrixRef& q, const ConstMatrixRef& k, const ConstMatrixRef& v,
                               bool causal, bool scaled, Index block_rows, Index block_cols,
                               FlashTrace* trace, InputCheck check) {
  validate_attention_inputs(q, k, v, check);
  require(block_rows >= 1 && block_rows <= 4096 && block_cols >= 1 && block_cols <= 4096,
          "flash attention: tile sizes must be between 1 and 4096");
  const Index n = q.rows(), m = k.rows();
  require_size(n, v.cols(), "flash attention output");
  const Scalar scale = attention_scale(q.cols(), scaled);
  Matrix out = Matrix::Zero(n, v.cols());
  if (trace) {
    trace->block_rows = block_rows;
    trace->block_cols = block_cols;
    trace->steps.clear();
  }
  // One query block against every key block it can see; blocks are independent, so without a
  // trace (which records tiles in order) they are spread over the threads, each with its own tile.
  const auto query_block = [&](Index r0) {
    const Index rows = std::min(block_rows, n - r0);
    Matrix s(rows, std::min(block_cols, m));
    RowVector max = RowVector::Constant(rows, kNegInf), sum = RowVector::Zero(rows);
    for (Index c0 = 0; c0 < m; c0 += block_cols) {
      const Index cols = std::min(block_cols, m - c0);
      // query r0+i sits at key position m − n + r0 + i; key c0+j is hidden beyond it
      const Index first_hidden_offset = m - n + r0 - c0 + 1;
      if (causal && first_hidden_offset + rows - 1 <= 0) break;  // this and later key blocks are all in the future
      flash_tile(q.middleRows(r0, rows), k.middleRows(c0, cols), v.middleRows(c0, cols), scale,
                 first_hidden_offset, causal, s, max, sum, out.middleRows(r0, rows));
      if (trace) trace->steps.push_back({r0 / block_rows, c0 / block_cols, max, sum});
    }
    for (Index i = 0; i < rows; ++i)
      out.row(r0 + i) *= sum(i) > 0.0f ? 1.0f / sum(i) : 0.0f;
  };
  const Index blocks = (n + block_rows - 1) / block_rows;
  if (trace) {
    for (Index b = 0; b < blocks; ++b) query_block(b * block_rows);
  } else {
    parallel_for(blocks, [&](Index b) { query_block(b * block_rows); });
  }
  return out;
}

}  // namespace attnlab
