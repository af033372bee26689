#include "io/files.hpp"

#include <filesystem>
#include <iterator>

#include "core/check.hpp"

namespace attnlab {

bool is_file(const std::string& path) {
  std::error_code error;
  return std::filesystem::is_regular_file(path, error);
}

std::ifstream open_file(const std::string& path, std::uint64_t& size) {
  require(is_file(path), "cannot open ", path, ": ",
          std::filesystem::exists(path) ? "it is not a regular file" : "no such file");
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  require(in.good(), "cannot open ", path);
  size = static_cast<std::uint64_t>(in.tellg());
  in.seekg(0);
  return in;
}

std::string read_file(const std::string& path) {
  std::uint64_t size = 0;
  std::ifstream in = open_file(path, size);
  std::string text(static_cast<size_t>(size), '\0');
  in.read(text.data(), static_cast<std::streamsize>(size));
  require(in.good() || (in.eof() && static_cast<std::uint64_t>(in.gcount()) == size), "reading ", path, " failed");
  return text;
}

void write_file(const std::string& path, const void* data, std::size_t size) {
  std::ofstream out(path, std::ios::binary);
  require(out.good(), "cannot write ", path);
  out.write(static_cast<const char*>(data), static_cast<std::streamsize>(size));
  require(out.good(), "writing ", path, " failed");
}

}  // namespace attnlab
