#pragma once
// The safetensors format: an 8-byte little-endian header length, a JSON header naming each
// tensor's dtype, shape and byte range, then the raw little-endian data. F32, F16 and BF16 tensors
// are read (widened exactly to float); F32 is written.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/weight.hpp"

namespace attnlab {

struct StoredTensor {
  std::vector<std::int64_t> shape;
  std::vector<float> data;  // row-major, product(shape) floats
};

using TensorMap = std::map<std::string, StoredTensor>;
using Metadata = std::map<std::string, std::string>;

// Headers larger than this are refused before anything is allocated.
constexpr std::uint64_t kMaxSafetensorsHeader = std::uint64_t(100) << 20;

// One tensor as a header describes it; begin and end are offsets in the whole file.
struct TensorEntry {
  std::string name;
  Dtype dtype;
  std::vector<std::int64_t> shape;
  std::uint64_t begin, end;
};

// A file's header: its tensors in the order of their bytes, and its metadata.
struct SafetensorsHeader {
  std::vector<TensorEntry> tensors;
  Metadata metadata;
};

// the header's length, from the file's first 8 bytes; checked against the cap and the file's size
std::uint64_t safetensors_header_length(const std::uint8_t* first8, std::uint64_t file_size);

// Parses and validates a header (the header_length bytes after the first 8) of a file of file_size
// bytes: JSON, duplicate names, dtype, shapes (non-negative, no overflow), byte ranges (inside the
// data, sized to the shape, neither overlapping nor leaving gaps, covering the whole data).
// Throws attnlab::Error naming the problem.
SafetensorsHeader safetensors_parse_header(const std::string& text, std::uint64_t file_size);

// out[i] = value i of bytes, read as dtype (little-endian)   count values → count floats
void widen_to_float(Dtype dtype, const std::uint8_t* bytes, std::size_t count, float* out);

// bytes = u64 header size · {"__metadata__": …, name: {dtype, shape, data_offsets}} · data;
// tensors in name order, header padded with spaces to a multiple of 8 bytes
std::vector<std::uint8_t> safetensors_write(const TensorMap& tensors, const Metadata& metadata = {});

// A whole file in memory: the header as above, every tensor widened to float.
TensorMap safetensors_read(const std::uint8_t* bytes, std::size_t size, Metadata* metadata = nullptr);

}  // namespace attnlab
