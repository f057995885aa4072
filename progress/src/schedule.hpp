// Schedules (schedule.cpp): the completion target a request can have instead of the user's handle. A schedule is
// a sequence of rounds of child operations (sends and receives it starts with engine_core::start_child_send/recv,
// and local steps it does itself: copies, reductions) that the progress pass advances: the shape of a nonblocking
// collective. When a child completes, the engine hands its result to its schedule (on_child_complete), frees the
// child's slot and puts the schedule on the ready list; each progress pass then calls advance() on the schedules
// that were ready when it began, under the progress lock, in whichever thread progresses (the progress thread in
// mode core, an application thread inside a sidecore call in mode off). The schedule itself stands behind one
// request (engine_core::start_schedule), which the application waits on like any other and which completes when
// advance() says done. Nothing here allocates: the ready list is intrusive, children are ordinary request slots.
#pragma once

#include <cstdint>

#include <sidecore/progress/engine.hpp>

namespace sidecore::progress {

class engine_core;
struct req;

class schedule {
 public:
  enum class step { wait, done };

  schedule() = default;
  virtual ~schedule() = default;
  schedule(const schedule&) = delete;
  schedule& operator=(const schedule&) = delete;

  /// Under the progress lock, from the progress pass: once after the schedule starts, then each time children
  /// completed since the last call. Starts the next round's children, does local steps. Returns done once nothing
  /// is left: the engine then completes the schedule's request with result() and calls retire(). Once the engine
  /// has failed (engine::describe), advance is no longer called: the request completes with transport instead.
  virtual step advance(engine_core& e) noexcept = 0;
  /// Under the progress lock, when a child completes (possibly inside the start_child_* call that started it);
  /// `token` is what the schedule passed when it started the child. The child's slot is freed after this returns;
  /// the schedule is ready: advance() follows from the next progress pass.
  virtual void on_child_complete(const completion& c, std::uint64_t token) noexcept = 0;
  /// The result the schedule's request completes with once advance() said done (a failed child: transport).
  [[nodiscard]] virtual req_result result() const noexcept { return req_result::ok; }
  /// Under the progress lock: engine address `address` was found dead (liveness.cpp), while the schedule was pending
  /// or when it starts. A schedule whose ranks include it records req_result::peer_failed as its result, gives up
  /// at its next advance() and returns true; false: it does not involve that peer (the default: involves none).
  virtual bool on_peer_failed(int address) noexcept {
    (void)address;
    return false;
  }
  /// Whether an application thread starting the schedule while the progress thread sleeps (start_while_asleep,
  /// submit.cpp) may do its first advance: false when that would hand the thread a long local step (the default:
  /// yes). Read before the schedule is accepted, by the thread that starts it.
  [[nodiscard]] virtual bool caller_may_start() const noexcept { return true; }
  /// Called once after the last advance(), before the schedule's request completes: the engine no longer touches
  /// the schedule, and its owner may free or reuse it.
  virtual void retire() noexcept {}

 protected:
  /// The handle of the schedule's own request, under the progress lock from its acceptance by the engine until
  /// retire() returns (in advance, on_child_complete, result and retire); 0 before it was ever started.
  [[nodiscard]] std::uint64_t request_handle() const noexcept;
  /// What its children's transfers report as their operation (xfer_event::op); 0, point-to-point, by default.
  void set_xfer_op(std::uint8_t op) noexcept { xfer_op_ = op; }

 private:
  friend class engine_core;
  friend struct ready_list;
  schedule* ready_next_ = nullptr;
  bool ready_ = false;
  req* self_ = nullptr;  // the schedule's own request (from acceptance until it is started again)
  std::uint8_t xfer_op_ = 0;
};

/// Schedules with completed children, in the order they became ready (intrusive FIFO).
struct ready_list {
  schedule* head = nullptr;
  schedule* tail = nullptr;

  void push(schedule* s) noexcept {
    if (s->ready_) return;
    s->ready_ = true;
    s->ready_next_ = nullptr;
    if (tail) tail->ready_next_ = s;
    else head = s;
    tail = s;
  }
  /// Unlinks and returns the whole list (the pass advances these; schedules that become ready meanwhile wait for
  /// the next pass, so one pass does a bounded amount of work).
  schedule* take_all() noexcept {
    schedule* s = head;
    head = tail = nullptr;
    return s;
  }
  static schedule* next(schedule* s) noexcept { return s->ready_next_; }
  /// Unlinks `s` if it is listed: a schedule that finishes in an advance during which one of its children completed
  /// (an injected send completes inside start_child_send) was listed again, and must not be advanced once retired.
  void remove(schedule* s) noexcept {
    if (!s->ready_) return;
    s->ready_ = false;
    for (schedule *x = head, *prev = nullptr; x; prev = x, x = x->ready_next_) {
      if (x != s) continue;
      if (prev) prev->ready_next_ = x->ready_next_;
      else head = x->ready_next_;
      if (tail == x) tail = prev;
      return;
    }
  }
};

}  // namespace sidecore::progress
