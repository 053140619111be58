// in_child: runs `fill` in a forked child process (SystemC elaborates once per process, so each
// simulation of a test needs its own) and returns the trivially copyable figures it filled,
// passed back through a pipe. A child that dies or writes nothing yields a default T with
// `status` set to -1.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <functional>
#include <type_traits>

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

}  // namespace strider
