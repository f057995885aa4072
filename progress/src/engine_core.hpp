// The engine's one object: its state, grouped by concept, and its internal steps. The state has to live together
// (one progress pass touches the pool, the queue, the lock line, the matching lists and the backlogs), but each
// concept's functions live in the file named in its heading below, and each concept's state is a struct of its
// own header where it has more than a field or two. Internal to progress/: the runtime sees engine.hpp only, and
// progress/'s own code (schedules, their tests) reaches the core through core_of().
#pragma once

#include <rdma/fabric.h>
#include <rdma/fi_tagged.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include <sidecore/progress/engine.hpp>

#include "backlog.hpp"
#include "copy.hpp"
#include "credits.hpp"
#include "doorbell.hpp"
#include "endpoint.hpp"
#include "fd_watch.hpp"
#include "liveness.hpp"
#include "matching.hpp"
#include "mpmc_queue.hpp"
#include "node_rings.hpp"
#include "progress_lock.hpp"
#include "request_pool.hpp"
#include "rx_buffers.hpp"
#include "schedule.hpp"
#include "status.hpp"
#include "wire.hpp"

namespace sidecore::progress {

// Counters written only by the holder of the progress lock (or the progress thread): a relaxed load and store
// instead of a locked read-modify-write on the hot path; readers tolerate a stale value.
inline void bump(std::atomic<std::uint64_t>& c, std::uint64_t by = 1) noexcept {
  c.store(c.load(std::memory_order_relaxed) + by, std::memory_order_relaxed);
}

class engine_core final : public engine {
 public:
  explicit engine_core(const engine_config& cfg);  // engine.cpp
  ~engine_core() override;

  // ---- progress lock (progress_lock.hpp; caller progress's half in caller_progress.cpp) ----------------------
  // Mode off, an application thread: the lock if free. Below MPI_THREAD_MULTIPLE the engine's owner takes it
  // without a locked instruction while the bias lasts (progress_lock::take_owner), and the first other thread ends
  // the bias. A thread that finds the lock held by another caller, or the owner inside, proves the application's
  // promise of one calling thread at a time broken (callers_not_serialized says so once).
  // Inlined at every call (out of line it cost each 8-byte round trip 26-28 instructions); the rare paths are not.
  [[gnu::always_inline]] progress_guard lock_caller() noexcept {
    switch (lock.take_owner()) {
      case progress_lock::owner_take::taken: return {lock, holder::owner};
      case progress_lock::owner_take::held: callers_not_serialized(); return {};
      case progress_lock::owner_take::not_owner: break;
    }
    if (lock.take(progress_lock::caller)) [[likely]] {
      if (lock.biased()) [[unlikely]]
        caller_ends_bias();
      return {lock, holder::caller};
    }
    if (serialized.load(std::memory_order_relaxed) && !running.load(std::memory_order_relaxed)) [[unlikely]]
      callers_not_serialized();
    return {};
  }
  // The first caller that is not the owner ends the bias (progress_lock::end_bias); the owner inside then: the
  // promise broken (callers_not_serialized).
  [[gnu::noinline]] void caller_ends_bias() noexcept {
    if (lock.end_bias()) callers_not_serialized();
  }
  // Two application threads called at once although MPI's thread level says they do not (the application asked for
  // less than MPI_THREAD_MULTIPLE): says so once on stderr.
  void callers_not_serialized() noexcept;  // engine.cpp
  [[nodiscard]] bool callers_serialized() const noexcept { return serialized.load(std::memory_order_relaxed); }
  // Mode core, caller progress: asks the progress thread to step aside (progress_lock::take_caller_core).
  progress_guard lock_caller_core() noexcept {
    if (lock.take_caller_core()) return {lock, holder::caller_core};
    return {};
  }
  // An application thread that may progress for itself now: mode off, or mode core with caller progress.
  progress_guard lock_for_caller() noexcept {
    if (!running.load(std::memory_order_relaxed)) return lock_caller();
    if (cfg.caller_progress) return lock_caller_core();
    return {};
  }
  // Mode off, an application thread that must progress now (cancel): waits for the lock.
  progress_guard lock_caller_wait() noexcept {
    for (;;) {
      if (progress_guard g = lock_caller()) return g;
      cpu_relax();
    }
  }

