// SweepResults: the results.csv of a sweep. One header line, then one line per finished point,
// appended as the point finishes. Crash safety: every row is one line (error texts are folded to
// one line), written with a single write() to an O_APPEND descriptor and fsync'ed, so a kill
// leaves at most a trailing partial line; opening for resume drops such a line (truncating the
// file after the last newline) before anything is appended. Fields are CSV-quoted (RFC 4180)
// when they hold a comma or a quote.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/common/csv.h"

namespace strider {


// The complete rows of a results file: header, and rows keyed by point id (column 0).
struct ResultsTable {
  std::vector<std::string> header;
  std::map<size_t, std::vector<std::string>> rows;
  size_t partial_bytes = 0;  // bytes of a trailing line without newline (ignored)
};

// Writes `text` to `path` through a temporary file and rename(), so readers never see half of
// it. Throws std::runtime_error.
void write_file_atomic(const std::string& path, const std::string& text);

// Reads `path` (missing file: empty table). Throws std::runtime_error naming the file and line
// when a complete row is malformed (wrong field count, bad or duplicate point id).
ResultsTable read_results(const std::string& path);

class SweepResults {
 public:
  // Opens `path` for appending rows with columns `header`. A missing or empty file gets the
  // header. An existing file must have the same header (else std::runtime_error); with `resume`
  // false it must also have no rows, with `resume` true its trailing partial line is truncated
  // away and its rows are kept (see done()).
  SweepResults(const std::string& path, const std::vector<std::string>& header, bool resume);
  ~SweepResults();
  SweepResults(const SweepResults&) = delete;
  SweepResults& operator=(const SweepResults&) = delete;

  // Resume: keeps a row only where `id_of(row)` names the point it belongs to now (the point with
  // the same parameter values), re-keyed to that id; the other rows (points of an earlier version
  // of the sweep file) are dropped. The file is rewritten atomically when anything changed.
  // Returns the number of rows dropped.
  size_t retain(const std::function<std::optional<size_t>(const std::vector<std::string>&)>& id_of);

  // Point ids that already have a row.
  const std::map<size_t, std::vector<std::string>>& done() const { return done_; }
  // Appends one row (fields.size() must equal the header's). Throws std::runtime_error.
  void append(const std::vector<std::string>& fields);

 private:
  void write_line(const std::string& line);

  void open_for_append();

  std::string path_;
  std::vector<std::string> header_;
  size_t columns_ = 0;
  int fd_ = -1;
  std::map<size_t, std::vector<std::string>> done_;
};

}  // namespace strider
