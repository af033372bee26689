#include <catch2/catch.hpp>
#include <optional>

#include "allocation_tracker.hpp"
#include "core/check.hpp"
#include "core/thread_pool.hpp"
#include "model/trace.hpp"
#include "train/trainer.hpp"

using namespace attnlab;

namespace {

TrainingOptions quick_options(Index steps) {
  TrainingOptions o;
  o.batch_size = 16;
  o.schedule.peak = 3e-3f;
  o.schedule.warmup_steps = 10;
  o.schedule.total_steps = steps;
  o.seed = 3;
  return o;
}

std::shared_ptr<const Task> small_copy_task() {
  return std::make_shared<LetterSequenceTask>(LetterSequenceTask::Kind::copy, 2, 4);
}

std::shared_ptr<const Task> small_reverse_seq2seq_task() {
  return std::make_shared<LetterSeq2SeqTask>(LetterSequenceTask::Kind::reverse, 2, 4);
}

}  // namespace

TEST_CASE("training step by step", "[trainer][threads][long]") {
  SECTION("the loss falls and the learning rate follows the schedule") {
    Trainer trainer(small_copy_task(), quick_options(120));
    const StepReport first = trainer.step();
    CHECK(first.step == 1);
    CHECK_THAT(first.learning_rate, Catch::Matchers::WithinRel(3e-4f, 1e-5f));
    CHECK(first.gradient_norm > 0);
    // an untrained model is near uniform over the 32 tokens: loss ≈ ln 32
    CHECK_THAT(first.loss, Catch::Matchers::WithinAbs(std::log(32.0f), 0.3f));
    StepReport last = first;
    for (int i = 1; i < 120; ++i) last = trainer.step();
    CHECK(last.step == 120);
    CHECK(trainer.steps_done() == 120);
    CHECK(last.loss < 0.5f * first.loss);
    CHECK(last.accuracy > first.accuracy);
  }
  SECTION("deterministic for a seed, whatever the number of threads") {
    const Index threads = num_threads();
    set_num_threads(1);
    Trainer one(small_copy_task(), quick_options(20));
    for (int i = 0; i < 5; ++i) one.step();
    set_num_threads(max_threads());
    Trainer many(small_copy_task(), quick_options(20));
    for (int i = 0; i < 5; ++i) many.step();
    set_num_threads(threads);
    CHECK(one.model().params().wte == many.model().params().wte);
    CHECK(one.model().params().decoder.h[1].mlp.c_proj_weight == many.model().params().decoder.h[1].mlp.c_proj_weight);
    TrainingOptions other = quick_options(20);
    other.seed = 4;
    Trainer different(small_copy_task(), other);
    different.step();
    CHECK(different.model().params().wte != one.model().params().wte);
  }
  SECTION("a step can hand back the trace of its first example") {
    Trainer trainer(small_copy_task(), quick_options(20));
    ModelActivations kept;
    const Trace trace(kept);
    trainer.step(&kept);
    CHECK(trace.contains("layer1.attn.head3.weights"));
    CHECK(trace.contains("logits"));
  }
  SECTION("a diverging step throws and leaves the model as it was") {
    TrainingOptions wild = quick_options(20);
    Trainer trainer(small_copy_task(), wild);
    trainer.step();
    ModelParams& params = const_cast<Transformer&>(trainer.model()).mutable_params();
    params.wte(7, 0) = std::numeric_limits<float>::infinity();
    const Matrix before = trainer.model().params().decoder.h[0].attn.c_attn_weight;
    CHECK_THROWS_WITH(trainer.step(), Catch::Contains("training diverged at step 2"));
    CHECK(trainer.model().params().decoder.h[0].attn.c_attn_weight == before);
    CHECK(trainer.steps_done() == 1);
  }
  SECTION("bad settings and mismatched models are refused") {
    TrainingOptions bad = quick_options(20);
    bad.batch_size = 0;
    CHECK_THROWS_WITH(Trainer(small_copy_task(), bad), Catch::Contains("batch size"));
    ModelConfig tiny = small_copy_task()->model_config();
    tiny.vocab_size = 8;
    CHECK_THROWS_WITH(Trainer(small_copy_task(), Transformer::random(tiny, 1), quick_options(20)),
                      Catch::Contains("vocabulary"));
    const ModelConfig config = small_copy_task()->model_config();
    const Transformer kept_in_bf16(config, ModelParams::zeros(config, kDefaultMaxParameterBytes, Dtype::bf16));
    CHECK_THROWS_WITH(Trainer(small_copy_task(), kept_in_bf16, quick_options(20)),
                      "training: the model's weights are kept as BF16 values to be run; load it with float weights to train it");
  }
}

