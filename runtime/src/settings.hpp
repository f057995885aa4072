// The settings table: every SIDECORE_* environment variable, declared once with its default, help text,
// accepted values, parser and printer (the UCX ucs_config_field_t / libfabric fi_param_define pattern).
// Parsing takes the whole string and rejects junk with a message naming the variable, the value and what
// is accepted; `sidecore info` prints the table.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <sidecore/common/core_choice.hpp>
#include <sidecore/common/schedule.hpp>
#include <sidecore/progress/engine.hpp>

namespace sidecore::detail {

/// auto: starts as off, profiles a window and switches to core when the model says it pays (auto_mode.hpp).
enum class progress_mode { off, core, automatic };

/// SIDECORE_AUTO_RECHECK: none, or every `every` seconds or steps.
struct auto_recheck {
  enum class unit { none, seconds, steps } per = unit::none;
  double every = 0.0;
};

/// SIDECORE_AUTO_FORCE (for tests): the verdict every auto decision takes, whatever the model says.
enum class auto_force { none, core, off };

/// Which core the progress thread takes (common/: libsidecore-pmpi.so follows the same rule).
using sidecore::core_choice;

struct settings {
  progress_mode mode = progress_mode::off;
  core_choice progress_core;
  progress::idle_policy idle = progress::idle_policy::hybrid;
  std::uint32_t spin_us = 5000;
  std::uint32_t yield_us = 2;
  std::uint32_t block_us = 1000;
  double peer_timeout_s = 0;  // SIDECORE_PEER_TIMEOUT; 0: a peer on another node is never declared dead by time
  bool caller_progress = true;
  bool self_path = true;
  bool shm_fastpath = true;  // SIDECORE_SHM_FASTPATH: node rings between the ranks of a node
  std::string provider;  // empty: automatic
  std::size_t submit_queue = 4096;
  std::size_t cq_batch = 16;
  std::size_t eager_max = 8192;
  std::size_t recv_buffers = 64;
  std::size_t send_credits = 64;        // SIDECORE_SEND_CREDITS (progress/src/credits.hpp)
  std::size_t eager_credits = 16;       // SIDECORE_EAGER_CREDITS
  std::size_t max_requests = 4194304;   // SIDECORE_MAX_REQUESTS
  std::size_t memory_budget_mib = 1024;  // SIDECORE_MEMORY_BUDGET
  int verbose = 0;
  // SIDECORE_PROGRESS=auto: the window (steps, or seconds when auto_steps is 0), re-checks, forced verdict
  std::uint32_t auto_steps = 0;
  double auto_window_s = 10.0;
  auto_recheck auto_recheck_every;
  auto_force auto_forced = auto_force::none;
  // instrumentation (issue 3)
  std::string profile_path;          // empty: no profile
  std::string trace_path;            // empty: no trace
  std::size_t trace_max_events = 1000000;
  std::vector<std::size_t> size_bins;  // empty: powers of four
  std::string xfer_table;            // empty: built-in calibration when profiling
  std::size_t ring_events = 1024;
  std::size_t coll_samples = 1024;     // collective instances sampled per communicator
  int n_core = 0;                    // SIDECORE_NCORE; 0: the cores of the process's cpuset
  // collectives (issue 14): the algorithm per kind (automatic: chosen per call), the pipelining segment, the
  // schedules cached per communicator
  std::array<coll::algorithm, coll::kind_count> coll_algorithm{};
  std::uint64_t coll_segment = coll::default_segment_bytes;
  std::size_t coll_cache = 16;
  // Which variables the user set (name -> raw value), for `sidecore info`.
  std::vector<std::pair<std::string, std::string>> set_by_user;
};

struct setting_def {
  const char* name;
  const char* default_text;
  const char* accepted;  // what the parser accepts, quoted in error messages
  const char* help;
  std::function<void(settings&, const std::string& value)> parse;  // throws sidecore::error(bad_setting)
  std::function<std::string(const settings&)> print;
};

/// The table, in the order `sidecore info` prints it.
[[nodiscard]] const std::vector<setting_def>& setting_table();

/// Reads every SIDECORE_* variable from the environment into a settings value. Throws
/// sidecore::error(errc::bad_setting) for the first rejected value; warns on stderr for SIDECORE_* variables
/// that are not in the table (a typo would otherwise be silently ignored).
[[nodiscard]] settings read_settings();

/// The SIDECORE_* variables of the environment that no part of sidecore reads (most likely typos), by name.
[[nodiscard]] std::vector<std::string> unknown_variables();

/// The setting only libsidecore-pmpi.so reads (docs/pmpi.md), which `sidecore info` lists after the table.
inline constexpr const char* pmpi_progress_var = "SIDECORE_PMPI_PROGRESS";

/// `v` without the spaces and tabs around it (every setting's value is read so).
[[nodiscard]] std::string trim(const std::string& v);

/// "off", "core", "auto".
[[nodiscard]] const char* mode_name(progress_mode m) noexcept;

/// Rejects combinations of the auto settings that no single value shows (read_settings calls it): both a step and a
/// time window, or a re-check in seconds with a step window. Throws sidecore::error(errc::bad_setting).
void check_auto_settings(const settings& s);

/// The warning init prints once (rank 0) when SIDECORE_AUTO_* variables are set and SIDECORE_PROGRESS is not auto:
/// they are read and checked in every mode (a malformed one is refused as in mode auto), but only mode auto uses
/// them. Names each one with its value, and the mode. Empty in mode auto, or when none is set.
[[nodiscard]] std::string ignored_auto_settings_warning(const settings& s);

/// Parses one value (used by read_settings and by the unit tests). Throws as read_settings.
void parse_setting(settings& s, std::string_view name, const std::string& value);

/// The most the engine's size settings let it hold (docs/runtime.md, "Memory budget"), in bytes: its receive
/// buffers and submission queue, and for each of `peers` other ranks the unexpected eager data its eager credits
/// allow and the provider's buffers its send credits allow (`provider_buffer` bytes per message a provider holds
/// before sidecore reads it: tcp;ofi_rxm's bounce buffer, FI_OFI_RXM_BUFFER_SIZE).
struct memory_estimate {
  std::uint64_t recv_buffers = 0, submit_queue = 0, unexpected_eager = 0, provider = 0;
  [[nodiscard]] std::uint64_t total() const noexcept {
    return recv_buffers + submit_queue + unexpected_eager + provider;
  }
};
[[nodiscard]] memory_estimate estimate_memory(const settings& s, std::uint64_t peers, std::uint64_t provider_buffer);
/// The provider's buffer per message it holds (estimate_memory): FI_OFI_RXM_BUFFER_SIZE (16 KiB unset) for an rxm
/// provider, else a receive buffer's size (the provider's own queue, which shm bounds itself).
[[nodiscard]] std::uint64_t provider_buffer_bytes(const std::string& provider, const settings& s);
/// The warning init prints once (rank 0) when estimate_memory exceeds SIDECORE_MEMORY_BUDGET; empty when within.
[[nodiscard]] std::string memory_budget_warning(const settings& s, std::uint64_t peers, const std::string& provider);

// Strict parsers shared by the table (exposed for tests).
[[nodiscard]] std::uint64_t parse_unsigned(std::string_view var, const std::string& value, std::uint64_t lo,
                                           std::uint64_t hi, std::string_view accepted = {});

}  // namespace sidecore::detail
