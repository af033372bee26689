#pragma once
// Named intermediates of a forward pass ("layer0.head1.weights", "logits", …), kept so the page
// can show any of them without recomputing. A forward given no Trace records nothing.
#include <string>
#include <unordered_map>
#include <vector>

#include "core/tensor.hpp"

namespace attnlab {

class Trace {
 public:
  // stores (a copy of) x under name; a later record of the same name replaces it
  void record(const std::string& name, const ConstMatrixRef& x);
  bool contains(const std::string& name) const { return index_.count(name) != 0; }
  // the tensor recorded under name; throws attnlab::Error naming it when absent
  const Matrix& get(const std::string& name) const;
  // names in recording order
  const std::vector<std::string>& names() const { return names_; }
  void clear();

 private:
  std::vector<std::string> names_;
  std::vector<Matrix> values_;
  std::unordered_map<std::string, size_t> index_;
};

}  // namespace attnlab
