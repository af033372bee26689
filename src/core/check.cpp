#include "core/check.hpp"

namespace attnlab {

void MessagePart::append_to(std::string& message) const {
  switch (kind_) {
    case Kind::text: message += text_; break;
    case Kind::integer: message += std::to_string(integer_); break;
    case Kind::unsigned_integer: message += std::to_string(unsigned_); break;
    case Kind::real: message += std::to_string(real_); break;
  }
}

void throw_error(std::initializer_list<MessagePart> parts) {
  std::string message;
  for (const MessagePart& part : parts) part.append_to(message);
  throw Error(message);
}

}  // namespace attnlab
