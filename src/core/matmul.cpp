#include "core/matmul.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <type_traits>
#include <vector>

#include "core/check.hpp"
#include "core/multiply_add.hpp"
#include "core/thread_pool.hpp"

namespace attnlab {

namespace {

// A register block: kRows rows of A against a panel of kPanel columns of B, in kVectorWidth-wide vectors.
// 4 × 8 floats is 8 accumulators, 2 panel vectors, one broadcast and a temporary: within x86-64's
// 16 vector registers as V8 allocates them (5 × 8 spills in Node and runs at half the speed).
constexpr Index kRows = 4;
constexpr Index kVectorWidth = 4;
constexpr Index kPanel = 2 * kVectorWidth;
// rows of B packed at a time: a panel of 256 × 8 floats (8 KB) stays in L1 while A's rows pass
constexpr Index kDepth = 256;
// fewer multiply-adds than this are not worth handing to another thread
constexpr double kThreadWork = 1 << 21;

static_assert(sizeof(Vec) == kVectorWidth * sizeof(Scalar), "register_block broadcasts into 4 lanes");

Vec load(const Scalar* p) {
  Vec v;
  __builtin_memcpy(&v, p, sizeof v);
  return v;
}
void store(Scalar* p, Vec v) { __builtin_memcpy(p, &v, sizeof v); }

// SeparateRounding scopes open now (on any thread: the products of a training step run on all)
std::atomic<int> separate_rounding_scopes{0};

// panel[kk·8 + j] = B(k0 + kk, j0 + j) for kk < depth, j < 8; zero past B's last column; 16-bit
//   weights widened here, so the kernel reads floats either way
void pack_panel(const WeightView& b, bool transposed, Index k0, Index depth, Index j0, Scalar* panel) {
  const Index n = transposed ? b.rows() : b.cols(), columns = std::min(kPanel, n - j0);
  if (transposed) {
    if (columns < kPanel) std::fill(panel, panel + depth * kPanel, Scalar(0));
    Scalar row_values[kDepth];
    for (Index j = 0; j < columns; ++j) {
      const Scalar* row = row_values;
      if (b.is_float()) row = b.float_data() + (j0 + j) * b.stride() + k0;
      else b.row(j0 + j, k0, depth, row_values);
      for (Index kk = 0; kk < depth; ++kk) panel[kk * kPanel + j] = row[kk];
    }
    return;
  }
  b.with_elements([&](auto type, const auto* data) {
    constexpr Dtype D = decltype(type)::value;
    for (Index kk = 0; kk < depth; ++kk, panel += kPanel) {
      const auto* row = data + (k0 + kk) * b.stride() + j0;
      if constexpr (std::is_same_v<Scalar, float>) {
        if (columns == kPanel) {  // one or two loads, put down in column order
          put_columns<D>(eight_columns<D>(row), panel);
          continue;
        }
      }
      for (Index j = 0; j < kPanel; ++j) panel[j] = j < columns ? widened<D>(row[j]) : Scalar(0);
    }
  });
}

// C[0:rows, 0:columns] (+)= A[0:rows, 0:depth]·panel   rows ≤ kRows, columns ≤ kPanel: A's entries
//   broadcast from its rows, the panel's two vectors loaded once per k
template <Index rows, bool fused>
void register_block(const Scalar* a, Index a_stride, const Scalar* panel, Index depth, Scalar* c, Index c_stride,
                    Index columns, bool add) {
  Vec left[rows], right[rows];
  const Scalar* a_row[rows];
  for (Index r = 0; r < rows; ++r) {
    left[r] = right[r] = Vec{};
    a_row[r] = a + r * a_stride;
  }
  for (Index kk = 0; kk < depth; ++kk, panel += kPanel) {
    const Vec b0 = load(panel), b1 = load(panel + kVectorWidth);
    for (Index r = 0; r < rows; ++r) {
      const Scalar x = a_row[r][kk];
      const Vec broadcast = {x, x, x, x};  // (not Vec{} + x: that adds 0, one more add a step)
      left[r] = multiply_add<fused>(broadcast, b0, left[r]);
      right[r] = multiply_add<fused>(broadcast, b1, right[r]);
    }
  }
  for (Index r = 0; r < rows; ++r) {
    Scalar* c_row = c + r * c_stride;
    if (columns == kPanel) {
      if (add) {
        left[r] += load(c_row);
        right[r] += load(c_row + kVectorWidth);
      }
      store(c_row, left[r]);
      store(c_row + kVectorWidth, right[r]);
    } else {
      Scalar sums[kPanel];
      store(sums, left[r]);
      store(sums + kVectorWidth, right[r]);
      for (Index j = 0; j < columns; ++j) c_row[j] = add ? c_row[j] + sums[j] : sums[j];
    }
  }
}

// Where a depth slice of a panel comes from: packed now into a scratch panel, or read from all of
// B's panels packed before (a PackedMatrix)
struct PanelSource {
  const WeightView& b;
  bool transposed;
  const Scalar* packed;  // every panel, depth slice by slice; nullptr: pack as they come
  Index width;           // B's panels × kPanel

