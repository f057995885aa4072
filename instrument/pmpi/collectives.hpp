// libsidecore-pmpi.so — monitoring of the MPI collectives of unmodified programs (instrument/collectives.hpp): each
// communicator gets a key that every member derives alike, with no extra communication, and a sequence number per
// collective instance; blocking collectives arrive at the call's entry and depart at its return, nonblocking ones
// arrive at the initiation and depart at the return of the wait or test that reported them complete, and each start
// of a persistent collective (MPI 4.0, MPI_<Coll>_init) is an instance of its own, like a nonblocking collective.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <unordered_map>

#include "sidecore/instrument/collectives.hpp"

namespace sidecore::instrument::pmpi {

/// Sets up the communicators' keys (an MPI attribute) for a run (MPI_Init); `world_rank` of this process.
void collectives_begin(int world_rank);
/// Ends it (MPI_Finalize): the monitoring of requests still pending is dropped.
void collectives_end();

/// A new communicator `child` made by a call collective over `parent` (dup, split, create, cart and graph creation,
/// intercomm merge): its key is derived from the parent's key, the number of communicators made from the parent
/// before, and the world rank of the child's rank 0 — the same on every member, different for every child. Called on
/// every rank of the parent, also where the child is MPI_COMM_NULL (the count must advance alike).
void communicator_created(MPI_Comm parent, MPI_Comm child);

/// A communicator made by MPI_Intercomm_merge. The intercommunicator's key differs across its two groups (it is made
/// on first use by each rank alone: MPI_Intercomm_create is not intercepted), so the merged communicator's key is
/// derived from its members' world ranks, in its own rank order, and the number of merged communicators with the
/// same members this process made before: every member makes its merges of one membership in the same order, each
/// being a blocking call collective over all of them.
void merged_communicator_created(MPI_Comm merged);

/// A communicator made by MPI_Comm_create_group, a call collective over the group's members only (the other ranks
/// of `parent` take no part, so the parent's count of children cannot follow it): its key is derived, as a merged
/// communicator's, from its members' world ranks and the number of such communicators this process made before
/// with the same members, parent key and `tag` (the members call MPI_Comm_create_group for one group, parent and tag
/// in the same order, as MPI requires).
void group_communicator_created(MPI_Comm parent, int tag, MPI_Comm child);

/// Bytes of `count` elements of `type` (0 for MPI_DATATYPE_NULL, which MPI_Type_size would take to the error
/// handler of MPI_COMM_SELF: fatal by default, where the collective itself returns an error under MPI_ERRORS_RETURN).
template <class Count>
[[nodiscard]] std::uint64_t bytes_of(Count count, MPI_Datatype type) noexcept {
  MPI_Count size = 0;
  if (count <= 0 || type == MPI_DATATYPE_NULL || PMPI_Type_size_c(type, &size) != MPI_SUCCESS || size < 0) return 0;
  return static_cast<std::uint64_t>(count) * static_cast<std::uint64_t>(size);
}
/// The size of `comm` when its collectives are monitored (an intracommunicator); 0 for an intercommunicator, whose
/// per-rank arrays (alltoallv's counts, ...) have one entry per rank of the remote group, not of `comm`'s own.
[[nodiscard]] int monitored_size(MPI_Comm comm) noexcept;
/// `bytes` times the communicator's size (a contribution to every rank); 0 on an intercommunicator.
[[nodiscard]] std::uint64_t times_size(MPI_Comm comm, std::uint64_t bytes) noexcept;
/// The sum over the communicator's ranks of counts[i] elements of `type`; 0 on an intercommunicator.
template <class Count>
[[nodiscard]] std::uint64_t sum_bytes(const Count* counts, MPI_Datatype type, MPI_Comm comm) noexcept {
  const int n = counts == nullptr ? 0 : monitored_size(comm);
  std::uint64_t total = 0;
  for (int i = 0; i < n; ++i) total += bytes_of(counts[i], type);
  return total;
}
/// The same with a type per rank (alltoallw).
template <class Count>
[[nodiscard]] std::uint64_t sum_bytes(const Count* counts, const MPI_Datatype* types, MPI_Comm comm) noexcept {
  const int n = counts == nullptr || types == nullptr ? 0 : monitored_size(comm);
  std::uint64_t total = 0;
  for (int i = 0; i < n; ++i) total += bytes_of(counts[i], types[i]);
  return total;
}

struct comm_state;
/// `comm`'s state when its collectives are monitored now (profiling on, an intracommunicator); nullptr otherwise.
[[nodiscard]] comm_state* monitored(MPI_Comm comm) noexcept;
/// The arrival at the next instance on a monitored communicator, of `bytes` bytes.
[[nodiscard]] coll_instance arrive_at(op_kind kind, comm_state& st, std::uint64_t bytes) noexcept;
/// The arrival at the next instance on `comm` when it is monitored, into `instance`: `bytes()` is called only then.
/// Returns whether it was recorded.
template <class Bytes>
[[nodiscard]] bool arrive_if_monitored(op_kind kind, MPI_Comm comm, const Bytes& bytes,
                                       coll_instance& instance) noexcept {
  comm_state* st = monitored(comm);
  if (st == nullptr) return false;
  instance = arrive_at(kind, *st, bytes());
  return true;
}

/// A blocking collective: arrival on construction, departure on destruction (the call's return). `bytes()` gives
/// the instance's bytes and is called only when `comm` is monitored: elsewhere (profiling off, an intercommunicator,
/// whose root's receive arguments are insignificant) asking MPI about the arguments could raise an error the call
/// itself does not.
class blocking_coll {
 public:
  template <class Bytes>
  blocking_coll(op_kind kind, MPI_Comm comm, const Bytes& bytes) noexcept
      : on_(arrive_if_monitored(kind, comm, bytes, instance_)) {}
  ~blocking_coll();
  blocking_coll(const blocking_coll&) = delete;
  blocking_coll& operator=(const blocking_coll&) = delete;

