// CSV, written once for every reader and report (RFC 4180): fields holding a comma, a quote or a
// line break are quoted with "" for a quote; readers accept quoted fields (also spanning lines),
// CRLF line ends and, where a format allows it, spaces around fields. SystemC-free: the planner's
// readers (SCALE-Sim topologies, memory problems) and the tb reports and sweep results share it.
#pragma once

#include <istream>
#include <ostream>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

namespace strider::csv {

std::string quote(const std::string& field);               // quoted only when needed
std::string join(const std::vector<std::string>& fields);  // one record, no line end
std::vector<std::string> split(const std::string& line);   // inverse of join
std::string trim(const std::string& s);                     // spaces and tabs at both ends

// Reads records one at a time. A quoted field may span lines; line() is the line the last record
// started on (1-based), for error messages.
class Reader {
 public:
  // `trim_fields`: strip unquoted spaces around each field (hand-written files).
  explicit Reader(std::istream& in, bool trim_fields = false) : in_(in), trim_(trim_fields) {}
  // The next record (false at the end). A blank line is a record with one empty field.
  bool next(std::vector<std::string>& fields);
  // The raw text of the last record (without its line end).
  const std::string& text() const { return text_; }
  size_t line() const { return line_; }

 private:
  std::istream& in_;
  bool trim_;
  std::string text_;
  size_t line_ = 0, next_line_ = 1;
};

// Writes records: `w << a << b << c; w.end_row();`. Integers are written as they are, other cells
// are formatted with the stream's flags and quoted when needed.
class Writer {
 public:
  explicit Writer(std::ostream& out) : out_(out) {}
  template <class T>
  Writer& operator<<(const T& value) {
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool> && !std::is_same_v<T, char>) {
      return raw(std::to_string(value));  // numbers never need quotes
    } else if constexpr (std::is_convertible_v<const T&, std::string>) {
      return cell(value);
    } else {
      std::ostringstream s;
      s.copyfmt(out_);
      s << value;
      return cell(s.str());
    }
  }
  Writer& cell(const std::string& text);
  Writer& fixed(double value, int digits);  // e.g. 0.250000 for (0.25, 6)
  void end_row();
  void row(const std::vector<std::string>& fields);  // a whole record

 private:
  Writer& raw(const std::string& text);
  std::ostream& out_;
  bool first_ = true;
};

}  // namespace strider::csv
