// CSV reading and writing: see csv.h.
#include "core/common/csv.h"

#include <cstdio>

namespace strider::csv {

std::string quote(const std::string& field) {
  if (field.find_first_of(",\"\n\r") == std::string::npos) return field;
  std::string q = "\"";
  for (char c : field) {
    if (c == '"') q += '"';
    q += c;
  }
  return q + "\"";
}

std::string join(const std::vector<std::string>& fields) {
  std::string line;
  for (size_t i = 0; i < fields.size(); ++i) line += (i ? "," : "") + quote(fields[i]);
  return line;
}

std::string trim(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

namespace {

// Splits `text` into fields; returns false when it ends inside a quoted field.
bool split_into(const std::string& text, bool trim_fields, std::vector<std::string>& fields) {
  fields.assign(1, "");
  bool quoted = false, was_quoted = false;
  auto finish = [&] {
    if (trim_fields && !was_quoted) fields.back() = trim(fields.back());
    was_quoted = false;
  };
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        fields.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        fields.back() += c;
      }
    } else if (c == '"' && trim(fields.back()).empty()) {
      fields.back().clear();
      quoted = was_quoted = true;
    } else if (c == ',') {
      finish();
      fields.emplace_back();
    } else if (!(was_quoted && (c == ' ' || c == '\t'))) {
      fields.back() += c;
    }
  }
  finish();
  return !quoted;
}

}  // namespace

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> fields;
  split_into(line, false, fields);
  return fields;
}

bool Reader::next(std::vector<std::string>& fields) {
  std::string line;
  if (!std::getline(in_, line)) return false;
  line_ = next_line_++;
  if (!line.empty() && line.back() == '\r') line.pop_back();
  text_ = line;
  while (!split_into(text_, trim_, fields) && std::getline(in_, line)) {
    ++next_line_;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    text_ += "\n" + line;
  }
  return true;
}

Writer& Writer::cell(const std::string& text) { return raw(quote(text)); }

Writer& Writer::raw(const std::string& text) {
  if (!first_) out_ << ',';
  out_ << text;
  first_ = false;
  return *this;
}

Writer& Writer::fixed(double value, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, value);
  return raw(buf);
}

void Writer::end_row() {
  out_ << '\n';
  first_ = true;
}

void Writer::row(const std::vector<std::string>& fields) {
  for (const std::string& f : fields) cell(f);
  end_row();
}

}  // namespace strider::csv
