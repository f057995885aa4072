// The progression engine as the runtime sees it: one libfabric RDM endpoint per process, tagged point-to-point
// requests named by handles, and a progress function that either the application threads call (mode off) or a
// dedicated, pinned thread calls in a loop (mode core). The same code runs in both modes: only who calls
// progress() changes. Behind this header (progress/src/, one file per concept; docs/architecture.md) the engine
// is one object, engine_core; nothing here exposes its state, so the runtime reads requests through the functions
// below, by handle.
#pragma once

#include <mpi.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

struct fi_info;

namespace sidecore::progress {

enum class idle_policy { spin, block, hybrid };

struct engine_config {
  std::string provider;              ///< libfabric provider name; empty: shm on one host, else tcp;ofi_rxm
  idle_policy idle = idle_policy::hybrid;
  std::uint32_t spin_us = 5000;      ///< hybrid: spin this long before blocking
  /// hybrid, progress thread: after this long idle, yield the core on every spinning pass (a thread sharing
  /// the core runs at once; measured on 2 cores, a woken peer otherwise waited up to a time slice).
  std::uint32_t yield_us = 2;
  std::uint32_t block_us = 1000;     ///< longest single sleep when blocked (incoming data is seen within it)
  std::size_t queue_capacity = 4096; ///< submission queue entries
  std::size_t cq_batch = 16;         ///< completions read per fi_cq_read
  std::size_t eager_max = 8192;      ///< largest message sent eagerly (header + data, one message); larger: rendezvous
  std::size_t recv_buffers = 64;     ///< receive buffers posted for eager and control messages
  /// Flow control per peer (progress/src/credits.hpp): eager messages and ready-to-sends a peer has not read out
  /// of its receive buffers yet (more wait at the sender), and eager messages it holds unexpected (more go by
  /// rendezvous).
  std::size_t send_credits = 64;
  std::size_t eager_credits = 16;
  /// The application promises that no two of its threads call sidecore at the same time (MPI thread level
  /// SINGLE, FUNNELED or SERIALIZED): mode off's lock is then biased to the thread that opens the engine, which
  /// takes it without a locked instruction until another thread calls; a thread that finds it held by another
  /// caller says so once on stderr (the promise broken). Calls stay correct either way.
  bool serialized_callers = false;
  /// Mode core: an application thread that posts or waits for an eager-sized operation while no other
  /// application thread progresses does the work itself (posts, polls, matches) and the progress thread steps
  /// aside until the application has made no call for caller_quiet_ns; rendezvous transfers stay with the
  /// progress thread (caller_progress.cpp). false: every operation goes through the progress thread (two
  /// crossings between cores per message).
  bool caller_progress = true;
  /// Messages to this process are matched by the engine and copied once (no provider). false: they go through
  /// the provider like any other, which lets one rank measure the provider's path (bench/run-instructions.sh).
  bool self_path = true;
  /// The most requests in flight at once (started, not yet read by wait/test or dropped), rounded up to a
  /// multiple of 1024, at most 4,194,304 (the default): their slots are never freed while the engine lives, so
  /// this bounds its memory (320 bytes a request). A start beyond it throws too_many_requests.
  std::uint32_t max_requests = 4194304;
};

/// Thrown by the calls that start a request (start_send, start_recv, coll_executor::start) when
/// engine_config::max_requests requests are in flight; what() says how many. Nothing was started.
struct too_many_requests : std::runtime_error {
  too_many_requests(const std::string& what, std::size_t limit) : std::runtime_error(what), capacity(limit) {}
  std::size_t capacity;  ///< engine_config::max_requests
};

/// Counters of the progress loop (the progress thread's own accounting in core mode).
struct engine_stats {
  std::uint64_t polls = 0;        ///< progress passes
  std::uint64_t completions = 0;  ///< completions delivered
  std::uint64_t busy_ns = 0;      ///< progress thread: time in passes that found work
  std::uint64_t idle_ns = 0;      ///< progress thread: time spinning or blocked with nothing to do
  std::uint64_t blocks = 0;       ///< times the progress thread blocked on the wait object
  std::uint64_t yields = 0;       ///< times the idle progress thread yielded its core (hybrid)
  std::uint64_t eagain = 0;       ///< operations the provider refused for a while (retried from the backlog)
  std::uint64_t queue_full = 0;   ///< submissions that found the queue full
  std::uint64_t unexpected = 0;   ///< messages that arrived before a matching receive was posted
  std::uint64_t rendezvous = 0;   ///< messages sent by rendezvous (ready-to-send, clear-to-send, data)
  std::uint64_t dropped = 0;      ///< messages dropped: malformed, of another wire version, or for no pending send
};

/// A doorbell: the futex word a blocked progressor of one process sleeps on. The runtime places one per rank in
/// memory shared by the ranks of a node (an MPI shared window), so a peer on the same node can wake a sleeper
/// the moment it sends to it: neither shm nor tcp;ofi_rxm in libfabric 1.17 wake a thread blocked in
/// fi_cq_sread when a message arrives (measured: shm never returns before its timeout).
struct alignas(64) doorbell {
  std::atomic<std::uint32_t> seq{0};       ///< futex word, bumped by every ring
  std::atomic<std::uint32_t> sleepers{0};  ///< threads of the owner sleeping on seq
  /// The owner's process id, written once before the doorbells are shared: a peer on the node that waits on
  /// this process checks with kill(pid, 0) whether it still lives (progress/src/liveness.cpp). 0: unknown.
  std::atomic<std::int32_t> pid{0};
  /// 1 once the owner's finalize is past its last wait for the other ranks (engine::mark_ended): a peer that then
  /// finds the process gone knows it ended, and does not count it as failed.
  std::atomic<std::uint32_t> ended{0};
};

/// Thrown for libfabric or bootstrap failures while the engine is set up (engine::open, connect); the runtime
/// maps it to sidecore::error(errc::transport). Once set up, the engine never throws on the progress path: a
/// failure completes the requests it concerns with req_result::transport (engine::describe says why).
struct transport_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Thrown by engine::open when a setting of engine_config does not fit the provider it opened. what() names the
/// member and its value, then the reason; `reason` alone lets a caller name its own setting instead.
struct config_error : std::invalid_argument {
  config_error(const char* member, std::size_t value, std::string why, std::size_t largest_fitting)
      : std::invalid_argument(std::string(member) + "=" + std::to_string(value) + " " + why),
        field(member), reason(std::move(why)), largest(largest_fitting) {}
  const char* field;   ///< the engine_config member, e.g. "recv_buffers"
  std::string reason;  ///< why the value does not fit, ending with what would
  std::size_t largest; ///< the largest value that fits
};

/// fi_getinfo for what the engine needs from `provider` (tagged RDM, send-after-send ordering,
/// FI_THREAD_DOMAIN); an empty `provider` asks every provider. Returns fi_getinfo's code; on 0, *info is the
/// provider's list (free it with fi_freeinfo). The engine opens the first entry; `sidecore info` shows it.
int query_provider(const std::string& provider, struct fi_info** info);
/// Why sidecore refuses `provider` (a name as fi_info gives it, layered ones included: "udp;ofi_rxd"), although
/// fi_getinfo offers it; nullptr when it is accepted. engine::open throws transport_error with this reason.
[[nodiscard]] const char* provider_refusal(const std::string& provider) noexcept;

// ---- request handles ----------------------------------------------------------------------------------------

/// A send that completed inside isend (its data was injected: the buffer is reusable and no completion will
/// come) has no slot: its handle carries the byte count, and waiting on it only reads that back.
inline constexpr std::uint64_t inline_bit = std::uint64_t{1} << 63;
[[nodiscard]] constexpr std::uint64_t inline_handle(std::size_t bytes) noexcept { return inline_bit | bytes; }
/// True for a handle made by inline_handle (not for ~0, the runtime's consumed mark).
[[nodiscard]] constexpr bool is_inline(std::uint64_t handle) noexcept {
  return (handle & inline_bit) != 0 && handle != ~std::uint64_t{0};
}
[[nodiscard]] constexpr std::size_t inline_bytes(std::uint64_t handle) noexcept {
  return static_cast<std::size_t>(handle & ~inline_bit);
}
/// The engine never makes a handle with bit 62 set (slot generations have 30 bits): the runtime names its own
/// objects (persistent requests) with it, in the same 64-bit request type.
inline constexpr std::uint64_t runtime_bit = std::uint64_t{1} << 62;

/// What a request is: a send, a receive, or a schedule (a collective's rounds of child operations).
enum class req_kind : std::uint8_t { send, recv, schedule };
/// Completion result, mapped by the runtime to sidecore::errc. `peer_failed`: the peer the request involves (for
/// an any-source receive: a peer that died while it was posted; for a schedule: a rank of its communicator) is
/// dead (progress/src/liveness.cpp); peer_index names it. `invalid`: a schedule found that the ranks' arguments
/// disagree (a collective whose counts, types, operators or roots differ between ranks; the collective layer says
/// which, progress/coll/). transport and peer_failed are adjacent: read_result tests both with one comparison.
enum class req_result : std::uint8_t { ok = 0, truncated, canceled, transport, peer_failed, invalid };
/// For a request that completed with req_result::transport: the libfabric call that failed, an error completion
/// the provider delivered for it, or a failure of the whole engine (its completion queue) while it was in flight.
/// `fds_used_up`: a send to a peer the provider refused (EAGAIN) for 2 s while this process had at most 2 file
/// descriptors free (RLIMIT_NOFILE): tcp;ofi_rxm then cannot make the connection and fails its accept() without a
/// word, so the send would wait for ever. The send fails, with every other send to that peer that has given the
/// provider nothing yet (fi_err FI_EAGAIN, peer_index the peer); the engine and the peer stay usable (the peer is not
/// taken for dead: a later send to it is tried again, and gets through once descriptors are free). A receive is
/// never failed for it, as its peer may not have sent yet: with the descriptors used up while a receive waits and
/// nothing completes for 2 s, the engine says so once on stderr.
enum class failure : std::uint8_t {
  none, fi_tsend, fi_tsendv, fi_tinject, fi_trecv, error_completion, engine, fds_used_up
};

/// What a completed request reports (engine::wait, engine::test). Filled by the engine, which writes what, fi_err
/// and peer_index only for req_result::transport and peer_failed (no default values: the small-message path writes
/// only what it reports).
struct completion {
  std::size_t bytes;   ///< bytes sent, or received (truncated: what the buffer took; canceled: 0)
  std::uint64_t tag;   ///< recv: the message's sidecore tag (tag.hpp)
  int source;          ///< recv: the sender's rank in its communicator; -1 for sends
  req_kind kind;
  req_result result;
  failure what;        ///< transport: the step that failed
  int fi_err;          ///< transport: the provider's error code (positive), 0 if none
  int peer_index;      ///< transport, peer_failed: the peer's engine address index, -1 if none
  /// Written only for the children of a schedule (schedule::on_child_complete): for a receive, the signature the
  /// matched message carried (start_child_send's `sig`; 0 when it carried none).
  std::uint64_t sig;
};

enum class test_result { stale, pending, done };

/// Instrumentation's view of a transfer (engine::set_xfer_hook).
struct xfer_event {
  std::uint64_t id;             ///< the request's handle
  std::size_t bytes;            ///< the posted size
  int peer;                     ///< rank in the caller's communicator
  std::uint32_t owner_thread;   ///< instrumentation id of the thread that started it
  /// What the transfer is part of: 0 point-to-point, else a collective of kind k (common/schedule.hpp) as k + 1
  /// (schedule::set_xfer_op): instrument::op_kind's numbering.
  std::uint8_t op;
};

/// A name for a POSIX shared-memory object of this process that no object left behind by a killed process can
/// hold: "sidecore-<pid>-<64 random bits, hex><suffix>" (`make clean-shm` reads the pid after "sidecore-").
[[nodiscard]] std::string unique_shm_name(const char* suffix);

class engine {
 public:
  /// Opens fabric, domain, completion queue, address vector and endpoint (local, no communication), and posts
  /// the receive buffers. Throws transport_error naming the provider and the failing call.
  [[nodiscard]] static std::unique_ptr<engine> open(const engine_config& cfg);
  /// Stops the progress thread and closes the endpoint. Requests still in flight are dropped.
  virtual ~engine();
  engine(const engine&) = delete;
  engine& operator=(const engine&) = delete;

