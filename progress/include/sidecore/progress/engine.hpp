// The progression engine: one libfabric RDM endpoint per process, tagged point-to-point, a submission
// queue from application threads, and a progress function that either the application threads call
// (mode off) or a dedicated, pinned thread calls in a loop (mode core). The same code runs in both modes:
// only who calls progress() changes.
#pragma once

#include <mpi.h>
#include <rdma/fabric.h>
#include <rdma/fi_domain.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <sidecore/progress/mpmc_queue.hpp>
#include <sidecore/progress/request_pool.hpp>

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
  /// The application promises that no two of its threads call sidecore at the same time (MPI thread level
  /// SINGLE, FUNNELED or SERIALIZED): mode off then takes no lock, as MPI libraries do below THREAD_MULTIPLE.
  bool serialized_callers = false;
  /// Mode core: an application thread that posts or waits for an eager-sized operation while no other
  /// application thread progresses does the work itself (posts, polls, matches) and the progress thread steps
  /// aside until the application has made no call for caller_quiet_ns; rendezvous transfers stay with the
  /// progress thread (engine.cpp, "caller progress"). false: every operation goes through the progress thread
  /// (two crossings between cores per message).
  bool caller_progress = true;
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
};

/// A doorbell: the futex word a blocked progressor of one process sleeps on. The runtime places one per rank in
/// memory shared by the ranks of a node (an MPI shared window), so a peer on the same node can wake a sleeper
/// the moment it sends to it: neither shm nor tcp;ofi_rxm in libfabric 1.17 wake a thread blocked in
/// fi_cq_sread when a message arrives (measured: shm never returns before its timeout).
struct alignas(64) doorbell {
  std::atomic<std::uint32_t> seq{0};       ///< futex word, bumped by every ring
  std::atomic<std::uint32_t> sleepers{0};  ///< threads of the owner sleeping on seq
};

/// Thrown for libfabric or bootstrap failures; the runtime maps it to sidecore::error(errc::transport).
struct transport_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// fi_getinfo for what the engine needs from `provider` (tagged RDM, send-after-send ordering,
/// FI_THREAD_DOMAIN). Returns fi_getinfo's code; on 0, *info is the provider's
/// list (free it with fi_freeinfo). The engine opens the first entry; `sidecore info` shows it.
int query_provider(const std::string& provider, struct fi_info** info);

class engine {
 public:
  /// Opens fabric, domain, completion queue, address vector and endpoint (local, no communication).
  /// Throws transport_error naming the provider and the failing call.
  explicit engine(const engine_config& cfg);
  /// Collective over `comm`: exchanges endpoint names and fills the address vector (rank i of comm is
  /// address(i)). Throws transport_error.
  void connect(MPI_Comm comm);
  ~engine();
  engine(const engine&) = delete;
  engine& operator=(const engine&) = delete;

  [[nodiscard]] const std::string& provider() const noexcept { return provider_; }
  [[nodiscard]] const std::string& fabric_name() const noexcept { return fabric_name_; }
  [[nodiscard]] std::size_t max_msg_size() const noexcept { return max_msg_size_; }
  [[nodiscard]] std::size_t inject_size() const noexcept { return inject_size_; }
  /// Largest message sent eagerly (engine_config::eager_max, lowered when the provider cannot send two iovecs).
  [[nodiscard]] std::size_t eager_max() const noexcept { return eager_max_; }

  /// Starts an operation; returns its handle (never 0). Throws std::bad_alloc when the pool is exhausted.
  /// With `may_inline`, a send whose header and data fit one inject and that nothing queued holds back completes
  /// at once, unless instrumentation is on: its handle is inline_handle(len) (is_inline; no slot, lookup() gives
  /// nullptr, so a copy of it waited on again cannot be recognised as stale).
  /// `dest` is an engine address index (the rank in the connect() communicator); `peer` the rank in the
  /// caller's communicator (instrumentation only); `sender_rank` travels in the message header and is what the
  /// receiver's status reports as source.
  [[nodiscard]] std::uint64_t start_send(const void* buf, std::size_t len, int dest, std::uint64_t tag, int peer,
                                         int sender_rank, std::uint32_t owner_thread, bool may_inline = true);
  /// `source_index` is the engine address index of the source, or -1 for any source. `ignore` masks tag bits
  /// (any tag). Matching is sidecore's own (engine.cpp), in posting order against arrival order.
  [[nodiscard]] std::uint64_t start_recv(void* buf, std::size_t len, std::uint64_t tag, std::uint64_t ignore, int peer,
                                         int source_index, std::uint32_t owner_thread);