  // ---- submission (submit.cpp) ----------------------------------------------------------------------------
  enum class inline_result { sent, no_lock, refused };
  inline_result send_inline(const void* buf, std::size_t len, int dest, std::uint64_t tag, int sender_rank);
  [[gnu::noinline]] std::uint64_t start_send_slot(const void* buf, std::size_t len, int dest, std::uint64_t tag,
                                                  int peer, int sender_rank, std::uint32_t owner_thread,
                                                  bool may_lock);
  // Hands an entry (a request index, or one with cancel_bit) to whoever progresses. may_lock false: queue it
  // without trying the lock (the caller just failed to get it).
  void submit(std::uint32_t entry, bool may_lock = true);
  bool start_while_asleep(std::uint32_t entry);  // mode core: a caller starts a schedule itself (submit.cpp)
  [[nodiscard]] bool thread_needed() const noexcept;  // work only the progress thread would do now (submit.cpp)
  // start_while_asleep: a child for `peer` whose reply will not ring our doorbell (another node's rank, or this
  // process) needs the thread awake.
  void note_caller_child(int peer) noexcept {
    const auto i = static_cast<std::size_t>(peer);
    if (peer < 0 || i >= bells.peers.size() || !bells.peers[i] || bells.peers[i] == bells.mine)
      caller_start_needs_thread = true;
  }
  // start_while_asleep: a schedule leaves the rest of its advance (a local step larger than caller_step_max: a copy
  // or a reduction the application thread would do instead of computing) to the progress thread, woken for it.
  [[nodiscard]] bool caller_may_do(std::size_t bytes) const noexcept {
    return !caller_starting || bytes <= caller_step_max;
  }
  void leave_to_thread(schedule& s) noexcept {
    caller_start_needs_thread = true;
    ready.push(&s);
  }
  // Caller holds the lock: posts what application threads queued, in order; true if there was any. Inline: most
  // passes find the queue empty, and then cost one load.
  bool drain_submissions() { return !queue.empty_hint() && drain_queue(); }
  bool drain_queue();  // caller holds the lock: drain_submissions' work once the queue has entries
  // Caller holds the lock: what other threads queued first (one thread's operations keep their order), then r, a
  // request the caller started (own: its handle is not out yet). False, r not taken, when the queue still holds an
  // entry after draining: one being pushed (its cell taken, its value not yet there) stops the drain, and this
  // thread's own earlier request may wait behind it; r then goes into the queue after it (submit).
  [[nodiscard]] bool accept_after_queue(req* r) {
    drain_submissions();
    if (!queue.empty_hint()) [[unlikely]]
      return false;
    own = r;
    accept(r);
    own = nullptr;
    return true;
  }
  // The holder of the progress lock takes a started request: a receive into matching, a send into the protocol, a
  // schedule onto the ready list. Once the engine failed or a peer died, accept_refused looks at it first. Inline:
  // on the small-message path (submit), where an out-of-line call cost 7 instructions per round trip.
  void accept(req* r) {
    if (refusing) [[unlikely]] {
      if (accept_refused(r)) return;
    }
    if (r->op == req_kind::recv) {
      accept_recv(r);
    } else if (r->op == req_kind::send) {
      r->stage.store(req_stage::taken, std::memory_order_relaxed);
      post_or_backlog(r);
    } else {
      accept_schedule(r);
    }
  }
  [[gnu::cold, gnu::noinline]] bool accept_refused(req* r) noexcept;  // submit.cpp
  // Who may progress a request of `len` bytes: the policy, applied once when it starts (request.hpp, progressor).
  [[nodiscard]] progressor progressor_for(std::size_t len) const noexcept {
    return len < caller_limit ? progressor::any : progressor::thread;
  }
  // A send's first step: to this process, matched and copied here (no provider, one copy); else eager or
  // rendezvous by size.
  [[nodiscard]] req_act send_act(std::size_t len, int dest) const noexcept {
    if (static_cast<std::uint32_t>(dest) == self_index) [[unlikely]] return req_act::self;
    return len <= eager_max_ ? req_act::eager : req_act::rts;
  }
  static constexpr std::uint32_t cancel_bit = 1U << 31;
  void cancel_req(req* r);  // an application thread: returns once the engine has acted on the cancel

