// CSV reading and writing of memory-planning problems: see csv_io.h.
#include "planner/memory/csv_io.h"

#include <fstream>
#include <sstream>
#include <set>
#include <stdexcept>
#include <vector>

#include "core/common/csv.h"
#include "core/common/input_file.h"

namespace strider::memory {
namespace {

enum Column { kId, kLower, kUpper, kSize, kAlignment, kOffset };
const char* const kColumnNames[] = {"id", "lower", "upper", "size", "alignment", "offset"};

std::string join_header(const std::vector<int>& cols) {
  std::string h;
  for (int c : cols) h += (h.empty() ? "" : ",") + std::string(kColumnNames[c]);
  return h;
}

class RowParser {
 public:
  RowParser(const std::string& source, size_t line) : source_(source), line_(line) {}

  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error(source_ + ":" + std::to_string(line_) + ": " + what);
  }

  int64_t integer(const std::string& cell, Column col, int64_t min_value) const {
    const std::string name = kColumnNames[col];
    bool ok = !cell.empty();
    size_t i = 0;
    if (ok && cell[0] == '-') i = 1;
    if (i == cell.size()) ok = false;
    for (size_t k = i; ok && k < cell.size(); ++k) ok = cell[k] >= '0' && cell[k] <= '9';
    const std::string expect = min_value == 0   ? "a non-negative integer"
                               : min_value == 1 ? "a positive integer"
                                                : "an integer";
    if (!ok) fail("column '" + name + "': expected " + expect + ", got '" + cell + "'");
    if (cell.size() - i > 18) {  // keeps offsets and sums within int64
      fail("column '" + name + "': " + cell + " is out of range, expected at most " +
           "999999999999999999 (18 digits)");
    }
    int64_t v = std::stoll(cell);
    if (v < min_value) fail("column '" + name + "': expected " + expect + ", got '" + cell + "'");
    return v;
  }

 private:
  const std::string& source_;
  size_t line_;
};

}  // namespace

Problem read_problem_csv(std::istream& in, const std::string& source) {
  csv::Reader reader(in, /*trim_fields=*/true);
  std::vector<std::string> cells;
  if (!reader.next(cells)) throw std::runtime_error(source + ":1: empty file, expected a header");
  const std::string line = reader.text();
  std::vector<std::string> header = cells;
  // A byte-order mark (spreadsheets write one before UTF-8 CSV) is not part of the first name.
  if (!header.empty() && header[0].rfind("\xEF\xBB\xBF", 0) == 0) header[0].erase(0, 3);
  std::vector<int> cols;
  for (const std::string& h : header) {
    int c = -1;
    for (int k = 0; k < 6; ++k) {
      if (h == kColumnNames[k]) c = k;
    }
    if (c < 0) {
      throw std::runtime_error(source + ":1: unknown column '" + h +
                               "', expected id,lower,upper,size[,alignment][,offset]");
    }
    cols.push_back(c);
  }
  const bool header_ok = cols.size() >= 4 && cols[0] == kId && cols[1] == kLower &&
                         cols[2] == kUpper && cols[3] == kSize &&
                         (cols.size() < 5 || cols[4] == kAlignment || cols[4] == kOffset) &&
                         (cols.size() < 6 || (cols[4] == kAlignment && cols[5] == kOffset)) &&
                         cols.size() <= 6;
  if (!header_ok) {
    throw std::runtime_error(source + ":1: header '" + line +
                             "', expected id,lower,upper,size[,alignment][,offset]");
  }

  Problem p;
  std::set<std::string> ids;
  while (reader.next(cells)) {
    if (cells.size() == 1 && cells[0].empty()) continue;  // blank line
    RowParser row(source, reader.line());
    if (cells.size() != cols.size()) {
      row.fail("expected " + std::to_string(cols.size()) + " columns (" + join_header(cols) +
               "), got " + std::to_string(cells.size()));
    }
    Buffer b;
    for (size_t k = 0; k < cols.size(); ++k) {
      const std::string& cell = cells[k];
      switch (cols[k]) {
        case kId:
          if (cell.empty()) row.fail("column 'id': expected a name, got ''");
          b.id = cell;
          break;
        case kLower: b.lower = row.integer(cell, kLower, 0); break;
        case kUpper: b.upper = row.integer(cell, kUpper, 0); break;
        case kSize: b.size = row.integer(cell, kSize, 0); break;
        case kAlignment: b.alignment = row.integer(cell, kAlignment, 1); break;
        case kOffset:
          if (!cell.empty()) b.fixed_offset = row.integer(cell, kOffset, 0);
          break;
      }
    }
    if (b.upper <= b.lower) {
      row.fail("column 'upper': expected a value greater than lower " + std::to_string(b.lower) +
               ", got '" + std::to_string(b.upper) + "'");
    }
    if (b.fixed_offset && *b.fixed_offset % b.alignment != 0) {
      row.fail("column 'offset': " + std::to_string(*b.fixed_offset) + " is not a multiple of " +
               "alignment " + std::to_string(b.alignment));
    }
    if (!ids.insert(b.id).second) row.fail("column 'id': duplicate id '" + b.id + "'");
    p.buffers.push_back(std::move(b));
  }
  return p;
}

Problem read_problem_csv_file(const std::string& path) {
  std::istringstream in(read_input_file(path, kMaxCsvFileBytes));
  return read_problem_csv(in, path);
}

void write_solution_csv(std::ostream& out, const Problem& p, const Solution& s) {
  bool aligned = false;
  for (const Buffer& b : p.buffers) aligned = aligned || b.alignment > 1;
  out << (aligned ? "id,lower,upper,size,alignment,offset\n" : "id,lower,upper,size,offset\n");
  for (size_t i = 0; i < p.buffers.size(); ++i) {
    const Buffer& b = p.buffers[i];
    csv::Writer w(out);
    w << b.id << b.lower << b.upper << b.size;
    if (aligned) w << b.alignment;
    w << s.offsets.at(i);
    w.end_row();
  }
}

void write_solution_csv_file(const std::string& path, const Problem& p, const Solution& s) {
  std::ofstream out(path);
  if (!out) throw std::runtime_error(path + ": cannot open file for writing");
  write_solution_csv(out, p, s);
  if (!out) throw std::runtime_error(path + ": write failed");
}

int64_t capacity_from_file_name(const std::string& path) {
  // The last path component minus ".csv"; the capacity is its last dot-separated field.
  size_t slash = path.find_last_of('/');
  std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  if (name.size() > 4 && name.compare(name.size() - 4, 4, ".csv") == 0) {
    name.resize(name.size() - 4);
  }
  size_t dot = name.find_last_of('.');
  if (dot == std::string::npos) return 0;
  std::string field = name.substr(dot + 1);
  if (field.empty() || field.size() > 18) return 0;
  for (char c : field) {
    if (c < '0' || c > '9') return 0;
  }
  return std::stoll(field);
}

}  // namespace strider::memory
