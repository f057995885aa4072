// One collective call on every rank of a simulated communicator, as the schedule tests run it: the per-rank specs
// (the v-variants' counts differ per rank), input data that makes every legal evaluation order give the same bits
// (small integers for sums and products, so floating-point results are exact), the buffers as the executor sees
// them, and the result a straightforward sequential computation gives.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ref_executor.hpp"
#include "sidecore/common/schedule.hpp"

namespace sctest {

struct collective_case {
  sidecore::coll::kind k = sidecore::coll::kind::barrier;
  sidecore::coll::dtype type = sidecore::coll::dtype::byte;
  sidecore::coll::reduce_op op = sidecore::coll::reduce_op::none;
  user_op user = user_op::affine_composition;  ///< what reduce_op::user computes
  int size = 1;
  int root = 0;
  std::uint64_t count = 0;
  bool in_place = false;
  std::uint64_t segment_bytes = 0;
  std::uint64_t seed = 1;

  [[nodiscard]] std::string describe() const;
};

/// A spec of kind `k` (the rest defaulted).
sidecore::coll::spec make_spec(sidecore::coll::kind k, std::uint64_t count,
                               sidecore::coll::dtype type = sidecore::coll::dtype::byte,
                               sidecore::coll::reduce_op op = sidecore::coll::reduce_op::none);

/// The spec rank `rank` passes (v-variants: its own counts and displacements).
sidecore::coll::spec spec_for(const collective_case& c, int rank);

/// Builds every rank's schedule with algorithm `a`, runs them on the reference executor and compares every rank's
/// receive buffer (and unchanged send buffer) with the sequential result. Returns "" or what went wrong.
std::string run_case(const collective_case& c, sidecore::coll::algorithm a, run_stats* stats = nullptr);

}  // namespace sctest
