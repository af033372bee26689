#pragma once
// Enumerations spelled as strings in configs and from JavaScript: one table per enum, and an
// unknown name is an error that lists the valid ones.
#include <string>
#include <utility>

#include "core/check.hpp"

namespace attnlab {

template <class E, size_t N>
E enum_from_name(const std::string& name, const char* what, const std::pair<const char*, E> (&names)[N]) {
  std::string choices;
  for (const auto& [text, value] : names) {
    if (name == text) return value;
    choices += (choices.empty() ? "" : ", ") + std::string(text);
  }
  throw Error(std::string("unknown ") + what + " \"" + name + "\" (expected " + choices + ")");
}

template <class E, size_t N>
std::string enum_name(E value, const std::pair<const char*, E> (&names)[N]) {
  for (const auto& [text, v] : names)
    if (v == value) return text;
  return "?";
}

}  // namespace attnlab
