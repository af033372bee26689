#include "io/text.hpp"

#include <cmath>
#include <iomanip>
#include <sstream>

namespace attnlab {

std::string format_matrix(const std::string& name, const ConstMatrixRef& x, int decimals) {
  std::ostringstream out;
  out << name << " (" << x.rows() << "x" << x.cols() << ")\n" << std::fixed << std::setprecision(decimals);
  const float half_ulp = 0.5f * std::pow(10.0f, -static_cast<float>(decimals));
  for (Index i = 0; i < x.rows(); ++i) {
    for (Index j = 0; j < x.cols(); ++j) {
      float v = x(i, j);
      if (std::abs(v) < half_ulp) v = 0.0f;  // no "-0.0000"
      out << std::setw(decimals + 5);
      if (std::isinf(v)) out << (v > 0 ? "inf" : "-inf");
      else out << v;
      out << (j + 1 < x.cols() ? " " : "\n");
    }
  }
  return out.str();
}

}  // namespace attnlab
