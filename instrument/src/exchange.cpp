// sidecore instrument — what the instrumentation's start and end exchange among ranks beyond their pairs: rank 0's
// bytes to every rank, and every rank's text to rank 0, along binomial trees.
#include <cstring>
#include <stdexcept>

#include "exchange_framing.hpp"
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

std::vector<std::string> gather_to_rank0(const exchange& ex, const std::string& mine) {
  // What a rank holds: for each rank of its subtree, in rank order, an 8-byte length and the text. Rank r takes
  // r + 2^k's subtree for each 2^k below r's lowest set bit, then sends its own to r minus that bit; rank 0's
  // subtrees come in as 1, 2-3, 4-7, ...: rank order.
  std::string held;
  const auto append = [&held](const std::string& text) {
    const std::uint64_t n = text.size();
    held.append(reinterpret_cast<const char*>(&n), sizeof n);
    held += text;
  };
  append(mine);
  for (int mask = 1; mask < ex.nranks; mask <<= 1) {
    if ((ex.rank & mask) != 0) {
      internal::send_framed(ex, ex.rank - mask, held.data(), held.size());
      return {};
    }
    if (ex.rank + mask < ex.nranks) internal::recv_framed(ex, ex.rank + mask, held);
  }
  std::vector<std::string> texts;
  texts.reserve(static_cast<std::size_t>(ex.nranks));
  for (std::size_t at = 0; at < held.size();) {
    std::uint64_t n = 0;
    if (held.size() - at < sizeof n) break;
    std::memcpy(&n, held.data() + at, sizeof n);
    at += sizeof n;
    if (held.size() - at < n) break;
    texts.emplace_back(held, at, n);
    at += n;
  }
  if (texts.size() != static_cast<std::size_t>(ex.nranks))
    throw std::runtime_error("gathering the ranks' texts: rank 0 could read " + std::to_string(texts.size()) +
                             " of " + std::to_string(ex.nranks));
  return texts;
}

std::string ranks_without_text(const std::vector<std::string>& texts) {
  std::string missing;
  for (std::size_t i = 0; i < texts.size(); ++i)
    if (texts[i].empty()) missing += (missing.empty() ? "" : ", ") + std::to_string(i);
  return missing;
}

}  // namespace sidecore::instrument