  /// Collective over `comm`: exchanges endpoint names and fills the address vector (rank i of comm is
  /// address(i)). Throws transport_error.
  void connect(MPI_Comm comm);
  /// This endpoint's libfabric name (what connect() exchanges).
  [[nodiscard]] std::vector<char> endpoint_name() const;
  /// Fills the address vector from `count` endpoint names back to back, each as endpoint_name() gives it (address
  /// index i is the i-th); `me` is this process's index. What connect() does after its exchange; alone, it
  /// connects an engine to itself (its own name, `count` 1, `me` 0) without MPI. Throws transport_error.
  void add_addresses(const char* names, std::size_t count, int me);

  [[nodiscard]] const std::string& provider() const noexcept { return provider_; }
  [[nodiscard]] const std::string& fabric_name() const noexcept { return fabric_name_; }
  [[nodiscard]] std::size_t max_msg_size() const noexcept { return max_msg_size_; }
  [[nodiscard]] std::size_t inject_size() const noexcept { return inject_size_; }
  /// Largest message sent eagerly (engine_config::eager_max, lowered when the provider cannot send two iovecs).
  [[nodiscard]] std::size_t eager_max() const noexcept { return eager_max_; }

  /// Starts an operation; returns its handle (never 0). Throws too_many_requests when engine_config::max_requests
  /// are in flight.
  /// With `may_inline`, a send whose header and data fit one inject and that nothing queued holds back completes
  /// at once, unless instrumentation is on: its handle is inline_handle(len) (is_inline; no slot, so a copy of it
  /// waited on again cannot be recognised as stale).
  /// `dest` is an engine address index (the rank in the connect() communicator); `peer` the rank in the
  /// caller's communicator (instrumentation only); `sender_rank` travels in the message header and is what the
  /// receiver's status reports as source.
  [[nodiscard]] std::uint64_t start_send(const void* buf, std::size_t len, int dest, std::uint64_t tag, int peer,
                                         int sender_rank, std::uint32_t owner_thread, bool may_inline = true);
  /// `source_index` is the engine address index of the source, or -1 for any source. `ignore` masks tag bits
  /// (any tag). Matching is sidecore's own (matching.cpp), in posting order against arrival order.
  [[nodiscard]] std::uint64_t start_recv(void* buf, std::size_t len, std::uint64_t tag, std::uint64_t ignore, int peer,
                                         int source_index, std::uint32_t owner_thread);

