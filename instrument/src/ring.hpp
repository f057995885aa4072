// sidecore instrument — appending records to the calling thread's ring (inline: every recording hook does it).
// Private to instrument/src.
#pragma once

#include <cstdint>

#include "fold.hpp"
#include "record.hpp"
#include "threads.hpp"

namespace sidecore::instrument::internal {

// Records are written in place in the ring at head h, then published by commit(): a record built on the stack and
// copied was read back with 16-byte loads that could not be forwarded from its 8-byte stores (measured: a region
// enter + exit cost 33 ns per event instead of ~20). Room is guaranteed: the owner folds when head reaches fold_at,
// and fold_at - high_water (the head at its last own fold) <= tail, with high_water < cap. No event is ever dropped.
inline void commit(thread_state* st, std::uint64_t h) noexcept {
  st->head.store(h + 1, std::memory_order_release);
  if (h + 1 >= st->fold_at) [[unlikely]]
    fold_own(st);
}

// Appends a record with the given time, id, kind and bits (the other fields zero).
inline void push(thread_state* st, std::uint64_t t, std::uint64_t id, kind k, std::uint8_t bits) noexcept {
  const std::uint64_t h = st->head.load(relaxed);
  record& r = st->ring[h & st->mask];
  r.t = t;
  r.id = id;
  r.bytes = 0;
  r.owner_in_call = 0;
  r.owner = 0;
  r.peer = 0;
  r.owner_seq = 0;
  r.owner_region = 0;
  r.k = k;
  r.bits = bits;
  commit(st, h);
}

}  // namespace sidecore::instrument::internal
