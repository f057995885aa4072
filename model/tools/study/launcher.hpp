// Running one child command of `sidecore study` (normally mpiexec) in its own process group, so that an interrupt
// stops the whole job (mpiexec, its proxies and the ranks) and nothing else.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace sidecore::tools::study {

/// What a child run did.
struct child_result {
  int exit_status = 0;      ///< the exit code, or 128 + the signal that ended it
  bool interrupted = false; ///< stopped because the study received SIGINT, SIGTERM, SIGHUP or SIGQUIT
  bool timed_out = false;   ///< stopped because it ran longer than run_child's timeout_s
  double wall_s = 0.0;
};

/// Environment changes for a child: a value sets the variable, nullopt removes it.
using env_changes = std::map<std::string, std::optional<std::string>>;

/// Installs SIGINT, SIGTERM, SIGHUP and SIGQUIT handlers that record the signal (and nothing else): run_child then
/// stops its child's process group. Ignores SIGPIPE (a closed standard output makes writes fail instead; children
/// get it back). Call once before the first run_child.
void install_interrupt_handlers();
/// The signal received since install_interrupt_handlers (0: none).
[[nodiscard]] int interrupt_signal() noexcept;

/// Runs argv (argv[0] looked up in PATH) with the environment changed by `env`, stdout and stderr written to the
/// files given (created or truncated), in a new process group. Waits for it; on a signal install_interrupt_handlers
/// caught, or once it ran longer than `timeout_s` (> 0; 0: no limit), sends SIGTERM to the child's group, then
/// SIGKILL after `grace_s`, and returns with interrupted (or timed_out) set. Throws input_error naming `what` when
/// the output files cannot be created or the process cannot be started.
[[nodiscard]] child_result run_child(const std::vector<std::string>& argv, const env_changes& env,
                                     const std::string& stdout_path, const std::string& stderr_path,
                                     const std::string& what, double timeout_s = 0.0, double grace_s = 5.0);

/// The last `max_lines` lines of a text file (at most max_bytes read from its end); empty when unreadable.
[[nodiscard]] std::string file_tail(const std::string& path, int max_lines = 20, std::size_t max_bytes = 8192);

}  // namespace sidecore::tools::study
