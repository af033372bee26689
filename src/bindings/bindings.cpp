// The engine's JavaScript surface: declarations only. Adapters are in js_*.cpp, conversions in
// marshal.cpp, and the documented contract in web/src/engine/attnlab.d.mts.
#include <emscripten/bind.h>

#include "bindings/js_api.hpp"

EMSCRIPTEN_BINDINGS(attnlab) {
  using namespace emscripten;
  using namespace attnlab::js;

  function("buildInfo", &build_info);
  function("setThreads", &set_threads);
  function("memoryInUse", &memory_in_use);
  function("memoryPeak", &memory_peak);
  function("benchmark", &benchmark);

  function("positionalTable", &positional_table);
  function("positionSimilarity", &position_similarity);
  function("sinusoidalShiftMatrix", &sinusoidal_shift_matrix);
  function("sinusoidalShift", &sinusoidal_shift);
  function("norms", &norms);
  function("attentionBudget", &attention_budget);
  function("randomNormal", &random_normal);
  function("ropeApply", &rope_apply);
  function("ropeRotation", &rope_rotation);
  function("alibiSlopes", &alibi_slopes);
  function("alibiBias", &alibi_bias);

  function("rnnGradientFlow", &rnn_gradient_flow);
  function("dotProductStatistics", &dot_product_statistics);
  function("softmaxRow", &softmax_row);
  function("softmaxForms", &softmax_forms);
  function("depthGradients", &depth_gradients);
  function("activationCurve", &activation_curve);
  function("feedForwardParameters", &feed_forward_parameters);
  function("patchEmbedding", &patch_embedding);

  class_<AttentionStepsHandle>("AttentionSteps")
      .smart_ptr<std::shared_ptr<AttentionStepsHandle>>("AttentionStepsPtr")
      .function("stages", &AttentionStepsHandle::stages)
      .function("stage", &AttentionStepsHandle::stage)
      .function("advance", &AttentionStepsHandle::advance)
      .function("runAll", &AttentionStepsHandle::run_all)
      .function("result", &AttentionStepsHandle::result);
  function("attentionSteps", &attention_steps);
  function("attention", &attention);

  class_<ModelHandle>("Model")
      .smart_ptr<std::shared_ptr<ModelHandle>>("ModelPtr")
      .function("config", &ModelHandle::config)
      .function("tokenize", &ModelHandle::tokenize)
      .function("decode", &ModelHandle::decode)
      .function("pieces", &ModelHandle::pieces)
      .function("specialTokens", &ModelHandle::special_tokens)
      .function("forward", &ModelHandle::forward)
      .function("nextTokenProbabilities", &ModelHandle::next_token_probabilities)
      .function("startGeneration", &ModelHandle::start_generation)
      .function("generateStep", &ModelHandle::generate_step)
      .function("kvCache", &ModelHandle::kv_cache)
      .function("generate", &ModelHandle::generate)
      .function("save", &ModelHandle::save)
      .function("fingerprint", &ModelHandle::fingerprint)
      .function("weightDtype", &ModelHandle::weight_dtype)
      .function("parameter", &ModelHandle::parameter)
      .function("attentionSteps", &ModelHandle::attention_steps);
  function("modelFromConfig", &model_from_config);
  function("programmedModel", &programmed_model);
  function("describeProgram", &describe_program);
  function("programInput", &program_input);
  class_<CheckpointLoading>("CheckpointLoader")
      .smart_ptr<std::shared_ptr<CheckpointLoading>>("CheckpointLoaderPtr")
      .function("addShard", &CheckpointLoading::add_shard)
      .function("useIndex", &CheckpointLoading::use_index)
      .function("start", &CheckpointLoading::start)
      .function("feed", &CheckpointLoading::feed)
      .function("finish", &CheckpointLoading::finish)
      .function("describe", &CheckpointLoading::describe);
  function("checkpointLoader", &checkpoint_loading);
  function("safetensorsHeaderSize", &safetensors_header_size);

  class_<TrainerHandle>("Trainer")
      .smart_ptr<std::shared_ptr<TrainerHandle>>("TrainerPtr")
      .function("step", &TrainerHandle::step)
      .function("progress", &TrainerHandle::progress)
      .function("heldOutAccuracy", &TrainerHandle::held_out_accuracy)
      .function("heldOutLoss", &TrainerHandle::held_out_loss)
      .function("heldOutLossByPart", &TrainerHandle::held_out_loss_by_part)
      .function("prefixMatching", &TrainerHandle::prefix_matching)
      .function("schedule", &TrainerHandle::schedule)
      .function("model", &TrainerHandle::model)
      .function("example", &TrainerHandle::example);
  function("createTrainer", &create_trainer);
  function("coreferenceSentence", &coreference_sentence);
}