  /// Doorbells shared with the ranks of this node: `mine` is this process's, `peers[i]` that of address index i
  /// (nullptr for ranks on other nodes, whose messages are seen within block_us instead). Without a call, a
  /// process-private doorbell serves (submissions from this process's threads still wake the sleeper). Call
  /// before traffic; the memory must outlive the engine.
  void set_doorbells(doorbell* mine, std::vector<doorbell*> peers);

  /// Collective among `peers` (address indices, this process's own index `me` excluded or not): one 0-byte
  /// message each way with every peer, progressed until done. Providers that set up a peer connection lazily
  /// on the first send (shm maps the peer's region and answers EAGAIN until the peer has progressed) would
  /// otherwise hold a rank's first messages back until it calls sidecore again.
  void connect_peers(int me, const std::vector<int>& peers);
  /// Cancels a posted receive that no message matched yet (it completes as canceled); no effect on one already
  /// matched. Returns once the engine has acted on it, so the request cannot be consumed and its slot reused
  /// meanwhile.
  void cancel(req* r);

  [[nodiscard]] req* lookup(std::uint64_t handle) const noexcept { return pool_.lookup(handle); }
  [[nodiscard]] static bool is_complete(const req* r) noexcept {
    return r->state.load(std::memory_order_acquire) == static_cast<std::uint32_t>(req_state::complete);
  }
  /// Releases a completed request (after its result was read).
  void release(req* r) noexcept { pool_.release(r); }
  /// The application drops a handle whose operation may still be in flight: freed now if complete,
  /// else by the engine when it completes.
  void orphan(req* r) noexcept;

  /// One progress pass if no other thread is progressing: post submissions, poll the CQ.
  /// Returns true when it found work. Never blocks.
  bool progress();
  /// Application-side wait for r. Mode off: progress, and per the idle policy sleep when nothing happens.
  /// Mode core: watch the request's state (spin, then per the idle policy sleep until the progress thread
  /// completes it); the progress thread does the rest.
  void wait_for(req* r);

  /// Starts the progress thread; `on_start` runs first in that thread (pinning). Mode core.
  void start_thread(std::function<void()> on_start);
  void stop_thread();
  [[nodiscard]] bool thread_running() const noexcept { return running_.load(std::memory_order_acquire); }

  [[nodiscard]] engine_stats stats() const noexcept;
  [[nodiscard]] std::size_t requests_in_use() const noexcept { return pool_.in_use(); }

  /// Instrumentation hooks, called with the request when the transfer is handed to libfabric and when its
  /// completion is seen (either thread). Installed once by the runtime before any traffic.
  using xfer_hook = void (*)(const req* r, bool begin);
  void set_xfer_hook(xfer_hook hook) noexcept { xfer_hook_ = hook; }
  /// Called by the progress thread each time it turns idle (work the instrumentation can do for free then).
  using idle_hook = void (*)();
  void set_idle_hook(idle_hook hook) noexcept { idle_hook_ = hook; }

