// The engine's JavaScript surface: declarations only. Adapters are in js_api.cpp, conversions in
// marshal.cpp, and the documented contract in web/src/engine/attnlab.d.mts.
#include <emscripten/bind.h>

#include "bindings/js_api.hpp"

EMSCRIPTEN_BINDINGS(attnlab) {
  using namespace emscripten;
  function("buildInfo", &attnlab::js::build_info);
  function("attentionHead", &attnlab::js::attention_head);
  function("sinusoidalTable", &attnlab::js::sinusoidal_table);
  function("positionSimilarity", &attnlab::js::position_similarity);
  function("sinusoidalShiftMatrix", &attnlab::js::sinusoidal_shift_matrix);
}
