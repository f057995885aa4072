// sidecore instrument — the record format of the per-thread rings (private to instrument/src).
#pragma once

#include <cstdint>

namespace sidecore::instrument::internal {

enum class kind : std::uint8_t {
  call_enter,
  call_exit,
  xfer_begin,
  xfer_end,
  xfer_end_only,
  region_enter,
  region_exit,
  coll_arrive,  // id: communicator key; owner_in_call: sequence number; bytes; owner: communicator size; bits: kind
  coll_depart,  // id: communicator key; owner_in_call: sequence number
};

/// One event: 48 bytes, native byte order (seed 002: minimal fixed-size binary records). Times are event-clock ticks.
/// For transfer events the owner's state at `t` is captured (owner_in_call, owner_seq, in_call bit, region), so a
/// transfer's bounds never need the owner's history (docs/instrument.md, threading rule).
struct record {
  std::uint64_t t;
  std::uint64_t id;     // transfer id; region path id for region events; static call name for call events
  std::uint64_t bytes;  // transfer size
  std::uint64_t owner_in_call;  // owner's cumulative in-call ticks at t
  std::uint32_t owner;
  std::int32_t peer;
  std::uint32_t owner_seq;
  std::uint16_t owner_region;
  kind k;
  std::uint8_t
      bits;  // low 4 bits: category (calls) or op_kind (transfers); bit 7: owner inside a call; bit 6: owner known
};
static_assert(sizeof(record) == 48, "records are fixed-size");
inline constexpr std::uint8_t bit_in_call = 0x80;
inline constexpr std::uint8_t bit_owner_known = 0x40;
inline constexpr std::uint8_t low_bits = 0x0f;  // the category or op_kind

}  // namespace sidecore::instrument::internal
