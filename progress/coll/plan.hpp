// A plan: one rank's built schedule of one collective call on one communicator, with what the executor derives
// from it once (the dependents of each operation, the operations with no dependencies, each peer's engine address
// index, the call's signature). Immutable and shared: the communicator's cache, the instances running it and
// persistent collectives hold it by shared pointer.
#pragma once

#include <cstdint>
#include <vector>

#include <sidecore/common/schedule.hpp>
#include <sidecore/progress/collective.hpp>

namespace sidecore::progress {

class coll_plan {
 public:
  coll_plan(const coll_comm& c, coll::spec s, coll::algorithm requested, coll::algorithm chosen);

  coll::spec spec;
  coll::algorithm requested;          // what the caller asked for (the cache's key)
  coll::schedule sched;               // sched.alg: the algorithm that runs
  coll::buffer_sizes sizes;           // the caller's send and receive buffers
  std::vector<std::uint32_t> dependents_first;  // dependents of ops[i]: dependents[first[i] .. first[i + 1])
  std::vector<std::uint32_t> dependents;
  std::vector<std::uint32_t> roots;   // ops with no dependency, in order
  std::vector<int> peer_world;        // send/recv: the peer's engine address index
  std::uint64_t sig = 0;              // coll_signature
  std::uint64_t largest_message = 0;  // bytes of its largest send or receive
  std::uint64_t largest_root_step = 0;  // bytes of its largest copy or reduction with no dependency
  std::uint32_t sends = 0, recvs = 0;   // its send and receive operations
  std::uint64_t contribution = 0;     // this rank's input bytes (monitoring)

  [[nodiscard]] std::uint32_t ops() const noexcept { return static_cast<std::uint32_t>(sched.ops.size()); }
};

}  // namespace sidecore::progress
