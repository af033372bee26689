// The seminar's experiments: an RNN's vanishing gradient against attention's, the variance of dot
// products behind 1/√d_k, and one softmax row taken apart.
#include "bindings/js_api.hpp"
#include "bindings/marshal.hpp"
#include "core/dot_product_statistics.hpp"
#include "core/softmax.hpp"
#include "model/gradient_flow.hpp"

namespace attnlab::js {

namespace {

val row_to_js(const RowVector& values) { return float_array(values.data(), values.size()); }

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

}  // namespace attnlab::js
