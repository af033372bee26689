// The seminar's experiments: an RNN's vanishing gradient against attention's, the variance of dot
// products behind 1/√d_k, one softmax row taken apart, the naive softmax overflowing float32,
// gradients down a deep stack, the FFN's non-linearities, and an image as a sequence of patches.
#include "bindings/js_api.hpp"
#include "bindings/marshal.hpp"
#include "core/activation.hpp"
#include "core/dot_product_statistics.hpp"
#include "core/feed_forward.hpp"
#include "core/patches.hpp"
#include "core/random.hpp"
#include "core/softmax.hpp"
#include "core/softmax_overflow.hpp"
#include "model/depth_gradients.hpp"
#include "model/gradient_flow.hpp"

namespace attnlab::js {

namespace {

val row_to_js(const RowVector& values) { return float_array(values.data(), values.size()); }

// Float32Arrays and numbers as computed: the one place the engine hands out ±∞ and NaN on purpose
val terms_to_js(const SoftmaxTerms& t) {
  val out = val::object();
  out.set("shift", t.shift);
  out.set("exps", float_array(t.exps.data(), t.exps.size()));
  out.set("sum", t.sum);
  out.set("weights", float_array(t.weights.data(), t.weights.size()));
  return out;
}

}  // namespace

val rnn_gradient_flow(const val& options) {
  return guarded([&] {
    GradientFlowOptions o;
    o.length = get_index(options, "length", 2, 512);
    o.hidden = get_index(options, "hidden", 1, 256, 16);
    o.input = get_index(options, "input", 1, 256, 8);
    o.seed = get_seed(options, "seed", 0);
    o.recurrent_scale = static_cast<Scalar>(get_number(options, "recurrentScale", 1.0));
    const GradientFlow flow = gradient_flow(o);
    val steps = val::object();
    steps.set("rnn", static_cast<double>(o.length));  // h_t waits for h_{t−1}
    steps.set("attention", 1);                          // every position at once
    val out = val::object();
    out.set("states", to_js(flow.states));
    out.set("jacobianNorms", row_to_js(flow.jacobian_norms));
    out.set("rnnGradientNorms", row_to_js(flow.rnn_gradient_norms));
    out.set("attentionGradientNorms", row_to_js(flow.attention_gradient_norms));
    out.set("sequentialSteps", steps);
    return out;
  }, options);
}

val dot_product_statistics(const val& options) {
  return guarded([&] {
    const DotProductStatistics s = attnlab::dot_product_statistics(
        get_index(options, "dK", 1, kMaxWidth), get_index(options, "samples", 1, 100000, 4000),
        get_index(options, "keys", 1, kMaxWidth, 8), get_seed(options, "seed", 0));
    val out = val::object();
    out.set("mean", s.mean);
    out.set("variance", s.variance);
    out.set("scaledVariance", s.scaled_variance);
    out.set("scores", row_to_js(s.scores));
    return out;
  }, options);
}

val softmax_row(const val& options) {
  return guarded([&] {
    const SoftmaxRowAnalysis a = softmax_row_analysis(get_vector(options, "scores", 1024),
                                                      static_cast<Scalar>(get_number(options, "scale", 1.0)),
                                                      static_cast<Scalar>(get_number(options, "temperature", 1.0)));
    val out = val::object();
    out.set("weights", row_to_js(a.weights));
    out.set("entropy", a.entropy);
    out.set("maxWeight", a.max_weight);
    out.set("jacobian", to_js(a.jacobian));
    out.set("jacobianNorm", a.jacobian_norm);
    return out;
  }, options);
}

val softmax_forms(const val& options) {
  return guarded([&] {
    const SoftmaxForms f = attnlab::softmax_forms(get_vector(options, "scores", 1024),
                                                  static_cast<Scalar>(get_number(options, "scale", 1.0)));
    val limits = val::object();
    limits.set("float32", exp_overflow_threshold(23, 127));
    limits.set("float16", exp_overflow_threshold(10, 15));
    val out = val::object();
    out.set("logits", float_array(f.logits.data(), f.logits.size()));
    out.set("naive", terms_to_js(f.naive));
    out.set("maxSubtracted", terms_to_js(f.max_subtracted));
    out.set("overflowAbove", limits);
    return out;
  }, options);
}

val depth_gradients(const val& options) {
  return guarded([&] {
    DepthGradientOptions o;
    o.layers = get_index(options, "layers", 1, 96, 12);
    o.d_model = get_index(options, "d", 16, 512, 64);
    o.length = get_index(options, "n", 1, 512, 16);
    o.norm = norm_from_string(get_string(options, "norm", "layer_norm"));
    o.pre_norm = get_bool(options, "preNorm", true);
    o.residual = get_bool(options, "residual", true);
    o.seed = get_seed(options, "seed", 0);
    const DepthGradients g = attnlab::depth_gradients(o);
    val out = val::object();
    out.set("inputGradientNorms", row_to_js(g.input_gradient_norms));
    out.set("parameterGradientNorms", row_to_js(g.parameter_gradient_norms));
    out.set("activationNorms", row_to_js(g.activation_norms));
    return out;
  }, options);
}

val activation_curve(const val& options) {
  return guarded([&] {
    const Activation kind = activation_from_string(get_string(options, "activation", ""));
    const RowVector x = get_vector(options, "x", kMaxLength);
    val out = val::object();
    out.set("y", row_to_js(pointwise_activation(kind, x)));
    out.set("derivative", row_to_js(pointwise_activation_backward(kind, x, RowVector::Ones(x.size()))));
    return out;
  }, options);
}

val feed_forward_parameters(const val& options) {
  return guarded([&] {
    return val(static_cast<double>(attnlab::feed_forward_parameters(
        get_index(options, "d", 1, 1 << 16), get_index(options, "dFF", 1, 1 << 18),
        activation_from_string(get_string(options, "activation", "gelu")))));
  }, options);
}

val patch_embedding(const val& options) {
  return guarded([&] {
    const Index height = get_index(options, "height", 1, 1024), width = get_index(options, "width", 1, 1024);
    const Index patch = get_index(options, "patch", 1, 64);
    const Index d = get_index(options, "d", 1, kMaxWidth);
    const Matrix image = get_matrix(options, "image", height, width);
    const Matrix patches = image_patches(image, patch);
    // E ~ N(0, 1/P²): an embedded patch keeps about the size of its pixels
    Rng rng(get_seed(options, "seed", 0));
    const Matrix embedding = draw_normal(patch * patch, d, rng, 1.0f / static_cast<float>(patch));
    val out = val::object();
    out.set("patches", to_js(patches));
    out.set("embedded", to_js(attnlab::patch_embedding(patches, embedding)));
    return out;
  }, options);
}

}  // namespace attnlab::js
