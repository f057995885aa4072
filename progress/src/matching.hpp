// Matching state (matching.cpp): sidecore's posted receives, in posting order, and the messages that arrived
// before a receive matched them, in arrival order: MPI's matching order. Both under the progress lock.
#pragma once

#include <cstddef>
#include <cstdint>

#include <sidecore/progress/tag.hpp>

#include "request.hpp"
#include "wire.hpp"

namespace sidecore::progress {

// A message that arrived before a matching receive (eager data copied out, or a ready-to-send).
struct unexpected_msg {
  wire_hdr hdr;
  char* data = nullptr;  // eager: hdr.size bytes (malloc)
  unexpected_msg* next = nullptr;
};

struct match_state {
  std::uint32_t posted_head = 0, posted_tail = 0;  // posted receives, in posting order (index + 1)
  unexpected_msg* unexp_head = nullptr;
  unexpected_msg* unexp_tail = nullptr;
  /// Held messages of collectives (tag kind collective): a collective run that retires looks for its own among the
  /// held messages only when there are some.
  std::size_t unexp_coll = 0;

  /// Appends m to the held messages, in arrival order.
  void hold(unexpected_msg* m) noexcept {
    if (unexp_tail) unexp_tail->next = m;
    else unexp_head = m;
    unexp_tail = m;
    if (tag::is_coll(m->hdr.tag)) ++unexp_coll;
  }
  /// Takes m, whose predecessor in the list is prev (nullptr: m is the first), out of the held messages.
  void unhold(unexpected_msg* m, unexpected_msg* prev) noexcept {
    if (prev) prev->next = m->next;
    else unexp_head = m->next;
    if (unexp_tail == m) unexp_tail = prev;
    if (tag::is_coll(m->hdr.tag)) --unexp_coll;
  }
};

/// Whether receive r takes message h: the source (any, or h's sender address) and the tag under r's ignore mask.
[[nodiscard]] inline bool matches(const req& r, const wire_hdr& h) noexcept {
  return (r.peer_world < 0 || static_cast<std::uint32_t>(r.peer_world) == h.src_index) &&
         ((h.tag ^ r.tag) & ~r.ignore) == 0;
}

}  // namespace sidecore::progress
