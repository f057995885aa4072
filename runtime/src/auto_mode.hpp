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
  /// Collective, at finalize: completes every agreement a rank started (a rank behind the others posts the missing
  /// ones), records a window still open as decided at finalize (not applied).
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
  static constexpr int vote_size = 4;  // t_noprogress, t_dedicated, veto, force
  using vote = std::array<vote_pair, vote_size>;

  void open_window();
  void close_window(const char* trigger);
  void recheck();  // back to mode off (a window needs a run without progress), then a new window
  void post(const vote& v);
  [[nodiscard]] bool test_agreement();
  void decide(bool apply);
  void poll();
  [[nodiscard]] double window_length_s() const noexcept;
  [[nodiscard]] double since_init(std::uint64_t t) const noexcept;

  runtime_state& s_;
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0;
  int veto_local_ = 0;  // a reason this rank cannot take core mode, or the model cannot judge it (vetoes)
  std::string veto_text_;
  phase phase_ = phase::idle;
  std::uint64_t init_ns_ = 0;
  // the window
  std::uint64_t window_start_ns_ = 0;
  std::uint64_t steps_ = 0;           // step() calls since the window opened (or the last decision, when armed)
  std::uint64_t decided_ns_ = 0;      // when the last decision was applied (time re-checks count from it)
  std::array<category_totals, category_count> cats_{};
  int depth_ = 0;                     // nesting of calls on the communicating thread
  std::uint64_t call_start_ns_ = 0;
  category call_cat_ = category::other;
  // the agreement
  MPI_Request req_ = MPI_REQUEST_NULL;
  bool abandoned_ = false;  // a rank died during an agreement: req_ and comm_ are left to the end of the process
  vote mine_{}, agreed_{};
  int posted_ = 0;
  auto_decision pending_;  // the decision being agreed (this rank's half)
  auto_section record_;
};

}  // namespace sidecore::detail
