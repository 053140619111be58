// _strider: the compiled half of the `strider` Python package (pybind11). SystemC elaborates once
// per process, so every simulation runs in a child process: run_program() starts the `strider`
// program with posix_spawn and collects its exit code, stdout and stderr. read_csv() reads a
// report (layers.csv, memory_plan.csv, ...) with the same RFC-4180 reader the C++ code uses.
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "core/common/csv.h"

extern char** environ;

namespace py = pybind11;

namespace {

// Runs `argv` (argv[0] the program path) and returns (exit code, stdout, stderr); a program
// killed by signal N gives 128 + N. Throws std::runtime_error when it cannot be started.
std::tuple<int, std::string, std::string> run_program(const std::vector<std::string>& argv) {
  if (argv.empty()) throw std::invalid_argument("run_program: empty argument list");
  int out_pipe[2], err_pipe[2];
  if (pipe(out_pipe) != 0 || pipe(err_pipe) != 0) throw std::runtime_error("pipe failed");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err_pipe[1], 2);
  for (int fd : {out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1]})
    posix_spawn_file_actions_addclose(&actions, fd);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(out_pipe[1]);
  close(err_pipe[1]);
  if (rc != 0) {
    close(out_pipe[0]);
    close(err_pipe[0]);
    throw std::runtime_error(argv[0] + ": cannot start: " + std::strerror(rc));
  }
  std::string out, err;
  {
    py::gil_scoped_release release;  // other Python threads may run meanwhile
    pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
    std::string* sinks[2] = {&out, &err};
    int open_fds = 2;
    char buf[65536];
    while (open_fds > 0) {
      if (poll(fds, 2, -1) < 0) {
        if (errno == EINTR) continue;
        break;
      }
      for (int i = 0; i < 2; ++i) {
        if (fds[i].fd < 0 || fds[i].revents == 0) continue;
        const ssize_t n = read(fds[i].fd, buf, sizeof buf);
        if (n > 0) {
          sinks[i]->append(buf, size_t(n));
        } else if (n == 0 || errno != EINTR) {
          close(fds[i].fd);
          fds[i].fd = -1;
          --open_fds;
        }
      }
    }
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return {code, out, err};
}

// The rows of a CSV file with a header, as (header, rows of strings).
std::tuple<std::vector<std::string>, std::vector<std::vector<std::string>>> read_csv(
    const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot open");
  strider::csv::Reader reader(in);
  std::vector<std::string> header, row;
  std::vector<std::vector<std::string>> rows;
  if (!reader.next(header)) return {header, rows};
  while (reader.next(row)) {
    if (row.size() == 1 && row[0].empty()) continue;
    if (row.size() != header.size()) {
      throw std::runtime_error(path + ":" + std::to_string(reader.line()) + ": expected " +
                               std::to_string(header.size()) + " fields, got " +
                               std::to_string(row.size()));
    }
    rows.push_back(row);
  }
  return {header, rows};
}

}  // namespace

PYBIND11_MODULE(_strider, m) {
  m.doc() = "Compiled helpers of the strider package: child processes and CSV reading.";
  m.def("run_program", &run_program, py::arg("argv"),
        "Run a program (argv[0] a path) in a child process; returns (exit code, stdout, stderr).");
  m.def("read_csv", &read_csv, py::arg("path"),
        "Read a CSV file with a header (RFC 4180); returns (header, rows of strings).");
  m.attr("version") = STRIDER_VERSION;
  m.attr("git_revision") = STRIDER_GIT_REVISION;
}