TEST_CASE("training an encoder-decoder", "[trainer][threads][long]") {
  SECTION("the loss falls; the trace is the first example's, encoder and decoder") {
    Trainer trainer(small_reverse_seq2seq_task(), quick_options(150));
    ModelActivations kept;
    const Trace trace(kept);
    const StepReport first = trainer.step(&kept);
    CHECK(trace.contains("encoder.layer1.attn.head0.weights"));
    CHECK(trace.contains("decoder.layer1.cross.head3.weights"));
    CHECK_THAT(first.loss, Catch::Matchers::WithinAbs(std::log(32.0f), 0.3f));
    StepReport last = first;
    for (int i = 1; i < 150; ++i) last = trainer.step();
    CHECK(last.loss < 0.5f * first.loss);
    CHECK(trainer.held_out_loss(50, 1) < 0.6 * first.loss);
  }
  SECTION("the encoder learns too, and the result does not depend on the number of threads") {
    const Index threads = num_threads();
    set_num_threads(1);
    Trainer one(small_reverse_seq2seq_task(), quick_options(20));
    for (int i = 0; i < 5; ++i) one.step();
    set_num_threads(max_threads());
    Trainer many(small_reverse_seq2seq_task(), quick_options(20));
    for (int i = 0; i < 5; ++i) many.step();
    set_num_threads(threads);
    const ModelParams initial = Transformer::random(small_reverse_seq2seq_task()->model_config(), 3).params();
    CHECK(one.model().params().encoder.h[0].attn.c_attn_weight != initial.encoder.h[0].attn.c_attn_weight);
    CHECK(one.model().params().encoder.h[0].attn.c_attn_weight == many.model().params().encoder.h[0].attn.c_attn_weight);
    CHECK(one.model().params().decoder.h[1].crossattention.c_attn_weight ==
          many.model().params().decoder.h[1].crossattention.c_attn_weight);
  }
  SECTION("a model of the other kind is refused") {
    ModelConfig decoder_only = small_reverse_seq2seq_task()->model_config();
    decoder_only.architecture = Architecture::decoder_only;
    CHECK_THROWS_WITH(Trainer(small_reverse_seq2seq_task(), Transformer::random(decoder_only, 1), quick_options(20)),
                      Catch::Contains("trains encoder_decoder models, not decoder_only"));
    ModelConfig encoder_decoder = small_copy_task()->model_config();
    encoder_decoder.architecture = Architecture::encoder_decoder;
    encoder_decoder.n_decoder_layers = 1;
    CHECK_THROWS_WITH(Trainer(small_copy_task(), Transformer::random(encoder_decoder, 1), quick_options(20)),
                      Catch::Contains("trains decoder_only models, not encoder_decoder"));
  }
}


// WebAssembly's allocator serves every thread under one lock, so a step that allocates a lot gains
// nothing from a second thread: a step must keep to few allocations per example.
TEST_CASE("a training step allocates little", "[trainer][memory]") {
  if (!attnlab::test::allocation_tracking_available()) return;
  std::shared_ptr<const Task> task = make_task("coreference");
  TrainingOptions options = task->training_options();
  options.batch_size = 32;
  Trainer trainer(task, options);
  trainer.step();  // the first step sizes the buffers that later steps reuse
  attnlab::test::allocation_tracking_start();
  trainer.step();
  attnlab::test::allocation_tracking_stop();
  const std::size_t per_example = attnlab::test::allocation_tracking_count() / 32;
  INFO(per_example << " allocations per example");
  CHECK(per_example > 0);
  CHECK(per_example <= 200);
}

