// Data-hazard tracking for the schedule builders (hazards.hpp).
#include "hazards.hpp"

#include <algorithm>

namespace sidecore::coll::detail {

void hazards::split_at(std::vector<span>& spans, std::uint64_t at) {
  // The span containing `at` strictly inside, if any, becomes [lo, at) and [at, hi) with the same history.
  auto it = std::upper_bound(spans.begin(), spans.end(), at, [](std::uint64_t x, const span& s) { return x < s.lo; });
  if (it == spans.begin()) return;
  auto prev = std::prev(it);
  if (prev->lo < at && at < prev->hi) {
    span upper = *prev;
    upper.lo = at;
    prev->hi = at;
    spans.insert(it, upper);
  }
}

void hazards::access(buffer buf, std::uint64_t lo, std::uint64_t hi, bool write, std::uint32_t op,
                     std::vector<std::uint32_t>& deps) {
  if (lo >= hi) return;
  auto& spans = spans_[static_cast<std::size_t>(buf)];
  split_at(spans, lo);
  split_at(spans, hi);
  auto i = static_cast<std::size_t>(
      std::lower_bound(spans.begin(), spans.end(), lo, [](const span& s, std::uint64_t x) { return s.lo < x; }) -
      spans.begin());
  std::uint64_t pos = lo;
  while (pos < hi) {
    if (i == spans.size() || spans[i].lo > pos) {  // a gap: bytes nothing has touched yet
      const std::uint64_t end = i == spans.size() ? hi : std::min(hi, spans[i].lo);
      spans.insert(spans.begin() + static_cast<std::ptrdiff_t>(i), span{pos, end, none, none});
    }
    span& s = spans[i];
    if (s.writer != none) deps.push_back(s.writer);
    if (write) {
      for (std::uint32_t r = s.readers; r != none; r = reads_[r].next) deps.push_back(reads_[r].op);
      s.readers = none;
      s.writer = op;
    } else {
      reads_.push_back({op, s.readers});
      s.readers = static_cast<std::uint32_t>(reads_.size() - 1);
    }
    pos = s.hi;
    ++i;
  }
}

}  // namespace sidecore::coll::detail