 private:
  coll_instance instance_;
  bool on_ = false;
};

/// A nonblocking collective: arrival on construction; started() records its request, whose completion in a wait or a
/// test is the departure.
class nonblocking_coll {
 public:
  /// `bytes()` as for blocking_coll.
  template <class Bytes>
  nonblocking_coll(op_kind kind, MPI_Comm comm, const Bytes& bytes) noexcept
      : on_(arrive_if_monitored(kind, comm, bytes, instance_)) {}
  /// `rc` of the initiation; on success, *request is watched. Returns rc.
  int started(int rc, const MPI_Request* request) noexcept;
  nonblocking_coll(const nonblocking_coll&) = delete;
  nonblocking_coll& operator=(const nonblocking_coll&) = delete;

 private:
  coll_instance instance_;
  bool on_ = false;
};

/// A persistent collective's initialization (MPI_<Coll>_init, MPI 4.0): nothing arrives yet; registered() records
/// its request with the kind, communicator and bytes (fixed at the initialization), and every MPI_Start of it arrives
/// at an instance (persistent_start). The instances of one request are numbered apart from the communicator's other
/// collectives, by the request's place among the persistent collectives initialized on the communicator (the
/// initializations are collective calls, ordered alike on every member) and its starts (each member starts it as
/// often): MPI does not require the members to start different persistent collectives in the same order, so the
/// communicator's running count could number one instance differently on two members.
class persistent_coll {
 public:
  /// `bytes()` as for blocking_coll, called at the initialization only.
  template <class Bytes>
  persistent_coll(op_kind kind, MPI_Comm comm, const Bytes& bytes) noexcept : kind_(kind) {
    st_ = monitored(comm);
    if (st_ != nullptr) bytes_ = bytes();
  }
  /// `rc` of the initialization; on success, *request is registered. Returns rc.
  int registered(int rc, const MPI_Request* request) noexcept;
  persistent_coll(const persistent_coll&) = delete;
  persistent_coll& operator=(const persistent_coll&) = delete;

