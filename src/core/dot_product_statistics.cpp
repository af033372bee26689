#include "core/dot_product_statistics.hpp"

#include "core/attention.hpp"
#include "core/check.hpp"
#include "core/random.hpp"

namespace attnlab {
namespace {

// Welford's running mean and population variance, in double
class RunningVariance {
 public:
  void add(double x) {
    ++count_;
    const double delta = x - mean_;
    mean_ += delta / count_;
    squares_ += delta * (x - mean_);
  }
  double mean() const { return mean_; }
  double variance() const { return squares_ / count_; }

 private:
  double count_ = 0, mean_ = 0, squares_ = 0;
};

}  // namespace

DotProductStatistics dot_product_statistics(Index d_k, Index samples, Index keys, std::uint32_t seed) {
  require(d_k >= 1 && samples >= 1 && keys >= 1,
          "dot-product statistics: d_k, samples and keys must be at least 1");
  require_size(keys, d_k, "dot-product statistics: keys × d_k");
  Rng rng(seed);
  const double scale = attention_scale(d_k, true);
  RunningVariance raw, scaled;
  for (Index i = 0; i < samples; ++i) {
    const Matrix q = draw_normal(1, d_k, rng), k = draw_normal(1, d_k, rng);
    const double s = q.row(0).dot(k.row(0));
    raw.add(s);
    scaled.add(scale * s);
  }
  DotProductStatistics stats;
  stats.mean = raw.mean();
  stats.variance = raw.variance();
  stats.scaled_variance = scaled.variance();
  const Matrix query = draw_normal(1, d_k, rng), key_rows = draw_normal(keys, d_k, rng);
  stats.scores.resize(keys);
  attention_scores(query, key_rows, stats.scores);
  return stats;
}

}  // namespace attnlab
