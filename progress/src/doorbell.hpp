// Doorbells (doorbell.cpp): the futex word this process's blocked progressor sleeps on, those of the peers on its
// node (rung when we give a sleeping peer something to react to), and the wake-ups an application thread leaves
// to the progress thread. The doorbell type itself is public (engine.hpp): the runtime places them in memory shared
// by a node's ranks.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include <sidecore/progress/engine.hpp>

namespace sidecore::progress {

struct doorbells {
  doorbells() = default;
  doorbells(const doorbells&) = delete;
  doorbells& operator=(const doorbells&) = delete;

  doorbell own;              // serves until set_doorbells gives one in shared memory
  doorbell* mine = &own;
  std::vector<doorbell*> peers;  // by engine address index; nullptr for ranks on other nodes
  std::unique_ptr<std::atomic<std::uint64_t>[]> ring_words;  // (peers + 63) / 64 words: rings left to the thread
  std::size_t ring_nwords = 0;
};

}  // namespace sidecore::progress
