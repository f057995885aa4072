// sidecore simulator — schedules generated for any rank count (no GOAL text in between), for the
// benchmarks and for what-if questions at scale.
#pragma once

#include <cstdint>

#include "sidecore/model/sim/schedule.hpp"

namespace sidecore::model::sim {

/// Binomial-tree broadcast of `bytes` bytes from `root` over `ranks` ranks, in MPICH's order: a
/// rank receives from its parent, then sends to its children, the largest subtree first (relative
/// rank v receives from v - 2^k, k its lowest set bit, and sends to v + 2^j for 2^j < 2^k, j
/// descending). Every send requires the rank's receive. Tag 0, CPU and NIC 0.
/// Throws std::invalid_argument when ranks is 0 or root is not below ranks.
[[nodiscard]] schedule binomial_broadcast(std::uint32_t ranks, std::uint64_t bytes, std::uint32_t root = 0);

}  // namespace sidecore::model::sim
