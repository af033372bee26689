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

TensorMap safetensors_read(const std::uint8_t* bytes, std::size_t size, Metadata* metadata) {
  require(size >= 8, fail_prefix(), "the file is ", size, " bytes long, too short for the 8-byte header size");
  std::uint64_t header_size = 0;
  std::memcpy(&header_size, bytes, 8);
  require(header_size <= kMaxSafetensorsHeader,
          fail_prefix(), "header size ", header_size, " exceeds the limit of ", kMaxSafetensorsHeader, " bytes");
  require(header_size <= size - 8, fail_prefix(), "header size ", header_size, " runs past the end of the ", size,
          "-byte file");
  const std::string text(reinterpret_cast<const char*>(bytes + 8), static_cast<size_t>(header_size));

  // the format has the header start with '{' (so it is an object): no byte-order mark, no
  // leading whitespace
  require(!text.empty() && text[0] == '{',
          fail_prefix(), "the header must start with '{', found ",
          (text.empty() ? std::string("nothing") : "byte " + std::to_string(static_cast<unsigned char>(text[0]))));
  const json header = parse_strict_json(text, fail_prefix() + "the header");

  const std::uint64_t data_size = size - 8 - header_size;
  const std::uint8_t* data = bytes + 8 + header_size;
  struct Range { std::uint64_t begin, end; std::string name; };
  std::vector<Range> ranges;
  TensorMap tensors;
  for (const auto& [name, entry] : header.items()) {
    if (name == "__metadata__") {
      require(entry.is_object(), fail_prefix(), "__metadata__ must be an object of strings");
      for (const auto& [key, value] : entry.items()) {
        require(value.is_string(), fail_prefix(), "__metadata__ entry \"", key, "\" is not a string");
        if (metadata) (*metadata)[key] = value.get<std::string>();
      }
      continue;
    }
    const std::string where = fail_prefix() + "tensor \"" + name + "\" ";
    require(entry.is_object() && entry.contains("dtype") && entry.contains("shape") && entry.contains("data_offsets"),
            where, "needs dtype, shape and data_offsets");
    require(entry["dtype"].is_string(), where, "has a dtype that is not a string");
    const std::string dtype = entry["dtype"];
    require(dtype == "F32", where, "has dtype \"", dtype, "\"; only F32 is supported");
    require(entry["shape"].is_array(), where, "has a shape that is not an array");
    StoredTensor t;
    for (const auto& dim : entry["shape"]) {
      require(dim.is_number_integer(), where, "has a non-integer dimension");
      // beyond int64 (2⁶³ … 2⁶⁴−1) it would wrap to a negative number
      require(!dim.is_number_unsigned() || dim.get<std::uint64_t>() <= std::uint64_t(1) << 40,
              where, "has a dimension of ", dim.get<std::uint64_t>(), ", too large");
      t.shape.push_back(dim.get<std::int64_t>());
    }
    const std::uint64_t count = element_count(t.shape, name);
    const auto& offsets = entry["data_offsets"];
    require(offsets.is_array() && offsets.size() == 2 && offsets[0].is_number_unsigned() && offsets[1].is_number_unsigned(),
            where, "needs data_offsets [begin, end] of non-negative integers");
    const Range r{offsets[0].get<std::uint64_t>(), offsets[1].get<std::uint64_t>(), name};
    require(r.begin <= r.end && r.end <= data_size,
            where, "has data_offsets [", r.begin, ", ", r.end, "] outside the ", data_size, " bytes of data");
    require(r.end - r.begin == count * sizeof(float),
            where, "spans ", r.end - r.begin, " bytes but its shape needs ", count * sizeof(float));
    t.data.resize(static_cast<size_t>(count));
    if (count) std::memcpy(t.data.data(), data + r.begin, static_cast<size_t>(count * sizeof(float)));
    ranges.push_back(r);
    tensors.emplace(name, std::move(t));
  }
  std::sort(ranges.begin(), ranges.end(), [](const Range& a, const Range& b) { return a.begin < b.begin; });
  std::uint64_t covered = 0;
  for (const Range& r : ranges) {
    require(r.begin >= covered, fail_prefix(), "tensor \"", r.name, "\" overlaps the previous tensor's bytes");
    require(r.begin == covered, fail_prefix(), "bytes ", covered, "..", r.begin, " of the data belong to no tensor");
    covered = r.end;
  }
  require(covered == data_size, fail_prefix(), "the data has ", data_size - covered,
          " trailing bytes that belong to no tensor");
  return tensors;
}

}  // namespace attnlab