  // ---- protocol: eager and rendezvous steps, incoming messages (protocol.cpp) ------------------------------
  // Posts the request's next step; caller holds the lock. retry: refused for now (it waits in a backlog). fatal: the
  // provider failed it, and the request completed with req_result::transport.
  op_status post(req* r);
  // A control message (header only) in one fi_tinject; fi_tinject's code. Caller holds the lock.
  ssize_t inject_hdr(const wire_hdr& h, fi_addr_t dest) noexcept {
    return fi_tinject(ep.ep, &h, hdr_size, dest, ctrl_tag);
  }
  // Header and h.size bytes of data in one fi_tinject (the caller checked they fit the inject size); fi_tinject's code.
  ssize_t inject_eager(const wire_hdr& h, const void* data, fi_addr_t dest) noexcept {
    char* out = inject_buf.data();
    std::memcpy(out, &h, hdr_size);
    copy_bytes(out + hdr_size, data, h.size);
    return fi_tinject(ep.ep, out, hdr_size + h.size, dest, ctrl_tag);
  }
  // A control or eager message (header h, n bytes of data) to address `dest`: through its node ring when it has
  // one, else one fi_tinject (the caller checked that header and data fit the inject size). 0, -FI_EAGAIN when
  // the ring or the provider has no room now, or the provider's code. Caller holds the lock.
  ssize_t send_msg(int dest, const wire_hdr& h, const void* data, std::size_t n) noexcept {
    if (ring_out* o = fastpath.to(dest)) return ring_write(*o, h, data, n) ? 0 : -FI_EAGAIN;
    return n ? inject_eager(h, data, ep.addr(dest)) : inject_hdr(h, ep.addr(dest));
  }
  void on_message(rx_buffer* b, std::size_t len);  // caller holds the lock: a receive buffer the CQ gave back
  // One message (header and data, `len` bytes at `msg`), from a receive buffer or a node ring (`from_ring`: its
  // sender completed the send when it wrote it). Caller holds the lock.
  void on_wire(const char* msg, std::size_t len, bool from_ring);
  void deliver_eager(req* r, const wire_hdr& h, const char* data);
  // Messages to this process (protocol.cpp): an eager one is matched or held as if it had arrived; a larger one
  // waits, as a wire_self_rts entry, for the receive that copies from its buffer (take_self_send).
  void deliver_self_eager(const wire_hdr& h, const char* data);
  op_status post_self(req* s);
  void take_self_send(req* r, const wire_hdr& h);
  void start_rendezvous(req* r, const wire_hdr& h);
  void drop_message(const char* why, const wire_hdr* h, std::size_t len) noexcept;

  // ---- matching (matching.cpp) ----------------------------------------------------------------------------
  void accept_recv(req* r);  // caller holds the lock: match against unexpected messages, else post
  req* match_posted(const wire_hdr& h) noexcept;
  void hold_unexpected(const wire_hdr& h, const char* data);
  /// A message that no receive here will ever take (its collective run ended here; matching.cpp): eager data is
  /// dropped and its sender's eager credit given back; a ready-to-send is answered with an empty clear-to-send, so
  /// that the sender's send completes (with nothing sent) and its slot comes back. false: it must stay held (a send
  /// to this process, or no request slot for the answer).
  bool refuse_message(const wire_hdr& h) noexcept;
  /// A collective message for a run that ended here without it (h: its header): the sender's call differs (a count
  /// of 0 here, which sends and receives nothing). Best effort, as every notice: an abort notice of that instance
  /// to the sender, whose run then ends instead of waiting for this rank's part.
  void tell_run_ended(const wire_hdr& h) noexcept;
  /// A request the engine sends or answers with for itself, which nobody reads (req_state::orphan): it frees itself
  /// once done, and waits for a credit or in the backlog like any other. The caller sets what its kind needs and
  /// hands it to post_orphan. nullptr: no free slot.
  req* orphan_request(req_kind op, int peer_world, std::uint64_t tag, std::uint64_t cookie) noexcept;
  void post_orphan(req* r) noexcept;
  /// Refuses (as above) every held message whose tag matches `tag` under the `ignore` mask, any source; `tell`: and
  /// tells each sender its run ended here without it (tell_run_ended).
  void refuse_unexpected(std::uint64_t tag, std::uint64_t ignore, bool tell = false) noexcept;
  void do_cancel(req* r);  // caller holds the lock
  void unlink_posted(req* r) noexcept;  // takes a receive out of the posted list
  // A matched rendezvous receive whose data will never come (its send failed): it completes as canceled. Caller
  // holds the lock.
  void abandon_recv(req* r) noexcept;

