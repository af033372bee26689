#include "io/safetensors.hpp"

#include <algorithm>
#include <cstring>
#include <nlohmann/json.hpp>

#include "core/check.hpp"
#include "io/strict_json.hpp"

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "safetensors data is little-endian");

namespace attnlab {

namespace {

using nlohmann::json;

std::string fail_prefix() { return "safetensors: "; }

// product of the dimensions, refusing overflow and absurd sizes
std::uint64_t element_count(const std::vector<std::int64_t>& shape, const std::string& name) {
  std::uint64_t count = 1;
  for (std::int64_t dim : shape) {
    require(dim >= 0, fail_prefix(), "tensor \"", name, "\" has a negative dimension");
    require(dim == 0 || count <= (std::uint64_t(1) << 40) / static_cast<std::uint64_t>(dim),
            fail_prefix(), "tensor \"", name, "\" has a shape whose size overflows");
    count *= static_cast<std::uint64_t>(dim);
  }
  return count;
}

}  // namespace

std::vector<std::uint8_t> safetensors_write(const TensorMap& tensors, const Metadata& metadata) {
  json header = json::object();
  if (!metadata.empty()) header["__metadata__"] = metadata;
  std::uint64_t offset = 0;
  for (const auto& [name, t] : tensors) {
    require(name != "__metadata__" && !name.empty(), fail_prefix(), "invalid tensor name \"", name, "\"");
    require(element_count(t.shape, name) == t.data.size(),
            fail_prefix(), "tensor \"", name, "\" has ", t.data.size(), " values for its shape");
    const std::uint64_t bytes = t.data.size() * sizeof(float);
    header[name] = {{"dtype", "F32"}, {"shape", t.shape}, {"data_offsets", {offset, offset + bytes}}};
    offset += bytes;
  }
  std::string text = header.dump();
  text.append((8 - text.size() % 8) % 8, ' ');
  std::vector<std::uint8_t> out(8 + text.size() + offset);
  const std::uint64_t length = text.size();
  std::memcpy(out.data(), &length, 8);
  std::memcpy(out.data() + 8, text.data(), text.size());
  std::uint8_t* data = out.data() + 8 + text.size();
  for (const auto& [name, t] : tensors) {
    if (t.data.empty()) continue;  // an empty vector's data() may be null, which memcpy must not get
    std::memcpy(data, t.data.data(), t.data.size() * sizeof(float));
    data += t.data.size() * sizeof(float);
  }
  return out;
}

namespace {

Dtype dtype_from_header(const std::string& name, const std::string& where) {
  if (name == "F32") return Dtype::f32;
  if (name == "F16") return Dtype::f16;
  if (name == "BF16") return Dtype::bf16;
  throw Error(where + "has dtype \"" + name + "\"; F32, F16 and BF16 are supported");
}

}  // namespace

void widen_to_float(Dtype dtype, const std::uint8_t* bytes, std::size_t count, float* out) {
  if (dtype == Dtype::f32) {
    if (count) std::memcpy(out, bytes, count * 4);
    return;
  }
  std::uint16_t values[1024];  // little-endian as the machine (x86, WebAssembly) is
  for (std::size_t done = 0; done < count;) {
    const std::size_t chunk = std::min(count - done, std::size(values));
    std::memcpy(values, bytes + 2 * done, 2 * chunk);
    widen(dtype, values, static_cast<Index>(chunk), out + done);
    done += chunk;
  }
}

std::uint64_t safetensors_header_length(const std::uint8_t* first8, std::uint64_t file_size) {
  require(file_size >= 8, fail_prefix(), "the file is ", file_size, " bytes long, too short for the 8-byte header size");
  std::uint64_t header_size = 0;
  std::memcpy(&header_size, first8, 8);
  require(header_size <= kMaxSafetensorsHeader,
          fail_prefix(), "header size ", header_size, " exceeds the limit of ", kMaxSafetensorsHeader, " bytes");
  require(header_size <= file_size - 8, fail_prefix(), "header size ", header_size, " runs past the end of the ",
          file_size, "-byte file");
  return header_size;
}

SafetensorsHeader safetensors_parse_header(const std::string& text, std::uint64_t file_size) {
  require(text.size() + 8 <= file_size, fail_prefix(), "the header runs past the end of the file");
  // the format has the header start with '{' (so it is an object): no byte-order mark, no
  // leading whitespace
  require(!text.empty() && text[0] == '{',
          fail_prefix(), "the header must start with '{', found ",
          (text.empty() ? std::string("nothing") : "byte " + std::to_string(static_cast<unsigned char>(text[0]))));
  const json header = parse_strict_json(text, fail_prefix() + "the header");

  const std::uint64_t data_start = 8 + text.size(), data_size = file_size - data_start;
  SafetensorsHeader out;
  for (const auto& [name, entry] : header.items()) {
    if (name == "__metadata__") {
      require(entry.is_object(), fail_prefix(), "__metadata__ must be an object of strings");
      for (const auto& [key, value] : entry.items()) {
        require(value.is_string(), fail_prefix(), "__metadata__ entry \"", key, "\" is not a string");
        out.metadata[key] = value.get<std::string>();
      }
      continue;
    }
    const std::string where = fail_prefix() + "tensor \"" + name + "\" ";
    require(entry.is_object() && entry.contains("dtype") && entry.contains("shape") && entry.contains("data_offsets"),
            where, "needs dtype, shape and data_offsets");
    require(entry["dtype"].is_string(), where, "has a dtype that is not a string");
    TensorEntry t{name, dtype_from_header(entry["dtype"].get<std::string>(), where), {}, 0, 0};
    require(entry["shape"].is_array(), where, "has a shape that is not an array");
    for (const auto& dim : entry["shape"]) {
      require(dim.is_number_integer(), where, "has a non-integer dimension");
      // beyond int64 (2⁶³ … 2⁶⁴−1) it would wrap to a negative number
      require(!dim.is_number_unsigned() || dim.get<std::uint64_t>() <= std::uint64_t(1) << 40,
              where, "has a dimension of ", dim.get<std::uint64_t>(), ", too large");
      t.shape.push_back(dim.get<std::int64_t>());
    }
    const std::uint64_t bytes = element_count(t.shape, name) * dtype_bytes(t.dtype);
    const auto& offsets = entry["data_offsets"];
    require(offsets.is_array() && offsets.size() == 2 && offsets[0].is_number_unsigned() && offsets[1].is_number_unsigned(),
            where, "needs data_offsets [begin, end] of non-negative integers");
    const std::uint64_t begin = offsets[0].get<std::uint64_t>(), end = offsets[1].get<std::uint64_t>();
    require(begin <= end && end <= data_size,
            where, "has data_offsets [", begin, ", ", end, "] outside the ", data_size, " bytes of data");
    require(end - begin == bytes, where, "spans ", end - begin, " bytes but its shape needs ", bytes);
    t.begin = data_start + begin;
    t.end = data_start + end;
    out.tensors.push_back(std::move(t));
  }
  std::sort(out.tensors.begin(), out.tensors.end(),
            [](const TensorEntry& a, const TensorEntry& b) { return a.begin < b.begin; });
  std::uint64_t covered = data_start;
  for (const TensorEntry& t : out.tensors) {
    require(t.begin >= covered, fail_prefix(), "tensor \"", t.name, "\" overlaps the previous tensor's bytes");
    require(t.begin == covered, fail_prefix(), "bytes ", covered - data_start, "..", t.begin - data_start,
            " of the data belong to no tensor");
    covered = t.end;
  }
  require(covered == file_size, fail_prefix(), "the data has ", file_size - covered,
          " trailing bytes that belong to no tensor");
  return out;
}

TensorMap safetensors_read(const std::uint8_t* bytes, std::size_t size, Metadata* metadata) {
  const std::uint64_t header_size = safetensors_header_length(bytes, size);
  SafetensorsHeader header =
      safetensors_parse_header(std::string(reinterpret_cast<const char*>(bytes + 8), static_cast<size_t>(header_size)), size);
  TensorMap tensors;
  for (const TensorEntry& entry : header.tensors) {
    StoredTensor t;
    t.shape = entry.shape;
    t.data.resize(static_cast<size_t>((entry.end - entry.begin) / dtype_bytes(entry.dtype)));
    widen_to_float(entry.dtype, bytes + entry.begin, t.data.size(), t.data.data());
    tensors.emplace(entry.name, std::move(t));
  }
  if (metadata) *metadata = std::move(header.metadata);
  return tensors;
}

}  // namespace attnlab