  // Reading requests. A handle names a live request from its start until its result is read (wait, or a test
  // that returns done) or it is orphaned; 0, a malformed handle, one already read, and an inline handle name none.

  /// Waits until the request completes, writes its result to `out` and frees it: the handle becomes stale.
  /// Mode off: progresses, and per the idle policy sleeps when nothing happens. Mode core: watches the request
  /// (spin, then sleep until the progress thread completes it); the progress thread does the rest, unless the
  /// request is one a caller may progress (caller_progress.cpp). False, and nothing waited, if the handle names no
  /// live request.
  [[nodiscard]] bool wait(std::uint64_t handle, completion& out);
  /// done: the request had completed; its result is in `out` and it is freed, as by wait. pending: not yet
  /// (nothing progressed here: call progress() in mode off). stale: the handle names no live request.
  [[nodiscard]] test_result test(std::uint64_t handle, completion& out) noexcept;
  /// True while the handle names a live request that has not completed.
  [[nodiscard]] bool pending(std::uint64_t handle) const noexcept;
  /// True while the handle names a live request (completed or not).
  [[nodiscard]] bool active(std::uint64_t handle) const noexcept;
  /// What the live request is; nullopt if the handle names none.
  [[nodiscard]] std::optional<req_kind> kind(std::uint64_t handle) const noexcept;
  /// The application drops a handle whose operation may still be in flight: freed now if complete, else by the
  /// engine when it completes. No effect on a handle that names no live request.
  void orphan(std::uint64_t handle) noexcept;
  /// Cancels a posted receive that no message matched yet (it completes as canceled); no effect on one already
  /// matched or complete. Returns once the engine has acted on it, so the request cannot be consumed and its slot
  /// reused meanwhile. False if the handle names no live request.
  bool cancel(std::uint64_t handle);
  /// A sentence saying why a request completed with req_result::transport ("fi_tsend to address 3 failed on
  /// provider 'tcp;ofi_rxm': Connection reset by peer (104)") or peer_failed (which address died, how it was
  /// seen); empty for any other result.
  [[nodiscard]] std::string describe(const completion& c) const;

