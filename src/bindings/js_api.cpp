#include "bindings/js_api.hpp"

#include <cmath>

#include "bindings/heap_usage.hpp"
#include "bindings/marshal.hpp"
#include "core/alibi.hpp"
#include "core/check.hpp"
#include "core/layer_norm.hpp"
#include "core/learned_positions.hpp"
#include "core/multi_head_attention.hpp"
#include "core/random.hpp"
#include "core/rms_norm.hpp"
#include "core/rope.hpp"
#include "core/sinusoidal.hpp"
#include "core/thread_pool.hpp"
#include "model/benchmark.hpp"

namespace attnlab::js {

val build_info() {
  return guarded([] {
    val info = val::object();
#if defined(__EMSCRIPTEN_PTHREADS__)
    info.set("build", std::string("simd-threads"));
    info.set("threads", true);
#else
    info.set("build", std::string("simd"));
    info.set("threads", false);
#endif
#if defined(__wasm_simd128__)
    info.set("simd", true);
#else
    info.set("simd", false);
#endif
#if defined(__wasm_relaxed_simd__)
    info.set("relaxedSimd", true);
#else
    info.set("relaxedSimd", false);
#endif
    info.set("maxThreads", static_cast<double>(max_threads()));
    info.set("version", std::string(ATTNLAB_VERSION));
    return info;
  });
}

val set_threads(const val& threads) {
  return guarded([&] {
    val wrapper = val::object();
    wrapper.set("threads", threads);
    set_num_threads(get_index(wrapper, "threads", 1, max_threads()));
    return val(static_cast<double>(num_threads()));
  }, threads);
}

val memory_in_use() {
  return guarded([] { return val(static_cast<double>(heap_in_use())); });
}

val memory_peak(const val& options) {
  return guarded([&] {
    const double peak = static_cast<double>(heap_peak());
    if (get_bool(options, "reset", false)) heap_reset_peak();
    return val(peak);
  }, options);
}

val benchmark(const val& options) {
  return guarded([&] {
    const BenchmarkKernel kernel = benchmark_kernel_from_string(get_string(options, "kernel", ""));
    BenchmarkOptions o;
    const Index n = get_index(options, "n", 1, benchmark_max_length(kernel));
    if (const std::optional<val> d = optional(options, "d")) o.d = index_from_js(*d, "d", 1, 1024);
    o.min_repeats = static_cast<int>(get_index(options, "repeats", 1, 1000, o.min_repeats));
    o.min_ms = get_number(options, "minMs", o.min_ms);
    o.warm_up = get_bool(options, "warmUp", o.warm_up);
    const std::size_t before = heap_reset_peak();
    const BenchmarkResult r = run_benchmark(kernel, n, o);
    val out = val::object();
    out.set("medianMs", r.median_ms);
    out.set("gflops", r.gflops);
    out.set("repeats", r.repeats);
    out.set("peakBytes", static_cast<double>(heap_peak() - before));
    return out;
  }, options);
}

val positional_table(const val& options) {
  return guarded([&] {
    const std::string kind = get_string(options, "kind", "sinusoidal");
    const Index n = get_index(options, "n", 1, kMaxLength);
    const float base = static_cast<float>(get_number(options, "base", 10000.0));
    if (kind == "alibi") {
      const Index heads = get_index(options, "heads", 1, 4096, 8);
      const Index head = get_index(options, "head", 0, heads - 1, 0);
      return to_js(attnlab::alibi_bias(attnlab::alibi_slopes(heads)[static_cast<size_t>(head)], n, n));
    }
    const Index d = get_index(options, "d", 1, kMaxWidth);
    if (kind == "sinusoidal") return to_js(attnlab::sinusoidal_table(n, d, base));
    if (kind == "learned") {
      return to_js(learned_positions_init(n, d, get_seed(options, "seed", 0)));
    }
    if (kind == "rope") {
      // the rotation applied to a vector of ones: [cos pθ_i − sin pθ_i, sin pθ_i + cos pθ_i]
      Matrix ones = Matrix::Ones(n, d);
      attnlab::rope_apply(ones, 0, base);
      return to_js(ones);
    }
    throw Error("unknown positional encoding \"" + kind + "\" (expected sinusoidal, learned, rope or alibi)");
  }, options);
}

val position_similarity(const val& options) {
  return guarded([&] {
    const Index n = get_index(options, "n", 1, kMaxLength);
    const Index d = get_index(options, "d", 1, kMaxWidth);
    return to_js(attnlab::position_similarity(get_matrix(options, "pe", n, d)));
  }, options);
}

val sinusoidal_shift_matrix(const val& options) {
  return guarded([&] {
    const Index d = get_index(options, "d", 2, kMaxWidth);
    const Index k = get_index(options, "k", -kMaxLength, kMaxLength);
    return to_js(attnlab::sinusoidal_shift_matrix(d, k, static_cast<float>(get_number(options, "base", 10000.0))));
  }, options);
}

val sinusoidal_shift(const val& options) {
  return guarded([&] {
    const Index d = get_index(options, "d", 2, kMaxWidth);
    const Index pos = get_index(options, "pos", 0, kMaxLength);
    const Index k = get_index(options, "k", -kMaxLength, kMaxLength);
    return to_js(attnlab::sinusoidal_shift(pos, k, d, static_cast<float>(get_number(options, "base", 10000.0))));
  }, options);
}

val rope_apply(const val& options) {
  return guarded([&] {
    const Index n = get_index(options, "n", 1, kMaxLength);
    const Index d = get_index(options, "d", 2, kMaxWidth);
    Matrix x = get_matrix(options, "x", n, d);
    attnlab::rope_apply(x, get_index(options, "pos0", 0, kMaxLength, 0),
                        static_cast<float>(get_number(options, "base", 10000.0)), get_rope_pairing(options));
    return to_js(x);
  }, options);
}

val rope_rotation(const val& options) {
  return guarded([&] {
    const Index d = get_index(options, "d", 2, kMaxWidth);
    return to_js(attnlab::rope_rotation(d, get_index(options, "pos", 0, kMaxLength),
                                        static_cast<float>(get_number(options, "base", 10000.0)),
                                        get_rope_pairing(options)));
  }, options);
}

val norms(const val& options) {
  return guarded([&] {
    const Index d = get_index(options, "d", 2, kMaxWidth);
    const Matrix x = get_matrix(options, "x", 1, d);
    const std::optional<val> given_gamma = optional(options, "gamma");
    const RowVector gamma = given_gamma ? RowVector(matrix_from_js(*given_gamma, "gamma", 1, d)) : RowVector::Ones(d);
    const std::optional<val> given_beta = optional(options, "beta");
    const RowVector beta = given_beta ? RowVector(matrix_from_js(*given_beta, "beta", 1, d)) : RowVector::Zero(d);
    const double eps = get_number(options, "eps", 1e-5);
    require(std::isfinite(eps) && eps > 0.0 && eps <= 1.0, "eps must be a number in (0, 1]");
    const float e = static_cast<float>(eps);
    const Scalar mean = x.mean();
    val result = val::object();
    result.set("mean", mean);
    result.set("variance", (x.array() - mean).square().mean());
    result.set("meanSquare", x.array().square().mean());
    result.set("layerNorm", to_js(layer_norm_forward(x, gamma, beta, e)));
    result.set("rmsNorm", to_js(rms_norm_forward(x, gamma, e)));
    result.set("layerNormJacobian", to_js(layer_norm_jacobian(x.row(0), gamma, e)));
    result.set("rmsNormJacobian", to_js(rms_norm_jacobian(x.row(0), gamma, e)));
    return result;
  }, options);
}

val attention_budget(const val& options) {
  return guarded([&] {
    AttentionConfig config;
    config.d_model = get_index(options, "d", 1, 1 << 16);
    config.n_heads = get_index(options, "heads", 1, 1024);
    config.n_kv_heads = get_index(options, "kvHeads", 1, 1024, config.n_heads);
    const auto layers = static_cast<std::uint64_t>(get_index(options, "layers", 1, 1024, 1));
    const auto n = static_cast<std::uint64_t>(get_index(options, "n", 1, Index(1) << 24));
    const auto bytes = static_cast<std::uint64_t>(get_index(options, "bytesPerValue", 1, 8, 4));
    val result = val::object();
    result.set("parameters", static_cast<double>(layers * attention_parameters(config)));
    result.set("kvCacheBytes", static_cast<double>(layers * kv_cache_bytes(config, n, bytes)));
    return result;
  }, options);
}

val random_normal(const val& options) {
  return guarded([&] {
    const Index rows = get_index(options, "rows", 1, kMaxLength);
    const Index cols = get_index(options, "cols", 1, kMaxWidth);
    const double std = get_number(options, "std", 1.0);
    require(std::isfinite(std) && std >= 0.0 && std <= 1e6, "std must be a number from 0 to 1e6");
    Rng rng(get_seed(options, "seed", 0));
    return to_js(draw_normal(rows, cols, rng, static_cast<float>(std)));
  }, options);
}

val alibi_slopes(const val& options) {
  return guarded([&] {
    const std::vector<float> slopes = attnlab::alibi_slopes(get_index(options, "heads", 1, 4096));
    return float_array(slopes.data(), static_cast<Index>(slopes.size()));
  }, options);
}

val alibi_bias(const val& options) {
  return guarded([&] {
    const Index heads = get_index(options, "heads", 1, 4096);
    const Index head = get_index(options, "head", 0, heads - 1);
    const Index n = get_index(options, "n", 1, kMaxLength);
    const Index m = get_index(options, "m", 1, kMaxLength, n);
    return to_js(attnlab::alibi_bias(attnlab::alibi_slopes(heads)[static_cast<size_t>(head)], n, m));
  }, options);
}

}  // namespace attnlab::js
