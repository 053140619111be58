#include "core/common/input_file.h"

#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace strider {

namespace fs = std::filesystem;

namespace {

std::string kind_of(const fs::file_status& st) {
  switch (st.type()) {
    case fs::file_type::directory: return "a directory";
    case fs::file_type::character: return "a character device";
    case fs::file_type::block: return "a block device";
    case fs::file_type::fifo: return "a FIFO";
    case fs::file_type::socket: return "a socket";
    default: return "not a file";
  }
}

}  // namespace

uint64_t check_input_file(const std::string& path, uint64_t max_bytes) {
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (ec || st.type() == fs::file_type::not_found) {
    throw InputFileError(path, "file not found");
  }
  if (st.type() != fs::file_type::regular) {
    throw InputFileError(path, "is " + kind_of(st) + ", expected a regular file");
  }
  const uint64_t size = fs::file_size(path, ec);
  if (ec) throw InputFileError(path, "cannot read file size (" + ec.message() + ")");
  if (size > max_bytes) {
    throw InputFileError(path, "is " + std::to_string(size) + " bytes, over the limit of " +
                                     std::to_string(max_bytes) +
                                     " bytes for this kind of input (the limits are in "
                                     "core/common/input_file.h: split the file, or raise its "
                                     "limit there and rebuild)");
  }
  return size;
}

std::string read_input_file(const std::string& path, uint64_t max_bytes) {
  const uint64_t size = check_input_file(path, max_bytes);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputFileError(path, "cannot read file");
  std::string text(size, '\0');
  in.read(text.data(), static_cast<std::streamsize>(size));
  text.resize(static_cast<size_t>(in.gcount()));
  if (in.peek() != std::char_traits<char>::eof()) {
    throw InputFileError(path, "grew while being read, over " + std::to_string(size) + " bytes");
  }
  return text;
}

}  // namespace strider
