// Nonblocking collectives as the runtime sees them: a collective call on a communicator becomes a schedule
// (common/include/sidecore/common/schedule.hpp, docs/collectives.md) that the engine runs as the parent of its send
// and receive requests, advanced by the progress pass (on the reserved core in mode core). The call's request is an
// ordinary engine request: wait/test/pending read it as any other. Built schedules are cached per communicator
// (build() is a pure function), and a persistent collective keeps its own. Behind this header: progress/coll/.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include <sidecore/common/schedule.hpp>
#include <sidecore/progress/engine.hpp>

namespace sidecore::progress {

/// A user reduction: inout[i] = in[i] (op) inout[i] for `count` elements (MPI_User_function's order: `in` is the
/// left operand). Called by the progress pass, in whichever thread progresses (the progress thread in mode core).
using coll_user_fn = void (*)(const void* in, void* inout, std::size_t count, void* ctx);
struct coll_user_op {
  coll_user_fn fn = nullptr;
  void* ctx = nullptr;
};

/// The monitoring of collective instances (instrument/'s collective monitoring, issue 14 section 3), installed by the
/// runtime: `arrive` when this rank starts instance `seq` of communicator `comm_id` (its `bytes` contribution; the
/// application's thread, in the call), `depart` when the engine completes it (under the progress lock, whichever
/// thread progresses). `seq` counts every collective started on the communicator, 0, 1, 2, ..., alike on every rank.
struct coll_monitor {
  void (*arrive)(coll::kind k, int comm_id, std::uint64_t seq, std::uint64_t bytes, int comm_size) = nullptr;
  void (*depart)(int comm_id, std::uint64_t seq) = nullptr;
};

/// Room for the sentence of a failed collective run, its terminator included: the longest a run makes, which puts
/// another rank's notice text after the rank and collective it came from (progress/coll/instance.cpp checks it).
inline constexpr std::size_t coll_reason_max = 672;

class coll_plan;
class coll_instance;
struct req;
class mismatches;

/// A communicator as the collectives see it: its id (the wire tag's), this rank and the engine address index of
/// every rank, the counters that name its collective instances alike on every rank, and its cache of built
/// schedules. Held by shared pointer: collectives in flight keep it alive after the communicator is freed.
class coll_comm {
 public:
  coll_comm(int id, int rank, std::vector<int> to_world, std::size_t cache_entries);
  ~coll_comm();
  coll_comm(const coll_comm&) = delete;
  coll_comm& operator=(const coll_comm&) = delete;

  [[nodiscard]] int id() const noexcept { return id_; }
  [[nodiscard]] int rank() const noexcept { return rank_; }
  [[nodiscard]] int size() const noexcept { return static_cast<int>(to_world_.size()); }
  [[nodiscard]] int world(int r) const noexcept { return to_world_[static_cast<std::size_t>(r)]; }

  /// The schedule of `s` on this rank with algorithm `a` (automatic: coll::choose; a forced algorithm that cannot
  /// run `s`, a rank-order one for a non-commutative user op, falls back to automatic), from the cache or built
  /// and cached. Throws std::invalid_argument with coll::validate's message for arguments no rank could run, and
  /// for a schedule whose message numbers do not fit the wire tag (too small a segment for the size).
  [[nodiscard]] std::shared_ptr<const coll_plan> plan(const coll::spec& s, coll::algorithm a);

 private:
  friend class coll_executor;
  struct cache_entry;
  const int id_;
  const int rank_;
  const std::vector<int> to_world_;
  std::mutex cache_mutex_;
  std::vector<cache_entry> cache_;
  std::size_t cache_capacity_;
  std::uint64_t cache_clock_ = 0;
  std::atomic<std::uint32_t> next_seq_{0};         // nonblocking and blocking instances (tag.hpp, 19 bits, wraps)
  // Persistent collectives' ids (19 bits, wrapping): the next to try, and per id whether a persistent collective
  // created and not yet destroyed holds it (create skips those: two live ones must never share a tag).
  std::mutex persistent_mutex_;
  std::uint32_t next_persistent_ = 0;
  std::uint32_t persistent_live_count_ = 0;
  std::vector<bool> persistent_live_;  // sized (2^19) at the first create
  std::atomic<std::uint64_t> started_{0};          // every start, for the monitoring's seq
  std::atomic<std::uint32_t> in_flight_{0};        // instances started and not complete (wrap safety)
};

/// Bytes the caller's buffers must hold for a plan (coll::buffer_bytes), and its algorithm.
struct coll_plan_info {
  std::uint64_t send_bytes = 0;
  std::uint64_t recv_bytes = 0;
  coll::algorithm algorithm = coll::algorithm::automatic;
};
[[nodiscard]] coll_plan_info plan_info(const coll_plan& p) noexcept;

/// Thrown by coll_executor::create when 2^19 persistent collectives of the communicator are live: every id is held.
struct too_many_persistent : std::length_error {
  using std::length_error::length_error;
};

/// A collective call's buffers and reduction (the spec is in its plan).
struct coll_buffers {
  const void* send = nullptr;
  void* recv = nullptr;
  coll_user_op user;
};

/// A persistent collective (MPI 4.0's MPI_Allreduce_init and friends): its plan and executor state are made once;
/// each start runs them again.
class coll_persistent;

/// Runs collectives on one engine: starts instances of plans behind engine requests, keeps the instances, scratch
/// buffers and failure descriptions, and calls the monitoring hooks.
class coll_executor {
 public:
  explicit coll_executor(engine& e);
  ~coll_executor();
  coll_executor(const coll_executor&) = delete;
  coll_executor& operator=(const coll_executor&) = delete;