  // ---- node rings (node_rings.cpp) ------------------------------------------------------------------------
  bool poll_rings();  // caller holds the lock: the messages our node peers wrote; true if any

  // ---- backlogs (backlog.cpp) -----------------------------------------------------------------------------
  void post_or_backlog(req* r);  // caller holds the lock
  bool retry_backlog();          // caller holds the lock
  bool retry_backlog(backlog_fifo& b);
  // Takes the steps of the requests `drop(r)` picks out of both backlogs; the others keep their order.
  template <typename Drop>
  void drop_backlogged(Drop drop) noexcept;

  // ---- credits: flow control per peer (credits.hpp, credits.cpp) -------------------------------------------
  void setup_credits(std::size_t addresses);
  bool take_credit(req* r);  // caller holds the lock; false: r waits for the peer's credits
  void spend_eager(req* r) noexcept;
  void return_credit(req* r) noexcept;  // undoes take_credit for a send failed before the peer read it
  std::uint32_t unlink_waiting(std::uint32_t p) noexcept;  // the sends waiting for p's credits, now nobody's
  void on_credit(const wire_hdr& h);
  bool grant_credits(std::uint32_t p);
  void owe_credit(std::uint32_t p, bool eager_taken);
  void owe_eager_credit(std::uint32_t p);
  void give_credits(std::uint32_t p);
  bool retry_credits();  // the progress pass: true if it did anything
  [[nodiscard]] bool credits_pending() const noexcept { return !credits.granted.empty() || !credits.unsent.empty(); }
  void forget_credits(std::uint32_t p) noexcept;

  // ---- receive buffers (rx_buffers.cpp) -------------------------------------------------------------------
  void setup_rx_buffers();
  ssize_t post_rx(rx_buffer* b) noexcept;  // caller holds the lock; fi_trecv's code
  bool repost_rx();  // caller holds the lock: posts the buffers taken back; true if any

  // ---- completion (completion.cpp; the two inline ones in completion.hpp) ----------------------------------
  int poll_cq();  // caller holds the lock; completions found
  void handle_entries(const struct fi_cq_tagged_entry* e, int n);
  void handle_error();
  inline void begin_xfer(req* r) noexcept;  // XFER_BEGIN once per request (instrumentation), when data can move
  inline void complete(req* r) noexcept;    // to the request's completion target
  void orphan_req(req* r) noexcept;
  void xfer(const req* r, bool begin) const noexcept;  // calls the instrumentation hook

  // ---- failures (failure.cpp) -----------------------------------------------------------------------------
  void fail_request(req* r, failure what, int fi_err) noexcept;  // caller holds the lock
  // A failure not tied to one request (the completion queue): fails every request the engine has taken, fails
  // what comes after, reports once on stderr. Caller holds the lock.
  void fail_engine(const char* what, int fi_err) noexcept;
  void fail_in_flight() noexcept;  // poll_cq, once the engine failed: completes what it had taken
  [[nodiscard]] bool failed() const noexcept { return engine_failed.load(std::memory_order_relaxed); }

