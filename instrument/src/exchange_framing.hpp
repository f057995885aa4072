// sidecore instrument — the framing of a variable-length message over an exchange (collectives.hpp): its length in
// 64 bits, then its bytes (none when it is empty). The gather of the ranks' profiles and the collectives' analysis
// both send this way.
#pragma once

#include <cstdint>

#include "sidecore/instrument/collectives.hpp"

namespace sidecore::instrument::internal {

inline void send_framed(const exchange& ex, int to, const void* data, std::uint64_t bytes) {
  ex.send(to, &bytes, sizeof bytes);
  if (bytes != 0) ex.send(to, data, bytes);
}

/// Receives what send_framed sent from `from`, appended to `into` (a std::string or std::vector<char>).
template <class Bytes>
void recv_framed(const exchange& ex, int from, Bytes& into) {
  std::uint64_t bytes = 0;
  ex.recv(from, &bytes, sizeof bytes);
  const std::size_t had = into.size();
  into.resize(had + bytes);
  if (bytes != 0) ex.recv(from, into.data() + had, bytes);
}

}  // namespace sidecore::instrument::internal
