#include "core/arch/strict_number.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <stdexcept>

namespace strider {

namespace {

[[noreturn]] void refuse(const std::string& what, const std::string& kind, const std::string& text) {
  throw std::invalid_argument(what + ": expected " + kind + ", got '" + text + "'");
}

// Magnitude of decimal or 0x-hexadecimal digits (the whole of text from `i`); false on any other
// character, on no digits, or when the value exceeds `max`.
bool parse_magnitude(const std::string& text, size_t i, uint64_t max, uint64_t& out) {
  unsigned base = 10;
  if (text.size() > i + 2 && text[i] == '0' && (text[i + 1] == 'x' || text[i + 1] == 'X')) {
    base = 16;
    i += 2;
  }
  if (i >= text.size()) return false;
  uint64_t v = 0;
  for (; i < text.size(); ++i) {
    const char c = text[i];
    unsigned d;
    if (c >= '0' && c <= '9') {
      d = static_cast<unsigned>(c - '0');
    } else if (base == 16 && c >= 'a' && c <= 'f') {
      d = static_cast<unsigned>(c - 'a' + 10);
    } else if (base == 16 && c >= 'A' && c <= 'F') {
      d = static_cast<unsigned>(c - 'A' + 10);
    } else {
      return false;
    }
    if (v > (max - d) / base) return false;
    v = v * base + d;
  }
  out = v;
  return true;
}

}  // namespace

uint64_t parse_u64(const std::string& text, const std::string& what) {
  uint64_t v = 0;
  if (!parse_magnitude(text, 0, std::numeric_limits<uint64_t>::max(), v)) {
    refuse(what, "an unsigned integer (at most 18446744073709551615)", text);
  }
  return v;
}

int64_t parse_i64(const std::string& text, const std::string& what) {
  const bool negative = !text.empty() && text[0] == '-';
  const size_t start = !text.empty() && (text[0] == '-' || text[0] == '+') ? 1 : 0;
  const uint64_t max_positive = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  uint64_t v = 0;
  if (!parse_magnitude(text, start, negative ? max_positive + 1 : max_positive, v)) {
    refuse(what, "an integer (-9223372036854775808..9223372036854775807)", text);
  }
  if (!negative) return static_cast<int64_t>(v);
  return v == max_positive + 1 ? std::numeric_limits<int64_t>::min() : -static_cast<int64_t>(v);
}

double parse_double(const std::string& text, const std::string& what) {
  // strtod alone would skip leading blanks and accept hexadecimal floats, nan and inf.
  const bool plain = !text.empty() && text.find_first_of("xXnNiI \t\r\n\v\f") == std::string::npos;
  if (plain) {
    const char* begin = text.c_str();
    char* end = nullptr;
    errno = 0;
    const double v = std::strtod(begin, &end);
    const bool overflow = errno == ERANGE && std::fabs(v) == HUGE_VAL;
    if (end == begin + text.size() && !overflow && std::isfinite(v)) return v;
  }
  refuse(what, "a finite number", text);
}

}  // namespace strider
