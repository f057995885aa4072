// Layout of sidecore's 64-bit message tag. It travels in sidecore's message header (wire_hdr, progress/src/wire.hpp)
// and is matched in software by the engine (docs/runtime.md, "Wire protocol"); the source is matched apart, by
// the sender's engine address in the header. Any tag is an ignore mask over the user field. The libfabric tags the
// engine itself uses (ctrl_tag, rendezvous tags) have kind 3, which no sidecore tag has.
//
//   63..62  kind       0 = point-to-point, 1 = collective, 2 = internal
//   61..48  comm id    14 bits: up to 16384 live communicators
//   47..28  reserved   0                    collective: the instance (20 bits, make_coll)
//   27..0   user tag   28 bits: 0..tag_max  collective: the message number within the instance (schedule tag)
//
// A collective instance is named by a sequence number per communicator that every rank counts alike (MPI has every
// rank start a communicator's collectives in the same order): 19 bits, wrapping, for nonblocking and blocking
// collectives; bit 19 set for a persistent collective, whose low 19 bits are its id, taken when it is created from
// the ids no live persistent collective of the communicator holds (its starts reuse the tag: the messages of one
// pair with one tag are matched in the order they were sent). A wrapped sequence number is safe while fewer than
// 2^19 instances of one communicator are in flight at once.
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
  return (static_cast<std::uint64_t>(k) << kind_shift) |
         ((static_cast<std::uint64_t>(comm) & comm_bits) << comm_shift) |
         (static_cast<std::uint64_t>(user) & user_bits);
}
inline constexpr int coll_instance_shift = 28;
inline constexpr std::uint32_t coll_instance_bits = (1U << 20) - 1;
inline constexpr std::uint32_t coll_seq_bits = (1U << 19) - 1;     // nonblocking and blocking instances
inline constexpr std::uint32_t coll_persistent = 1U << 19;         // instance bit of a persistent collective
inline constexpr std::uint64_t coll_msg_bits = user_bits;          // schedule tags 0 .. 2^28 - 3
/// The message number of an instance's abort notice: a rank that found the ranks' calls to differ tells every rank
/// of the communicator (docs/collectives.md, "Signatures and mismatches"). No schedule uses it.
inline constexpr std::uint32_t coll_abort_msg = static_cast<std::uint32_t>(coll_msg_bits);
/// The message number of an instance's failure notice: a rank whose run failed in the transport tells every rank of
/// the communicator (docs/collectives.md, "When a run fails"). No schedule uses it.
inline constexpr std::uint32_t coll_fail_msg = coll_abort_msg - 1;
/// The message numbers a schedule may use: 0 .. coll_first_notice - 1.
inline constexpr std::uint32_t coll_first_notice = coll_fail_msg;

/// The tag of message `msg` (a schedule tag, <= coll_msg_bits) of collective instance `instance` on `comm`.
constexpr std::uint64_t make_coll(int comm, std::uint32_t instance, std::uint32_t msg) noexcept {
  return (static_cast<std::uint64_t>(kind::collective) << kind_shift) |
         ((static_cast<std::uint64_t>(comm) & comm_bits) << comm_shift) |
         (static_cast<std::uint64_t>(instance & coll_instance_bits) << coll_instance_shift) |
         (static_cast<std::uint64_t>(msg) & coll_msg_bits);
}
constexpr std::uint32_t coll_instance_of(std::uint64_t t) noexcept {
  return static_cast<std::uint32_t>(t >> coll_instance_shift) & coll_instance_bits;
}

/// True for the tag of a collective's message (kind collective).
constexpr bool is_coll(std::uint64_t t) noexcept {
  return (t >> kind_shift) == static_cast<std::uint64_t>(kind::collective);
}
/// True for the tag of a collective instance's abort or failure notice.
constexpr bool is_coll_notice(std::uint64_t t) noexcept { return is_coll(t) && (t & user_bits) >= coll_first_notice; }
constexpr std::uint64_t ignore_user() noexcept { return user_bits; }
constexpr int user_of(std::uint64_t t) noexcept { return static_cast<int>(t & user_bits); }
constexpr int comm_of(std::uint64_t t) noexcept { return static_cast<int>((t >> comm_shift) & comm_bits); }

}  // namespace sidecore::progress::tag
