// Reduction kernels of the collectives executor: dst = src (op) dst over the elements of a schedule's reduce
// operation, for every built-in operator on every type it applies to (MPI's rules, coll::validate), and a user
// callback. Run by the progress pass (on the reserved core in mode core): no allocation, no lock.
#pragma once

#include <cstddef>

#include <sidecore/common/schedule.hpp>
#include <sidecore/progress/collective.hpp>

namespace sidecore::progress {

/// dst = src (op) dst over `bytes` bytes of elements of `t` (coll::element_size(t, op) each; minloc/maxloc: the
/// value-index pairs); dst_first: dst = dst (op) src. The built-in operators are commutative, so only a user op
/// sees the order: its callback computes inout = in (op) inout, in being the left operand (MPI's order), so for
/// dst_first the executor passes dst as `in` and works on a copy of src. src and dst never overlap.
void reduce_bytes(coll::dtype t, coll::reduce_op op, const coll_user_op& user, const std::byte* src, std::byte* dst,
                  std::size_t bytes, bool dst_first) noexcept;

}  // namespace sidecore::progress
