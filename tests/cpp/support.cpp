#include "support.hpp"

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <sstream>

namespace attnlab::test {

Matrix rows(std::initializer_list<std::initializer_list<float>> values) {
  const Index r = static_cast<Index>(values.size());
  const Index c = r ? static_cast<Index>(values.begin()->size()) : 0;
  Matrix out(r, c);
  Index i = 0;
  for (const auto& row : values) {
    REQUIRE(static_cast<Index>(row.size()) == c);
    Index j = 0;
    for (float v : row) out(i, j++) = v;
    ++i;
  }
  return out;
}

Matrix seeded_random(Index r, Index c, unsigned seed, float scale) {
  std::srand(seed);
  return Matrix::Random(r, c) * scale;
}

WeightMatrix seeded_half_weight(Index r, Index c, Dtype dtype, unsigned seed) {
  WeightMatrix w;
  w.store_half(dtype, r, c);
  std::uint32_t state = seed * 2654435761u + 1;
  const int mantissa_bits = dtype == Dtype::bf16 ? 7 : 10, bias = dtype == Dtype::bf16 ? 127 : 15;
  for (Index i = 0; i < r * c; ++i) {
    state ^= state << 13;
    state ^= state >> 17;
    state ^= state << 5;
    const std::uint32_t exponent = static_cast<std::uint32_t>(bias - 5) + (state >> 8) % 7;
    w.half_data()[i] = static_cast<std::uint16_t>(((state >> 31) << 15) | (exponent << mantissa_bits) |
                                                  (state & ((1u << mantissa_bits) - 1)));
  }
  return w;
}

bool MatrixNear::match(const Matrix& actual) const {
  if (actual.rows() != expected_.rows() || actual.cols() != expected_.cols()) {
    detail_ = "shape (" + std::to_string(actual.rows()) + "," + std::to_string(actual.cols()) + ")";
    return false;
  }
  double worst = 0;
  Index wi = 0, wj = 0;
  for (Index i = 0; i < actual.rows(); ++i)
    for (Index j = 0; j < actual.cols(); ++j) {
      const double a = actual(i, j), e = expected_(i, j);
      const double diff = (std::isinf(a) && a == e) ? 0.0 : std::abs(a - e);
      if (!(diff <= worst)) {  // also catches NaN
        worst = diff;
        wi = i;
        wj = j;
      }
    }
  std::ostringstream s;
  s << "largest difference " << worst << " at (" << wi << "," << wj << ")";
  detail_ = s.str();
  return worst <= tolerance_;
}

std::string MatrixNear::describe() const {
  std::ostringstream s;
  s << "is within " << tolerance_ << " of the expected (" << expected_.rows() << ","
    << expected_.cols() << ") matrix; " << detail_;
  return s.str();
}

ReferenceAttention reference_attention(const MatrixD& q, const MatrixD& k, const MatrixD& v,
                                       bool causal, bool scaled) {
  const Index n = q.rows(), m = k.rows(), dk = q.cols(), dv = v.cols();
  ReferenceAttention r;
  r.scores = MatrixD::Zero(n, m);
  for (Index i = 0; i < n; ++i)
    for (Index j = 0; j < m; ++j)
      for (Index c = 0; c < dk; ++c) r.scores(i, j) += q(i, c) * k(j, c);
  r.scaled = r.scores * (scaled ? 1.0 / std::sqrt(static_cast<double>(dk)) : 1.0);
  r.weights = MatrixD::Zero(n, m);
  for (Index i = 0; i < n; ++i) {
    const Index visible = causal ? (m - n + i + 1) : m;
    double total = 0;
    for (Index j = 0; j < visible; ++j) total += std::exp(r.scaled(i, j));
    for (Index j = 0; j < visible; ++j) r.weights(i, j) = std::exp(r.scaled(i, j)) / total;
  }
  r.output = MatrixD::Zero(n, dv);
  for (Index i = 0; i < n; ++i)
    for (Index j = 0; j < m; ++j)
      for (Index c = 0; c < dv; ++c) r.output(i, c) += r.weights(i, j) * v(j, c);
  return r;
}

namespace {

Matrix matrix_from_json(const nlohmann::json& t, const std::string& key) {
  const auto& shape = t.at("shape");
  const auto& data = t.at("data");
  Index r = 1, c = 1;
  if (shape.size() == 1) {
    c = shape[0].get<Index>();
  } else {
    REQUIRE(shape.size() == 2);
    r = shape[0].get<Index>();
    c = shape[1].get<Index>();
  }
  INFO("tensor " << key);
  REQUIRE(static_cast<Index>(data.size()) == r * c);
  Matrix out(r, c);
  for (Index i = 0; i < r * c; ++i) out.data()[i] = data[i].get<float>();
  return out;
}

}  // namespace

Matrix FixtureCase::tensor(const std::string& key) const {
  return matrix_from_json(tensors.at(key), key);
}

std::vector<Matrix> FixtureCase::tensor_stack(const std::string& key) const {
  const auto& t = tensors.at(key);
  const auto& shape = t.at("shape");
  REQUIRE(shape.size() == 3);
  const Index h = shape[0], r = shape[1], c = shape[2];
  std::vector<Matrix> out;
  for (Index s = 0; s < h; ++s) {
    Matrix m(r, c);
    for (Index i = 0; i < r * c; ++i) m.data()[i] = t.at("data")[s * r * c + i].get<float>();
    out.push_back(m);
  }
  return out;
}

std::vector<FixtureCase> load_fixture_cases(const std::string& file) {
  const std::string path = std::string(ATTNLAB_FIXTURE_DIR) + "/" + file;
  std::ifstream in(path);
  INFO("fixture " << path);
  REQUIRE(in.good());
  const auto doc = nlohmann::json::parse(in);
  std::vector<FixtureCase> cases;
  for (const auto& c : doc.at("cases")) {
    FixtureCase f;
    f.name = c.at("name");
    f.kind = c.at("kind");
    f.tensors = c.at("tensors");
    f.settings = c;
    f.settings.erase("tensors");
    cases.push_back(std::move(f));
  }
  REQUIRE(!cases.empty());
  return cases;
}

void load_slots(const std::vector<TensorSlot>& slots, const FixtureCase& fixture, const std::string& prefix) {
  Index loaded = 0;
  for (const TensorSlot& slot : slots) {
    if (slot.name.rfind(prefix, 0) != 0) continue;
    const std::string key = slot.name.substr(prefix.size());
    INFO("tensor " << key);
    REQUIRE(fixture.has_tensor(key));
    const Matrix m = fixture.tensor(key);
    Index count = 1;
    for (auto s : slot.shape) count *= s;
    REQUIRE(m.size() == count);
    REQUIRE(m.cols() == slot.shape.back());
    std::copy(m.data(), m.data() + count, slot.data);
    ++loaded;
  }
  REQUIRE(loaded > 0);
}

}  // namespace attnlab::test
