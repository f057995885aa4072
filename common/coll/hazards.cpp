// Data-hazard tracking for the schedule builders (hazards.hpp).
#include "hazards.hpp"

#include <algorithm>
#include <iterator>

namespace sidecore::coll::detail {

void hazards::split_at(span_map& spans, std::uint64_t at) {
  // The span containing `at` strictly inside, if any, becomes [lo, at) and [at, hi) with the same history.
  auto it = spans.upper_bound(at);
  if (it == spans.begin()) return;
  auto prev = std::prev(it);
  if (prev->first < at && at < prev->second.hi) {
    span upper = prev->second;
    prev->second.hi = at;
    spans.emplace_hint(it, at, upper);
  }
}

void hazards::access(buffer buf, std::uint64_t lo, std::uint64_t hi, bool write, std::uint32_t op,
                     std::vector<std::uint32_t>& deps) {
  if (lo >= hi) return;
  span_map& spans = spans_[static_cast<std::size_t>(buf)];
  split_at(spans, lo);
  split_at(spans, hi);
  auto it = spans.lower_bound(lo);
  std::uint64_t pos = lo;
  while (pos < hi) {
    if (it == spans.end() || it->first > pos) {  // a gap: bytes nothing has touched yet
      const std::uint64_t end = it == spans.end() ? hi : std::min(hi, it->first);
      it = spans.emplace_hint(it, pos, span{end, none, none});
    }
    span& s = it->second;
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
    ++it;
  }
}

}  // namespace sidecore::coll::detail
