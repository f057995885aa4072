// barrier, recursive doubling (Thakur, Rabenseifner & Gropp 2005, with their
// fold for p not a power of two).
//
// Rounds: log2(pof2) exchanges, plus 2 when p is not a power of two (pof2 = the largest power of two <= p, rem =
// p - pof2). Of the first 2*rem ranks each even one sends a zero-byte "arrived" to the odd one above it and waits
// for its release; the pof2 remaining ranks exchange zero-byte messages with newrank ^ 2^k in round k (a round's
// send waits for all earlier receives), then release their even partner.
// Cost: log2(pof2) * (L + 2o), + 2 (L + 2o) when p is not a power of two. choose(): never (dissemination is never
// slower); here to be forced and compared.
#include "algorithms.hpp"
#include "arith.hpp"

namespace sidecore::coll::detail {

void build_barrier_recursive_doubling(builder& b) {
  const fold f(b.size);
  const int r = b.rank;
  const auto release = static_cast<std::uint32_t>(f.steps + 1);
  if (f.sits_out(r)) {
    b.signal_send(r + 1, 0, {});
    b.signal_recv(r + 1, release, {});
    return;
  }
  std::uint32_t last_send = builder::no_op;
  std::uint32_t last_recv = f.absorbs(r) ? b.signal_recv(r - 1, 0, {}) : builder::no_op;
  const int nr = f.newrank(r);
  for (int k = 0; k < f.steps; ++k) {
    const int peer = f.oldrank(nr ^ (1 << k));
    last_send = b.signal_send(peer, static_cast<std::uint32_t>(1 + k), {last_send, last_recv});
    last_recv = b.signal_recv(peer, static_cast<std::uint32_t>(1 + k), {});
  }
  if (f.absorbs(r)) b.signal_send(r - 1, release, {last_send, last_recv});
}

}  // namespace sidecore::coll::detail
