#include "core/check.hpp"

#include <cstdio>
#include <cstdlib>

namespace attnlab {

void MessagePart::append_to(std::string& message) const {
  switch (kind_) {
    case Kind::text: message += text_; break;
    case Kind::integer: message += std::to_string(integer_); break;
    case Kind::unsigned_integer: message += std::to_string(unsigned_); break;
    case Kind::real: {
      // the shorter of 15 and 17 significant digits that reads back as the same number ("1025", "0.1")
      char text[32];
      std::snprintf(text, sizeof text, "%.15g", real_);
      if (std::strtod(text, nullptr) != real_) std::snprintf(text, sizeof text, "%.17g", real_);
      message += text;
      break;
    }
  }
}

void throw_error(std::initializer_list<MessagePart> parts) {
  std::string message;
  for (const MessagePart& part : parts) part.append_to(message);
  throw Error(message);
}

}  // namespace attnlab
