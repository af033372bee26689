#pragma once
// RASP programs (Weiss et al., 2021) compiled by hand into the weights of an ordinary Transformer,
// as tracr does (Lindner et al., 2023). The residual stream is laid out as named subspaces: a BOS
// flag, the one-hot token, the one-hot index, and every variable of the program. Each Select is an
// attention head whose score table W_Q·W_Kᵀ, restricted to the subspaces it reads, is β times the
// select's truth table, so its (hard, large-β) attention pattern is the select matrix; an
// Aggregate is that head's values and output; a SelectorWidth reads the share of attention its
// head leaves on BOS, 1/(w + 1); and a feed-forward network of ReLU steps turns a number (that
// share, or a sum of variables) into a number or a one-hot category. The model runs through the
// engine's ordinary forward pass: encoder-only, no norms, learned (one-hot) positions, ReLU, an
// untied head that reads the output variable's subspace.
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "model/config.hpp"
#include "model/params.hpp"

namespace attnlab {

// A variable of a program, one subspace of the residual stream: categorical (one dimension per
// value, named by its labels) or numeric (one dimension holding the number).
struct RaspVariable {
  std::string name;
  std::vector<std::string> values;  // categorical: its values' labels; empty: numeric

  bool numeric() const { return values.empty(); }
  Index width() const { return numeric() ? 1 : static_cast<Index>(values.size()); }
};

// key j is selected by query i when holds(value of `query` at i, value of `key` at j), the values
// being indices into the two categorical variables' values
struct RaspCondition {
  std::string query, key;
  std::function<bool(int query, int key)> holds;
};

enum class RaspHeadKind {
  aggregate,       // the mean of `source` over the selected keys (BOS when none is), into `target`
  selector_width,  // 1/(w + 1) for w selected keys, the share of attention on BOS, into `target`
};

// One attention head: a Select (the keys meeting every condition) and what it does with them.
struct RaspHead {
  Index layer = 0, head = 0;
  Index line = 0;  // the program line it implements
  RaspHeadKind kind = RaspHeadKind::aggregate;
  std::vector<RaspCondition> select;
  std::string source;  // aggregate: the categorical variable averaged
  std::string target;
};

// z = Σ weights·variable (a categorical variable: the weight of its value)
struct RaspTerm {
  std::string variable;
  std::vector<double> weights;  // one per value; a numeric variable: one
};

// One part of a feed-forward network: z from the terms plus bias, mapped to y_k of the point z_k
// nearest to it. A numeric target receives y_k (parts writing one target add up); a categorical
// one the one-hot of its value number y_k.
struct RaspStep {
  Index layer = 0;
  Index line = 0;
  std::vector<RaspTerm> terms;
  double bias = 0;
  std::vector<std::pair<double, int>> points;  // (z_k, y_k), z_k distinct
  std::string target;
};

struct RaspProgram {
  std::string name;
  std::vector<std::string> lines;  // its text, line by line
  std::string alphabet;            // the characters it reads
  Index max_length = 0;            // the most characters it reads
  // "tokens" (the alphabet) and "indices" (0 … max_length − 1) first, then the program's own
  std::vector<RaspVariable> variables;
  std::vector<RaspHead> heads;
  std::vector<RaspStep> steps;
  std::string output;  // the categorical variable the model's head reads out

  const RaspVariable& variable(const std::string& name) const;
  Index layers() const;
};

// the names of the built-in programs: "reverse", "histogram", "sort"
const std::vector<std::string>& rasp_program_names();
// reverse: the text backwards; histogram: how often each character occurs in the text; sort: the
// characters in alphabetical order, equal ones in the order of the text (a stable sort). All read
// up to 10 letters a–z. Another name throws attnlab::Error naming the programs.
RaspProgram rasp_program(const std::string& name);

// The program run on plain values, position by position (no model).
struct RaspRun {
  // each variable at each of the n characters: a categorical value's number, or the number
  std::map<std::string, std::vector<double>> values;
  // each head's attention as the program defines it, (n, 1 + n): columns BOS then the keys; a row
  // is uniform over its selected keys (with BOS for SelectorWidth; BOS alone when none is selected)
  std::vector<Matrix> patterns;
  std::vector<std::string> output;  // the output variable's label at each character
};

// throws attnlab::Error for text the program cannot read (rasp_characters)
RaspRun run_rasp(const RaspProgram& program, const std::string& text);

// the characters of text (UTF-8), each a value number of "tokens"; throws attnlab::Error naming
// the problem for more than max_length characters or one outside the alphabet
std::vector<int> rasp_characters(const RaspProgram& program, const std::string& text);

// the compiled model's tokens for text: [BOS], then one a character (rasp_characters' checks)
std::vector<int> rasp_tokens(const RaspProgram& program, const std::string& text);

// A subspace of the residual stream: dimensions [offset, offset + width).
struct RaspSubspace {
  std::string name;
  Index offset = 0, width = 0;
  std::vector<std::string> labels;  // one per dimension
};

struct CompiledRasp {
  RaspProgram program;
  ModelConfig config;
  ModelParams params;
  // the model's tokens: the six specials of a character vocabulary, the alphabet, then the output
  // values not among them
  std::vector<std::string> vocabulary;
  // "bos", the program's variables in order, "unused" (filling d_model to heads × d_k)
  std::vector<RaspSubspace> layout;
  Scalar beta = 0;  // the score of a selected key above one that is not

  const RaspSubspace& subspace(const std::string& name) const;
};

// The weights, one head per Select and one feed-forward part per step, in the layers the program
// names; heads a layer does not use are all zero.
CompiledRasp compile_rasp(const RaspProgram& program);

}  // namespace attnlab
