// The slide deck's worked example (n = 3 tokens, d = 4, d_k = d_v = 2), every stage printed,
// then the same input under a causal mask.
#include <iostream>

#include "core/attention.hpp"
#include "io/text.hpp"

using attnlab::Matrix;

int main() {
  Matrix x(3, 4), w_q(4, 2), w_k(4, 2), w_v(4, 2);
  x << 1, 0, 1, 0,
       0, 1, 0, 1,
       1, 1, 0, 0;
  w_q << 1, 0, 0, 1, 1, 0, 0, 1;
  w_k << 0, 1, 1, 0, 0, 1, 1, 0;
  w_v << 1, 1, 0, 0, 1, 0, 0, 1;

  const auto t = attnlab::attention_head_forward_traced(x, x, w_q, w_k, w_v, attnlab::Mask::none(), true);
  std::cout << attnlab::format_matrix("X", x) << attnlab::format_matrix("Q = X·W_Q", t.q)
            << attnlab::format_matrix("K = X·W_K", t.k) << attnlab::format_matrix("V = X·W_V", t.v)
            << attnlab::format_matrix("QK^T", t.scores)
            << attnlab::format_matrix("QK^T/sqrt(d_k)", t.scaled)
            << attnlab::format_matrix("A = softmax(QK^T/sqrt(d_k))", t.weights)
            << attnlab::format_matrix("output = A·V", t.output);

  const auto causal = attnlab::attention_head_forward_traced(x, x, w_q, w_k, w_v,
                                                             attnlab::Mask::causal_mask(), true);
  std::cout << attnlab::format_matrix("causal: QK^T/sqrt(d_k) + M", causal.masked)
            << attnlab::format_matrix("causal: A", causal.weights)
            << attnlab::format_matrix("causal: output", causal.output);
  return 0;
}
