// sidecore instrument — the accumulators the analysis sums into (private to instrument/src).
#pragma once

#include <cstdint>

namespace sidecore::instrument::internal {

/// Totals for one category of calls.
struct category_acc {
  std::uint64_t time_ns = 0;
  std::uint64_t count = 0;
  std::uint64_t min_ns = UINT64_MAX;
  void add(std::uint64_t d) noexcept {
    time_ns += d;
    ++count;
    if (d < min_ns) min_ns = d;
  }
  void merge(const category_acc& o) noexcept {
    time_ns += o.time_ns;
    count += o.count;
    if (o.min_ns < min_ns) min_ns = o.min_ns;
  }
};

/// Time and count of calls of one category (inside a region).
struct call_sum {
  std::uint64_t time = 0;
  std::uint64_t count = 0;
};

/// Sums of overlap bounds for a set of transfers.
struct overlap_acc {
  std::uint64_t min_ns = 0;
  std::uint64_t max_ns = 0;
  std::uint64_t xfer_ns = 0;
  std::uint64_t count = 0;

  overlap_acc& operator+=(const overlap_acc& o) noexcept {
    min_ns += o.min_ns;
    max_ns += o.max_ns;
    xfer_ns += o.xfer_ns;
    count += o.count;
    return *this;
  }
};

}  // namespace sidecore::instrument::internal
