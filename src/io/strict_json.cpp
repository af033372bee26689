#include "io/strict_json.hpp"

#include <set>
#include <vector>

#include "core/check.hpp"

namespace attnlab {

nlohmann::json parse_strict_json(const std::string& text, const std::string& what, const JsonWatch& watch) {
  using nlohmann::json;
  struct Object {
    std::string name;  // the key it is the value of ("" at the top or inside an array)
    std::set<std::string> keys;
  };
  std::vector<Object> open;
  std::string last_key;
  const json::parser_callback_t check = [&](int depth, json::parse_event_t event, json& parsed) {
    if (watch) watch(depth, event, parsed);
    if (event == json::parse_event_t::object_start) {
      open.push_back({last_key, {}});
    } else if (event == json::parse_event_t::object_end) {
      open.pop_back();
      last_key.clear();
    } else if (event == json::parse_event_t::array_start) {
      last_key.clear();
    } else if (event == json::parse_event_t::key) {
      last_key = parsed.get<std::string>();
      Object& object = open.back();
      require(object.keys.insert(last_key).second,
              what, " names \"", last_key, "\" twice",
              (object.name.empty() ? std::string() : " in \"" + object.name + "\""));
    }
    return true;
  };
  try {
    return json::parse(text, check);
  } catch (const json::exception& e) {
    throw Error(what + " is not valid JSON (" + e.what() + ")");
  }
}

}  // namespace attnlab