  /// Installs the monitoring hooks (before any collective).
  void set_monitor(const coll_monitor& m) noexcept { monitor_ = m; }

  /// Starts `p` (a plan of `c`) on `b` and returns the engine handle of its request (wait/test it as any other).
  /// The buffers must stay valid and untouched (send: unchanged; recv: unread) until it completes. Throws
  /// std::bad_alloc when no request slot or memory is left.
  [[nodiscard]] std::uint64_t start(const std::shared_ptr<coll_comm>& c, const std::shared_ptr<const coll_plan>& p,
                                    const coll_buffers& b, std::uint32_t owner_thread);

  /// A persistent collective of plan `p` on `c` (its instance number taken now, the next that no live persistent
  /// collective of `c` holds, alike on every rank that creates and frees c's persistent collectives in the same
  /// order). Inactive until start. Throws too_many_persistent when 2^19 of c's are live.
  [[nodiscard]] coll_persistent* create(const std::shared_ptr<coll_comm>& c, const std::shared_ptr<const coll_plan>& p,
                                        const coll_buffers& b);
  /// Starts it again; returns the engine handle of this run's request. The caller never starts one that runs.
  [[nodiscard]] std::uint64_t start(coll_persistent& pc, std::uint32_t owner_thread);
  /// Releases it: now if it is not running, else when its run completes (the run goes on; its request completes).
  /// After detach(): now, running or not (no run completes any more).
  void destroy(coll_persistent* pc) noexcept;

  /// Communicator `id` was freed (any thread; after every member's collectives on it completed): messages of its
  /// runs that come late are no longer refused by that id, which a new communicator may get.
  void comm_freed(int id) noexcept;

  /// Finalize, before the engine is destroyed: the engine calls into the executor no more, no run will complete,
  /// and the executor (destroy, its destructor) leaves the engine alone from here on.
  void detach() noexcept;

  /// The sentence saying why the collective behind `handle` completed with req_result::invalid or transport
  /// (which rank disagreed on what, or which transfer failed): asked once its request completed, with its result.
  [[nodiscard]] std::string describe(std::uint64_t handle, const completion& c) const;

 private:
  friend class coll_instance;
  // A run retired (under the progress lock): its failure noted, its departure monitored, the instance pooled (a
  // persistent one: idle again, or deleted if its owner let go of it meanwhile).
  void retired(coll_instance& i, const char* failure, std::uint64_t handle) noexcept;
  // Starts instance i on `slot`, a request slot taken before its sequence number was (a refused start leaves the
  // communicator's sequence as it was).
  std::uint64_t launch(coll_instance& i, std::uint32_t owner_thread, req* slot);

  engine& eng_;
  coll_monitor monitor_;
  std::unique_ptr<mismatches> mismatches_;  // under the progress lock (progress/coll/mismatches.hpp)
  bool detached_ = false;
  std::mutex pool_mutex_;
  std::vector<std::unique_ptr<coll_instance>> instances_;  // every pooled instance, free or running
  std::vector<coll_instance*> free_;
  // The last failures' descriptions, by the handle of their request (a small ring: read once by the waiter).
  struct failure_note {
    std::uint64_t handle = 0;
    char text[coll_reason_max] = {};
  };
  mutable std::mutex failures_mutex_;
  failure_note failures_[16];
  std::size_t failures_next_ = 0;
};

}  // namespace sidecore::progress
