// A collective call's signature: what every rank of the communicator must pass alike (MPI's rules), packed in the
// 48 bits a message header carries (wire_hdr::sig_*), so that a receiving rank tells a sender that called something
// else. Layout, low bits first:
//
//    0..3   kind + 1     (0: no signature, a point-to-point message)
//    4..6   type         (value_index pairs that travel as bytes, coll::spec::moved_pairs: the pairs' value type)
//    7..10  operator     (moved pairs: 15, no operator's; the kinds that move them reduce nothing)
//   11..14  algorithm    (the one chosen: ranks whose settings differ run different message patterns)
//   15..26  root         (its low 12 bits)
//   27..47  count        (a 21-bit hash of the count in the caller's elements, moved pairs in pairs; allgatherv: of
//                         every rank's receive count)
//
// alltoallv's counts differ between ranks by design and are not in it; a count mismatch there shows as a message of
// the wrong size. The root is compared modulo 4096 and the count by hash: a difference they do not see goes on to the
// size check of each message.
#pragma once

#include <cstddef>
#include <cstdint>

#include <sidecore/common/schedule.hpp>

namespace sidecore::progress {

/// Room for explain_signature's longest sentence, its terminator included (signature.cpp checks its formats
/// against it: every field differing, each value the longest name, the widest numbers).
inline constexpr std::size_t explain_max = 480;

[[nodiscard]] std::uint64_t coll_signature(const coll::spec& s, coll::algorithm chosen) noexcept;

/// Writes to out (at most n bytes, terminated) which fields of `theirs` (the signature a message from rank
/// `peer` carried) differ from `mine`, naming both values where the signature holds them: "rank 2 called
/// reduce where this rank called allreduce" ... Nothing is written when they are equal.
void explain_signature(char* out, std::size_t n, std::uint64_t mine, std::uint64_t theirs, const coll::spec& s,
                       int peer) noexcept;

}  // namespace sidecore::progress
