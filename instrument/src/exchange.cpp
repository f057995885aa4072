// sidecore instrument — what the instrumentation's start and end exchange among ranks beyond their pairs: rank 0's
// bytes to every rank along a binomial tree.
#include "sidecore/instrument/collectives.hpp"

namespace sidecore::instrument {

void broadcast_from_rank0(const exchange& ex, void* data, std::size_t bytes) {
  // Rank r receives from r minus its lowest set bit, then sends to r + 2^k for each 2^k below that bit: rank 0
  // sends ceil(log2 P) times, and the last rank has its bytes after ceil(log2 P) steps, not P - 1.
  int mask = 1;
  while (mask < ex.nranks) {
    if ((ex.rank & mask) != 0) {
      ex.recv(ex.rank - mask, data, bytes);
      break;
    }
    mask <<= 1;
  }
  for (mask >>= 1; mask > 0; mask >>= 1)
    if (ex.rank + mask < ex.nranks) ex.send(ex.rank + mask, data, bytes);
}

}  // namespace sidecore::instrument
