// sidecore simulator — sidecore's collective schedules (common/include/sidecore/common/schedule.hpp, the
// description the executor in progress/coll/ runs) turned into the simulator's schedule, so that every
// algorithm sidecore runs can be simulated at any rank count.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sidecore/common/schedule.hpp"
#include "sidecore/model/sim/schedule.hpp"

namespace sidecore::model::sim {

/// CPU time of the local operations of a collective, which LogGOPS has no parameter for.
struct local_costs {
  double reduce_ns_per_byte = 0;  ///< a reduce of b bytes is a calc of b x this (rounded to the ns)
  double copy_ns_per_byte = 0;    ///< a copy likewise
};

/// One simulator schedule from every rank's part of one collective instance (per_rank[r] is rank r's,
/// as sidecore::coll::build(spec, algorithm, r, size) gives it): send and recv keep peer, bytes and tag
/// (an instance's tags identify its messages per pair of ranks, which is how the simulator matches
/// them too); reduce and copy become calcs costed by `costs`; the dependencies stay. Throws
/// std::invalid_argument naming the rank and operation when a peer is not a rank, a dependency is not
/// an earlier operation of the same rank, or the dependency range lies outside `deps`.
[[nodiscard]] schedule from_collective(const std::vector<sidecore::coll::schedule>& per_rank, const local_costs& costs,
                                       std::string source);

/// One collective call on every rank, as `sidecore simulate --pattern KIND[:ALGORITHM]` describes it.
struct collective_call {
  sidecore::coll::kind kind = sidecore::coll::kind::bcast;
  sidecore::coll::algorithm algorithm = sidecore::coll::algorithm::automatic;  ///< automatic: coll::choose()
  std::int64_t ranks = 1;  ///< 1 .. 2^31 - 1 (signed, so that a negative option value is named, not wrapped)
  /// The call's count in bytes: the whole buffer of bcast, reduce and allreduce; each rank's block of gather,
  /// scatter, allgather(v), alltoall(v) and reduce_scatter_block (the v-variants: every block this size, packed);
  /// unused by barrier. The reductions (reduce, allreduce, reduce_scatter_block) sum float64 elements, so their
  /// bytes must be a multiple of 8; the other kinds move bytes.
  std::uint64_t bytes = 8;
  std::int64_t root = 0;            ///< bcast, reduce, gather and scatter only
  std::uint64_t segment_bytes = 0;  ///< coll::spec::segment_bytes (0: coll::default_segment_bytes)
};

/// Whether `k` has a root (bcast, reduce, gather, scatter) and whether it reduces (reduce, allreduce,
/// reduce_scatter_block).
[[nodiscard]] bool has_root(sidecore::coll::kind k) noexcept;
[[nodiscard]] bool reduces(sidecore::coll::kind k) noexcept;

/// Reads "KIND[:ALGORITHM]" with the names the SIDECORE_COLL_* settings take ("allreduce:ring", "bcast",
/// "alltoall:auto"; no algorithm is auto), and "binomial-bcast" (= "bcast:binomial", the simulator's first
/// generator). Sets kind and algorithm of the result, the rest keeps its defaults. Throws sidecore::input_error
/// (field "--pattern") naming the text, the part that is not a kind or not an algorithm of that kind, and the
/// accepted names.
[[nodiscard]] collective_call parse_collective_pattern(std::string_view text);

/// The coll::spec of `c` (type byte and no op, or float64 and sum for the reductions; root only where the kind
/// has one; the v-variants' counts and displacements of equal, packed blocks). Throws sidecore::input_error (field
/// "--ranks") for ranks outside 1 .. 2^31 - 1.
[[nodiscard]] sidecore::coll::spec collective_spec(const collective_call& c);

/// Largest schedule build_collective() makes unless told otherwise: 2^25 operations, about 3 GB while it is built
/// and simulated (16 times the 2^20-rank binomial broadcast).
inline constexpr std::uint64_t max_collective_ops = std::uint64_t{1} << 25;

/// The simulator schedule of `c`: every rank's part built with coll::build (algorithm `automatic`: the one
/// coll::choose() picks, as the executor would) and turned into one schedule as from_collective() does, rank by
/// rank so that only the simulator's flat arrays grow with the rank count. A binomial broadcast that needs one
/// segment comes from binomial_broadcast() (generators.hpp) instead, the same schedule without a per-rank build.
/// Throws sidecore::input_error whose field names the member ("--ranks", "--bytes", "--root", "--segment", as the
/// command spells them) for ranks outside 1 .. 2^31 - 1, a root that is not a rank, bytes not a multiple of the
/// element size, bytes that reach 2^63 over all ranks or more than `max_ops` segments on one rank, a segment
/// size outside 1024 .. 2^26 (SIDECORE_COLL_SEGMENT's range; 0 is the default), or a schedule of more than
/// `max_ops` operations (estimated from the first and the last rank's part before it is built, then counted rank
/// by rank).
[[nodiscard]] schedule build_collective(const collective_call& c, const local_costs& costs,
                                        std::uint64_t max_ops = max_collective_ops);

}  // namespace sidecore::model::sim
