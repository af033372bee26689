#include "model/rasp.hpp"

#include <algorithm>
#include <cmath>

#include "core/check.hpp"
#include "io/tokenizer.hpp"

namespace attnlab {

namespace {

constexpr const char* kAlphabet = "abcdefghijklmnopqrstuvwxyz";
constexpr Index kMaxLength = 10;
// a selected key scores β above one that is not: e^−β of the weight leaks, far below float precision
constexpr double kBeta = 30;
// what a gate subtracts at BOS from every feed-forward unit, beyond anything a step's slope reaches
constexpr double kBosGate = 1e4;

std::vector<std::string> numbered(Index from, Index count) {
  std::vector<std::string> labels;
  for (Index i = 0; i < count; ++i) labels.push_back(std::to_string(from + i));
  return labels;
}

std::vector<std::string> letters() {
  std::vector<std::string> out;
  for (const char* c = kAlphabet; *c; ++c) out.emplace_back(1, *c);
  return out;
}

RaspProgram program_frame(const std::string& name) {
  RaspProgram p;
  p.name = name;
  p.alphabet = kAlphabet;
  p.max_length = kMaxLength;
  p.variables = {{"tokens", letters()}, {"indices", numbered(0, kMaxLength)}};
  return p;
}

// SelectorWidth's step: the share 1/(w + 1) of the variable `share` → w for w in [lo, hi], as a
// number, or (categorical) as value number w − lo
RaspStep width_step(Index layer, Index line, const std::string& share, Index lo, Index hi, const std::string& target) {
  RaspStep s{layer, line, {{share, {1.0}}}, 0.0, {}, target};
  for (Index w = lo; w <= hi; ++w) s.points.emplace_back(1.0 / double(w + 1), int(w));
  return s;
}

// z ↦ the category z for z = 0 … kMaxLength − 1
std::vector<std::pair<double, int>> integer_points() {
  std::vector<std::pair<double, int>> points;
  for (Index m = 0; m < kMaxLength; ++m) points.emplace_back(double(m), int(m));
  return points;
}

const auto kTrue = [](int, int) { return true; };
const auto kEqual = [](int query, int key) { return key == query; };
const auto kKeyBelow = [](int query, int key) { return key < query; };

RaspProgram reverse_program() {
  RaspProgram p = program_frame("reverse");
  p.lines = {"length = SelectorWidth(Select(tokens, tokens, TRUE))",
             "opp = length - indices - 1",
             "reverse = Aggregate(Select(indices, opp, ==), tokens)"};
  p.variables.push_back({"1/(length+1)", {}});
  p.variables.push_back({"length", {}});
  p.variables.push_back({"opp", numbered(0, kMaxLength)});
  p.variables.push_back({"reverse", letters()});
  p.heads.push_back({0, 0, 0, RaspHeadKind::selector_width, {{"tokens", "tokens", kTrue}}, "", "1/(length+1)"});
  p.heads.push_back({2, 0, 2, RaspHeadKind::aggregate, {{"opp", "indices", kEqual}}, "tokens", "reverse"});
  p.steps.push_back(width_step(0, 0, "1/(length+1)", 1, kMaxLength, "length"));
  std::vector<double> minus_index;
  for (Index k = 0; k < kMaxLength; ++k) minus_index.push_back(-double(k));
  p.steps.push_back({1, 1, {{"length", {1.0}}, {"indices", minus_index}}, -1.0, integer_points(), "opp"});
  p.output = "reverse";
  return p;
}

RaspProgram histogram_program() {
  RaspProgram p = program_frame("histogram");
  p.lines = {"hist = SelectorWidth(Select(tokens, tokens, ==))"};
  p.variables.push_back({"1/(hist+1)", {}});
  p.variables.push_back({"hist", numbered(1, kMaxLength)});
  p.heads.push_back({0, 0, 0, RaspHeadKind::selector_width, {{"tokens", "tokens", kEqual}}, "", "1/(hist+1)"});
  RaspStep count = width_step(0, 0, "1/(hist+1)", 1, kMaxLength, "hist");
  for (auto& point : count.points) point.second -= 1;  // the count w is value number w − 1 of "1" … "10"
  p.steps.push_back(count);
  p.output = "hist";
  return p;
}

RaspProgram sort_program() {
  RaspProgram p = program_frame("sort");
  p.lines = {"smaller = SelectorWidth(Select(tokens, tokens, <))",
             "ties = SelectorWidth(Select(tokens, tokens, ==) and Select(indices, indices, <))",
             "position = smaller + ties",
             "sorted = Aggregate(Select(position, indices, ==), tokens)"};
  p.variables.push_back({"1/(smaller+1)", {}});
  p.variables.push_back({"1/(ties+1)", {}});
  p.variables.push_back({"smaller", {}});
  p.variables.push_back({"ties", {}});
  p.variables.push_back({"position", numbered(0, kMaxLength)});
  p.variables.push_back({"sorted", letters()});
  p.heads.push_back({0, 0, 0, RaspHeadKind::selector_width, {{"tokens", "tokens", kKeyBelow}}, "", "1/(smaller+1)"});
  p.heads.push_back({0, 1, 1, RaspHeadKind::selector_width,
                     {{"tokens", "tokens", kEqual}, {"indices", "indices", kKeyBelow}}, "", "1/(ties+1)"});
  p.heads.push_back({2, 0, 3, RaspHeadKind::aggregate, {{"indices", "position", kEqual}}, "tokens", "sorted"});
  p.steps.push_back(width_step(0, 0, "1/(smaller+1)", 0, kMaxLength - 1, "smaller"));
  p.steps.push_back(width_step(0, 1, "1/(ties+1)", 0, kMaxLength - 1, "ties"));
  p.steps.push_back({1, 2, {{"smaller", {1.0}}, {"ties", {1.0}}}, 0.0, integer_points(), "position"});
  p.output = "sorted";
  return p;
}

// the keys query i selects: every condition holds
bool selected(const RaspHead& head, const std::map<std::string, std::vector<double>>& values, Index i, Index j) {
  for (const RaspCondition& c : head.select)
    if (!c.holds(static_cast<int>(values.at(c.query)[i]), static_cast<int>(values.at(c.key)[j]))) return false;
  return true;
}

// the y of the point nearest to z
int nearest_point(const RaspStep& step, double z) {
  const auto& points = step.points;
  return std::min_element(points.begin(), points.end(), [z](const auto& a, const auto& b) {
           return std::abs(a.first - z) < std::abs(b.first - z);
         })->second;
}

}  // namespace

const RaspVariable& RaspProgram::variable(const std::string& name) const {
  for (const RaspVariable& v : variables)
    if (v.name == name) return v;
  throw Error("rasp: " + this->name + " has no variable " + name);
}

Index RaspProgram::layers() const {
  Index layers = 1;
  for (const RaspHead& h : heads) layers = std::max(layers, h.layer + 1);
  for (const RaspStep& s : steps) layers = std::max(layers, s.layer + 1);
  return layers;
}

const std::vector<std::string>& rasp_program_names() {
  static const std::vector<std::string> names = {"reverse", "histogram", "sort"};
  return names;
}

RaspProgram rasp_program(const std::string& name) {
  if (name == "reverse") return reverse_program();
  if (name == "histogram") return histogram_program();
  if (name == "sort") return sort_program();
  throw Error("rasp: no program named \"" + name + "\" (there are reverse, histogram and sort)");
}

std::vector<int> rasp_characters(const RaspProgram& program, const std::string& text) {
  // the UTF-8 characters: a lead byte and the continuation bytes after it
  std::vector<std::string> characters;
  for (size_t at = 0, end = 0; at < text.size(); at = end) {
    for (end = at + 1; end < text.size() && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80;) ++end;
    characters.push_back(text.substr(at, end - at));
  }
  require(static_cast<Index>(characters.size()) <= program.max_length, "rasp: ", program.name, " reads at most ",
          program.max_length, " letters, got ", static_cast<Index>(characters.size()));
  std::vector<int> out;
  for (const std::string& character : characters) {
    const size_t found = character.size() == 1 ? program.alphabet.find(character[0]) : std::string::npos;
    require(found != std::string::npos, "rasp: ", program.name, " reads the letters a–z only; \"", character,
            "\" (character ", static_cast<Index>(out.size()) + 1, ") is not one of them");
    out.push_back(static_cast<int>(found));
  }
  return out;
}

RaspRun run_rasp(const RaspProgram& program, const std::string& text) {
  const std::vector<int> characters = rasp_characters(program, text);
  const Index n = static_cast<Index>(characters.size());
  RaspRun run;
  for (const RaspVariable& v : program.variables) run.values[v.name] = std::vector<double>(n, 0.0);
  for (Index i = 0; i < n; ++i) {
    run.values["tokens"][i] = characters[i];
    run.values["indices"][i] = double(i);
  }
  run.patterns.resize(program.heads.size());
  // layer by layer: every head reads the values before its layer, then the steps read the heads'
  for (Index layer = 0; layer < program.layers(); ++layer) {
    std::map<std::string, std::vector<double>> written;
    for (size_t h = 0; h < program.heads.size(); ++h) {
      const RaspHead& head = program.heads[h];
      if (head.layer != layer) continue;
      Matrix pattern = Matrix::Zero(n, n + 1);
      std::vector<double> out(n, 0.0);
      for (Index i = 0; i < n; ++i) {
        std::vector<Index> keys;
        for (Index j = 0; j < n; ++j)
          if (selected(head, run.values, i, j)) keys.push_back(j);
        const Index w = static_cast<Index>(keys.size());
        if (head.kind == RaspHeadKind::selector_width) {
          out[i] = 1.0 / double(w + 1);
          pattern(i, 0) = Scalar(1.0 / double(w + 1));
          for (Index j : keys) pattern(i, 1 + j) = Scalar(1.0 / double(w + 1));
          continue;
        }
        require(w <= 1, "rasp: ", program.name, ": an Aggregate of a category needs at most one selected key");
        if (w == 0) {
          pattern(i, 0) = 1;
          out[i] = -1;  // no value: the subspace stays zero
        } else {
          pattern(i, 1 + keys[0]) = 1;
          out[i] = run.values.at(head.source)[keys[0]];
        }
      }
      run.patterns[h] = std::move(pattern);
      written[head.target] = std::move(out);
    }
    for (auto& [name, values] : written) run.values[name] = std::move(values);
    // the feed-forward parts; those writing one numeric variable add up
    written.clear();
    for (const RaspStep& step : program.steps) {
      if (step.layer != layer) continue;
      const bool numeric = program.variable(step.target).numeric();
      std::vector<double>& target = written.try_emplace(step.target, n, 0.0).first->second;
      for (Index i = 0; i < n; ++i) {
        double z = step.bias;
        for (const RaspTerm& t : step.terms) {
          const double v = run.values.at(t.variable)[i];
          z += program.variable(t.variable).numeric() ? t.weights[0] * v : t.weights[static_cast<size_t>(v)];
        }
        const int y = nearest_point(step, z);
        target[i] = numeric ? target[i] + y : y;
      }
    }
    for (auto& [name, values] : written) run.values[name] = std::move(values);
  }
  const RaspVariable& output = program.variable(program.output);
  for (Index i = 0; i < n; ++i) {
    const double v = run.values[program.output][i];
    run.output.push_back(v < 0 ? std::string() : output.values[static_cast<size_t>(v)]);
  }
  return run;
}

const RaspSubspace& CompiledRasp::subspace(const std::string& name) const {
  for (const RaspSubspace& s : layout)
    if (s.name == name) return s;
  throw Error("rasp: the layout has no subspace " + name);
}

std::vector<int> rasp_tokens(const RaspProgram& program, const std::string& text) {
  std::vector<int> ids = {Tokenizer::kBos};
  // the alphabet follows the six specials in the vocabulary
  for (int c : rasp_characters(program, text)) ids.push_back(static_cast<int>(Tokenizer::kSpecials.size()) + c);
  return ids;
}

namespace {

// How many query/key features and values a head needs: BOS's feature and each condition's key
// values; the source's width (SelectorWidth: one, BOS's flag).
Index head_width(const RaspProgram& p, const RaspHead& head) {
  Index qk = 1;
  for (const RaspCondition& c : head.select) qk += p.variable(c.key).width();
  const Index v = head.kind == RaspHeadKind::aggregate ? p.variable(head.source).width() : 1;
  return std::max(qk, v);
}

// ReLU units of one step: a gate for the constant part, two for each threshold between points
Index step_units(const RaspStep& step) { return 1 + 2 * (static_cast<Index>(step.points.size()) - 1); }

// head `head`'s Q/K/V/O weights: score = β·(number of conditions met), BOS scoring as many
// conditions as there are (SelectorWidth: always selected) or half a condition fewer
// (Aggregate: chosen only when no key is)
void compile_head(const CompiledRasp& c, const RaspHead& head, AttentionParams& attn) {
  const Index d = c.config.d_model, dk = c.config.attention().d_head();
  const Index q0 = head.head * dk, k0 = d + head.head * dk, v0 = 2 * d + head.head * dk;
  const Scalar beta = c.beta;
  const Index bos = c.subspace("bos").offset;
  const double conditions = static_cast<double>(head.select.size());
  // feature 0: the BOS key against a constant query
  attn.c_attn_weight(bos, k0) = 1;
  attn.c_attn_bias(q0) = Scalar(beta * (head.kind == RaspHeadKind::selector_width ? conditions : conditions - 0.5));
  Index feature = 1;
  for (const RaspCondition& condition : head.select) {
    const RaspSubspace& query = c.subspace(condition.query);
    const RaspSubspace& key = c.subspace(condition.key);
    for (Index kv = 0; kv < key.width; ++kv) {
      attn.c_attn_weight(key.offset + kv, k0 + feature + kv) = 1;
      for (Index qv = 0; qv < query.width; ++qv)
        if (condition.holds(static_cast<int>(qv), static_cast<int>(kv)))
          attn.c_attn_weight(query.offset + qv, q0 + feature + kv) = beta;
    }
    feature += key.width;
  }
  const RaspSubspace& target = c.subspace(head.target);
  if (head.kind == RaspHeadKind::selector_width) {
    attn.c_attn_weight(bos, v0) = 1;
    attn.c_proj_weight(head.head * dk, target.offset) = 1;
    return;
  }
  const RaspSubspace& source = c.subspace(head.source);
  for (Index v = 0; v < source.width; ++v) {
    attn.c_attn_weight(source.offset + v, v0 + v) = 1;
    attn.c_proj_weight(head.head * dk + v, target.offset + v) = 1;
  }
}

// A step's units from `first` on: s_k = ReLU(L(z − t_k) + ½) − ReLU(L(z − t_k) − ½), which is 0
// below the threshold t_k halfway between z_{k−1} and z_k and 1 above it (L = 2/(z_k − z_{k−1}):
// a point sits a whole unit from the ramp), and a gate unit that is 1; BOS subtracts kBosGate
// from every unit, so the network writes nothing there. Output: y_0 + Σ s_k (y_k − y_{k−1}), or
// the one-hot of the value of the point's cell, s_k − s_{k+1}.
void compile_step(const CompiledRasp& c, const RaspStep& step, Index first, FeedForwardParams& mlp) {
  std::vector<std::pair<double, int>> points = step.points;
  std::sort(points.begin(), points.end());
  const Index bos = c.subspace("bos").offset;
  const RaspSubspace& target = c.subspace(step.target);
  const bool numeric = c.program.variable(step.target).numeric();
  // the gate: 1 away from BOS, carrying the first point's output
  mlp.c_fc_bias(first) = 1;
  mlp.c_fc_weight(bos, first) = Scalar(-kBosGate);
  if (numeric) mlp.c_proj_weight(first, target.offset) = Scalar(points[0].second);
  else mlp.c_proj_weight(first, target.offset + points[0].second) = 1;
  for (size_t k = 1; k < points.size(); ++k) {
    const double gap = points[k].first - points[k - 1].first;
    require(gap > 0, "rasp: a step's points must be distinct");
    const double slope = 2 / gap, threshold = (points[k].first + points[k - 1].first) / 2;
    const Index up = first + 2 * static_cast<Index>(k) - 1, down = up + 1;
    for (const RaspTerm& term : step.terms) {
      const RaspSubspace& input = c.subspace(term.variable);
      for (Index v = 0; v < input.width; ++v) {
        mlp.c_fc_weight(input.offset + v, up) = Scalar(slope * term.weights[static_cast<size_t>(v)]);
        mlp.c_fc_weight(input.offset + v, down) = Scalar(slope * term.weights[static_cast<size_t>(v)]);
      }
    }
    mlp.c_fc_bias(up) = Scalar(slope * (step.bias - threshold) + 0.5);
    mlp.c_fc_bias(down) = Scalar(slope * (step.bias - threshold) - 0.5);
    mlp.c_fc_weight(bos, up) = mlp.c_fc_weight(bos, down) = Scalar(-kBosGate);
    if (numeric) {
      const Scalar rise = Scalar(points[k].second - points[k - 1].second);
      mlp.c_proj_weight(up, target.offset) = rise;
      mlp.c_proj_weight(down, target.offset) = -rise;
    } else {
      // s_k moves the one-hot from the value of cell k − 1 to that of cell k
      for (const auto& [unit, sign] : {std::pair<Index, Scalar>{up, 1}, {down, -1}}) {
        mlp.c_proj_weight(unit, target.offset + points[k].second) += sign;
        mlp.c_proj_weight(unit, target.offset + points[k - 1].second) -= sign;
      }
    }
  }
}

}  // namespace

CompiledRasp compile_rasp(const RaspProgram& program) {
  CompiledRasp c;
  c.program = program;
  c.beta = Scalar(kBeta);

  // the residual stream: BOS's flag, then every variable
  Index width = 1;
  c.layout.push_back({"bos", 0, 1, {"BOS"}});
  for (const RaspVariable& v : program.variables) {
    c.layout.push_back({v.name, width, v.width(), v.numeric() ? std::vector<std::string>{v.name} : v.values});
    width += v.width();
  }
  const Index layers = program.layers();
  Index heads = 1, d_head = 1, d_ff = 1;
  for (const RaspHead& h : program.heads) {
    heads = std::max(heads, h.head + 1);
    d_head = std::max(d_head, head_width(program, h));
  }
  for (Index layer = 0; layer < layers; ++layer) {
    Index units = 0;
    for (const RaspStep& s : program.steps)
      if (s.layer == layer) units += step_units(s);
    d_ff = std::max(d_ff, units);
  }
  d_head = std::max(d_head, (width + heads - 1) / heads);
  const Index d_model = heads * d_head;
  if (d_model > width) {
    c.layout.push_back({"unused", width, d_model - width, std::vector<std::string>(static_cast<size_t>(d_model - width), "")});
  }

  // the vocabulary: specials, the alphabet, the output's values that are not letters
  c.vocabulary.assign(Tokenizer::kSpecials.begin(), Tokenizer::kSpecials.end());
  for (const std::string& letter : program.variable("tokens").values) c.vocabulary.push_back(letter);
  for (const std::string& value : program.variable(program.output).values)
    if (std::find(c.vocabulary.begin(), c.vocabulary.end(), value) == c.vocabulary.end()) c.vocabulary.push_back(value);
  const Index vocab = static_cast<Index>(c.vocabulary.size());

  c.config = ModelConfig::Builder(Architecture::encoder_only, vocab, program.max_length + 1)
                 .width(d_model, heads)
                 .ffn(d_ff)
                 .layers(layers)
                 .positional(Positional::learned)
                 .activation(Activation::relu)
                 .norm(Norm::none)
                 .final_norm(false)
                 .tie_embeddings(false)
                 .scaled(false)
                 .build();
  c.params = ModelParams::zeros(c.config);
  ModelParams& p = c.params;

  // embeddings: [BOS] sets its flag, a letter its token; position 1 + i is index i
  const RaspSubspace& tokens = c.subspace("tokens");
  p.wte(Tokenizer::kBos, c.subspace("bos").offset) = 1;
  for (Index letter = 0; letter < tokens.width; ++letter)
    p.wte(static_cast<Index>(Tokenizer::kSpecials.size()) + letter, tokens.offset + letter) = 1;
  const RaspSubspace& indices = c.subspace("indices");
  for (Index i = 0; i < program.max_length; ++i) p.wpe(1 + i, indices.offset + i) = 1;

  for (const RaspHead& head : program.heads) compile_head(c, head, p.encoder.h[static_cast<size_t>(head.layer)].attn);
  std::vector<Index> used(static_cast<size_t>(layers), 0);
  for (const RaspStep& step : program.steps) {
    Index& first = used[static_cast<size_t>(step.layer)];
    compile_step(c, step, first, p.encoder.h[static_cast<size_t>(step.layer)].mlp);
    first += step_units(step);
  }

  // the head reads the output's subspace: value v is the logit of its token
  const RaspSubspace& output = c.subspace(program.output);
  for (Index v = 0; v < output.width; ++v) {
    const auto id = std::find(c.vocabulary.begin(), c.vocabulary.end(), output.labels[static_cast<size_t>(v)]);
    p.lm_head(id - c.vocabulary.begin(), output.offset + v) = 1;
  }
  return c;
}

}  // namespace attnlab