 private:
  // Operations the provider refused for now (EAGAIN, or ENOMEM when its receive queue is full), one FIFO per
  // direction: order is kept among sends and among receives, and a full receive queue never holds sends back
  // (a rank that pre-posts many receives and then sends would otherwise deadlock with its peer).
  struct backlog {
    std::uint32_t head = 0, tail = 0;  // index + 1, 0 = empty
  };
  // A receive buffer for eager and control messages (contiguous array: a completion's op_context inside it is
  // one of these, anything else is a req).
  struct bounce {
    fi_context2 ctx;  // first member
    char* buf = nullptr;
  };
  // A message that arrived before a matching receive (eager data copied out, or a ready-to-send).
  struct unexpected_msg {
    wire_hdr hdr;
    char* data = nullptr;  // eager: hdr.size bytes (malloc)
    unexpected_msg* next = nullptr;
  };
  // may_lock false: queue it without trying the lock (the caller just failed to get it).
  void submit(std::uint32_t entry, bool may_lock = true);
  enum class inline_result { sent, no_lock, refused };
  inline_result send_inline(const void* buf, std::size_t len, int dest, std::uint64_t tag, int sender_rank);
  [[gnu::noinline]] std::uint64_t start_send_slot(const void* buf, std::size_t len, int dest, std::uint64_t tag,
                                                  int peer, int sender_rank, std::uint32_t owner_thread,
                                                  bool may_lock);
  void do_cancel(req* r);          // caller holds the lock
  void accept_recv(req* r);        // caller holds the lock: match against unexpected messages, else post
  void on_message(bounce* b, std::size_t len);  // caller holds the lock
  void deliver_eager(req* r, const wire_hdr& h, const char* data);
  void start_rendezvous(req* r, const wire_hdr& h);
  req* match_posted(const wire_hdr& h) noexcept;
  bool post_bounce(bounce* b);     // caller holds the lock; false on EAGAIN
  bool repost_bounces();           // caller holds the lock
  bool inject_hdr(const wire_hdr& h, fi_addr_t dest);  // caller holds the lock; false on EAGAIN
  wire_hdr eager_hdr(std::uint64_t tag, std::size_t len, std::uint32_t sender_rank) const noexcept;
  ssize_t inject_eager(const wire_hdr& h, const void* data, fi_addr_t dest);  // caller holds the lock
  // The progress lock (0 free, lock_thread: the progress thread, lock_caller: an application thread). Mode off:
  // a caller takes it around each pass, unless callers are serialized by the application (no atomic then). Mode
  // core: the progress thread holds it while it progresses; with caller progress, it lets an application thread
  // that asks (caller_want_) take it (engine.cpp, "caller progress").
  static constexpr std::uint32_t lock_thread = 1, lock_caller = 2;
  // Takes the lock for `who` if it is free (a load first: a failing attempt does not take the line).
  bool lock_as(std::uint32_t who) noexcept {
    std::uint32_t expected = 0;
    return progress_lock_.load(std::memory_order_relaxed) == 0 &&
           progress_lock_.compare_exchange_strong(expected, who, std::memory_order_acquire,
                                                  std::memory_order_relaxed);
  }
  bool try_lock() noexcept {
    if (cfg_.serialized_callers && !running_.load(std::memory_order_relaxed)) return true;
    return lock_as(lock_caller);
  }
  void unlock() noexcept {
    if (cfg_.serialized_callers && !running_.load(std::memory_order_relaxed)) return;
    progress_lock_.store(0, std::memory_order_release);
  }
  bool thread_try_lock() noexcept { return lock_as(lock_thread); }
  bool caller_lock() noexcept;     // mode core, caller progress: take the lock from an idle progress thread
  void caller_unlock() noexcept;   // and give it back, marking the call (the progress thread's quiet clock)
  void park();                     // progress thread: step aside while application threads progress
  bool progress_locked();          // caller holds the lock
  // Caller holds the lock: posts what application threads queued, in order; true if there was any. Inline: most
  // passes find the queue empty, and then cost one load.
  bool drain_submissions() { return !queue_.empty_hint() && drain_queue(); }
  bool drain_queue();              // caller holds the lock: drain_submissions' work once the queue has entries
  bool post(req* r);               // caller holds the lock; false on EAGAIN
  void post_or_backlog(req* r);    // caller holds the lock
  bool retry_backlog();            // caller holds the lock
  bool retry_backlog(backlog& b);  // caller holds the lock
  int poll_cq();                   // caller holds the lock
  void handle_entries(const struct fi_cq_tagged_entry* e, int n);
  void handle_error();
  void begin_xfer(req* r) noexcept;  // XFER_BEGIN once per request (instrumentation), when data can move
  void complete(req* r) noexcept;
  void name_shm_endpoint();        // shm: a region name no leftover of a killed process can collide with
  void sleep_locked(bool as_thread);  // caller holds the lock; sleeps up to block_us or until a submission
  void thread_main(std::function<void()> on_start);
  void wake() noexcept;                       // ring our own doorbell
  void ring_peer(int index) noexcept;         // ring a peer's doorbell if it sleeps
  void flush_rings() noexcept;                // progress thread: the wake-ups callers left to it

