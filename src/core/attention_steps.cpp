#include "core/attention_steps.hpp"

#include "core/check.hpp"

namespace attnlab {

AttentionSteps AttentionSteps::multi_head(const AttentionConfig& config, const AttentionParams& params,
                                          const ConstMatrixRef& x, const ConstMatrixRef& memory, const Mask& mask) {
  AttentionSteps s;
  s.multi_ = true;
  s.config_ = config;
  s.params_ = params;
  s.x_ = x;
  s.memory_ = memory;
  s.mask_ = mask;
  // everything is validated now, not at some later stage
  config.validate();
  require(!config.flash() || (mask.key_padding.empty() && mask.additive.size() == 0),
          "attention: flash attention supports the causal mask only");
  project_qkv(config, params, x, memory.size() ? memory : x, mask, memory.size() == 0);
  s.stages_ = config.flash() ? std::vector<AttentionStage>{AttentionStage::start, AttentionStage::project, AttentionStage::flash,
                                                  AttentionStage::concat, AttentionStage::output}
                    : std::vector<AttentionStage>{AttentionStage::start, AttentionStage::project, AttentionStage::scores,
                                                  AttentionStage::scale, AttentionStage::mask, AttentionStage::softmax,
                                                  AttentionStage::mix, AttentionStage::concat, AttentionStage::output};
  s.scale_ = attention_scale(config.d_head(), config.scaled);
  return s;
}

AttentionSteps AttentionSteps::single_head(const ConstMatrixRef& x, const ConstMatrixRef& memory,
                                           const ConstMatrixRef& w_q, const ConstMatrixRef& w_k,
                                           const ConstMatrixRef& w_v, const Mask& mask, bool scaled) {
  AttentionSteps s;
  s.x_ = x;
  s.memory_ = memory;
  s.w_q_ = w_q;
  s.w_k_ = w_k;
  s.w_v_ = w_v;
  s.mask_ = mask;
  attention_head_forward_traced(x, memory.size() ? memory : x, w_q, w_k, w_v, mask, scaled);  // validates
  s.stages_ = {AttentionStage::start, AttentionStage::project, AttentionStage::scores, AttentionStage::scale,
               AttentionStage::mask, AttentionStage::softmax, AttentionStage::mix};
  s.scale_ = attention_scale(w_q.cols(), scaled);
  return s;
}

const AttentionTrace& AttentionSteps::head(Index h) const {
  require(h >= 0 && h < heads(), "attention steps: head ", h, " does not exist (", heads(), " heads",
          (heads() == 0 ? ", nothing projected yet)" : ")"));
  return results_.per_head[static_cast<size_t>(h)];
}

const FlashTrace& AttentionSteps::flash(Index h) const {
  head(h);
  require(!results_.flash.empty(), "attention steps: no flash tiles (flash attention is off or has not run)");
  return results_.flash[static_cast<size_t>(h)];
}

AttentionStage AttentionSteps::advance() {
  require(!finished(), "attention steps: every stage has run");
  // the stage works on a copy, kept once it has run to its end
  Results next = results_;
  run(stages_[done_ + 1], next);
  results_ = std::move(next);
  ++done_;
  return stage();
}

void AttentionSteps::run_all() {
  while (!finished()) advance();
}

void AttentionSteps::run(AttentionStage stage, Results& r) const {
  const Matrix& kv_source = memory_.size() ? memory_ : x_;
  switch (stage) {
    case AttentionStage::project: {
      if (multi_) {
        r.projected = project_qkv(config_, params_, x_, kv_source, mask_, memory_.size() == 0);
        for (Index h = 0; h < config_.n_heads; ++h) {
          AttentionTrace t;
          t.q = r.projected.queries(config_, h);
          t.k = r.projected.keys(config_, h);
          t.v = r.projected.values(config_, h);
          t.scale = scale_;
          r.per_head.push_back(std::move(t));
          r.head_masks.push_back(head_mask(config_, mask_, h, x_.rows(), kv_source.rows()));
        }
      } else {
        AttentionTrace t;
        t.q = x_ * w_q_;
        t.k = kv_source * w_k_;
        t.v = kv_source * w_v_;
        t.scale = scale_;
        r.per_head.push_back(std::move(t));
        r.head_masks.push_back(mask_);
      }
      break;
    }
    case AttentionStage::scores:
    case AttentionStage::scale:
    case AttentionStage::mask:
    case AttentionStage::softmax:
    case AttentionStage::mix:
      for (size_t h = 0; h < r.per_head.size(); ++h) run_head_stage(stage, r.per_head[h], r.head_masks[h]);
      break;
    case AttentionStage::flash:
      attend_heads(config_, r.projected, mask_, &r.per_head, &r.flash);
      break;
    case AttentionStage::concat: {
      const Index dv = r.per_head.front().output.cols();
      const Index heads = static_cast<Index>(r.per_head.size());
      r.concat.resize(x_.rows(), dv * heads);
      for (Index h = 0; h < heads; ++h) r.concat.middleCols(h * dv, dv) = r.per_head[static_cast<size_t>(h)].output;
      break;
    }
    case AttentionStage::output:
      r.output = output_projection(params_, r.concat);
      break;
    case AttentionStage::start:
      break;
  }
}

}  // namespace attnlab
