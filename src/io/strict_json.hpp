#pragma once
// JSON as the saved files need it: nlohmann's parser, except that a key repeated inside one object
// is an error (the parser alone would keep the last one and hide the first).
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

namespace attnlab {

// Sees every parse event (as nlohmann's parser callback does) and may throw to stop early.
using JsonWatch = std::function<void(int depth, nlohmann::json::parse_event_t event, const nlohmann::json& parsed)>;

// Parses text; throws attnlab::Error "<what> is not valid JSON (…)", or "<what> names "k" twice
// [in "o"]" for a key given twice in one object (o: the key of that object, when it has one).
nlohmann::json parse_strict_json(const std::string& text, const std::string& what, const JsonWatch& watch = {});

}  // namespace attnlab
