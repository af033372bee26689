#include "model/trace.hpp"

#include "core/check.hpp"

namespace attnlab {

void Trace::record(const std::string& name, const ConstMatrixRef& x) {
  const auto found = index_.find(name);
  if (found != index_.end()) {
    values_[found->second] = x;
    return;
  }
  index_.emplace(name, names_.size());
  names_.push_back(name);
  values_.emplace_back(x);
}

const Matrix& Trace::get(const std::string& name) const {
  const auto found = index_.find(name);
  require(found != index_.end(), "trace: nothing recorded under \"" + name + "\"");
  return values_[found->second];
}

void Trace::clear() {
  names_.clear();
  values_.clear();
  index_.clear();
}

}  // namespace attnlab
