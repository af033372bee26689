// The theory page's positional-encoding program: a sinusoidal table for T = 4 positions and
// d = 8 added to toy token embeddings, plus the shift property PE(pos+k) = T_k·PE(pos).
#include <iostream>

#include "core/sinusoidal.hpp"
#include "io/text.hpp"

using attnlab::Matrix;

int main() {
  Matrix x(4, 8);
  x << 0.1f, 0.2f, 0.1f, 0.0f, -0.1f, 0.05f, 0.2f, -0.05f,
       0.0f, -0.1f, 0.2f, 0.3f, 0.1f, -0.2f, 0.0f, 0.05f,
       0.2f, 0.1f, -0.1f, 0.1f, 0.0f, 0.2f, -0.2f, 0.1f,
       -0.1f, 0.3f, 0.2f, -0.2f, 0.1f, -0.1f, 0.05f, 0.0f;
  const Matrix pe = attnlab::sinusoidal_table(4, 8);
  std::cout << attnlab::format_matrix("PE", pe) << attnlab::format_matrix("X + PE", Matrix(x + pe));

  const Matrix t2 = attnlab::sinusoidal_shift_matrix(8, 2);
  const Matrix shifted = (t2 * pe.row(1).transpose()).transpose();
  std::cout << attnlab::format_matrix("T_2·PE(1)", shifted)
            << attnlab::format_matrix("PE(3)", Matrix(pe.row(3)))
            << attnlab::format_matrix("PE·PE^T", attnlab::position_similarity(pe));
  return 0;
}
