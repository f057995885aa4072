// Schedule generators (generators.hpp).
#include "sidecore/model/sim/generators.hpp"

#include <stdexcept>

#include <fmt/format.h>

namespace sidecore::model::sim {

schedule binomial_broadcast(std::uint32_t ranks, std::uint64_t bytes, std::uint32_t root) {
  if (ranks == 0) throw std::invalid_argument("binomial broadcast: --ranks 0 is not accepted; accepted: 1 or more");
  if (root >= ranks)
    throw std::invalid_argument(fmt::format("binomial broadcast: root {} is not a rank of {} ranks", root, ranks));
  schedule_builder b(ranks, fmt::format("binomial broadcast of {} B over {} ranks", bytes, ranks));
  b.reserve(2 * std::size_t{ranks}, ranks);
  const std::uint64_t p = ranks;
  auto real = [&](std::uint64_t v) { return static_cast<std::uint32_t>((v + root) % p); };
  for (std::uint32_t r = 0; r < ranks; ++r) {
    const std::uint64_t v = (std::uint64_t{r} + p - root) % p;
    std::uint64_t mask = 1;
    op_id recv = 0;
    bool has_recv = false;
    while (mask < p) {
      if (v & mask) {
        recv = b.recv(r, real(v - mask), bytes);
        has_recv = true;
        break;
      }
      mask <<= 1;
    }
    for (mask >>= 1; mask > 0; mask >>= 1) {
      if (v + mask >= p) continue;
      const op_id send = b.send(r, real(v + mask), bytes);
      if (has_recv) b.depend(send, recv);
    }
  }
  return b.build();
}

}  // namespace sidecore::model::sim
