#pragma once
// Files of a model folder, read whole (configs, tokenizers) or opened to be read in pieces (weights).
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <string>

namespace attnlab {

// whether path names a regular file (not a folder, a pipe or a device, which would never end or
// block a read)
bool is_file(const std::string& path);
// the whole file; throws attnlab::Error naming it when it is no regular file or cannot be read
std::string read_file(const std::string& path);
// the file opened for reading at its start, and its size; the same refusals as read_file
std::ifstream open_file(const std::string& path, std::uint64_t& size);
// writes the file; throws attnlab::Error naming it when it cannot be written whole
void write_file(const std::string& path, const void* data, std::size_t size);

}  // namespace attnlab
