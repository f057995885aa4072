// Exact checksums of an app's state for --check: a hash per value and place, summed modulo 2^64, so that the sum
// does not depend on the order the ranks add it in, and any changed value, or value in another place, changes it.
#pragma once

#include <bit>
#include <cstdint>

namespace apps {

/// splitmix64's finaliser: every input bit changes about half of the output bits.
[[nodiscard]] constexpr std::uint64_t mix(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/// The hash of `value` at global place `index`: summed over a state, the checksum.
[[nodiscard]] inline std::uint64_t cell_hash(std::uint64_t index, double value) {
  return mix(mix(index) ^ std::bit_cast<std::uint64_t>(value));
}

}  // namespace apps
