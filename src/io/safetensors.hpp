#pragma once
// The safetensors format: an 8-byte little-endian header length, a JSON header naming each
// tensor's dtype, shape and byte range, then the raw little-endian data. Only float32 (F32)
// tensors are read and written.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace attnlab {

struct StoredTensor {
  std::vector<std::int64_t> shape;
  std::vector<float> data;  // row-major, product(shape) floats
};

using TensorMap = std::map<std::string, StoredTensor>;
using Metadata = std::map<std::string, std::string>;

// Headers larger than this are refused before anything is allocated.
constexpr std::uint64_t kMaxSafetensorsHeader = std::uint64_t(100) << 20;

// bytes = u64 header size · {"__metadata__": …, name: {dtype, shape, data_offsets}} · data;
// tensors in name order, header padded with spaces to a multiple of 8 bytes
std::vector<std::uint8_t> safetensors_write(const TensorMap& tensors, const Metadata& metadata = {});

// Parses and validates everything: header size (cap, within the file), JSON, duplicate names,
// dtype, shapes (non-negative, no overflow), byte ranges (inside the data, sized to the shape,
// neither overlapping nor leaving gaps, covering the whole data). Throws attnlab::Error naming
// the problem.
TensorMap safetensors_read(const std::uint8_t* bytes, std::size_t size, Metadata* metadata = nullptr);

}  // namespace attnlab
