// in_child: runs `fill` in a forked child process (SystemC elaborates once per process, so each
// simulation of a test needs its own) and returns the trivially copyable figures it filled,
// passed back through a pipe. A child that dies or writes nothing yields a default T with
// `status` set to -1.
// simulate_in_child: the usual child of an end-to-end test: loads a run file with `--set`
// overrides, plans it, lets `tamper` change the planned run, simulates it and lets `read` take
// its figures; status 0 (simulated), 1 (deadlock) or 2 (exception, its text in `detail`), and
// `detail` holds the first functional mismatch when there is one.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

#include "core/arch/config_loader.h"
#include "tb/run_harness.h"

namespace strider {

template <typename T>
T in_child(const std::function<void(T&)>& fill) {
  static_assert(std::is_trivially_copyable_v<T>, "figures cross a pipe as bytes");
  int fd[2];
  if (::pipe(fd) != 0) return T{};
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fd[0]);
    T t{};
    fill(t);
    const ssize_t n = ::write(fd[1], &t, sizeof t);
    ::_exit(n == ssize_t(sizeof t) ? 0 : 3);
  }
  ::close(fd[1]);
  T t{};
  if (pid < 0 || ::read(fd[0], &t, sizeof t) != ssize_t(sizeof t)) t.status = -1;
  ::close(fd[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return t;
}

template <typename T>
T simulate_in_child(const std::string& run_file, const std::vector<std::string>& sets,
                    const std::function<void(const RunResult&, T&)>& read,
                    const std::function<void(RunResult&)>& tamper = nullptr) {
  return in_child<T>([&](T& f) {
    try {
      RunResult r;
      r.config = load_run(run_file, sets);
      plan_run(r);
      if (tamper) tamper(r);
      simulate_planned(r);
      read(r, f);
      if (!r.functional_details.empty()) {
        std::snprintf(f.detail, sizeof f.detail, "%s", r.functional_details[0].c_str());
      }
      f.status = r.record.deadlock ? 1 : 0;
    } catch (const std::exception& e) {
      std::snprintf(f.detail, sizeof f.detail, "%s", e.what());
      f.status = 2;
    }
  });
}

}  // namespace strider
