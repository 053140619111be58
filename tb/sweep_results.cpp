#include "tb/sweep_results.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace strider {


void write_file_atomic(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f || !(f << text) || !f.flush()) throw std::runtime_error(tmp + ": cannot write");
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0)
    throw std::runtime_error(path + ": cannot replace: " + std::strerror(errno));
}

ResultsTable read_results(const std::string& path) {
  ResultsTable t;
  std::ifstream f(path, std::ios::binary);
  if (!f) return t;
  std::stringstream ss;
  ss << f.rdbuf();
  const std::string text = ss.str();
  size_t pos = 0, line_no = 0;
  while (pos < text.size()) {
    const size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) {  // torn last line: a write that never completed
      t.partial_bytes = text.size() - pos;
      break;
    }
    const std::string line = text.substr(pos, nl - pos);
    pos = nl + 1;
    ++line_no;
    const std::vector<std::string> fields = csv::split(line);
    if (line_no == 1) {
      t.header = fields;
      continue;
    }
    const std::string where = path + ":" + std::to_string(line_no) + ": ";
    if (fields.size() != t.header.size())
      throw std::runtime_error(where + "expected " + std::to_string(t.header.size()) +
                               " fields, found " + std::to_string(fields.size()));
    const std::string& id = fields[0];
    if (id.empty() || id.size() > 9 || id.find_first_not_of("0123456789") != std::string::npos)
      throw std::runtime_error(where + "expected a point id in the first field, found '" + id +
                               "'");
    if (!t.rows.emplace(std::stoul(id), fields).second)
      throw std::runtime_error(where + "point " + id + " has a second row");
  }
  return t;
}

SweepResults::SweepResults(const std::string& path, const std::vector<std::string>& header,
                           bool resume)
    : path_(path), columns_(header.size()) {
  ResultsTable t = read_results(path);
  const bool fresh = t.header.empty();
  if (!fresh && t.header != header)
    throw std::runtime_error(path + ": its header differs from this sweep's columns (" +
                             csv::join(header) + "); it belongs to another sweep");
  if (!fresh && !resume && !t.rows.empty())
    throw std::runtime_error(path + " already holds " + std::to_string(t.rows.size()) +
                             " results; use --resume to continue it or another --out");
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd_ < 0) throw std::runtime_error(path + ": cannot open: " + std::strerror(errno));
  if (fresh) {
    // Nothing complete in the file (at most a torn header): start it over.
    if (::ftruncate(fd_, 0) != 0)
      throw std::runtime_error(path + ": cannot truncate: " + std::strerror(errno));
    write_line(csv::join(header));
    return;
  }
  if (t.partial_bytes > 0) {
    const off_t end = ::lseek(fd_, 0, SEEK_END);
    if (end < 0 || ::ftruncate(fd_, end - off_t(t.partial_bytes)) != 0)
      throw std::runtime_error(path + ": cannot drop its torn last line: " + std::strerror(errno));
  }
  if (resume) done_ = std::move(t.rows);
}

SweepResults::~SweepResults() {
  if (fd_ >= 0) ::close(fd_);
}

void SweepResults::append(const std::vector<std::string>& fields) {
  if (fields.size() != columns_)
    throw std::logic_error("results row with " + std::to_string(fields.size()) + " fields, want " +
                           std::to_string(columns_));
  std::vector<std::string> one_line = fields;  // rows stay one line each
  for (std::string& f : one_line)
    for (char& c : f)
      if (c == '\n' || c == '\r') c = ' ';
  write_line(csv::join(one_line));
  done_[std::stoul(fields[0])] = one_line;
}

void SweepResults::write_line(const std::string& line) {
  const std::string text = line + "\n";
  // One write() of the whole line: with O_APPEND the line lands at the end in one piece.
  const ssize_t n = ::write(fd_, text.data(), text.size());
  if (n != ssize_t(text.size()))
    throw std::runtime_error(
        path_ + ": write failed: " + (n < 0 ? std::string(std::strerror(errno)) : "short write"));
  if (::fsync(fd_) != 0)
    throw std::runtime_error(path_ + ": fsync failed: " + std::strerror(errno));
}

}  // namespace strider
