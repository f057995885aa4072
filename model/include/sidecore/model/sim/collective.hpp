// sidecore simulator — sidecore's collective schedules (common/include/sidecore/common/schedule.hpp, the
// description the executor in progress/coll/ runs) turned into the simulator's schedule, so that every
// algorithm sidecore runs can be simulated at any rank count.
#pragma once

#include <string>
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

}  // namespace sidecore::model::sim