  // ---- peer liveness (liveness.cpp) -----------------------------------------------------------------------
  // The liveness check, when it is due (caller holds the lock): from every 64th pass, busy or idle (a progressor
  // that always finds work, messages from live peers or to itself, must still find a dead one), and from the
  // progress thread's idle passes.
  void watch_peers(std::uint64_t now) noexcept {
    if (now >= live.next_check_ns) [[unlikely]] check_peers(now);
  }
  void check_peers(std::uint64_t now) noexcept;
  // The process id of peer p when p runs on this node and its process is gone (waiting up to 200 ms for a process
  // that is exiting to be gone), else 0: whether a provider's error on a transfer with p is p's death.
  int gone_local_peer(int p) const noexcept;
  void fail_peer(int index, const char* how) noexcept;  // caller holds the lock
  void end_peer(int index, int pid) noexcept;  // it finalized and its process is gone
  bool lose_peer(int index, const char* how, bool ended) noexcept;
  std::size_t fail_peer_requests(int index) noexcept;
  void fail_with_peer(req* r) noexcept;            // completes r with peer_failed
  void fail_in_flight_with_peer(req* r) noexcept;  // the same for one the provider may hold
  void complete_held(req* r) noexcept;
  void late_completion(req* r) noexcept;  // the provider's completion of a request complete_held completed
  void retire_read(req* r) noexcept;
  bool refuse_dead(req* r) noexcept;  // accept, once a peer died: fails a new request that involves a dead peer
  [[nodiscard]] bool peer_dead(int index) const noexcept {
    return live.any && index >= 0 && static_cast<std::size_t>(index) < live.dead.size() &&
           live.dead[static_cast<std::size_t>(index)] != 0;
  }
  [[nodiscard]] std::string peer_failure_text(int index) const;
  // wait/test, after reading result `res`: frees the slot, unless the provider still holds it (complete_held: only
  // ever a peer_failed request).
  void release_read(req* r, req_result res) noexcept {
    if (res == req_result::peer_failed && r->provider_holds.load(std::memory_order_relaxed)) [[unlikely]] {
      retire_read(r);
      return;
    }
    pool.release(r);
  }
  // File descriptors used up after init (fd_room.hpp, fd_watch), from the liveness check: a first message to a
  // peer that the provider refused for fd_stall_ns with at most fd_stall_margin descriptors free fails, with every
  // other send to that peer that gave the provider nothing yet (fail_fd_stall: failure::fds_used_up); a receive
  // that waits meanwhile is only warned about, once (its peer may not have sent yet).
  void check_fds(std::uint64_t now) noexcept;
  void fail_fd_stall(int peer, std::uint64_t stalled_ns, std::string note) noexcept;
  // A message from address `src` (on_message), for SIDECORE_PEER_TIMEOUT.
  void heard_from(std::uint32_t src) noexcept {
    if (src < live.heard.size()) ++live.heard[src];
  }

