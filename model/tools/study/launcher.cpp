// Child processes of `sidecore study` (launcher.hpp).
#include "launcher.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <thread>

#include "sidecore/common/input_error.hpp"

namespace sidecore::tools::study {
namespace {

volatile std::sig_atomic_t g_signal = 0;

// What stops the study, and its job with it: ^C, kill, a closed terminal or ssh session, ^\\.
constexpr int stopping_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

extern "C" void on_interrupt(int sig) { g_signal = sig; }

int status_code(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 255;
}

// Waits for pid without blocking signals; 0 while it runs.
int try_reap(pid_t pid, int& status) {
  for (;;) {
    const pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == -1 && errno == EINTR) continue;
    return r == pid ? 1 : 0;
  }
}

}  // namespace

void install_interrupt_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_interrupt;
  sigemptyset(&sa.sa_mask);
  for (const int sig : stopping_signals) sigaction(sig, &sa, nullptr);
  // A closed standard output (| head) must not end the study mid-run: its writes fail instead, and the command
  // says so at its end (main's output_written).
  struct sigaction ign {};
  ign.sa_handler = SIG_IGN;
  sigemptyset(&ign.sa_mask);
  sigaction(SIGPIPE, &ign, nullptr);
}

int interrupt_signal() noexcept { return g_signal; }

child_result run_child(const std::vector<std::string>& argv, const env_changes& env, const std::string& stdout_path,
                       const std::string& stderr_path, const std::string& what, double timeout_s, double grace_s) {
  if (argv.empty()) throw input_error(what, "", "no command to run");
  const int out = ::open(stdout_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (out < 0) throw input_error(what, stdout_path, std::string("cannot create: ") + std::strerror(errno));
  const int err = ::open(stderr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (err < 0) {
    ::close(out);
    throw input_error(what, stderr_path, std::string("cannot create: ") + std::strerror(errno));
  }
  // Everything the child needs is prepared before fork: after it only async-signal-safe calls are made.
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  // A pipe closed on exec tells the parent whether exec failed, and why.
  int status_pipe[2];
  if (::pipe2(status_pipe, O_CLOEXEC) != 0) {
    ::close(out);
    ::close(err);
    throw input_error(what, argv[0], std::string("cannot start: pipe: ") + std::strerror(errno));
  }
  const auto start = std::chrono::steady_clock::now();
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::setpgid(0, 0);
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    for (const int sig : stopping_signals) sigaction(sig, &dfl, nullptr);
    sigaction(SIGPIPE, &dfl, nullptr);  // an ignored signal stays ignored across exec
    for (const auto& [name, value] : env) {
      if (value) ::setenv(name.c_str(), value->c_str(), 1);
      else ::unsetenv(name.c_str());
    }
    ::dup2(out, 1);
    ::dup2(err, 2);
    ::execvp(args[0], args.data());
    const int e = errno;
    [[maybe_unused]] const auto n = ::write(status_pipe[1], &e, sizeof e);
    ::_exit(127);
  }
  ::close(out);
  ::close(err);
  ::close(status_pipe[1]);
  if (pid < 0) {
    ::close(status_pipe[0]);
    throw input_error(what, argv[0], std::string("cannot start: fork: ") + std::strerror(errno));
  }
  ::setpgid(pid, pid);  // also from here: no race with a signal arriving before the child ran setpgid
  int exec_errno = 0;
  ssize_t got;
  do got = ::read(status_pipe[0], &exec_errno, sizeof exec_errno);
  while (got < 0 && errno == EINTR);
  ::close(status_pipe[0]);
  int status = 0;
  if (got == static_cast<ssize_t>(sizeof exec_errno)) {
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    throw input_error(what, argv[0], std::string("cannot start: ") + std::strerror(exec_errno));
  }
  child_result r;
  while (try_reap(pid, status) == 0) {
    const bool late =
        timeout_s > 0 && std::chrono::steady_clock::now() - start > std::chrono::duration<double>(timeout_s);
    if (g_signal != 0 || late) {
      (g_signal != 0 ? r.interrupted : r.timed_out) = true;
      ::kill(-pid, SIGTERM);
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(grace_s);
      while (try_reap(pid, status) == 0) {
        if (std::chrono::steady_clock::now() > deadline) {
          ::kill(-pid, SIGKILL);
          while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
          }
          break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
      // Ranks that outlived mpiexec in the group get the same end.
      ::kill(-pid, SIGKILL);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  r.exit_status = status_code(status);
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

std::string file_tail(const std::string& path, int max_lines, std::size_t max_bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  in.seekg(0, std::ios::end);
  const auto size = static_cast<std::size_t>(in.tellg());
  const std::size_t from = size > max_bytes ? size - max_bytes : 0;
  in.seekg(static_cast<std::streamoff>(from));
  std::string s(size - from, '\0');
  in.read(s.data(), static_cast<std::streamsize>(s.size()));
  while (!s.empty() && s.back() == '\n') s.pop_back();
  std::size_t pos = s.size();
  for (int n = 0; n < max_lines && pos != std::string::npos && pos > 0; ++n) pos = s.rfind('\n', pos - 1);
  if (pos != std::string::npos && pos < s.size() && s[pos] == '\n') s.erase(0, pos + 1);
  return s;
}

}  // namespace sidecore::tools::study
