// SIDECORE_PROGRESS=auto (docs/runtime.md, "Mode auto"): the runtime starts in mode off, measures a window of the
// run on the communicating thread (the thread that called init: its time in calls per model category, and the rest
// as computation), applies the dedicated-core formula of seed 004 (common/dedicated_core.hpp) on every rank, agrees
// with the other ranks on the job's verdict, and switches every rank to mode core when the job's slowest rank is
// predicted faster with a dedicated core. Internal.
#pragma once

#include <mpi.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <string>

#include <sidecore/common/common.hpp>
#include <sidecore/common/profile.hpp>

#include "auto_verdict.hpp"

namespace sidecore::detail {

struct runtime_state;

/// While true, every call into sidecore reports to the auto controller (auto_call_enter/exit): a window is open,
/// an agreement is pending, or a re-check is due. One relaxed load per call otherwise.
extern std::atomic<bool> g_auto_watch;

void auto_call_enter_slow(category c) noexcept;
void auto_call_exit_slow(category c) noexcept;
inline void auto_call_enter(category c) noexcept {
  if (g_auto_watch.load(std::memory_order_relaxed)) [[unlikely]]
    auto_call_enter_slow(c);
}
inline void auto_call_exit(category c) noexcept {
  if (g_auto_watch.load(std::memory_order_relaxed)) [[unlikely]]
    auto_call_exit_slow(c);
}

class auto_controller {
 public:
  /// Collective over the world communicator (a private duplicate for the agreements; whether this node's ranks
  /// share cores). Called by init on the thread that will be the communicating thread.
  auto_controller(runtime_state& s, MPI_Comm world, int rank);
  ~auto_controller();
  auto_controller(const auto_controller&) = delete;
  auto_controller& operator=(const auto_controller&) = delete;

  void call_enter(category c) noexcept;
  void call_exit() noexcept;
  /// sidecore::step(): the end of one iteration (every rank, same iteration).
  void step();
  /// Collective, at finalize: completes every agreement a rank started, records a window still open as decided at
  /// finalize (not applied). Each rank then votes, marked final, until a vote finds every rank final: a rank that
  /// posted fewer agreements than another (a step window it never closed, a time re-check it never made) completes
  /// the other's with these, and none waits for ever.
  void finish();
  /// What was decided so far (the profile's "auto" section).
  [[nodiscard]] const auto_section& record() const noexcept { return record_; }

 private:
  enum class phase { idle, window, agreeing, armed, done };
  // One MPI_DOUBLE_INT pair per value, reduced with MPI_MAXLOC: the value and the rank that has it.
  struct vote_pair {
    double value;
    int rank;
  };
  // t_noprogress, t_dedicated, veto (pack_veto: its code and the vetoing rank's figures), force; then the rank's
  // state at finalize: 1 while not in finalize (the maximum is 0 once every rank is), 1 in finalize (the maximum
  // names a rank there), 1 for a step window never opened.
  static constexpr int vote_size = 7;
  enum slot : std::size_t {
    at_t_noprogress = 0, at_t_dedicated, at_veto, at_force, at_not_final, at_final, at_no_step
  };
  using vote = std::array<vote_pair, vote_size>;

  void open_window();
  void close_window(const char* trigger);
  void recheck();  // back to mode off (a window needs a run without progress), then a new window
  void post(vote v);
  [[nodiscard]] vote neutral_vote() const noexcept;
  [[nodiscard]] bool test_agreement();
  void decide(bool apply);
  void poll();
  [[nodiscard]] double window_length_s() const noexcept;
  [[nodiscard]] double since_init(std::uint64_t t) const noexcept;

  runtime_state& s_;
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0;
  rank_veto veto_local_;  // a reason this rank cannot take core mode, or the model cannot judge it (vetoes)
  phase phase_ = phase::idle;
  std::uint64_t init_ns_ = 0;
  // the window
  std::uint64_t window_start_ns_ = 0;
  std::uint64_t steps_ = 0;           // step() calls since the window opened (or the last decision, when armed)
  bool stepped_ = false;              // step() was called at least once
  std::uint64_t decided_ns_ = 0;      // when the last decision was applied (time re-checks count from it)
  std::array<category_totals, category_count> cats_{};
  int depth_ = 0;                     // nesting of calls on the communicating thread
  std::uint64_t call_start_ns_ = 0;
  category call_cat_ = category::other;
  // the agreement
  MPI_Request req_ = MPI_REQUEST_NULL;
  bool abandoned_ = false;  // a rank died during an agreement: req_ and comm_ are left to the end of the process
  vote mine_{}, agreed_{};
  bool finalizing_ = false;  // in finish(): every vote posted from here on says so
  auto_decision pending_;  // the decision being agreed (this rank's half)
  auto_section record_;
};

}  // namespace sidecore::detail