  // ---- schedules (schedule.cpp) ---------------------------------------------------------------------------
  /// An application thread: starts schedule `s` behind a new request and returns its handle (advance() follows
  /// from the next progress pass). `by`: who may progress the request (request.hpp, progressor; its children are
  /// the progress thread's in mode core whatever it says). Throws too_many_requests when the pool is exhausted.
  // `slot`: one taken already (take_slot), or nullptr to take one here.
  std::uint64_t start_schedule(schedule& s, std::uint32_t owner_thread, progressor by = progressor::thread,
                               req* slot = nullptr);
  /// Under the progress lock (from schedule::advance): starts a child of `parent`; `token` comes back with its
  /// completion. `dest`/`source_index` are engine address indices (-1: any source). A send's message carries
  /// `sig` (its low 48 bits: wire_hdr), which the receiving child reports in completion::sig, and an eager one
  /// `cookie` in its header (a collective's notice). Returns the child's handle (for cancel_child), or 0 when no
  /// slot is left (nothing started).
  std::uint64_t start_child_send(schedule& parent, std::uint64_t token, const void* buf, std::size_t len, int dest,
                                 std::uint64_t tag, int sender_rank, std::uint64_t sig = 0, std::uint64_t cookie = 0);
  std::uint64_t start_child_recv(schedule& parent, std::uint64_t token, void* buf, std::size_t len,
                                 int source_index, std::uint64_t tag, std::uint64_t ignore);
  /// Under the progress lock (from schedule::advance), for a schedule that gives up (its collective failed): a
  /// child receive no message has matched yet is cancelled (it completes as canceled, to on_child_complete, maybe
  /// inside this call); a child send that waits for its receiver's clear-to-send is detached: it never reports to
  /// its schedule, never reads its buffer again, and answers a late clear-to-send with an empty message (so that
  /// receiver completes, seeing 0 bytes). A child receive that took the ready-to-send of one of the `failed` sends
  /// (a peer's engine address and the send's handle there: the send failed, its data will never come) is abandoned
  /// (abandon_recv). Anything else completes as it would have. detached: no completion of this child will come;
  /// otherwise one came or will come.
  enum class child_fate { completes, detached };
  struct failed_send {
    int peer = -1;             // the sender's engine address
    std::uint64_t handle = 0;  // its send's handle there
  };
  /// A detached send keeps `notice_sig` (what a failure notice of its run carries as its signature: the run's start
  /// number): if it fails later, the engine itself sends its receiver a failure notice naming it (name_failed_send).
  child_fate cancel_child(schedule& parent, std::uint64_t handle, std::span<const failed_send> failed = {},
                          std::uint64_t notice_sig = 0) noexcept;
  /// A detached collective send failed: a header-only failure notice of its instance to its receiver, its handle as
  /// the cookie, so that the receive there that took its ready-to-send is abandoned. Best effort (as every notice):
  /// not sent when the provider refuses it now or no send credit is left.
  void name_failed_send(const req& r) noexcept;
  void accept_schedule(req* r);          // caller holds the lock: the schedule is ready to begin
  void complete_child(req* r) noexcept;  // complete()'s target dispatch, for a request with a parent
  bool run_ready();                      // the progress pass's schedule-advance step
  void finish(schedule* s, req_result result, failure what) noexcept;  // completes the schedule's request

  // ---- caller progress (caller_progress.cpp) --------------------------------------------------------------
  void park(progress_guard& g);  // progress thread: step aside while application threads progress

  // ---- doorbells (doorbell.cpp) ---------------------------------------------------------------------------
  void wake() const noexcept;          // ring our own doorbell
  void pay_owed_wake() const noexcept;  // a waiter: the wake-up start_while_asleep left, if still owed
  void ring_peer(int index) noexcept;  // ring a peer's doorbell if it sleeps
  void flush_rings() noexcept;         // progress thread: the wake-ups callers left to it
  void sleep_locked(progress_guard& g);  // sleeps up to block_us or until a submission or a peer rings

  // ---- the progress loop (progress_loop.cpp) --------------------------------------------------------------
  bool progress_locked();  // one pass; caller holds the lock
  void thread_main(std::function<void()> on_start);