  const Scalar* panel(Index k0, Index depth, Index p, Scalar* scratch) const {
    if (packed) return packed + k0 * width + p * depth * kPanel;
    pack_panel(b, transposed, k0, depth, p * kPanel, scratch);
    return scratch;
  }
};

// C[:, panels first…last) (+)= A·B[:, same] (+ bias[same] when given), one thread's share: each
//   depth slice of each panel is swept by all of A's rows; the bias is added to a panel's columns
//   after its last slice, while they are in cache (in the kernel, it made V8 spill its registers)
template <bool fused>
void packed_columns(const ConstMatrixRef& a, const PanelSource& source, MatrixRef c, bool add, const Scalar* bias,
                    Index first, Index last) {
  Scalar scratch[kDepth * kPanel];  // 8 KB, on the stack: nothing to allocate or keep per thread
  const Index m = a.rows(), k = a.cols(), n = c.cols();
  for (Index k0 = 0; k0 < k; k0 += kDepth) {
    const Index depth = std::min(kDepth, k - k0);
    const bool accumulate = add || k0 > 0;
    for (Index p = first; p < last; ++p) {
      const Index j0 = p * kPanel, columns = std::min(kPanel, n - j0);
      const Scalar* panel = source.panel(k0, depth, p, scratch);
      const Scalar* a_block = a.data() + k0;
      Scalar* c_block = c.data() + j0;
      Index i = 0;
      for (; i + kRows <= m; i += kRows)
        register_block<kRows, fused>(a_block + i * a.outerStride(), a.outerStride(), panel, depth,
                                     c_block + i * c.outerStride(), c.outerStride(), columns, accumulate);
      const Index left = m - i;
      const Scalar* a_rest = a_block + i * a.outerStride();
      Scalar* c_rest = c_block + i * c.outerStride();
      if (left == 3) register_block<3, fused>(a_rest, a.outerStride(), panel, depth, c_rest, c.outerStride(), columns, accumulate);
      if (left == 2) register_block<2, fused>(a_rest, a.outerStride(), panel, depth, c_rest, c.outerStride(), columns, accumulate);
      if (left == 1) register_block<1, fused>(a_rest, a.outerStride(), panel, depth, c_rest, c.outerStride(), columns, accumulate);
      if (bias && k0 + depth == k)
        for (Index r = 0; r < m; ++r)
          for (Index j = 0; j < columns; ++j) c_block[r * c.outerStride() + j] += bias[j0 + j];
    }
  }
}

Index panels_of(Index width) { return (width + kPanel - 1) / kPanel; }

void check_product(const ConstMatrixRef& a, Index b_depth, Index b_width, const MatrixRef& c, const char* name) {
  if (a.cols() != b_depth || c.rows() != a.rows() || c.cols() != b_width)
    throw_error({name, ": A ", shape_string(a.rows(), a.cols()), " and B of ", b_depth, " rows × ", b_width,
                 " columns do not give C ", shape_string(c.rows(), c.cols())});
}

}  // namespace

SeparateRounding::SeparateRounding() { ++separate_rounding_scopes; }
SeparateRounding::~SeparateRounding() { --separate_rounding_scopes; }

bool products_fused() { return kCanFuse && separate_rounding_scopes.load() == 0; }

bool matmul_is_packed() {
#if defined(__wasm_simd128__)
  return sizeof(Scalar) == 4;
#else
  return false;
#endif
}

void packed_matmul(const ConstMatrixRef& a, const WeightView& b, bool b_transposed, MatrixRef c, bool add,
                   const Scalar* bias) {
  check_product(a, b_transposed ? b.cols() : b.rows(), b_transposed ? b.rows() : b.cols(), c, "matmul");
  if (a.cols() == 0) {
    if (!add) c.setZero();
    if (bias) c.rowwise() += Eigen::Map<const RowVector>(bias, c.cols());
    return;
  }
  const Index panels = panels_of(c.cols());
  const PanelSource source{b, b_transposed, nullptr, panels * kPanel};
  const double work = static_cast<double>(c.rows()) * static_cast<double>(c.cols()) * static_cast<double>(a.cols());
  const Index blocks = std::min(panels, work >= kThreadWork ? num_threads() : Index(1));
  const bool fused = products_fused();  // read once: every block rounds alike
  const auto columns = [&](Index first, Index last) {
    with_rounding(fused, [&](auto fuse) { packed_columns<decltype(fuse)::value>(a, source, c, add, bias, first, last); });
  };
  if (blocks <= 1) return columns(0, panels);
  // one task type on either engine: a second (the fused twin's) would move the static data whose
  // addresses the JavaScript both engines share names (build.sh checks it)
  parallel_for(blocks, [&](Index block) { columns(block * panels / blocks, (block + 1) * panels / blocks); });
}

void matmul(const ConstMatrixRef& a, const WeightView& b, MatrixRef c, bool add) {
  if (matmul_is_packed()) return packed_matmul(a, b, false, c, add);
  check_product(a, b.rows(), b.cols(), c, "matmul");
  const auto product = [&](const auto& floats) {
    if (add)
      c.noalias() += a * floats;
    else
      c.noalias() = a * floats;
  };
  if (b.is_float()) product(b.floats());
  else product(b.widened());  // natively (tests, tools): the same floats Eigen's product reads
}

void matmul(const ConstMatrixRef& a, const WeightView& b, const Eigen::Ref<const RowVector>& bias, MatrixRef c) {
  require(bias.size() == b.cols(), "matmul: the bias has ", bias.size(), " entries for ", b.cols(), " columns");
  if (matmul_is_packed()) return packed_matmul(a, b, false, c, false, bias.data());
  matmul(a, b, c);
  c.rowwise() += bias;
}

PackedMatrix::PackedMatrix(const ConstMatrixRef& b, bool transposed, Index rows) : source_(b), transposed_(transposed) {
  if (!matmul_is_packed() || rows < kRows) return;
  const Index k = depth(), width = panels_of(this->width()) * kPanel;
  panels_.resize(static_cast<std::size_t>(k * width));
  for (Index k0 = 0; k0 < k; k0 += kDepth) {
    const Index depth = std::min(kDepth, k - k0);
    for (Index p = 0; p * kPanel < width; ++p)
      pack_panel(source_, transposed_, k0, depth, p * kPanel, panels_.data() + k0 * width + p * depth * kPanel);
  }
}

void matmul(const ConstMatrixRef& a, const PackedMatrix& b, MatrixRef c, bool add) {
  check_product(a, b.depth(), b.width(), c, "matmul");
  if (b.panels_.empty()) {  // natively, for a few rows, or with no depth
    if (b.transposed_ && add) c.noalias() += a * b.source_.transpose();
    else if (b.transposed_) c.noalias() = a * b.source_.transpose();
    else if (add) c.noalias() += a * b.source_;
    else c.noalias() = a * b.source_;
    return;
  }
  const Index panels = panels_of(c.cols());
  with_rounding(products_fused(), [&](auto fused) {
    packed_columns<decltype(fused)::value>(a, PanelSource{b.source_, b.transposed_, b.panels_.data(), panels * kPanel}, c, add, nullptr, 0, panels);
  });
}

namespace {
template <bool fused>
Scalar multiply_add_chains(Index steps) {
  // 12 chains: enough independent multiply-adds to cover their latency on two units; 12 registers
  constexpr int kChains = 12;
  static_assert(kPeakFlopsPerStep == kChains * kVectorWidth * 2);
  const Vec scale = {Scalar(0.999), Scalar(0.999), Scalar(0.999), Scalar(0.999)};
  const Vec shift = {Scalar(1e-3), Scalar(1e-3), Scalar(1e-3), Scalar(1e-3)};
  Vec chain[kChains];
  for (int i = 0; i < kChains; ++i) chain[i] = shift * Scalar(i);
  for (Index s = 0; s < steps; ++s)
    for (int i = 0; i < kChains; ++i) chain[i] = multiply_add<fused>(chain[i], scale, shift);
  Scalar sum = 0;
  for (int i = 0; i < kChains; ++i)
    for (int l = 0; l < kVectorWidth; ++l) sum += chain[i][l];
  return sum;
}
}  // namespace

Scalar multiply_add_peak(Index steps) {
  return with_rounding(products_fused(), [&](auto fused) { return multiply_add_chains<decltype(fused)::value>(steps); });
}

void matmul_transposed(const ConstMatrixRef& a, const WeightView& b, MatrixRef c) {
  if (matmul_is_packed()) return packed_matmul(a, b, true, c, false);
  check_product(a, b.cols(), b.rows(), c, "matmul");
  if (b.is_float()) c.noalias() = a * b.floats().transpose();
  else c.noalias() = a * b.widened().transpose();
}

}  // namespace attnlab
