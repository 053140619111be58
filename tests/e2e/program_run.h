// run_program: runs the strider program (or another) in a child process with stdout and stderr
// captured, for the end-to-end tests that exercise the command line as a user does.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace strider {

struct Ran {
  int code = -1;
  std::string out, err;
};

inline std::string slurp_file(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// Runs `program args...` with stdout/stderr captured in `dir`; `env` entries are added to the
// child's environment.
inline Ran run_program(const std::string& program, const std::vector<std::string>& args,
                       const std::filesystem::path& dir, const std::vector<std::string>& env = {}) {
  const std::string out = (dir / "cmd_stdout.txt").string(),
                    err = (dir / "cmd_stderr.txt").string();
  std::vector<std::string> words = {program};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    if (!std::freopen(out.c_str(), "w", stdout) || !std::freopen(err.c_str(), "w", stderr))
      _exit(125);
    for (const std::string& e : env) ::putenv(const_cast<char*>(e.c_str()));
    ::execvp(program.c_str(), argv.data());
    _exit(127);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  Ran r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp_file(out);
  r.err = slurp_file(err);
  return r;
}

}  // namespace strider
