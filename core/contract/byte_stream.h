// Little-endian byte writer and bounds-checked reader for the binary descriptor format. A read
// past the end or a bad value throws std::runtime_error naming the source and the byte offset.
#pragma once

#include <algorithm>
#include <cstdint>
#include <istream>
#include <iterator>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

namespace strider {

class ByteWriter {
 public:
  explicit ByteWriter(std::ostream& out) : out_(out) {}
  template <typename T>
  void u(T v) {
    for (size_t i = 0; i < sizeof(T); ++i) out_.put(static_cast<char>((uint64_t(v) >> (8 * i)) & 0xff));
  }
  void i32(int32_t v) { u<uint32_t>(static_cast<uint32_t>(v)); }
  void str(const std::string& s) {
    u<uint32_t>(static_cast<uint32_t>(s.size()));
    out_.write(s.data(), static_cast<std::streamsize>(s.size()));
  }

 private:
  std::ostream& out_;
};

class ByteReader {
 public:
  ByteReader(std::istream& in, std::string source)
      : data_(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()),
        source_(std::move(source)) {}

  template <typename T>
  T u() {
    need(sizeof(T));
    uint64_t v = 0;
    for (size_t i = 0; i < sizeof(T); ++i) v |= uint64_t(uint8_t(data_[pos_ + i])) << (8 * i);
    pos_ += sizeof(T);
    return static_cast<T>(v);
  }
  int32_t i32() { return static_cast<int32_t>(u<uint32_t>()); }
  bool boolean() {
    uint8_t v = u<uint8_t>();
    if (v > 1) fail("bool field is " + std::to_string(v) + ", expected 0 or 1", 1);
    return v == 1;
  }
  // An enum stored as one byte, checked against its number of values.
  template <typename E>
  E enumeration(uint8_t count, const char* what) {
    uint8_t v = u<uint8_t>();
    if (v >= count) fail(std::string(what) + " is " + std::to_string(v) + ", expected 0.." +
                         std::to_string(count - 1), 1);
    return static_cast<E>(v);
  }
  std::string str() {
    uint32_t n = count(1);
    std::string s(data_.data() + pos_, n);
    pos_ += n;
    return s;
  }
  // A element count, checked against the bytes left (each element at least `min_bytes`).
  uint32_t count(size_t min_bytes) {
    uint32_t n = u<uint32_t>();
    if (uint64_t(n) * min_bytes > data_.size() - pos_) {
      fail("count " + std::to_string(n) + " exceeds the remaining " +
           std::to_string(data_.size() - pos_) + " bytes", 4);
    }
    return n;
  }
  bool at_end() const { return pos_ == data_.size(); }
  size_t size() const { return data_.size(); }
  const char* data() const { return data_.data(); }
  // Drops the last n bytes (a trailer checked separately) from what the reads see.
  void drop_tail(size_t n) { data_.resize(data_.size() - std::min(n, data_.size() - pos_)); }
  size_t pos() const { return pos_; }
  [[noreturn]] void fail(const std::string& what, size_t back = 0) const {
    throw std::runtime_error(source_ + ": byte " + std::to_string(pos_ - back) + ": " + what);
  }

 private:
  void need(size_t n) const {
    if (data_.size() - pos_ < n) fail("truncated, expected " + std::to_string(n) + " more bytes");
  }
  std::vector<char> data_;
  std::string source_;
  size_t pos_ = 0;
};

}  // namespace strider
