// What the instrument tests share for time: the origin of their synthetic clocks and a busy wait on the real one.
// One definition here, so that the test files can be compiled together (a unity build, as CI builds them).
#pragma once

#include <cstdint>

#include "sidecore/common/common.hpp"

namespace sctest {

/// The origin of the tests' synthetic event times (ns; must be > 0: a time of 0 means "not set").
inline constexpr std::uint64_t T0 = 1'000'000'000;

/// Spins (the core stays busy) for `ns` nanoseconds of sidecore::now_ns().
inline void spin_for_ns(std::uint64_t ns) {
  const std::uint64_t end = sidecore::now_ns() + ns;
  while (sidecore::now_ns() < end) {
  }
}

}  // namespace sctest
