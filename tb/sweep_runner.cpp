#include "tb/sweep_runner.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

namespace strider {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// Set by the SIGINT / SIGTERM handler while a sweep runs (async-signal-safe flag, tb/ only).
volatile std::sig_atomic_t g_stop_signal = 0;
extern "C" void on_stop_signal(int sig) { g_stop_signal = sig; }

// Installs the stop handlers for the lifetime of a run() and restores the previous ones.
class StopSignals {
 public:
  StopSignals() {
    g_stop_signal = 0;
    struct sigaction sa;
    std::memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int_);
    sigaction(SIGTERM, &sa, &old_term_);
  }
  ~StopSignals() {
    sigaction(SIGINT, &old_int_, nullptr);
    sigaction(SIGTERM, &old_term_, nullptr);
  }

 private:
  struct sigaction old_int_, old_term_;
};

struct Running {
  const PointJob* job = nullptr;
  Clock::time_point start;
  bool timed_out = false;
};

// Starts one child. Everything the child touches is prepared before fork(); the child only
// opens, dup2()s, chdir()s and exec()s.
pid_t spawn(const std::string& exe, const PointJob& job) {
  std::error_code ec;
  fs::create_directories(job.out_dir, ec);
  if (ec) throw std::runtime_error(job.out_dir + ": cannot create: " + ec.message());
  std::vector<std::string> words = {exe, "run", job.run_file};
  for (const std::string& s : job.sets) {
    words.push_back("--set");
    words.push_back(s);
  }
  words.push_back("--out");
  words.push_back(job.out_dir);
  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  const std::string out_path = job.out_dir + "/stdout.txt";
  const std::string err_path = job.out_dir + "/stderr.txt";
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error(std::string("fork failed: ") + std::strerror(errno));
  if (pid == 0) {
    const int o = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int e = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (o < 0 || e < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0) _exit(126);
    if (chdir(job.cwd.c_str()) != 0) {
      const char msg[] = "cannot change to the point's working directory\n";
      (void)!::write(2, msg, sizeof msg - 1);
      _exit(126);
    }
    execv(exe.c_str(), argv.data());
    const char msg[] = "cannot execute the strider program\n";
    (void)!::write(2, msg, sizeof msg - 1);
    _exit(127);
  }
  return pid;
}

PointOutcome outcome_of(const Running& r, int status) {
  PointOutcome o;
  o.seconds = std::chrono::duration<double>(Clock::now() - r.start).count();
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    o.ok = true;
    return o;
  }
  std::string why;
  if (r.timed_out) {
    why = "timed out";
  } else if (WIFSIGNALED(status)) {
    why = std::string("killed by signal ") + std::to_string(WTERMSIG(status)) + " (" +
          strsignal(WTERMSIG(status)) + ")";
  } else {
    why = "exit status " + std::to_string(WEXITSTATUS(status));
  }
  const std::string text = file_one_line(r.job->out_dir + "/stderr.txt");
  o.error = text.empty() ? why : why + ": " + text;
  return o;
}

}  // namespace

std::string self_exe() {
  std::error_code ec;
  const fs::path p = fs::read_symlink("/proc/self/exe", ec);
  if (ec)
    throw std::runtime_error("cannot find the strider program: /proc/self/exe: " + ec.message());
  return p.string();
}

std::string file_one_line(const std::string& path, size_t max_chars) {
  std::ifstream f(path);
  std::string line, out;
  while (std::getline(f, line)) {
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    if (line.empty()) continue;
    out += (out.empty() ? "" : "; ") + line;
  }
  if (out.size() > max_chars) out = "..." + out.substr(out.size() - max_chars);
  return out;
}

SweepRunner::SweepRunner(std::string exe, size_t jobs, double timeout_s)
    : exe_(std::move(exe)), jobs_(jobs < 1 ? 1 : jobs), timeout_s_(timeout_s) {}

void SweepRunner::run(const std::vector<PointJob>& jobs, const DoneFn& done,
                      SweepProgress* progress) {
  StopSignals signals;
  std::map<pid_t, Running> running;
  size_t next = 0;
  while (next < jobs.size() || !running.empty()) {
    if (g_stop_signal != 0) {
      const int sig = g_stop_signal;
      for (const auto& kv : running) kill(kv.first, SIGTERM);
      for (const auto& kv : running) waitpid(kv.first, nullptr, 0);
      if (progress) progress->close();
      throw SweepInterrupted(std::string("interrupted by ") + strsignal(sig) + " with " +
                             std::to_string(running.size()) + " point(s) running");
    }
    while (running.size() < jobs_ && next < jobs.size()) {
      const PointJob& job = jobs[next++];
      Running r;
      r.job = &job;
      r.start = Clock::now();
      running[spawn(exe_, job)] = r;
    }
    bool reaped = false;
    for (auto it = running.begin(); it != running.end();) {
      int status = 0;
      const pid_t p = waitpid(it->first, &status, WNOHANG);
      if (p == 0 || (p < 0 && errno == EINTR)) {
        const double age = std::chrono::duration<double>(Clock::now() - it->second.start).count();
        if (timeout_s_ > 0 && age > timeout_s_ && !it->second.timed_out) {
          it->second.timed_out = true;
          kill(it->first, SIGKILL);
        }
        ++it;
        continue;
      }
      const PointOutcome o =
          p < 0 ? PointOutcome{false, std::string("waitpid failed: ") + std::strerror(errno), 0}
                : outcome_of(it->second, status);
      const PointJob& job = *it->second.job;
      it = running.erase(it);
      reaped = true;
      // A point that ended while the sweep is being stopped (Ctrl-C reaches the children too)
      // gets no row: it runs again on --resume.
      if (g_stop_signal != 0) continue;
      try {
        done(job, o);
      } catch (...) {  // e.g. results.csv unwritable: stop the other points before reporting it
        for (const auto& kv : running) kill(kv.first, SIGTERM);
        for (const auto& kv : running) waitpid(kv.first, nullptr, 0);
        if (progress) progress->close();
        throw;
      }
      if (progress) progress->finished(job.label, o.ok, o.seconds);
    }
    if (!reaped) {
      if (progress) progress->tick();
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  }
  if (progress) progress->close();
}

}  // namespace strider
