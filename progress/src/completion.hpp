// Completion (completion.cpp): where a request's completion goes, inline for the small-message path (a receive
// matched by an arriving eager message completes inside the same function). The user's handle: the state word,
// the futex of a waiting application thread, and the orphan exchange; or the parent schedule (schedule.cpp).
#pragma once

#include "engine_core.hpp"
#include "futex.hpp"

namespace sidecore::progress {

[[nodiscard]] inline bool is_complete(const req* r) noexcept {
  return r->state.load(std::memory_order_acquire) == static_cast<std::uint32_t>(req_state::complete);
}

inline void engine_core::begin_xfer(req* r) noexcept {
  if (r->posted) return;
  r->posted = true;
  if (on_xfer) xfer(r, true);
}

inline void engine_core::complete(req* r) noexcept {
  if (on_xfer && r->posted) xfer(r, false);
  bump(completions);
  if (r->parent) [[unlikely]] {
    complete_child(r);
    return;
  }
  if (r == own) {
    // Completed while its caller posts it (an inject): nobody else can hold its handle yet, so no orphan mark
    // and no waiter to race with.
    r->state.store(static_cast<std::uint32_t>(req_state::complete), std::memory_order_release);
    return;
  }
  const auto prev = r->state.exchange(static_cast<std::uint32_t>(req_state::complete), std::memory_order_seq_cst);
  if (prev == static_cast<std::uint32_t>(req_state::orphan)) {
    pool.release(r);
    return;
  }
  if (r->waiter.load(std::memory_order_seq_cst)) futex_wake(&r->state);
}

}  // namespace sidecore::progress
