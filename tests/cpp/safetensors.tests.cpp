#include <catch2/catch.hpp>
#include <cstring>
#include <limits>

#include "core/check.hpp"
#include "io/safetensors.hpp"

using namespace attnlab;

namespace {

// a file from a hand-written header and `data_bytes` zero bytes of data
std::vector<std::uint8_t> file_with(const std::string& header, std::size_t data_bytes, std::uint64_t claimed = 0) {
  const std::uint64_t length = claimed ? claimed : header.size();
  std::vector<std::uint8_t> out(8 + header.size() + data_bytes, 0);
  std::memcpy(out.data(), &length, 8);
  std::memcpy(out.data() + 8, header.data(), header.size());
  return out;
}

std::string read_error(const std::vector<std::uint8_t>& bytes) {
  try {
    safetensors_read(bytes.data(), bytes.size());
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("safetensors round-trips bit-exactly", "[io][safetensors]") {
  TensorMap tensors;
  tensors["b"] = {{2, 3}, {1.5f, -0.0f, std::numeric_limits<float>::denorm_min(), 3e38f, -7.25f, 1e-30f}};
  tensors["a.weight"] = {{4}, {0.1f, 0.2f, 0.3f, std::numeric_limits<float>::quiet_NaN()}};
  tensors["empty"] = {{0, 5}, {}};
  const std::vector<std::uint8_t> bytes = safetensors_write(tensors, {{"format", "attnlab"}});
  SECTION("the layout: 8-byte length, padded JSON, data") {
    std::uint64_t header = 0;
    std::memcpy(&header, bytes.data(), 8);
    CHECK(header % 8 == 0);
    CHECK(bytes.size() == 8 + header + (6 + 4) * 4);
  }
  SECTION("reading gives back every bit, and writing again the same bytes") {
    Metadata metadata;
    const TensorMap back = safetensors_read(bytes.data(), bytes.size(), &metadata);
    CHECK(metadata.at("format") == "attnlab");
    REQUIRE(back.size() == 3);
    for (const auto& [name, t] : tensors) {
      CHECK(back.at(name).shape == t.shape);
      REQUIRE(back.at(name).data.size() == t.data.size());
      // bit patterns (NaN included); memcmp must not see the null data() of an empty tensor
      if (!t.data.empty()) CHECK(std::memcmp(back.at(name).data.data(), t.data.data(), t.data.size() * 4) == 0);
    }
    CHECK(safetensors_write(back, metadata) == bytes);
  }
}

TEST_CASE("safetensors rejects malformed files with the reason", "[io][safetensors][errors]") {
  const std::string ok = R"({"x":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";
  CHECK(read_error(file_with(ok, 8)) == "no error");
  CHECK_THAT(read_error({1, 2, 3}), Catch::Contains("too short"));
  CHECK_THAT(read_error(file_with(ok, 8, std::uint64_t(1) << 40)), Catch::Contains("exceeds the limit"));
  // unsigned sizes are written as unsigned: not "header size -1"
  CHECK_THAT(read_error(file_with(ok, 8, ~std::uint64_t(0))), Catch::Contains("header size 18446744073709551615 exceeds"));
  CHECK_THAT(read_error(file_with(ok, 8, 4096)), Catch::Contains("runs past the end"));
  CHECK_THAT(read_error(file_with(R"({"x":{"dtype":)", 8)), Catch::Contains("not valid JSON"));
  CHECK_THAT(read_error(file_with(R"([1,2])", 0)), Catch::Contains("must start with '{', found byte 91"));
  CHECK_THAT(read_error(file_with(R"({"x":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"x":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})", 8)),
             Catch::Contains("names \"x\" twice"));
  CHECK_THAT(read_error(file_with(R"({"x":{"dtype":"Q4_K","shape":[2],"data_offsets":[0,4]}})", 4)),
             Catch::Contains("has dtype \"Q4_K\"; F32, F16 and BF16 are supported"));
  CHECK_THAT(read_error(file_with(R"({"x":{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}})", 4)),
             Catch::Contains("negative dimension"));
  CHECK_THAT(read_error(file_with(R"({"x":{"dtype":"F32","shape":[18446744073709551615],"data_offsets":[0,4]}})", 4)),
             Catch::Contains("has a dimension of 18446744073709551615, too large"));
  CHECK_THAT(read_error(file_with(R"({"x":{"dtype":"F32","shape":[4294967296,4294967296,16],"data_offsets":[0,4]}})", 4)),
             Catch::Contains("overflows"));
  CHECK_THAT(read_error(file_with(R"({"x":{"dtype":"F32","shape":[2],"data_offsets":[0,16]}})", 8)),
             Catch::Contains("outside the 8 bytes"));
  CHECK_THAT(read_error(file_with(R"({"x":{"dtype":"F32","shape":[2],"data_offsets":[8,0]}})", 8)),
             Catch::Contains("outside"));
  CHECK_THAT(read_error(file_with(R"({"x":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})", 8)),
             Catch::Contains("needs 12"));
  CHECK_THAT(read_error(file_with(R"({"x":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"y":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})", 12)),
             Catch::Contains("overlaps"));
  CHECK_THAT(read_error(file_with(R"({"x":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})", 8)),
             Catch::Contains("bytes 0..4 of the data belong to no tensor"));
  CHECK_THAT(read_error(file_with(ok, 12)), Catch::Contains("4 trailing bytes"));
  CHECK_THAT(read_error(file_with(R"({"x":{"dtype":"F32","shape":[2]}})", 8)), Catch::Contains("needs dtype, shape and data_offsets"));
  CHECK_THAT(read_error(file_with(R"({"__metadata__":{"a":1}})", 0)), Catch::Contains("not a string"));
}

TEST_CASE("safetensors is read strictly: the header starts with '{' and no key repeats", "[io][safetensors][errors]") {
  const std::string ok = R"({"x":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";
  SECTION("a byte-order mark or whitespace before the header's '{' is refused") {
    CHECK_THAT(read_error(file_with("\xEF\xBB\xBF" + ok, 8)),
               Catch::Contains("must start with '{', found byte 239"));
    CHECK_THAT(read_error(file_with(" " + ok, 8)), Catch::Contains("must start with '{', found byte 32"));
    CHECK_THAT(read_error(file_with("\n" + ok, 8)), Catch::Contains("must start with '{'"));
    CHECK_THAT(read_error(file_with("", 0)), Catch::Contains("must start with '{', found nothing"));
  }
  SECTION("a key repeated inside a tensor entry or __metadata__ is named") {
    CHECK_THAT(read_error(file_with(R"({"x":{"dtype":"F32","shape":[2],"shape":[1],"data_offsets":[0,8]}})", 8)),
               Catch::Contains("names \"shape\" twice in \"x\""));
    CHECK_THAT(read_error(file_with(R"({"x":{"dtype":"F16","dtype":"F32","shape":[2],"data_offsets":[0,8]}})", 8)),
               Catch::Contains("names \"dtype\" twice in \"x\""));
    CHECK_THAT(read_error(file_with(R"({"__metadata__":{"a":"1","a":"2"},"x":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", 8)),
               Catch::Contains("names \"a\" twice in \"__metadata__\""));
  }
  SECTION("trailing spaces (the writer's padding) stay allowed") {
    CHECK(read_error(file_with(ok + "       ", 8)) == "no error");
  }
}

TEST_CASE("F16 and BF16 tensors widen exactly to float", "[io][safetensors]") {
  const auto widen = [](Dtype dtype, std::vector<std::uint16_t> halves) {
    std::vector<float> out(halves.size());
    widen_to_float(dtype, reinterpret_cast<const std::uint8_t*>(halves.data()), halves.size(), out.data());
    return out;
  };
  SECTION("binary16: normal, subnormal, zero, the largest, infinity and NaN") {
    const std::vector<float> f = widen(Dtype::f16, {0x3C00, 0xC000, 0x3555, 0x0001, 0x03FF, 0x8000, 0x7BFF, 0x7C00, 0x7E00});
    CHECK(f[0] == 1.0f);
    CHECK(f[1] == -2.0f);
    CHECK(f[2] == 0.333251953125f);           // 0x3555 = 1365/4096
    CHECK(f[3] == std::ldexp(1.0f, -24));     // the smallest subnormal
    CHECK(f[4] == std::ldexp(1023.0f, -24));  // the largest subnormal
    CHECK((f[5] == 0.0f && std::signbit(f[5])));
    CHECK(f[6] == 65504.0f);
    CHECK(f[7] == std::numeric_limits<float>::infinity());
    CHECK(std::isnan(f[8]));
  }
  SECTION("every binary16 value widens to the float that rounds back to it") {
    for (std::uint32_t bits = 0; bits < 0x10000; ++bits) {
      if ((bits & 0x7C00) == 0x7C00) continue;  // infinities and NaNs: above
      const float f = widen(Dtype::f16, {static_cast<std::uint16_t>(bits)})[0];
      const int exponent = static_cast<int>((bits >> 10) & 0x1F), mantissa = static_cast<int>(bits & 0x3FF);
      const float magnitude = exponent ? std::ldexp(1024.0f + mantissa, exponent - 25) : std::ldexp(float(mantissa), -24);
      REQUIRE(f == ((bits & 0x8000) ? -magnitude : magnitude));
    }
  }
  SECTION("bfloat16 is a float's upper half") {
    const std::vector<float> b = widen(Dtype::bf16, {0x3F80, 0xC0A0, 0x7F80, 0x0001, 0x3EAB});
    CHECK(b[0] == 1.0f);
    CHECK(b[1] == -5.0f);
    CHECK(b[2] == std::numeric_limits<float>::infinity());
    CHECK(b[3] == std::ldexp(1.0f, -133));
    CHECK(b[4] == 0.333984375f);
  }
  SECTION("a file of F16 and BF16 tensors reads as floats; sizes follow the dtype") {
    const std::string header =
        R"({"h":{"dtype":"F16","shape":[2],"data_offsets":[0,4]},"b":{"dtype":"BF16","shape":[1],"data_offsets":[4,6]}})";
    std::vector<std::uint8_t> file = file_with(header, 6);
    const std::uint16_t values[3] = {0x3C00, 0xBC00, 0x4040};
    std::memcpy(file.data() + 8 + header.size(), values, 6);
    const TensorMap t = safetensors_read(file.data(), file.size());
    CHECK(t.at("h").data == std::vector<float>{1.0f, -1.0f});
    CHECK(t.at("b").data == std::vector<float>{3.0f});
    CHECK_THAT(read_error(file_with(R"({"h":{"dtype":"F16","shape":[2],"data_offsets":[0,8]}})", 8)),
               Catch::Contains("spans 8 bytes but its shape needs 4"));
  }
}