  // ---- state ----------------------------------------------------------------------------------------------
  engine_config cfg;
  std::size_t caller_limit = 0;  // requests shorter than this an application thread may progress (progressor_for)
  std::uint32_t my_index = 0;  // this process's engine address index
  // Messages to this address take the self path (post_self): my_index, or none when engine_config::self_path is off.
  std::uint32_t self_index = ~std::uint32_t{0};
  endpoint ep;
  request_pool pool;
  [[noreturn]] void too_many() const;  // throws too_many_requests: the pool is exhausted
  req* take_slot() {                    // a free slot, or too_many_requests
    req* r = pool.acquire();
    if (!r) too_many();
    return r;
  }
  mpmc_queue queue;
  progress_lock lock;
  doorbells bells;
  backlogs backlog;
  credit_state credits;
  match_state matching;
  rx_buffers rx;
  node_rings fastpath;
  ready_list ready;
  std::uint32_t schedules_running = 0;  // accepted and not finished (the idle policy's core-sharing rule)
  peer_liveness live;
  fd_watch fd_stalls;
  // Rendezvous data receives posted to the provider, and how many may be: the provider's receive queue
  // (rx_attr->size) less the receive buffers, so that data receives can never crowd the receive buffers out.
  std::size_t rdv_recvs_posted = 0, rdv_recv_limit = 1;
  // Eager messages and rendezvous data handed to the provider (fi_tsendv, fi_tsend) whose completion entries have
  // not been read yet: work that only a progress pass finishes (start_while_asleep).
  std::size_t sends_in_provider = 0;
  // Mode core: a caller started a schedule and left the sleeping progress thread to a peer's reply
  // (start_while_asleep); whoever then waits or tests wakes it (pay_owed_wake). The thread clears it when it wakes.
  mutable std::atomic<std::uint32_t> wake_owed{0};
  bool caller_starting = false;            // start_while_asleep is advancing the schedule it started
  // The largest copy or reduction a caller starting a schedule does itself (start_while_asleep): about what the
  // wake-up it saves costs. Measured on 2 cores, core mode, 12 interleaved runs each: with the caller doing every
  // first-round copy, allgather and alltoall overlap rose at 64 KiB (90 -> 94-96 %) and fell at 256 KiB (93 -> 91 %)
  // and 1 MiB (97 -> 75-79 %).
  static constexpr std::size_t caller_step_max = 64 * 1024;
  bool caller_start_needs_thread =
      false;                     // ... and a child or a step needs the thread (note_caller_child, leave_to_thread)
  std::vector<char> inject_buf;  // header + data of an injected eager message
  std::size_t cq_read_max = 16;  // completions read per fi_cq_read (engine_config::cq_batch); 0 once the engine failed
  std::atomic<bool> stop{false};
  std::atomic<bool> running{false};
  std::atomic<bool> serialized{false};  // cfg.serialized_callers until two callers met (callers_not_serialized)
  std::thread thread;
  xfer_hook on_xfer = nullptr;
  idle_hook on_idle = nullptr;
  // The collectives executor's view of collective messages no posted receive took (progress/coll/mismatches.hpp;
  // the executor installs it): called under the progress lock with a notice (tag::is_coll_notice: its header and
  // its text, h.size bytes), or with a message about to be held as unexpected and its signature; that one answers
  // whether to hold it, or refuse it (refuse_message) because nothing will ever take it, and then whether to tell its
  // sender (tell_run_ended).
  struct coll_msg_hooks {
    void (*notice)(void* ctx, const wire_hdr& h, const char* text) noexcept = nullptr;
    held_verdict (*unexpected)(void* ctx, std::uint64_t tag, std::uint32_t src_index, std::uint64_t sig) noexcept =
        nullptr;
    void* ctx = nullptr;
  } coll_msgs;
  req* own = nullptr;  // the request the caller is posting itself (its handle is not out yet)
  std::atomic<bool> warned_full{false};
  std::atomic<bool> engine_failed{false};
  bool warned_version = false;
  bool refusing = false;  // the engine failed or a peer died: accept looks at each request (accept_refused)
  std::uint32_t passes = 0;  // progress passes, busy or idle: every 64th looks at the peers when it is due
  bool in_flight_failed = false;
  char fatal_text[256] = {};  // why the engine failed (fail_engine), written once before engine_failed is set

  // statistics (written under the progress lock or by the progress thread; read racily for reports)
  std::atomic<std::uint64_t> polls{0}, completions{0}, busy_ns{0}, idle_ns{0}, blocks{0}, yields{0}, eagain{0},
      queue_full{0}, unexpected{0}, rendezvous{0}, dropped{0};
};

template <typename Drop>
void engine_core::drop_backlogged(Drop drop) noexcept {
  for (backlog_fifo* b : {&backlog.send, &backlog.recv}) {
    std::uint32_t kept_head = 0, kept_tail = 0;
    for (std::uint32_t i = b->head; i;) {
      req* r = pool.at(i - 1);
      i = r->backlog_next;
      if (drop(*r)) continue;
      r->backlog_next = 0;
      if (kept_tail) pool.at(kept_tail - 1)->backlog_next = r->index + 1;
      else kept_head = r->index + 1;
      kept_tail = r->index + 1;
    }
    b->head = kept_head;
    b->tail = kept_tail;
  }
}

/// progress/'s own code (schedules, tests) reaching the core of an engine made by engine::open.
inline engine_core& core_of(engine& e) noexcept { return static_cast<engine_core&>(e); }

}  // namespace sidecore::progress
