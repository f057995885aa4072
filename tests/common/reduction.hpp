// Test-side reduction kernels for the reference executor: every built-in operator on every type it applies to,
// and two user operators, one commutative (bitwise xor of the element's bytes) and one not (composition of affine
// maps packed in the element's bits), so that a schedule that reorders operands gives a different result.
#pragma once

#include <cstddef>
#include <cstdint>

#include "sidecore/common/schedule.hpp"

namespace sctest {

/// What `user` means in a test run.
enum class user_op : std::uint8_t { commutative_xor, affine_composition };

/// dst = src op dst over `bytes` bytes of elements of `t` (dst_first: dst = dst op src).
void reduce_bytes(sidecore::coll::dtype t, sidecore::coll::reduce_op op, user_op user, const std::byte* src,
                  std::byte* dst, std::uint64_t bytes, bool dst_first);

}  // namespace sctest
