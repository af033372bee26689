// Models programmed by hand: RASP programs compiled into an ordinary model's weights
// (model/rasp.hpp), their description for the page, and a text as the program reads it.
#include "bindings/js_api.hpp"
#include "bindings/marshal.hpp"
#include "core/check.hpp"
#include "model/rasp.hpp"

namespace attnlab::js {

namespace {

// options.program, required: one of rasp_program_names()
RaspProgram get_program(const val& options) {
  const std::optional<val> program = optional(options, "program");
  require(program.has_value(), "program is required (reverse, histogram or sort)");
  return rasp_program(string_from_js(*program, "program"));
}

const char* kind_name(RaspHeadKind kind) { return kind == RaspHeadKind::aggregate ? "aggregate" : "selectorWidth"; }

}  // namespace

std::shared_ptr<ModelHandle> programmed_model(const val& options) {
  return guarded([&] {
    CompiledRasp compiled = compile_rasp(get_program(options));
    Tokenizer vocabulary(TokenizerKind::character, compiled.vocabulary, false);
    return std::make_shared<ModelHandle>(Transformer(compiled.config, std::move(compiled.params)), std::move(vocabulary));
  }, options);
}

val describe_program(const val& options) {
  return guarded([&] {
    const CompiledRasp compiled = compile_rasp(get_program(options));
    const RaspProgram& p = compiled.program;
    val heads = val::array();
    for (size_t i = 0; i < p.heads.size(); ++i) {
      const RaspHead& h = p.heads[i];
      val head = val::object();
      head.set("layer", static_cast<double>(h.layer));
      head.set("head", static_cast<double>(h.head));
      head.set("line", static_cast<double>(h.line));
      head.set("kind", kind_name(h.kind));
      head.set("target", h.target);
      heads.set(i, head);
    }
    val steps = val::array();
    for (size_t i = 0; i < p.steps.size(); ++i) {
      val step = val::object();
      step.set("layer", static_cast<double>(p.steps[i].layer));
      step.set("line", static_cast<double>(p.steps[i].line));
      step.set("target", p.steps[i].target);
      steps.set(i, step);
    }
    val layout = val::array();
    for (size_t i = 0; i < compiled.layout.size(); ++i) {
      const RaspSubspace& s = compiled.layout[i];
      val subspace = val::object();
      subspace.set("name", s.name);
      subspace.set("offset", static_cast<double>(s.offset));
      subspace.set("width", static_cast<double>(s.width));
      subspace.set("labels", to_js(s.labels));
      layout.set(i, subspace);
    }
    val out = val::object();
    out.set("name", p.name);
    out.set("lines", to_js(p.lines));
    out.set("alphabet", p.alphabet);
    out.set("maxLength", static_cast<double>(p.max_length));
    out.set("output", p.output);
    out.set("beta", static_cast<double>(compiled.beta));
    out.set("heads", heads);
    out.set("feedForward", steps);
    out.set("layout", layout);
    out.set("vocabulary", to_js(compiled.vocabulary));
    return out;
  }, options);
}

val program_input(const val& options) {
  return guarded([&] {
    const RaspProgram program = get_program(options);
    const std::optional<val> given = optional(options, "text");
    require(given.has_value(), "text is required");
    const std::string text = string_from_js(*given, "text");
    const RaspRun run = run_rasp(program, text);  // refuses what the program cannot read
    std::vector<std::string> labels = {"BOS"};
    for (int c : rasp_characters(program, text)) labels.emplace_back(1, program.alphabet[static_cast<size_t>(c)]);
    val patterns = val::array();
    for (size_t i = 0; i < run.patterns.size(); ++i) patterns.set(i, to_js(run.patterns[i]));
    val out = val::object();
    out.set("tokens", to_js(rasp_tokens(program, text)));
    out.set("labels", to_js(labels));
    out.set("patterns", patterns);
    out.set("output", to_js(run.output));
    return out;
  }, options);
}

}  // namespace attnlab::js
