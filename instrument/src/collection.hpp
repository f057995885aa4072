// sidecore instrument — the current collection's description and measured window (control.cpp). Private to
// instrument/src.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "accumulators.hpp"
#include "sidecore/common/profile.hpp"
#include "sidecore/instrument/instrument.hpp"

namespace sidecore::instrument::internal {

/// What start() was given and what the set_* calls add (g_registry_mu).
struct collection {
  config cfg;
  int rank = 0;
  int nranks = 1;
  std::uint64_t ring_cap = 4096;
  std::uint64_t t_start = 0;  // ticks
  std::uint64_t t_end = 0;    // ticks; 0 while the window is open
  bool closed = false;        // close_window() ran: t_end and main_in_call are final
  std::uint64_t main_in_call = 0;  // ticks the communicating thread spent in outermost calls up to t_end
  std::array<category_acc, category_count> main_cats{};  // the communicating thread's calls completed by t_end
  progress_mode mode = progress_mode::off;
  std::string provider = "unknown";
  int n_core = 0;
  host_info host;  // this_host() at start
  double t_total_override = -1.0;
  std::string command;
  std::string run;  // agree_run_id: the same on every rank of the run
  std::string clock_note;
  bool has_progress = false;  // set_progress_stats() was called
  progress_thread_stats progress;
  std::size_t eager_max = 0, inject_size = 0;  // set_trace_info: the trace's metadata for the replay
  bool trace_ops = false;  // set_trace_info: the trace carries operation records (otherData.ops)
  int omp_threads = 0;
};
extern collection g_col;

/// Where an output of this run that cannot be written to `path` is saved instead (common/'s saved_copy_path, named
/// by the run's id, or by the process id before the run has one). Takes g_registry_mu.
[[nodiscard]] std::string saved_copy_of(const std::string& path);

/// Closes the measured window (once; g_registry_mu held): its end in ticks, the communicating thread's in-call time
/// and completed calls up to it (calls made after the window's end do not count against t_comp) and, for the TSC,
/// the fit's final point.
void close_window() noexcept;

}  // namespace sidecore::instrument::internal