TEST_CASE("a trainer changes nothing when a step fails, and is refused beyond its limits", "[trainer][errors]") {
  SECTION("a step that throws before its update leaves the model, the optimiser and the examples as they were") {
    Trainer failing(small_copy_task(), quick_options(20));
    Trainer plain(small_copy_task(), quick_options(20));
    failing.step();
    plain.step();
    CHECK_THROWS_WITH(failing.step(nullptr, [] { throw Error("checked before the update"); }),
                      "checked before the update");
    CHECK(failing.steps_done() == 1);
    // the next step draws the batch the failed one drew, and both trainers stay bit for bit alike
    const StepReport a = failing.step(), b = plain.step();
    CHECK(a.loss == b.loss);
    CHECK(failing.model().params().decoder.h[0].attn.c_attn_weight == plain.model().params().decoder.h[0].attn.c_attn_weight);
    CHECK(failing.model().params().wte == plain.model().params().wte);
  }
  SECTION("a step that fails at any allocation leaves the trainer as it was") {
    TrainingOptions options = quick_options(20);
    options.batch_size = 2;
    Trainer failing(small_copy_task(), options);
    Trainer plain(small_copy_task(), options);
    failing.step();
    plain.step();
    const std::uint64_t weights = parameter_fingerprint(plain.model().config(), plain.model().params());
    StepReport report;
    const std::size_t failures = fail_each_allocation([&] { report = failing.step(); }, [&] {
      CHECK(failing.steps_done() == 1);
      CHECK(parameter_fingerprint(failing.model().config(), failing.model().params()) == weights);
    });
    if (allocation_tracking_available()) CHECK(failures > 10);
    // the step that succeeded drew the batch, and found the moments, of a step that never failed
    const StepReport expected = plain.step();
    CHECK(report.loss == expected.loss);
    CHECK(report.gradient_norm == expected.gradient_norm);
    CHECK(parameter_fingerprint(failing.model().config(), failing.model().params()) ==
          parameter_fingerprint(plain.model().config(), plain.model().params()));
    CHECK(failing.step().loss == plain.step().loss);
  }
  SECTION("its memory counts every copy: the model, its gradient, two moments and a gradient per thread") {
    const ModelConfig demo = small_copy_task()->model_config();
    const Index threads = num_threads();
    set_num_threads(1);
    // a model that four copies would fit, five not
    std::optional<ModelConfig> between;
    for (Index d : {256, 512, 1024, 2048})
      for (Index layers = 1; layers <= 64 && !between; ++layers) {
        const ModelConfig c = ModelConfig::Builder(demo).width(d, 8).ffn(4 * d).layers(layers).build();
        const std::uint64_t bytes = parameter_bytes(c);
        if (bytes > kDefaultMaxParameterBytes / 5 && bytes <= kDefaultMaxParameterBytes / 4) between = c;
      }
    REQUIRE(between);
    TrainingOptions options = quick_options(20);
    options.batch_size = 1;  // its work is not what is refused
    CHECK_THROWS_WITH(require_trainable(*between, options), Catch::StartsWith("training: a trainer holds 5 copies of the "));
    set_num_threads(threads);
  }
  SECTION("one step's work is capped: a large batch on a large model is refused before anything is allocated") {
    const ModelConfig demo = small_copy_task()->model_config();
    TrainingOptions big_batch = quick_options(20);
    big_batch.batch_size = 512;
    const Index threads = num_threads();
    set_num_threads(1);
    // within the memory limit (5 copies of 38 MB), beyond the work one step may do
    const ModelConfig large = ModelConfig::Builder(demo).width(256, 8).ffn(1024).layers(12).build();
    REQUIRE(5 * parameter_bytes(large) <= kDefaultMaxParameterBytes);
    REQUIRE(6.0 * static_cast<double>(parameter_bytes(large) / 4) * 512 * static_cast<double>(large.n_ctx) > kMaxTrainingStepFlops);
    CHECK_THROWS_WITH(require_trainable(large, big_batch),
                      Catch::StartsWith("training: a step of 512 examples of up to ") &&
                          Catch::Contains("floating-point operations, more than the limit of 137438953472"));
    CHECK_THROWS_WITH(Trainer(small_copy_task(), Transformer::random(large, 1), big_batch),
                      Catch::Contains("more than the limit of 137438953472"));
    // the demo models and their batches are far inside it
    CHECK_NOTHROW(require_trainable(demo, quick_options(20)));
    set_num_threads(threads);
  }
}