  engine_config cfg_;
  std::string provider_, fabric_name_;
  std::size_t max_msg_size_ = 0, inject_size_ = 0, eager_max_ = 0;
  std::uint32_t my_index_ = 0;  // this process's engine address index
  struct fi_info* info_ = nullptr;
  struct fid_fabric* fabric_ = nullptr;
  struct fid_domain* domain_ = nullptr;
  struct fid_cq* cq_ = nullptr;
  struct fid_av* av_ = nullptr;
  struct fid_ep* ep_ = nullptr;
  std::vector<fi_addr_t> addrs_;

  request_pool pool_;
  mpmc_queue queue_;
  // One line, written by application threads, read by the progress thread (while parked: once per poll period).
  alignas(64) std::atomic<std::uint32_t> progress_lock_{0};
  std::atomic<std::uint32_t> caller_want_{0};   // an application thread asks the progress thread for the lock
  std::atomic<std::uint32_t> caller_calls_{0};  // bumped by every caller_unlock (racy increments: a change is all)
  // Its own line, written only when a caller queues work for the progress thread while it is parked (a
  // rendezvous transfer): the parked thread reads it on every spin (an L1 hit until written) and takes over at once.
  alignas(64) std::atomic<std::uint32_t> caller_handback_{0};
  // Same line: an application thread progressing for itself (caller progress) sets bits in ring_words_ (one per
  // peer) and this flag, and leaves the peers' wake-up syscalls to the progress thread (ring_peer).
  std::atomic<std::uint32_t> rings_pending_{0};
  alignas(64) char lock_line_end_ = 0;
  std::unique_ptr<std::atomic<std::uint64_t>[]> ring_words_;  // (peers + 63) / 64 words
  std::size_t ring_nwords_ = 0;
  doorbell private_bell_;
  doorbell* bell_ = &private_bell_;
  std::vector<doorbell*> peer_bells_;
  backlog backlog_[2];  // [0] sends, [1] receives
  // sidecore matching (under the progress lock)
  std::uint32_t posted_head_ = 0, posted_tail_ = 0;  // posted receives, in posting order (index + 1)
  unexpected_msg* unexp_head_ = nullptr;
  unexpected_msg* unexp_tail_ = nullptr;
  std::vector<bounce> bounces_;
  std::vector<char> bounce_mem_;
  std::vector<bounce*> bounces_unposted_;  // refused by the provider for now (EAGAIN / ENOMEM)
  // Rendezvous data receives posted to the provider, and how many may be: the provider's receive queue
  // (rx_attr->size) less the receive buffers, so that data receives can never crowd the receive buffers out.
  std::size_t rdv_recvs_posted_ = 0, rdv_recv_limit_ = 1;
  std::vector<char> inject_buf_;           // header + data of an injected eager message
  std::atomic<bool> stop_{false};
  std::atomic<bool> running_{false};
  std::thread thread_;
  xfer_hook xfer_hook_ = nullptr;
  req* own_ = nullptr;  // the request the caller is posting itself (its handle is not out yet)
  idle_hook idle_hook_ = nullptr;
  std::atomic<bool> warned_full_{false};

  // statistics (written under the progress lock or by the progress thread; read racily for reports)
  std::atomic<std::uint64_t> polls_{0}, completions_{0}, busy_ns_{0}, idle_ns_{0}, blocks_{0}, yields_{0}, eagain_{0}, queue_full_{0},
      unexpected_{0}, rendezvous_{0};
};

}  // namespace sidecore::progress