 private:
  op_kind kind_;
  comm_state* st_ = nullptr;
  std::uint64_t bytes_ = 0;
};

/// MPI_Start or MPI_Startall: each registered persistent collective among the requests arrives at its next instance
/// on construction (before the call); started() watches those the call started, whose completion in a wait or test
/// is the departure, as a nonblocking collective's. Takes nothing while no persistent collective is registered (one
/// relaxed load): persistent point-to-point starts pay no more.
class persistent_start {
 public:
  /// Arrivals of the registered requests among requests[0, count).
  persistent_start(int count, const MPI_Request* requests) noexcept;
  ~persistent_start();
  /// `rc` of the start; on success the started instances are watched. Returns rc.
  int started(int rc) noexcept;
  persistent_start(const persistent_start&) = delete;
  persistent_start& operator=(const persistent_start&) = delete;

 private:
  // A start of a registered request, with its slot in the caller's array.
  struct start {
    int index = 0;
    op_kind kind = op_kind::barrier;
    std::uint32_t size = 0;
    std::uint64_t bytes = 0;
    coll_instance instance;  // the communicator's key and the instance's number, then what coll_arrive() gave
  };
  static constexpr int inline_count = 16;
  start inline_[inline_count];
  start* starts_ = nullptr;  // inline_ or a heap array of the call's count; nullptr: nothing arrived
  int n_ = 0;                // entries of starts_ in use
  const MPI_Request* requests_ = nullptr;
};

/// Request `request` is being freed (MPI_Request_free, before the call: MPI may hand the handle to another thread's
/// next request once it is freed): a persistent collective's registration ends.
void persistent_freed(MPI_Request request) noexcept;

/// Whether a nonblocking collective's request is watched (one relaxed load: the waits' and tests' fast path).
[[nodiscard]] bool requests_watched() noexcept;

/// A request that MPI_Request_get_status reported complete without freeing it: a watched one departs now, when its
/// completion was seen, not at the wait or test that frees it later (the program may compute in between).
void request_seen_complete(MPI_Request request) noexcept;

/// The watched requests among those a wait or test was given, taken out of the watch before the call, so that the
/// ones it completed depart after it and the others go back. Taken out, not looked up again after the call: once
/// the call has freed a request, MPI may hand its handle to another thread's next nonblocking collective (and that
/// thread's watch) while this thread is still inside the call. A nonblocking collective's request completed exactly
/// when the call set its slot to MPI_REQUEST_NULL, whatever the call returned: a wait or test failing with
/// MPI_ERR_IN_STATUS has still completed (and freed) the requests whose status holds no error. A persistent
/// collective's request stays allocated (inactive) when it completes: the call's own report says which completed.
/// Takes nothing while no request is watched (one relaxed load).
class request_watch {
 public:
  request_watch(int count, MPI_Request* requests) noexcept;
  /// Puts back what neither settle() nor freed() disposed of.
  ~request_watch();
  request_watch(const request_watch&) = delete;
  request_watch& operator=(const request_watch&) = delete;
  /// After the wait or test: the taken requests it completed depart, the others go back. Request i completed when
  /// the call set slot i to MPI_REQUEST_NULL, or when `reported(i)` is true: the call reported slot i complete (its
  /// return code, flag, index or indices, as each call reports).
  template <class Reported>
  void settle(const Reported& reported) noexcept {
    for (int k = 0; k < n_; ++k) taken_[k].reported = reported(taken_[k].index);
    depart_completed();
  }
  /// Request i is being freed (MPI_Request_free): it will not depart.
  void freed(int i) noexcept;

 private:
  // A request taken out of the watch, with its slot in the caller's array.
  struct taken {
    int index = 0;
    bool reported = false;  // the call reported it complete
    std::unordered_map<MPI_Request, coll_instance>::node_type node;
  };
  void depart_completed() noexcept;
  void put_back() noexcept;
  static constexpr int inline_count = 16;
  taken inline_[inline_count];
  taken* taken_ = nullptr;  // inline_ or a heap array of the call's count; nullptr: nothing taken
  int n_ = 0;               // entries of taken_ in use
  const MPI_Request* requests_ = nullptr;  // the caller's array, as the call left it
};

}  // namespace sidecore::instrument::pmpi