  // Peer failure (progress/src/liveness.cpp; docs/failures.md). A peer found dead stays dead: every request
  // involving it completes with req_result::peer_failed, and later ones fail when the engine takes them.

  /// Addresses found dead so far, in the order they were found (any thread; a snapshot).
  [[nodiscard]] std::vector<int> failed_peers() const;
  /// How many addresses were found dead (any thread, one load).
  [[nodiscard]] std::size_t failed_peer_count() const noexcept;
  /// From now on (until called with false) the liveness checks look at every peer, not only those a pending request
  /// involves: finalize, which waits for every rank, calls it, and mode auto while it waits for an agreement of
  /// every rank. Not for a whole run: a remote peer that merely computes longer than SIDECORE_PEER_TIMEOUT without
  /// progressing would be taken for dead.
  void watch_all_peers(bool on = true) noexcept;
  /// Whether watch_all_peers() is on.
  [[nodiscard]] bool watching_all_peers() const noexcept;
  /// Says to the peers on this node (through this process's doorbell) that this process ends normally from now
  /// on: its finalize waits for nobody any more. A peer that finds it gone afterwards does not list it among the
  /// failed addresses; its requests still involving this process complete with req_result::peer_failed, the
  /// reason saying it finalized. Finalize calls it; without shared doorbells it does nothing.
  void mark_ended() noexcept;
  /// SIDECORE_PEER_TIMEOUT: a peer on another node (no doorbell, so no process id to check) from which nothing
  /// arrived for this long while a request involving it is pending is declared dead. 0 (the default): never by
  /// time; only the provider's errors on that peer say it died. Call before traffic.
  void set_peer_timeout(double seconds) noexcept;

