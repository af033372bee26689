#pragma once
// The texts the "fortunes" and "english" tasks train on, compiled into the native engine (attnlab-train and the
// tests; see CMakeLists.txt, which defines ATTNLAB_EMBEDDED_CORPUS there) so that no program
// depends on data files at run time. The WebAssembly module is built without it.
#include <string>
#include <vector>

namespace attnlab {

// the files fortunes, literature and riddles of Debian's fortunes-min 1:1.99.1-7.3 (BSD licence;
// src/train/corpus/fortunes-min/ holds them and their COPYRIGHT), byte for byte, in that order
std::vector<std::string> fortunes_min_files();
// nineteen files of Debian's fortunes 1:1.99.1-7.3 (BSD licence, the same COPYRIGHT; in
// src/train/corpus/fortunes/): education, food, goedel, humorists, kids, law, love, medicine,
// miscellaneous, paradoxum, people, pets, platitudes, science, songs-poems, sports, tao, wisdom and
// work, byte for byte, in that order
std::vector<std::string> fortunes_files();

}  // namespace attnlab
