// Layout of the 64-bit libfabric tag. Matching of source and tag is done by libfabric's tag matching,
// so the source rank travels in the tag: no FI_DIRECTED_RECV and no FI_SOURCE needed, and any-source /
// any-tag receives are an ignore mask.
//
//   63..62  kind       0 = point-to-point, 1 = collective (tag field holds the collective sequence), 2 = internal
//   61..48  comm id    14 bits: up to 16384 live communicators
//   47..28  source     20 bits: sender's rank in the communicator (up to 1,048,576 ranks)
//   27..0   user tag   28 bits: 0 .. tag_max
#pragma once

#include <cstdint>

namespace sidecore::progress::tag {

inline constexpr int kind_shift = 62;
inline constexpr int comm_shift = 48;
inline constexpr int source_shift = 28;
inline constexpr std::uint64_t comm_bits = (1ULL << 14) - 1;
inline constexpr std::uint64_t source_bits = (1ULL << 20) - 1;
inline constexpr std::uint64_t user_bits = (1ULL << 28) - 1;
inline constexpr int max_comms = static_cast<int>(comm_bits + 1);
inline constexpr int max_ranks = static_cast<int>(source_bits + 1);

enum class kind : std::uint64_t { p2p = 0, collective = 1, internal = 2 };

constexpr std::uint64_t make(kind k, int comm, int source, int user) noexcept {
  return (static_cast<std::uint64_t>(k) << kind_shift) | ((static_cast<std::uint64_t>(comm) & comm_bits) << comm_shift) |
         ((static_cast<std::uint64_t>(source) & source_bits) << source_shift) | (static_cast<std::uint64_t>(user) & user_bits);
}
constexpr std::uint64_t ignore_source() noexcept { return source_bits << source_shift; }
constexpr std::uint64_t ignore_user() noexcept { return user_bits; }
constexpr int source_of(std::uint64_t t) noexcept { return static_cast<int>((t >> source_shift) & source_bits); }
constexpr int user_of(std::uint64_t t) noexcept { return static_cast<int>(t & user_bits); }
constexpr int comm_of(std::uint64_t t) noexcept { return static_cast<int>((t >> comm_shift) & comm_bits); }

}  // namespace sidecore::progress::tag