  /// Doorbells shared with the ranks of this node: `mine` is this process's, `peers[i]` that of address index i
  /// (nullptr for ranks on other nodes, whose messages are seen within block_us instead). Without a call, a
  /// process-private doorbell serves (submissions from this process's threads still wake the sleeper). Call
  /// before traffic; the memory must outlive the engine.
  void set_doorbells(doorbell* mine, std::vector<doorbell*> peers);

  /// The node-local fast path (progress/src/node_rings.hpp): bytes of one ring, its control lines and data, for a
  /// rank whose largest eager message is `eager_max` bytes. The runtime places one per ordered pair of the node's
  /// ranks in memory they share, 64-byte aligned.
  [[nodiscard]] static std::size_t node_ring_bytes(std::size_t eager_max) noexcept;
  /// Makes the `bytes` at `ring` an empty ring. Its owner (the reader) calls it before the memory is shared.
  static void init_node_ring(void* ring, std::size_t bytes) noexcept;
  /// Gives the engine its node's rings, by engine address index: `inbox[i]`, the ring address i writes to us (in
  /// our memory); `outbox[i]`, the ring we write to address i (in its memory); nullptr for addresses on other
  /// nodes. From then on every eager and control message to an address with a ring goes through it, and the
  /// progress pass reads the inboxes; rendezvous data still goes through the provider. A peer whose rings are too
  /// small for our largest eager message (a smaller SIDECORE_EAGER_MAX) keeps the provider. Call after
  /// connect_peers (its exchanges must go through the provider: shm maps a peer's region at the first) and before
  /// the progress thread starts.
  void set_node_rings(const std::vector<void*>& inbox, const std::vector<void*>& outbox);
  /// Collective over every rank (`nranks` addresses, this process's own index `me`). First one 0-byte message each
  /// way with every peer of `node_peers` (this node's ranks, `me` included or not), progressed until done: providers
  /// that set up a peer connection lazily on the first send (shm maps the peer's region and answers EAGAIN until the
  /// peer has progressed) would otherwise hold a rank's first messages back until it calls sidecore again. Then,
  /// every node peer having mapped this process's shm region, its name is removed from /dev/shm (no region outlives
  /// the job, even one killed by SIGKILL): `node_peers` must hold every rank that will ever talk to this one over
  /// shm. Then one message of each size class (above the inject size, 64 KiB, 256 KiB) around the ring of all
  /// ranks, from `me - 1` and to `me + 1`: providers that set up a protocol's buffers at its first message
  /// (tcp;ofi_rxm, whose pools belong to the endpoint) would otherwise delay that message, on every node.
  /// `timeout_s` > 0: throws transport_error naming the peer when the exchanges with it have not completed within
  /// that time (a link that is down: tcp;ofi_rxm answers every send with EAGAIN while its connect fails); 0: waits.
  void connect_peers(int me, const std::vector<int>& node_peers, int nranks, double timeout_s = 0);

