// Layout of sidecore's 64-bit message tag. It travels in sidecore's message header (wire_hdr, progress/src/wire.hpp)
// and is matched in software by the engine (docs/runtime.md, "Wire protocol"); the source is matched apart, by
// the sender's engine address in the header. Any tag is an ignore mask over the user field. The libfabric tags the
// engine itself uses (ctrl_tag, rendezvous tags) have kind 3, which no sidecore tag has.
//
//   63..62  kind       0 = point-to-point, 1 = collective (tag field holds the collective sequence), 2 = internal
//   61..48  comm id    14 bits: up to 16384 live communicators
//   47..28  reserved   0
//   27..0   user tag   28 bits: 0 .. tag_max
#pragma once

#include <cstdint>

namespace sidecore::progress::tag {

inline constexpr int kind_shift = 62;
inline constexpr int comm_shift = 48;
inline constexpr std::uint64_t comm_bits = (1ULL << 14) - 1;
inline constexpr std::uint64_t rank_bits = (1ULL << 31) - 1;  // ranks travel as 32-bit header fields
inline constexpr std::uint64_t user_bits = (1ULL << 28) - 1;
inline constexpr int max_comms = static_cast<int>(comm_bits + 1);
inline constexpr int max_ranks = static_cast<int>(rank_bits);

enum class kind : std::uint64_t { p2p = 0, collective = 1, internal = 2 };

constexpr std::uint64_t make(kind k, int comm, int user) noexcept {
  return (static_cast<std::uint64_t>(k) << kind_shift) | ((static_cast<std::uint64_t>(comm) & comm_bits) << comm_shift) |
         (static_cast<std::uint64_t>(user) & user_bits);
}
constexpr std::uint64_t ignore_user() noexcept { return user_bits; }
constexpr int user_of(std::uint64_t t) noexcept { return static_cast<int>(t & user_bits); }
constexpr int comm_of(std::uint64_t t) noexcept { return static_cast<int>((t >> comm_shift) & comm_bits); }

}  // namespace sidecore::progress::tag
