// sidecore — FNV-1a, the fingerprint of a short text that parts of sidecore compare or publish: a setting every rank
// must share (runtime), the host a rank ran on and the bits of a run's id (instrument). Not cryptographic: two
// different texts may share a fingerprint, rarely.
#pragma once

#include <cstdint>
#include <string_view>

namespace sidecore {

/// FNV-1a over the bytes of `text`, 64 bits (offset basis 14695981039346656037, prime 1099511628211).
[[nodiscard]] constexpr std::uint64_t fingerprint64(std::string_view text) noexcept {
  std::uint64_t h = 14695981039346656037ULL;
  for (const char ch : text) h = (h ^ static_cast<unsigned char>(ch)) * 1099511628211ULL;
  return h;
}

}  // namespace sidecore