  /// One progress pass if no other thread is progressing: post submissions, poll the CQ, advance schedules.
  /// Returns true when it found work. Never blocks, never throws.
  bool progress();
  /// Starts the progress thread; `on_start` runs first in that thread (pinning). Mode core.
  void start_thread(std::function<void()> on_start);
  void stop_thread();
  [[nodiscard]] bool thread_running() const noexcept;

  [[nodiscard]] engine_stats stats() const noexcept;
  /// Requests started and not yet freed (a scan: for reports at finalize, not for the hot path).
  [[nodiscard]] std::size_t requests_in_use() const noexcept;
  /// Of those, the ones the application started (a collective counts once, its own transfers not at all) and has not
  /// read the result of. Call it with no progress thread running (after stop_thread).
  [[nodiscard]] std::size_t operations_in_use() const noexcept;

  /// Instrumentation hooks, called when a transfer is handed to libfabric (begin) and when its completion is
  /// seen (either thread). Installed once by the runtime before any traffic.
  using xfer_hook = void (*)(const xfer_event& ev, bool begin);
  void set_xfer_hook(xfer_hook hook) noexcept;
  /// Called by the progress thread each time it turns idle (work the instrumentation can do for free then).
  using idle_hook = void (*)();
  void set_idle_hook(idle_hook hook) noexcept;

 protected:
  engine() = default;
  // Fixed at set-up; read inline by the runtime's argument checks.
  std::string provider_, fabric_name_;
  std::size_t max_msg_size_ = 0, inject_size_ = 0, eager_max_ = 0;
};

}  // namespace sidecore::progress
