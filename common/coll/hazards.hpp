// The data hazards between the operations of one rank's schedule: which earlier operations a new read or write of
// a byte range must wait for (read after write, write after read, write after write). The builders emit operations
// in a sequential program order and take their dependencies from here, so every ordering the data requires is in
// the DAG and nothing else is: segments of a pipelined message depend only on the segments they touch.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory_resource>
#include <vector>

#include "sidecore/common/schedule.hpp"

namespace sidecore::coll::detail {

class hazards {
 public:
  hazards() = default;
  hazards(const hazards&) = delete;
  hazards& operator=(const hazards&) = delete;

  /// Records that operation `op` reads (or writes) bytes [lo, hi) of `buf`, appending to `deps` the operations it
  /// must wait for: the last writer of each byte, and for a write also every reader since that writer.
  void access(buffer buf, std::uint64_t lo, std::uint64_t hi, bool write, std::uint32_t op,
              std::vector<std::uint32_t>& deps);

 private:
  static constexpr std::uint32_t none = 0xffffffffu;
  // A maximal byte range [lo, hi) whose accesses so far are the same, keyed by lo; spans are disjoint.
  struct span {
    std::uint64_t hi;
    std::uint32_t writer;   // the last op that wrote it, or none
    std::uint32_t readers;  // the ops that read it since: a list in reads_, or none
  };
  // Reader lists only ever grow at the head, so two spans split from one share their common tail.
  struct read {
    std::uint32_t op;
    std::uint32_t next;
  };
  using span_map = std::pmr::map<std::uint64_t, span>;
  void split_at(span_map& spans, std::uint64_t at);

  // Everything lives in one arena, on the stack for a small schedule: a build allocates nothing here until its
  // schedule outgrows the inline buffer, and then only in large chunks. Lookups and inserts are O(log spans)
  // whatever order the regions come in.
  alignas(std::max_align_t) std::byte inline_[4096];
  std::pmr::monotonic_buffer_resource arena_{inline_, sizeof inline_};
  std::array<span_map, 3> spans_{span_map(&arena_), span_map(&arena_), span_map(&arena_)};
  std::pmr::vector<read> reads_{&arena_};
};

}  // namespace sidecore::coll::detail
