// The simulator's matching queues: per rank, the posted receives or the unexpected messages, matched
// as LogGOPSim's list matching does. Internal to model/src/sim.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "sidecore/model/sim/schedule.hpp"

namespace sidecore::model::sim::detail {

inline constexpr std::uint32_t nil = std::numeric_limits<std::uint32_t>::max();

// A matching queue (posted receives, or unexpected messages) per rank: a FIFO of entries that can be
// removed from the middle, scanned from the oldest as LogGOPSim's list matching does.
class match_queues {
 public:
  explicit match_queues(std::uint32_t ranks) : head_(ranks, nil), tail_(ranks, nil) {}

  void push(std::uint32_t rank, std::uint32_t src, std::uint32_t tag, op_id id) {
    std::uint32_t e;
    if (free_ != nil) {
      e = free_;
      free_ = pool_[e].next;
    } else {
      e = static_cast<std::uint32_t>(pool_.size());
      pool_.emplace_back();
    }
    pool_[e] = {src, tag, id, nil};
    if (tail_[rank] == nil) head_[rank] = e;
    else pool_[tail_[rank]].next = e;
    tail_[rank] = e;
  }

  // Removes and returns the oldest entry matching (src, tag): equal, or either side a wildcard.
  op_id take(std::uint32_t rank, std::uint32_t src, std::uint32_t tag) {
    std::uint32_t prev = nil;
    for (std::uint32_t e = head_[rank]; e != nil; prev = e, e = pool_[e].next) {
      const entry& x = pool_[e];
      if ((src == any_source || x.src == any_source || x.src == src) &&
          (tag == any_tag || x.tag == any_tag || x.tag == tag)) {
        if (prev == nil) head_[rank] = x.next;
        else pool_[prev].next = x.next;
        if (tail_[rank] == e) tail_[rank] = prev;
        const op_id id = x.id;
        pool_[e].next = free_;
        free_ = e;
        return id;
      }
    }
    return nil;
  }

  template <typename F>
  void for_each(std::uint32_t rank, F&& f) const {
    for (std::uint32_t e = head_[rank]; e != nil; e = pool_[e].next) f(pool_[e].id);
  }

 private:
  struct entry {
    std::uint32_t src, tag;
    op_id id;
    std::uint32_t next;
  };
  std::vector<entry> pool_;
  std::uint32_t free_ = nil;
  std::vector<std::uint32_t> head_, tail_;
};

}  // namespace sidecore::model::sim::detail
