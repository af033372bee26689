#pragma once
// The activations of a forward pass by name ("layer0.head1.weights", "logits", …), so the page can
// show any of them without recomputing: a view over ModelActivations, which it neither copies nor
// owns. A stage the forward did not keep (TraceDetail::for_backward) has no name.
#include <string>
#include <utility>
#include <vector>

#include "model/transformer.hpp"

namespace attnlab {

class Trace {
 public:
  explicit Trace(const ModelActivations& activations) : activations_(activations) {}

  // every kept tensor with its name, in the order the forward computed them
  std::vector<std::pair<std::string, const Matrix*>> entries() const;
  std::vector<std::string> names() const;
  bool contains(const std::string& name) const;
  // the tensor kept under name; throws attnlab::Error naming it when absent
  const Matrix& get(const std::string& name) const;

 private:
  const ModelActivations& activations_;
};

}  // namespace attnlab
