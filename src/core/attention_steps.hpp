#pragma once
// Attention one stage at a time, for showing each intermediate as it is produced:
//   project → scores → scale → mask → softmax → mix → concat → output
// (with flash attention: project → flash → concat → output, the n×m stages never existing).
#include <vector>

#include "core/attention.hpp"
#include "core/flash_attention.hpp"
#include "core/mask.hpp"
#include "core/multi_head_attention.hpp"

namespace attnlab {

class AttentionSteps {
 public:
  // multi-head attention from GPT-2-layout parameters: MHA, GQA or MQA, self-attention (memory
  // empty) or cross-attention, RoPE/ALiBi or flash attention as configured
  static AttentionSteps multi_head(const AttentionConfig& config, const AttentionParams& params,
                                   const ConstMatrixRef& x, const ConstMatrixRef& memory, const Mask& mask);
  // one head with its own projections, as in the seminar's examples: stops after mix
  //   X:(n,d) memory:(m,d) (empty for self-attention) W_Q,W_K:(d,d_k) W_V:(d,d_v)
  static AttentionSteps single_head(const ConstMatrixRef& x, const ConstMatrixRef& memory,
                                    const ConstMatrixRef& w_q, const ConstMatrixRef& w_k,
                                    const ConstMatrixRef& w_v, const Mask& mask, bool scaled);

  AttentionStage stage() const { return stages_[done_]; }
  // the stage the next advance() runs, or start when finished
  AttentionStage next_stage() const { return finished() ? AttentionStage::start : stages_[done_ + 1]; }
  bool finished() const { return done_ + 1 == stages_.size(); }
  const std::vector<AttentionStage>& stages() const { return stages_; }
  // runs the next stage; throws attnlab::Error when all are done. All or nothing: a stage that
  // throws (a failed allocation) leaves every stage's results as they were.
  AttentionStage advance();
  void run_all();

  Index heads() const { return static_cast<Index>(results_.per_head.size()); }
  Scalar scale() const { return scale_; }
  // one head's state; entries are empty until their stage has run
  const AttentionTrace& head(Index h) const;
  // running max/sum after every tile of head h (flash attention only)
  const FlashTrace& flash(Index h) const;
  const Matrix& concat() const { return results_.concat; }  // (n, h·d_v) after concat
  const Matrix& output() const { return results_.output; }  // (n, d) after output

 private:
  // what the stages have produced so far
  struct Results {
    ProjectedQKV projected;
    std::vector<AttentionTrace> per_head;
    std::vector<Mask> head_masks;
    std::vector<FlashTrace> flash;
    Matrix concat, output;
  };

  AttentionSteps() = default;
  // runs `stage` on the results of the stages before it
  void run(AttentionStage stage, Results& r) const;

  std::vector<AttentionStage> stages_;
  size_t done_ = 0;
  // inputs
  bool multi_ = false;
  AttentionConfig config_;
  AttentionParams params_;
  Matrix x_, memory_, w_q_, w_k_, w_v_;
  Mask mask_;
  Scalar scale_ = 1;
  Results results_;
};

}  // namespace attnlab
