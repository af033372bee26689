#pragma once
// Shared test helpers: a matrix matcher that reports the largest difference, an independent
// double-precision reference attention, and the PyTorch fixture reader.
#include <catch2/catch.hpp>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/tensor.hpp"
#include "core/weight.hpp"
#include "model/params.hpp"

namespace attnlab::test {

using MatrixD = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// Matrix from rows written out in the test
Matrix rows(std::initializer_list<std::initializer_list<float>> values);

// r×c entries uniform in [−scale, scale], the same for the same seed
Matrix seeded_random(Index r, Index c, unsigned seed, float scale = 1.0f);

// an (r, c) weight of seeded 16-bit values (F16 or BF16) of either sign, magnitudes 2⁻⁵ … 2
WeightMatrix seeded_half_weight(Index r, Index c, Dtype dtype, unsigned seed);

// Matches when shapes agree and every |actual − expected| ≤ tolerance; describes the worst entry.
class MatrixNear : public Catch::MatcherBase<Matrix> {
 public:
  MatrixNear(MatrixD expected, double tolerance) : expected_(std::move(expected)), tolerance_(tolerance) {}
  bool match(const Matrix& actual) const override;
  std::string describe() const override;

 private:
  MatrixD expected_;
  double tolerance_;
  mutable std::string detail_;
};

inline MatrixNear IsNear(const Matrix& expected, double tolerance) {
  return MatrixNear(expected.cast<double>(), tolerance);
}
inline MatrixNear IsNear(const MatrixD& expected, double tolerance) {
  return MatrixNear(expected, tolerance);
}

// Reference attention in double, written with plain loops (independent of the engine's code).
struct ReferenceAttention {
  MatrixD scores, scaled, weights, output;
};
ReferenceAttention reference_attention(const MatrixD& q, const MatrixD& k, const MatrixD& v,
                                       bool causal, bool scaled = true);

// One case of tests/reference/fixtures/<file>.json: its settings and its tensors.
struct FixtureCase {
  std::string name, kind;
  nlohmann::json settings;  // everything but the tensors
  nlohmann::json tensors;   // name → {shape, data}

  template <class T>
  T get(const std::string& key) const { return settings.at(key).get<T>(); }
  bool has_tensor(const std::string& key) const { return tensors.contains(key); }
  Matrix tensor(const std::string& key) const;                     // 1-D (as one row) or 2-D
  std::vector<Matrix> tensor_stack(const std::string& key) const;  // 3-D (h,n,m) → h matrices
};
std::vector<FixtureCase> load_fixture_cases(const std::string& file);

// Copies fixture tensors into the slots whose names start with `prefix` (the prefix removed gives
// the fixture's tensor name); every such slot must be found with its shape.
void load_slots(const std::vector<TensorSlot>& slots, const FixtureCase& fixture, const std::string& prefix);

}  // namespace attnlab::test
