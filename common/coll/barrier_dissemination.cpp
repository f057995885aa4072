// barrier, dissemination (Hensgen, Finkel & Manber 1988; Thakur, Rabenseifner & Gropp 2005; MPICH's
// MPIR_Barrier_intra_dissemination).
//
// Rounds: ceil(log2 p), any p (no fold). In round k a rank sends a zero-byte message to rank + 2^k and receives one
// from rank - 2^k (mod p). What a message says is "I and everyone I have heard from have arrived", so round k's send
// waits for every earlier round's receive; receives are posted at once. After round k a rank has heard, directly or
// not, from the 2^(k+1) - 1 ranks below it; after the last round from all.
// Cost: ceil(log2 p) * (L + 2o). choose(): always (it beats recursive doubling's extra fold rounds when p is not a
// power of two, and equals it when p is).
#include "algorithms.hpp"

namespace sidecore::coll::detail {

void build_barrier_dissemination(builder& b) {
  const long p = b.size;
  std::uint32_t last_send = builder::no_op;
  std::uint32_t last_recv = builder::no_op;
  std::uint32_t round = 0;
  for (long d = 1; d < p; d *= 2, ++round) {
    last_send = b.signal_send(static_cast<int>((b.rank + d) % p), round, {last_send, last_recv});
    last_recv = b.signal_recv(static_cast<int>((b.rank - d + p) % p), round, {});
  }
}

}  // namespace sidecore::coll::detail
