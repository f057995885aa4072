// The simulator's event queue: events in order of (time, insertion stamp), LogGOPSim's order.
// Internal to model/src/sim.
//
// Two parts: a FIFO for events inserted at exactly the current time (stamps only grow, so they
// arrive in order: a ring, no sifting, sequential memory; at time 0 of a 2^20-rank schedule this
// holds every rank's first operation), and a 4-ary min-heap for the rest (half the depth of a
// binary heap, and a node's four children share a cache line or two). pop() takes the smaller head.
#pragma once

#include <cstdint>
#include <vector>

#include "sidecore/model/sim/schedule.hpp"

namespace sidecore::model::sim::detail {

struct event {
  double time;
  std::uint64_t ts;  // insertion stamp; a re-inserted event keeps its own (LogGOPSim's STRICT_ORDER)
  op_id id;          // the operation; for a message, its send
  std::uint8_t kind;
};

inline bool before(const event& a, const event& b) noexcept {
  return a.time < b.time || (a.time == b.time && a.ts < b.ts);
}

class event_queue {
 public:
  void reserve(std::size_t n) { heap_.reserve(n); }
  [[nodiscard]] bool empty() const noexcept { return heap_.empty() && fifo_head_ == fifo_.size(); }

  // `now` is the time of the event being processed (or 0 before the first).
  void push(const event& e, double now) {
    // The FIFO stays sorted: its events all have one time, and each new stamp is the largest yet
    // (a re-inserted event's older stamp goes to the heap). Its time can be later than `now` when an
    // event earlier than the current time was popped (a ready operation on a CPU whose clock is
    // behind, as LogGOPSim allows).
    const bool fifo_empty = fifo_head_ == fifo_.size();
    if (e.time == now && (fifo_empty || (fifo_.back().time == e.time && fifo_.back().ts < e.ts))) {
      if (fifo_empty) {
        fifo_.clear();
        fifo_head_ = 0;
      }
      fifo_.push_back(e);
      return;
    }
    heap_push(e);
  }

  event pop() {
    const bool from_fifo = fifo_head_ < fifo_.size() && (heap_.empty() || before(fifo_[fifo_head_], heap_[0]));
    if (from_fifo) return fifo_[fifo_head_++];
    return heap_pop();
  }

 private:
  static constexpr std::size_t arity = 4;

  void heap_push(const event& e) {
    std::size_t i = heap_.size();
    heap_.push_back(e);
    while (i > 0) {
      const std::size_t parent = (i - 1) / arity;
      if (!before(e, heap_[parent])) break;
      heap_[i] = heap_[parent];
      i = parent;
    }
    heap_[i] = e;
  }

  event heap_pop() {
    const event top = heap_[0];
    const event last = heap_.back();
    heap_.pop_back();
    const std::size_t n = heap_.size();
    if (n == 0) return top;
    std::size_t i = 0;
    while (true) {
      const std::size_t first = i * arity + 1;
      if (first >= n) break;
      std::size_t best = first;
      const std::size_t end = first + arity < n ? first + arity : n;
      for (std::size_t c = first + 1; c < end; ++c)
        if (before(heap_[c], heap_[best])) best = c;
      if (!before(heap_[best], last)) break;
      heap_[i] = heap_[best];
      i = best;
    }
    heap_[i] = last;
    return top;
  }

  std::vector<event> heap_;
  std::vector<event> fifo_;
  std::size_t fifo_head_ = 0;
};

}  // namespace sidecore::model::sim::detail
