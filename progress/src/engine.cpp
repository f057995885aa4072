// The progression engine. See engine.hpp for the contract and architecture.md for the data flow.
#include <sidecore/progress/engine.hpp>

#include <rdma/fi_cm.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_tagged.h>

#include <sys/uio.h>

#include <linux/futex.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>

#include <sidecore/common/common.hpp>
#include <sidecore/progress/tag.hpp>

namespace sidecore::progress {

namespace {

constexpr std::uint32_t cancel_bit = 1U << 31;

// Wire protocol (docs/runtime.md). Every eager, ready-to-send and clear-to-send message carries the same
// libfabric tag and lands in one of the engine's receive buffers; sidecore matches it against its own posted
// receives (source, tag with ignore mask, in order). Rendezvous data travels with a tag unique to the sender's
// request (sender index, request slot), into a receive posted for exactly the bytes the receiver takes. So the
// provider never matches a wildcard, never sees an unexpected message other than on the control tag, and never
// truncates: libfabric 1.17 shm mismatched the first, hung on the last above 4 KiB, and tcp;ofi_rxm lost the
// pair's traffic after a truncation.
enum wire_type : std::uint8_t { wire_eager = 1, wire_rts = 2, wire_cts = 3 };
constexpr std::uint64_t ctrl_tag = 3ULL << 62;
constexpr std::uint64_t rdv_tag_of(std::uint32_t sender_index, std::uint32_t sender_slot) noexcept {
  return ctrl_tag | (1ULL << 61) | (static_cast<std::uint64_t>(sender_index) << 32) | sender_slot;
}
constexpr std::size_t hdr_size = sizeof(wire_hdr);

// Counters written only by the holder of the progress lock (or the progress thread): a relaxed load and store
// instead of a locked read-modify-write on the hot path; readers tolerate a stale value.
inline void bump(std::atomic<std::uint64_t>& c, std::uint64_t by = 1) noexcept {
  c.store(c.load(std::memory_order_relaxed) + by, std::memory_order_relaxed);
}

// Copies a message's bytes: up to 16 with two overlapping 8-byte moves (an 8 B ping-pong's payload; a call to
// memcpy for it costs as many instructions as the rest of the copy path), else memcpy.
inline void copy_bytes(void* dst, const void* src, std::size_t n) noexcept {
  auto* d = static_cast<char*>(dst);
  const auto* c = static_cast<const char*>(src);
  if (n >= 8 && n <= 16) {
    std::uint64_t a, b;
    std::memcpy(&a, c, 8);
    std::memcpy(&b, c + n - 8, 8);
    std::memcpy(d, &a, 8);
    std::memcpy(d + n - 8, &b, 8);
  } else if (n) {
    std::memcpy(d, c, n);
  }
}

inline void cpu_relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield" ::: "memory");
#endif
}


// futex on a 32-bit atomic: sleep while *word == expected, at most timeout_us (0: no limit).
void futex_wait(std::atomic<std::uint32_t>* word, std::uint32_t expected, std::uint32_t timeout_us) noexcept {
  timespec ts{static_cast<time_t>(timeout_us / 1000000), static_cast<long>(timeout_us % 1000000) * 1000};
  syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(word), FUTEX_WAIT_PRIVATE, expected, timeout_us ? &ts : nullptr,
          nullptr, 0);
}
void futex_wake(std::atomic<std::uint32_t>* word) noexcept {
  syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(word), FUTEX_WAKE_PRIVATE, INT_MAX, nullptr, nullptr, 0);
}
// The same on memory shared between processes (doorbells): no _PRIVATE.
void futex_wait_shared(std::atomic<std::uint32_t>* word, std::uint32_t expected, std::uint32_t timeout_us) noexcept {
  timespec ts{static_cast<time_t>(timeout_us / 1000000), static_cast<long>(timeout_us % 1000000) * 1000};
  syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(word), FUTEX_WAIT, expected, &ts, nullptr, 0);
}
void futex_wake_shared(std::atomic<std::uint32_t>* word) noexcept {
  syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(word), FUTEX_WAKE, INT_MAX, nullptr, nullptr, 0);
}

[[noreturn]] void fail(const char* call, int rc, const std::string& provider) {
  throw transport_error(std::string("libfabric ") + call + " failed on provider '" + provider + "': " +
                        fi_strerror(-rc) + " (" + std::to_string(rc) + ")");
}

struct info_deleter {
  void operator()(fi_info* i) const noexcept { fi_freeinfo(i); }
};

}  // namespace

int query_provider(const std::string& provider, fi_info** info) {
  *info = nullptr;
  std::unique_ptr<fi_info, info_deleter> hints(fi_allocinfo());
  if (!hints) return -FI_ENOMEM;
  // Matching is sidecore's own (see "Wire protocol"): the provider only matches exact tags, any source.
  hints->caps = FI_TAGGED | FI_SEND | FI_RECV;
  hints->mode = FI_CONTEXT | FI_CONTEXT2;
  hints->ep_attr->type = FI_EP_RDM;
  hints->domain_attr->threading = FI_THREAD_DOMAIN;  // every fi_* call is made under the progress lock
  hints->domain_attr->mr_mode = FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY;
  hints->tx_attr->msg_order = FI_ORDER_SAS;  // matching order per (source, tag): MPI's non-overtaking rule
  hints->rx_attr->msg_order = FI_ORDER_SAS;
  hints->fabric_attr->prov_name = strdup(provider.c_str());
  return fi_getinfo(FI_VERSION(1, 14), nullptr, nullptr, 0, hints.get(), info);
}

engine::engine(const engine_config& cfg) : cfg_(cfg), queue_(cfg.queue_capacity) {
  provider_ = cfg.provider;
  int rc = query_provider(provider_, &info_);
  if (rc != 0 || info_ == nullptr) {
    throw transport_error("no libfabric provider matches SIDECORE_PROVIDER='" + provider_ +
                          "' with tagged RDM endpoints and send-after-send ordering (fi_getinfo: " +
                          fi_strerror(-rc) + "); `fi_info -l` lists the providers installed");
  }
  fabric_name_ = info_->fabric_attr->name ? info_->fabric_attr->name : "";
  if (info_->fabric_attr->prov_name) provider_ = info_->fabric_attr->prov_name;
  max_msg_size_ = info_->ep_attr->max_msg_size;
  inject_size_ = info_->tx_attr->inject_size;
  if (inject_size_ < hdr_size)
    throw transport_error("libfabric provider '" + provider_ + "' injects " + std::to_string(inject_size_) +
                          " bytes at most; sidecore needs " + std::to_string(hdr_size) + " (its control messages)");
  // Eager data goes out as two iovecs (header, data) when it does not fit an inject; a provider with a single
  // iovec sends eagerly only what fits an inject.
  eager_max_ = cfg_.eager_max;
  if (info_->tx_attr->iov_limit < 2 && eager_max_ > inject_size_ - hdr_size) eager_max_ = inject_size_ - hdr_size;
  inject_buf_.resize(inject_size_);

  if ((rc = fi_fabric(info_->fabric_attr, &fabric_, nullptr))) fail("fi_fabric", rc, provider_);
  if ((rc = fi_domain(fabric_, info_, &domain_, nullptr))) fail("fi_domain", rc, provider_);

  // No CQ wait object: measured with libfabric 1.17, neither shm (a sched_yield loop) nor tcp;ofi_rxm woke a
  // sleeper in fi_cq_sread when a message arrived, and a wait object can add work to every completion. A
  // blocked progressor sleeps on our own futex instead: submissions wake it at once, incoming data is seen
  // within block_us (see sleep_locked).
  fi_cq_attr cq_attr{};
  cq_attr.format = FI_CQ_FORMAT_TAGGED;
  cq_attr.wait_obj = FI_WAIT_NONE;
  if ((rc = fi_cq_open(domain_, &cq_attr, &cq_, nullptr))) fail("fi_cq_open", rc, provider_);

  fi_av_attr av_attr{};
  av_attr.type = FI_AV_TABLE;
  if ((rc = fi_av_open(domain_, &av_attr, &av_, nullptr))) fail("fi_av_open", rc, provider_);
  if ((rc = fi_endpoint(domain_, info_, &ep_, nullptr))) fail("fi_endpoint", rc, provider_);
  if ((rc = fi_ep_bind(ep_, &av_->fid, 0))) fail("fi_ep_bind(av)", rc, provider_);
  if ((rc = fi_ep_bind(ep_, &cq_->fid, FI_TRANSMIT | FI_RECV))) fail("fi_ep_bind(cq)", rc, provider_);
  if (provider_ == "shm") name_shm_endpoint();
  if ((rc = fi_enable(ep_))) fail("fi_enable", rc, provider_);

  // Receive buffers for eager and control messages, posted now (no traffic can arrive before connect()).
  const std::size_t nb = cfg_.recv_buffers ? cfg_.recv_buffers : 1;
  // Flow control of rendezvous data receives. Measured with shm (libfabric 1.17, receive queue 1024): when data
  // receives filled the queue, no receive buffer could be posted; the control messages then waiting in shm's
  // inbound queue held up the data behind them, and 3 ranks with 1500 rendezvous messages each in flight
  // deadlocked. Data receives beyond the limit wait in the receive backlog until one completes.
  const std::size_t rx_size = info_->rx_attr->size;
  rdv_recv_limit_ = rx_size > nb + 1 ? rx_size - nb : 1;
  const std::size_t bsize = eager_max_ + hdr_size;
  bounce_mem_.resize(nb * bsize);
  bounces_.resize(nb);
  bounces_unposted_.reserve(nb);  // on_message appends without allocating
  for (std::size_t i = 0; i < nb; ++i) {
    bounces_[i].buf = bounce_mem_.data() + i * bsize;
    if (!post_bounce(&bounces_[i])) bounces_unposted_.push_back(&bounces_[i]);
  }
}

// shm names its shared-memory region (in /dev/shm) after the process id by default ("<pid>:<domain>:<ep>"). A
// process killed before it closes its endpoint (a job that timed out) leaves that region behind, and a later
// process that gets the same pid then failed to set up or hung. A name of our own with 64 random bits never
// meets a leftover: "sidecore-<pid>-<random hex>". (Regions left by killed processes still take /dev/shm space
// until removed; the README says how.)
void engine::name_shm_endpoint() {
  std::random_device rd;
  const std::uint64_t nonce = (std::uint64_t{rd()} << 32) ^ rd() ^ now_ns();
  char name[64];
  const int n = std::snprintf(name, sizeof(name), "sidecore-%ld-%016llx", static_cast<long>(::getpid()),
                              static_cast<unsigned long long>(nonce));
  const int rc = fi_setname(&ep_->fid, name, static_cast<std::size_t>(n) + 1);
  if (rc) fail("fi_setname (shm region name)", rc, provider_);
}

void engine::connect(MPI_Comm comm) {
  int rc;
  // Bootstrap: every rank's endpoint name through MPI, then one address-vector insert.
  std::vector<char> name(256);
  std::size_t name_len = name.size();
  rc = fi_getname(&ep_->fid, name.data(), &name_len);
  if (rc == -FI_ETOOSMALL) {
    name.resize(name_len);
    rc = fi_getname(&ep_->fid, name.data(), &name_len);
  }
  if (rc) fail("fi_getname", rc, provider_);
  int nranks = 0;
  MPI_Comm_size(comm, &nranks);
  int my_len = static_cast<int>(name_len), max_len = 0;
  if (MPI_Allreduce(&my_len, &max_len, 1, MPI_INT, MPI_MAX, comm) != MPI_SUCCESS)
    throw transport_error("MPI_Allreduce failed while exchanging libfabric endpoint names");
  name.resize(static_cast<std::size_t>(max_len), 0);
  std::vector<char> all(static_cast<std::size_t>(max_len) * static_cast<std::size_t>(nranks));
  if (MPI_Allgather(name.data(), max_len, MPI_BYTE, all.data(), max_len, MPI_BYTE, comm) != MPI_SUCCESS)
    throw transport_error("MPI_Allgather failed while exchanging libfabric endpoint names");
  addrs_.resize(static_cast<std::size_t>(nranks));
  rc = fi_av_insert(av_, all.data(), static_cast<std::size_t>(nranks), addrs_.data(), 0, nullptr);
  if (rc != nranks) fail("fi_av_insert", rc < 0 ? rc : -FI_EOTHER, provider_);
  int me = 0;
  MPI_Comm_rank(comm, &me);
  my_index_ = static_cast<std::uint32_t>(me);
}

engine::~engine() {
  stop_thread();
  if (ep_) fi_close(&ep_->fid);
  if (av_) fi_close(&av_->fid);
  if (cq_) fi_close(&cq_->fid);
  if (domain_) fi_close(&domain_->fid);
  if (fabric_) fi_close(&fabric_->fid);
  if (info_) fi_freeinfo(info_);
  while (unexp_head_) {
    unexpected_msg* m = unexp_head_;
    unexp_head_ = m->next;
    std::free(m->data);
    delete m;
  }
}

std::uint64_t engine::start_send(const void* buf, std::size_t len, int dest, std::uint64_t tag, int peer,
                                 int sender_rank, std::uint32_t owner_thread, bool may_inline) {
  // An eager message that fits one inject completes here, without instrumentation (its XFER records name a slot).
  bool may_lock = true;
  if (may_inline && len <= eager_max_ && hdr_size + len <= inject_size_ && !xfer_hook_) {
    const inline_result res = send_inline(buf, len, dest, tag, sender_rank);
    if (res == inline_result::sent) return inline_handle(len);
    may_lock = res != inline_result::no_lock;  // asked once already (mode core: up to caller_ask_ns)
  }
  return start_send_slot(buf, len, dest, tag, peer, sender_rank, owner_thread, may_lock);
}

std::uint64_t engine::start_send_slot(const void* buf, std::size_t len, int dest, std::uint64_t tag, int peer,
                                      int sender_rank, std::uint32_t owner_thread, bool may_lock) {
  req* r = pool_.acquire();
  if (!r) throw std::bad_alloc();
  r->op = req_op::send;
  r->act = len <= eager_max_ ? req_act::eager : req_act::rts;
  r->buf = const_cast<void*>(buf);  // libfabric's send takes const; the slot is shared with receives
  r->len = len;
  r->addr = addrs_[static_cast<std::size_t>(dest)];
  r->peer_world = dest;
  r->data = static_cast<std::uint64_t>(static_cast<std::uint32_t>(sender_rank));
  r->tag = tag;
  r->ignore = 0;
  r->peer = peer;
  r->owner_thread = owner_thread;
  r->result = req_result::ok;
  r->bytes = len;
  const std::uint64_t h = request_pool::handle_of(r);
  submit(r->index, may_lock);
  return h;
}

std::uint64_t engine::start_recv(void* buf, std::size_t len, std::uint64_t tag, std::uint64_t ignore, int peer,
                                 int source_index, std::uint32_t owner_thread) {
  req* r = pool_.acquire();
  if (!r) throw std::bad_alloc();
  r->op = req_op::recv;
  r->act = req_act::none;
  r->buf = buf;
  r->len = len;
  r->addr = FI_ADDR_UNSPEC;
  r->peer_world = source_index;
  r->source = -1;
  r->tag = tag;
  r->ignore = ignore;
  r->peer = peer;
  r->owner_thread = owner_thread;
  r->result = req_result::ok;
  r->bytes = 0;
  const std::uint64_t h = request_pool::handle_of(r);
  submit(r->index);
  return h;
}

inline wire_hdr engine::eager_hdr(std::uint64_t tag, std::size_t len, std::uint32_t sender_rank) const noexcept {
  wire_hdr h{};
  h.tag = tag;
  h.size = len;
  h.src_rank = sender_rank;
  h.src_index = my_index_;
  h.type = wire_eager;
  return h;
}

// Header and h.size bytes of data in one fi_tinject (the caller checked they fit inject_size_); fi_tinject's code.
inline ssize_t engine::inject_eager(const wire_hdr& h, const void* data, fi_addr_t dest) {
  char* out = inject_buf_.data();
  std::memcpy(out, &h, hdr_size);
  copy_bytes(out + hdr_size, data, h.size);
  return fi_tinject(ep_, out, hdr_size + h.size, dest, ctrl_tag);
}

// The small-message fast path (a ping-pong's sends): header and data injected at once, under the lock as submit
// takes it, behind whatever is queued or backlogged; no slot, no completion. Else nothing was sent: no_lock (mode
// off: another thread progresses; mode core: it asked and the lock did not come), or refused (sends wait in the
// backlog, or the provider said EAGAIN, or an error that the slot path then reports).
engine::inline_result engine::send_inline(const void* buf, std::size_t len, int dest, std::uint64_t tag,
                                          int sender_rank) {
  const bool running = thread_running();
  if (running ? !(cfg_.caller_progress && caller_lock()) : !try_lock()) return inline_result::no_lock;
  drain_submissions();  // what other threads queued goes first
  bool sent = false;
  if (backlog_[0].head == 0) {
    sent = inject_eager(eager_hdr(tag, len, static_cast<std::uint32_t>(sender_rank)), buf,
                        addrs_[static_cast<std::size_t>(dest)]) == 0;
    if (sent) {
      bump(completions_);
      ring_peer(dest);
    }
  }
  if (running) caller_unlock();
  else unlock();
  return sent ? inline_result::sent : inline_result::refused;
}

void engine::cancel(req* r) {
  r->cancel_ack.store(false, std::memory_order_relaxed);
  if (!thread_running()) {
    while (!try_lock()) cpu_relax();
    progress_locked();  // the receive may still be queued: post it first (and let what arrived match)
    do_cancel(r);
    unlock();
    return;
  }
  submit(r->index | cancel_bit);
  while (!r->cancel_ack.load(std::memory_order_acquire)) cpu_relax();
}

// A receive still in the posted list completes as canceled; a matched one goes on (MPI's rule).
void engine::do_cancel(req* r) {
  if (r->stage == req_stage::posted) {
    const std::uint32_t prev = r->mprev, next = r->mnext;
    if (prev) pool_.at(prev - 1)->mnext = next;
    else posted_head_ = next;
    if (next) pool_.at(next - 1)->mprev = prev;
    else posted_tail_ = prev;
    r->stage = req_stage::none;
    r->result = req_result::canceled;
    r->bytes = 0;
    complete(r);
  }
  r->cancel_ack.store(true, std::memory_order_release);
}

// Hands an entry to whoever progresses. With the lock (mode off: free; mode core: given up by the progress thread,
// see "caller progress"): post now, after what is queued (so one thread's operations keep their order). Otherwise
// queue it, and wake a blocked progress thread.
void engine::submit(std::uint32_t entry, bool may_lock) {
  const bool running = thread_running();
  // Mode core: only an eager-sized operation is posted by the caller (see wait_for).
  if ((entry & cancel_bit) == 0 && may_lock &&
      (running ? cfg_.caller_progress && pool_.at(entry)->len <= eager_max_ && caller_lock() : try_lock())) {
    drain_submissions();
    own_ = pool_.at(entry);
    if (own_->op == req_op::recv) accept_recv(own_);
    else post_or_backlog(own_);
    own_ = nullptr;
    if (running) caller_unlock();
    else unlock();
    return;
  }
  while (!queue_.push(entry)) {
    // Overflow path: the queue is full. Make room by progressing ourselves (mode off) or let the progress
    // thread drain it (mode core). Warn once: a larger SIDECORE_SUBMIT_QUEUE avoids the stall.
    queue_full_.fetch_add(1, std::memory_order_relaxed);
    if (!warned_full_.exchange(true))
      std::fprintf(stderr, "sidecore: warning: submission queue full (%zu entries); raise SIDECORE_SUBMIT_QUEUE\n",
                   queue_.capacity());
    if (!thread_running()) progress();
    else cpu_relax();
  }
  // A parked progress thread takes over at once for what we queued (a rendezvous transfer, to move while we compute).
  if (running && caller_want_.load(std::memory_order_relaxed) != 0 &&
      caller_handback_.load(std::memory_order_relaxed) == 0) {
    caller_handback_.store(1, std::memory_order_relaxed);
  }
  if (cfg_.idle != idle_policy::spin) {
    // Pairs with the fence in sleep_locked: either the sleeper sees our entry, or we see it sleeping.
    std::atomic_thread_fence(std::memory_order_seq_cst);
    if (bell_->sleepers.load(std::memory_order_relaxed)) wake();
  }
}

// ---- caller progress (mode core) ---------------------------------------------------------------------------------
// Every message handed from an application thread to the progress thread crosses between cores twice (the
// submission, the completion): on our 2-vCPU VM 0.2-1 us per message, 2-8x raw libfabric's 8 B latency. So while
// the application posts and waits for eager-sized messages (a ping-pong), the calling thread does the work itself,
// as in mode off, and the progress thread steps aside ("parks"); once the application has made no call for
// caller_quiet_ns (it computes), or queues a rendezvous transfer (caller_handback_), the progress thread takes the
// lock back and progresses in the background, which is what overlap needs. (MPICH's asynchronous progress thread
// also leaves its callers progressing in their blocking calls.) A parked progress thread keeps off the lock's cache
// line while callers use it (park_poll_*), so a caller's lock and unlock mostly find the line in its own cache.
namespace {
constexpr std::uint64_t caller_quiet_ns = 1000;  // no call for this long: the progress thread takes the lock back
// A parked progress thread looks at the lock's line after park_poll_min_ns, then, while the callers go on, at
// intervals doubling up to park_poll_max_ns: a caller's lock and unlock find the line in their own cache.
constexpr std::uint64_t park_poll_min_ns = 250, park_poll_max_ns = 8000;
constexpr std::uint64_t caller_ask_ns = 2000;    // a caller waits this long for the progress thread to step aside
// A sched_yield that returns later than this may have run another thread (alone on its core a yield takes
// ~0.7 us on our VM, 99.9 % under 2.1 us): then the waiter asks the kernel (core_shared).
constexpr std::uint64_t shared_yield_ns = 1500;

// Once a waiter found its core shared, its next waits sleep at once for this long (a waitall over a window of
// transfers is many waits), then it spins and looks again.
constexpr std::uint64_t shared_hold_ns = 10'000'000;
thread_local std::uint64_t tls_shared_until = 0;

// True when the calling thread was switched out involuntarily (preempted, or a yield ran another thread) since
// its previous call (its first call: since the thread started): its core is shared with another runnable thread.
bool core_shared() noexcept {
  static thread_local long seen = 0;
  rusage u{};
  if (getrusage(RUSAGE_THREAD, &u) != 0) return false;
  const bool more = u.ru_nivcsw != seen;
  seen = u.ru_nivcsw;
  return more;
}
}  // namespace

bool engine::caller_lock() noexcept {
  if (lock_as(lock_caller)) return true;
  // Another application thread progresses: our work goes by the queue.
  if (progress_lock_.load(std::memory_order_relaxed) == lock_caller) return false;
  // The progress thread holds it: ask, and give it the rest of its pass to step aside.
  if (caller_want_.load(std::memory_order_relaxed) == 0) caller_want_.store(1, std::memory_order_relaxed);
  std::uint64_t deadline = 0;
  for (std::uint32_t i = 1;; ++i) {
    cpu_relax();
    if (lock_as(lock_caller)) return true;
    if (progress_lock_.load(std::memory_order_relaxed) == lock_caller) return false;
    if ((i & 15) == 0) {
      const std::uint64_t now = now_ns();
      if (deadline == 0) deadline = now + caller_ask_ns;
      else if (now > deadline) return false;  // a long pass (a large copy): the queue it is
    }
  }
}

void engine::caller_unlock() noexcept {
  caller_calls_.store(caller_calls_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  progress_lock_.store(0, std::memory_order_release);
}

// The progress thread, asked for the lock (caller_want_): gives it up and waits until the application has made no
// call for caller_quiet_ns with the lock free, then takes it back. Looks at the lock's line once per park_poll_ns
// only; yields its core past yield_us as the idle loop does. Returns holding the lock.
void engine::park() {
  unlock();
  const std::uint64_t start = now_ns();
  const std::uint64_t yield_ns = cfg_.idle == idle_policy::spin ? UINT64_MAX : std::uint64_t{cfg_.yield_us} * 1000;
  std::uint32_t seen = caller_calls_.load(std::memory_order_relaxed);
  std::uint64_t quiet_since = start, interval = park_poll_min_ns, next_poll = start + interval;
  for (;;) {
    const std::uint64_t now = now_ns();
    if (caller_handback_.load(std::memory_order_relaxed) != 0) break;  // queued work for us: take over now
    if (rings_pending_.load(std::memory_order_relaxed) != 0) flush_rings();  // peers a caller woke (ring_peer)
    if (now < next_poll) {
      cpu_relax();
      continue;
    }
    if (stop_.load(std::memory_order_acquire)) break;
    const std::uint32_t calls = caller_calls_.load(std::memory_order_relaxed);
    if (calls != seen || progress_lock_.load(std::memory_order_relaxed) != 0) {
      seen = calls;
      quiet_since = now;
      interval = interval * 2 < park_poll_max_ns ? interval * 2 : park_poll_max_ns;
      next_poll = now + interval;
    } else if (now - quiet_since >= caller_quiet_ns) {
      caller_want_.store(0, std::memory_order_relaxed);
      if (thread_try_lock()) return;
      quiet_since = now;
      next_poll = now + park_poll_min_ns;
    } else {
      next_poll = quiet_since + caller_quiet_ns;  // quiet so far: look again when it has been quiet long enough
    }
    if (now - start >= yield_ns) {
      bump(yields_);
      sched_yield();
    }
  }
  // Stopping, or handed back: whoever holds the lock is about to let go.
  caller_want_.store(0, std::memory_order_relaxed);
  caller_handback_.store(0, std::memory_order_relaxed);
  while (!thread_try_lock()) cpu_relax();
}

void engine::wake() noexcept {
  bell_->seq.fetch_add(1, std::memory_order_release);
  futex_wake_shared(&bell_->seq);
}

void engine::connect_peers(int me, const std::vector<int>& peers) {
  std::vector<std::uint64_t> handles;
  char dummy = 0;
  for (int p : peers) {
    if (p == me) continue;
    handles.push_back(start_recv(&dummy, 0, tag::make(tag::kind::internal, 0, 1), 0, p, p, 0));
    handles.push_back(start_send(&dummy, 0, p, tag::make(tag::kind::internal, 0, 1), p, me, 0));
  }
  for (std::uint64_t h : handles) {
    req* r = lookup(h);
    wait_for(r);
    release(r);
  }
}

void engine::set_doorbells(doorbell* mine, std::vector<doorbell*> peers) {
  bell_ = mine ? mine : &private_bell_;
  peer_bells_ = std::move(peers);
  // Before the progress thread starts (it reads them): one bit per peer for the rings callers leave to it.
  ring_nwords_ = (peer_bells_.size() + 63) / 64;
  ring_words_ = ring_nwords_ ? std::make_unique<std::atomic<std::uint64_t>[]>(ring_nwords_) : nullptr;
}

// After we gave a peer something to react to (a message; the end of its large send), wake it if it sleeps.
// The fence orders the provider's writes into the peer's queue before our read of its sleepers count; it
// pairs with the fence in the peer's sleep_locked (either it sees the message when it re-polls, or we see it
// asleep).
//
// Caller progress (mode core): an application thread holding the lock bumps the peer's sequence word (a sleeper
// about to wait sees it changed) but leaves the wake-up syscall to the progress thread. Waking a thread that
// sleeps on another core costs the waker an inter-processor interrupt, in a VM an exit: measured on our 2-vCPU
// VM, a 0-byte blocking send that woke the idle peer took 9.9 us (median) with the caller ringing and 3.0 us with
// the progress thread ringing (it shares the peer's core there; on a larger machine the cost moves to the dedicated
// core, which is what it is for), and 1 MiB receiver-side overlap lost ~7 points to it (median 90 % against 97 %).
void engine::ring_peer(int index) noexcept {
  if (index < 0 || static_cast<std::size_t>(index) >= peer_bells_.size()) return;
  doorbell* b = peer_bells_[static_cast<std::size_t>(index)];
  if (!b || b == bell_) return;
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (b->sleepers.load(std::memory_order_relaxed) == 0) return;
  b->seq.fetch_add(1, std::memory_order_release);
  if (ring_words_ && progress_lock_.load(std::memory_order_relaxed) == lock_caller &&
      running_.load(std::memory_order_relaxed)) {
    const auto i = static_cast<std::size_t>(index);
    ring_words_[i / 64].fetch_or(std::uint64_t{1} << (i % 64), std::memory_order_relaxed);
    rings_pending_.store(1, std::memory_order_release);
    // Pairs with the fence in sleep_locked: either the progress thread sees rings_pending_ before it sleeps, or
    // we see it asleep and ring ourselves (it may ring again: a wake-up with nobody waiting is harmless).
    std::atomic_thread_fence(std::memory_order_seq_cst);
    if (bell_->sleepers.load(std::memory_order_relaxed) == 0) return;
  }
  futex_wake_shared(&b->seq);
}

void engine::flush_rings() noexcept {
  if (rings_pending_.exchange(0, std::memory_order_acquire) == 0) return;
  for (std::size_t w = 0; w < ring_nwords_; ++w) {
    if (ring_words_[w].load(std::memory_order_relaxed) == 0) continue;
    for (std::uint64_t bits = ring_words_[w].exchange(0, std::memory_order_acquire); bits != 0; bits &= bits - 1) {
      const std::size_t i = w * 64 + static_cast<std::size_t>(__builtin_ctzll(bits));
      if (doorbell* b = peer_bells_[i]) futex_wake_shared(&b->seq);
    }
  }
}

bool engine::drain_queue() {
  bool did = false;
  std::uint32_t entry;
  while (queue_.pop(entry)) {
    did = true;
    if (entry & cancel_bit) {
      do_cancel(pool_.at(entry & ~cancel_bit));
    } else {
      req* r = pool_.at(entry);
      if (r->op == req_op::recv) accept_recv(r);
      else post_or_backlog(r);
    }
  }
  return did;
}

void engine::post_or_backlog(req* r) {
  backlog& b = backlog_[r->act == req_act::data_recv ? 1 : 0];
  if (b.head == 0 && post(r)) return;
  // Keep order: once something of this direction waits in the backlog, everything after it waits too.
  r->backlog_next = 0;
  if (b.tail) pool_.at(b.tail - 1)->backlog_next = r->index + 1;
  else b.head = r->index + 1;
  b.tail = r->index + 1;
  bump(eagain_);
}

bool engine::retry_backlog(backlog& b) {
  bool did = false;
  while (b.head) {
    // Unlink r before posting it: a step that succeeds may queue r's next step in the other backlog (a
    // rendezvous receive, once posted, queues its clear-to-send), which rewrites r->backlog_next.
    req* r = pool_.at(b.head - 1);
    b.head = r->backlog_next;
    if (!b.head) b.tail = 0;
    if (!post(r)) {  // refused again: back at the front
      r->backlog_next = b.head;
      b.head = r->index + 1;
      if (!b.tail) b.tail = b.head;
      break;
    }
    did = true;
  }
  return did;
}

bool engine::retry_backlog() {
  bool did = false;
  if (!bounces_unposted_.empty()) did |= repost_bounces();
  if (backlog_[0].head) did |= retry_backlog(backlog_[0]);
  if (backlog_[1].head) did |= retry_backlog(backlog_[1]);
  return did;
}

bool engine::inject_hdr(const wire_hdr& h, fi_addr_t dest) {
  const ssize_t rc = fi_tinject(ep_, &h, hdr_size, dest, ctrl_tag);
  if (rc == 0) return true;
  if (rc == -FI_EAGAIN || rc == -FI_ENOMEM) return false;
  fail("fi_tinject (control message)", static_cast<int>(rc), provider_);
}

// Posts the request's next step (r->act). Returns false when the provider refused it for now (EAGAIN, or
// ENOMEM when its receive queue is full: shm holds 1024); the caller keeps it in the backlog. A step that
// completes the request at once (an injected eager message, an empty rendezvous) completes it here.
bool engine::post(req* r) {
  ssize_t rc = 0;
  const fi_addr_t peer_addr = r->peer_world >= 0 ? addrs_[static_cast<std::size_t>(r->peer_world)] : FI_ADDR_UNSPEC;
  switch (r->act) {
    case req_act::eager: {
      const wire_hdr h = eager_hdr(r->tag, r->len, static_cast<std::uint32_t>(r->data));
      if (hdr_size + r->len <= inject_size_) {
        // Header and data in one inject: the buffer is reusable at once and no completion entry will come.
        rc = inject_eager(h, r->buf, peer_addr);
        if (rc == 0) {
          begin_xfer(r);
          // Complete first: on a core shared with the peer, the peer we wake may run before we go on. (r may
          // be released and reused from complete() on.)
          const int peer = r->peer_world;
          complete(r);
          ring_peer(peer);
          return true;
        }
      } else {
        r->hdr = h;  // alive until the send completes
        iovec iov[2] = {{&r->hdr, hdr_size}, {r->buf, r->len}};
        rc = fi_tsendv(ep_, iov, nullptr, 2, peer_addr, ctrl_tag, &r->ctx);
      }
      break;
    }
    case req_act::rts: {
      wire_hdr h{};
      h.tag = r->tag;
      h.size = r->len;
      h.cookie = request_pool::handle_of(r);
      h.src_rank = static_cast<std::uint32_t>(r->data);
      h.src_index = my_index_;
      h.type = wire_rts;
      if (!inject_hdr(h, peer_addr)) return false;
      bump(rendezvous_);
      r->act = req_act::none;  // waits for the clear-to-send; the transfer begins with the data (below)
      ring_peer(r->peer_world);
      return true;
    }
    case req_act::data_send:
      if (r->rdv_n == 0) {  // the receiver takes nothing (a 0-byte receive, or it truncates to 0)
        complete(r);
        return true;
      }
      rc = fi_tsend(ep_, r->buf, r->rdv_n, nullptr, peer_addr, rdv_tag_of(my_index_, r->index), &r->ctx);
      if (rc == 0) {
        r->act = req_act::none;
        begin_xfer(r);  // the data moves from here (by whoever progresses: the progress thread in core mode)
        ring_peer(r->peer_world);
        return true;
      }
      break;
    case req_act::data_recv:
      if (rdv_recvs_posted_ >= rdv_recv_limit_) return false;  // flow control: waits for one to complete
      rc = fi_trecv(ep_, r->buf, r->rdv_n, nullptr, FI_ADDR_UNSPEC, r->rdv_tag, 0, &r->ctx);
      if (rc == 0) {
        ++rdv_recvs_posted_;
        begin_xfer(r);
        // Posted before the clear-to-send leaves: the data can never arrive unexpected.
        r->act = req_act::cts;
        post_or_backlog(r);
        return true;
      }
      break;
    case req_act::cts: {
      wire_hdr h{};
      h.size = r->rdv_n;
      h.cookie = r->cookie;
      h.src_index = my_index_;
      h.type = wire_cts;
      if (!inject_hdr(h, peer_addr)) return false;
      r->act = req_act::none;
      const int peer = r->peer_world;
      if (r->rdv_n == 0) complete(r);  // nothing to receive: done (r may be released from here on)
      ring_peer(peer);
      return true;
    }
    case req_act::none:
      return true;
  }
  if (rc == -FI_EAGAIN || rc == -FI_ENOMEM) return false;
  if (rc != 0) {
    r->act = req_act::none;
    r->result = req_result::transport;
    r->fi_err = static_cast<int>(-rc);
    complete(r);
    return true;
  }
  if (r->act == req_act::eager) {
    r->act = req_act::none;
    begin_xfer(r);
    ring_peer(r->peer_world);
  }
  return true;
}

bool engine::post_bounce(bounce* b) {
  const ssize_t rc =
      fi_trecv(ep_, b->buf, eager_max_ + hdr_size, nullptr, FI_ADDR_UNSPEC, ctrl_tag, 0, &b->ctx);
  if (rc == 0) return true;
  if (rc == -FI_EAGAIN || rc == -FI_ENOMEM) return false;
  fail("fi_trecv (receive buffer)", static_cast<int>(rc), provider_);
}

bool engine::repost_bounces() {
  bool did = false;
  while (!bounces_unposted_.empty() && post_bounce(bounces_unposted_.back())) {
    bounces_unposted_.pop_back();
    did = true;
  }
  return did;
}

// A receive handed to the engine: the first unexpected message it matches (arrival order), else the end of
// the posted list.
void engine::accept_recv(req* r) {
  // A receive that only an eager message can fill begins its transfer when posted (eager data may arrive
  // without our progress); a larger one when its rendezvous data receive is posted, or when an eager message
  // matches it (deliver_eager). So in mode off, data that moved inside a wait counts as not overlapped.
  if (r->len <= eager_max_) begin_xfer(r);
  unexpected_msg* prev = nullptr;
  for (unexpected_msg* m = unexp_head_; m; prev = m, m = m->next) {
    const wire_hdr& h = m->hdr;
    if ((r->peer_world >= 0 && static_cast<std::uint32_t>(r->peer_world) != h.src_index) ||
        ((h.tag ^ r->tag) & ~r->ignore) != 0)
      continue;
    if (prev) prev->next = m->next;
    else unexp_head_ = m->next;
    if (unexp_tail_ == m) unexp_tail_ = prev;
    r->stage = req_stage::matched;
    if (h.type == wire_eager) deliver_eager(r, h, m->data);
    else start_rendezvous(r, h);
    std::free(m->data);
    delete m;
    return;
  }
  r->stage = req_stage::posted;
  r->mnext = 0;
  r->mprev = posted_tail_;
  if (posted_tail_) pool_.at(posted_tail_ - 1)->mnext = r->index + 1;
  else posted_head_ = r->index + 1;
  posted_tail_ = r->index + 1;
}

// The first posted receive that an arriving message matches (posting order), unlinked; nullptr if none.
req* engine::match_posted(const wire_hdr& h) noexcept {
  for (std::uint32_t i = posted_head_; i;) {
    req* r = pool_.at(i - 1);
    if ((r->peer_world < 0 || static_cast<std::uint32_t>(r->peer_world) == h.src_index) &&
        ((h.tag ^ r->tag) & ~r->ignore) == 0) {
      if (r->mprev) pool_.at(r->mprev - 1)->mnext = r->mnext;
      else posted_head_ = r->mnext;
      if (r->mnext) pool_.at(r->mnext - 1)->mprev = r->mprev;
      else posted_tail_ = r->mprev;
      r->stage = req_stage::matched;
      return r;
    }
    i = r->mnext;
  }
  return nullptr;
}

void engine::deliver_eager(req* r, const wire_hdr& h, const char* data) {
  begin_xfer(r);  // no-op when it began at posting
  const std::size_t n = h.size < r->len ? h.size : r->len;
  copy_bytes(r->buf, data, n);
  r->result = h.size > r->len ? req_result::truncated : req_result::ok;
  r->bytes = n;
  r->rtag = h.tag;
  r->source = static_cast<int>(h.src_rank);
  r->peer_world = static_cast<int>(h.src_index);
  complete(r);
}

// A ready-to-send matched receive r: post a receive for what r takes, then (post()) clear the sender to send it.
void engine::start_rendezvous(req* r, const wire_hdr& h) {
  const std::size_t n = h.size < r->len ? h.size : r->len;
  r->result = h.size > r->len ? req_result::truncated : req_result::ok;
  r->bytes = n;
  r->rtag = h.tag;
  r->source = static_cast<int>(h.src_rank);
  r->peer_world = static_cast<int>(h.src_index);
  r->cookie = h.cookie;
  r->rdv_n = n;
  r->rdv_tag = rdv_tag_of(h.src_index, static_cast<std::uint32_t>(h.cookie) - 1);
  r->act = n ? req_act::data_recv : req_act::cts;
  post_or_backlog(r);
}

// A message in receive buffer b: match it (eager data, ready-to-send) or act on it (clear-to-send), then give
// the buffer back to the provider.
void engine::on_message(bounce* b, std::size_t len) {
  wire_hdr h;
  if (len >= hdr_size) {
    std::memcpy(&h, b->buf, hdr_size);
    const char* data = b->buf + hdr_size;
    if (h.type == wire_eager && h.size == len - hdr_size) {
      if (req* r = match_posted(h)) {
        deliver_eager(r, h, data);
      } else {
        auto* m = new unexpected_msg{h, nullptr, nullptr};
        if (h.size) {
          m->data = static_cast<char*>(std::malloc(h.size));
          if (!m->data) throw std::bad_alloc();
          std::memcpy(m->data, data, h.size);
        }
        if (unexp_tail_) unexp_tail_->next = m;
        else unexp_head_ = m;
        unexp_tail_ = m;
        bump(unexpected_);
      }
      // An eager message that was not injected completes at the sender once we took it.
      if (len > inject_size_) ring_peer(static_cast<int>(h.src_index));
    } else if (h.type == wire_rts) {
      if (req* r = match_posted(h)) {
        start_rendezvous(r, h);
      } else {
        auto* m = new unexpected_msg{h, nullptr, nullptr};
        if (unexp_tail_) unexp_tail_->next = m;
        else unexp_head_ = m;
        unexp_tail_ = m;
        bump(unexpected_);
      }
    } else if (h.type == wire_cts) {
      req* r = pool_.lookup(h.cookie);
      if (r && r->op == req_op::send && r->act == req_act::none && r->len > eager_max_) {
        r->rdv_n = h.size;
        r->act = req_act::data_send;
        post_or_backlog(r);
      } else {
        std::fprintf(stderr, "sidecore: warning: clear-to-send from address %u for no pending send (dropped)\n",
                     h.src_index);
      }
    } else {
      std::fprintf(stderr, "sidecore: warning: malformed message (type %u, %zu bytes) dropped\n",
                   static_cast<unsigned>(h.type), len);
    }
  } else {
    std::fprintf(stderr, "sidecore: warning: %zu-byte message is shorter than a sidecore header (dropped)\n", len);
  }
  // Given back to the provider at the start of the next progress pass, not now: the fi_trecv would sit between
  // this message's arrival and the return of the wait that waits for it (measured on shm, self ping-pong).
  // The other buffers stay posted meanwhile.
  bounces_unposted_.push_back(b);
}

void engine::begin_xfer(req* r) noexcept {
  if (r->posted) return;
  r->posted = true;
  if (xfer_hook_) xfer_hook_(r, true);
}

void engine::complete(req* r) noexcept {
  if (xfer_hook_ && r->posted) xfer_hook_(r, false);
  bump(completions_);
  if (r == own_) {
    // Completed while its caller posts it (an inject): nobody else can hold its handle yet, so no orphan mark
    // and no waiter to race with.
    r->state.store(static_cast<std::uint32_t>(req_state::complete), std::memory_order_release);
    return;
  }
  const auto prev = r->state.exchange(static_cast<std::uint32_t>(req_state::complete), std::memory_order_seq_cst);
  if (prev == static_cast<std::uint32_t>(req_state::orphan)) {
    pool_.release(r);
    return;
  }
  if (r->waiter.load(std::memory_order_seq_cst)) futex_wake(&r->state);
}

void engine::orphan(req* r) noexcept {
  const auto prev = r->state.exchange(static_cast<std::uint32_t>(req_state::orphan), std::memory_order_acq_rel);
  if (prev == static_cast<std::uint32_t>(req_state::complete)) pool_.release(r);
}

void engine::handle_entries(const fi_cq_tagged_entry* e, int n) {
  const auto* first = reinterpret_cast<const char*>(bounces_.data());
  const auto* last = reinterpret_cast<const char*>(bounces_.data() + bounces_.size());
  for (int i = 0; i < n; ++i) {
    const auto* ctx = static_cast<const char*>(e[i].op_context);
    if (ctx >= first && ctx < last) {
      on_message(static_cast<bounce*>(e[i].op_context), e[i].len);
      continue;
    }
    req* r = static_cast<req*>(e[i].op_context);  // ctx is the first member of req
    // A send's eager message or rendezvous data went out, or a receive's rendezvous data arrived (its result
    // and byte count were set when it matched).
    if (r->op == req_op::recv) {  // only rendezvous data receives complete through the CQ
      --rdv_recvs_posted_;
      const int peer = r->peer_world;
      complete(r);  // first: the peer we wake may take the core we share with it
      ring_peer(peer);  // the sender's rendezvous send completes now
      continue;
    }
    complete(r);
  }
}

void engine::handle_error() {
  fi_cq_err_entry err{};
  if (fi_cq_readerr(cq_, &err, 0) < 1) return;
  if (!err.op_context) return;
  const auto* ctx = static_cast<const char*>(err.op_context);
  if (ctx >= reinterpret_cast<const char*>(bounces_.data()) &&
      ctx < reinterpret_cast<const char*>(bounces_.data() + bounces_.size())) {
    // A receive buffer failed (a message larger than a buffer: not from a sidecore peer). Report, repost.
    std::fprintf(stderr, "sidecore: warning: receive buffer error: %s (%d); message dropped\n",
                 fi_strerror(err.err < 0 ? -err.err : err.err), err.err);
    auto* b = static_cast<bounce*>(err.op_context);
    if (!post_bounce(b)) bounces_unposted_.push_back(b);
    return;
  }
  req* r = static_cast<req*>(err.op_context);
  if (r->op == req_op::recv) --rdv_recvs_posted_;  // a rendezvous data receive (the only receives posted)
  if (err.err == FI_ECANCELED || err.err == -FI_ECANCELED) {
    r->result = req_result::canceled;
    r->bytes = 0;
  } else {
    r->result = req_result::transport;
    r->fi_err = err.err < 0 ? -err.err : err.err;
  }
  complete(r);
}

int engine::poll_cq() {
  fi_cq_tagged_entry entries[64];
  const std::size_t batch = cfg_.cq_batch < 64 ? cfg_.cq_batch : 64;
  int total = 0;
  for (;;) {
    const ssize_t n = fi_cq_read(cq_, entries, batch);
    if (n > 0) {
      handle_entries(entries, static_cast<int>(n));
      total += static_cast<int>(n);
      if (static_cast<std::size_t>(n) < batch) break;
    } else if (n == -FI_EAVAIL) {
      handle_error();
      ++total;
    } else {
      break;  // -FI_EAGAIN: nothing more now
    }
  }
  return total;
}

bool engine::progress_locked() {
  bump(polls_);
  bool did = false;
  if (!bounces_unposted_.empty() || (backlog_[0].head | backlog_[1].head)) did = retry_backlog();
  did |= drain_submissions();
  did |= poll_cq() > 0;
  if (backlog_[0].head | backlog_[1].head) did |= retry_backlog();
  return did;
}

bool engine::progress() {
  if (!try_lock()) return false;
  const bool did = progress_locked();
  unlock();
  return did;
}

void engine::sleep_locked(bool as_thread) {
  bump(blocks_);
  if (!bounces_unposted_.empty()) repost_bounces();  // sleep with every receive buffer the provider takes
  const std::uint32_t seq = bell_->seq.load(std::memory_order_acquire);
  bell_->sleepers.fetch_add(1, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_seq_cst);  // pairs with the fences in submit() and ring_peer()
  // Re-check after announcing ourselves: a submission queued, or a message that arrived before a peer could
  // see us asleep.
  const bool quiet = queue_.empty_hint() && !stop_.load(std::memory_order_acquire) &&
                     rings_pending_.load(std::memory_order_relaxed) == 0 && poll_cq() == 0;
  unlock();
  if (quiet) futex_wait_shared(&bell_->seq, seq, cfg_.block_us);
  bell_->sleepers.fetch_sub(1, std::memory_order_relaxed);
  while (!(as_thread ? thread_try_lock() : try_lock())) cpu_relax();
}

void engine::wait_for(req* r) {
  if (is_complete(r)) return;
  // The clock is read only once the wait has lasted a while (a clock read costs as much as a short wait).
  const std::uint64_t spin_ns = cfg_.idle == idle_policy::spin    ? UINT64_MAX
                                : cfg_.idle == idle_policy::block ? 0
                                                                  : std::uint64_t{cfg_.spin_us} * 1000;
  std::uint64_t start = 0;
  std::uint32_t rounds = 0;
  const auto waited_enough = [&]() {
    const std::uint64_t now = now_ns();
    if (start == 0) start = now;
    return now - start > spin_ns;
  };
  // hybrid: between yield_us and spin_us of waiting, the waiter yields its core now and then (a rank or progress
  // thread that shares it runs now, not after our time slice; alone on the core the call returns at once).
  const std::uint64_t yield_ns = cfg_.idle == idle_policy::hybrid ? std::uint64_t{cfg_.yield_us} * 1000 : UINT64_MAX;
  if (thread_running()) {
    // Mode core: the progress thread moves the data; we only watch the request, and after the spin phase
    // sleep on its state word until complete() wakes us.
    // Past yield_us, yield every 256 rounds. Measured on 2 cores with 2 ranks in core mode (both application
    // threads fenced onto core 0): without it a waiter spinning its 5 ms took the core from the other rank's
    // computation, and apps/heat2d ran 4.9x slower than in mode off.
    constexpr auto pending = static_cast<std::uint32_t>(req_state::pending);
    // Found shared lately (by this thread's previous waits): sleep without spinning first.
    bool shared = tls_shared_until != 0 && now_ns() < tls_shared_until;
    // Caller progress for an eager message (latency-bound): as in mode off, until the spin phase ends (then sleep
    // below, the progress thread back). A rendezvous transfer (bandwidth-bound) is left to the progress thread, as
    // its data moves while the application computes: measured on 2 cores with the peer rank on the progress core,
    // a caller progressing its own 1 MiB transfers moved them 3x faster alone (the peer had core 1 to itself) but
    // then lost that speed as soon as it computed, and 1 MiB overlap fell from 99 % to 0-74 %.
    if (cfg_.caller_progress && r->len <= eager_max_ && caller_lock()) {
      bool held = true;
      while (!is_complete(r)) {
        if (progress_locked() || is_complete(r) || (++rounds & 63) != 0) continue;
        if (waited_enough()) break;
        if (now_ns() - start >= yield_ns) {
          caller_unlock();
          sched_yield();
          if (!(held = caller_lock())) break;
        }
      }
      if (held) caller_unlock();
    }
    while (!is_complete(r)) {
      cpu_relax();
      if ((++rounds & 255) != 0) continue;
      if (!shared && !waited_enough()) {
        if (const std::uint64_t t0 = now_ns(); t0 - start >= yield_ns) {
          sched_yield();
          // A yield that took long may have run another thread: then our core is shared, and spinning on takes
          // it from that thread (on 2 cores: a peer rank doing the very transfer we wait for), so sleep until
          // complete() wakes us. The kernel says whether it did: a yield that hands the core over counts as an
          // involuntary switch (alone on its core, 2 in 100k yields; a slow yield alone, 0.15 %, is a VM exit).
          const std::uint64_t t1 = now_ns();
          if (t1 - t0 >= shared_yield_ns && core_shared()) {
            shared = true;
            tls_shared_until = t1 + shared_hold_ns;
          }
        }
        continue;
      }
      r->waiter.store(true, std::memory_order_seq_cst);
      if (r->state.load(std::memory_order_seq_cst) == pending) futex_wait(&r->state, pending, 0);
    }
    return;
  }
  // Mode off: past yield_us, yield every 64 unproductive passes.
  while (!is_complete(r)) {
    if (!try_lock()) {  // another thread progresses for us
      cpu_relax();
      continue;
    }
    const bool did = progress_locked();
    bool yield_now = false;
    if (!did && !is_complete(r) && (++rounds & 63) == 0) {
      if (waited_enough()) sleep_locked(false);
      else yield_now = now_ns() - start >= yield_ns;
    }
    unlock();
    if (yield_now) sched_yield();
  }
}

void engine::start_thread(std::function<void()> on_start) {
  stop_.store(false);
  running_.store(true, std::memory_order_release);
  thread_ = std::thread([this, f = std::move(on_start)]() mutable { thread_main(std::move(f)); });
}

void engine::stop_thread() {
  if (!thread_.joinable()) return;
  stop_.store(true, std::memory_order_release);
  wake();
  thread_.join();
  running_.store(false, std::memory_order_release);
}

// The progress loop (mode core): drain the backlog and submissions, poll the CQ; when a pass finds nothing,
// spin, then (block/hybrid) sleep on the doorbell until a submission or a peer rings it, or block_us passes.

void engine::thread_main(std::function<void()> on_start) {
  if (on_start) on_start();
  while (!thread_try_lock()) cpu_relax();
  // The clock is read once per pass, busy or idle. Measured on our KVM guests: a loop that polls without it
  // (accounting at busy/idle transitions only) made the core-mode hand-off 3-5x slower (1.2-2.0 us per self
  // round trip instead of 0.4 us); a clock read per pass is also the busy/idle accounting.
  std::uint64_t idle_since = 0;
  std::uint64_t t = now_ns();
  const std::uint64_t spin_ns = std::uint64_t{cfg_.spin_us} * 1000;
  const std::uint64_t yield_ns = std::uint64_t{cfg_.yield_us} * 1000;
  while (!stop_.load(std::memory_order_acquire)) {
    if (caller_want_.load(std::memory_order_relaxed) != 0) [[unlikely]] {
      park();  // application threads progress meanwhile ("caller progress")
      const std::uint64_t after = now_ns();
      bump(idle_ns_, after - t);
      t = after;
      idle_since = 0;
      continue;
    }
    const bool did = progress_locked();
    if (rings_pending_.load(std::memory_order_relaxed) != 0) flush_rings();
    const std::uint64_t now = now_ns();
    if (did) {
      bump(busy_ns_, now - t);
      idle_since = 0;
      t = now;
      continue;
    }
    bump(idle_ns_, now - t);
    t = now;
    if (idle_since == 0) {
      idle_since = now;
      if (idle_hook_) idle_hook_();
    }
    if (cfg_.idle == idle_policy::spin) {
      cpu_relax();
      continue;
    }
    if (cfg_.idle == idle_policy::hybrid && now - idle_since < spin_ns) {
      // Past yield_us, give the core to whoever else wants it. Measured on a 2-core VM with a peer rank on the
      // progress core: without it, the peer (woken by our doorbell) often waited for the scheduler to end our
      // time slice, 0.2-1.5 ms, and 1 MiB receiver-side overlap fell to 79 %. Alone on its core, a yield is a
      // syscall that returns at once.
      if (now - idle_since >= yield_ns) {
        bump(yields_);
        sched_yield();
      } else {
        cpu_relax();
      }
      continue;
    }
    sleep_locked(true);
    const std::uint64_t after = now_ns();
    bump(idle_ns_, after - t);
    t = after;
  }
  progress_locked();
  flush_rings();
  unlock();
}

engine_stats engine::stats() const noexcept {
  engine_stats s;
  s.polls = polls_.load(std::memory_order_relaxed);
  s.completions = completions_.load(std::memory_order_relaxed);
  s.busy_ns = busy_ns_.load(std::memory_order_relaxed);
  s.idle_ns = idle_ns_.load(std::memory_order_relaxed);
  s.blocks = blocks_.load(std::memory_order_relaxed);
  s.yields = yields_.load(std::memory_order_relaxed);
  s.eagain = eagain_.load(std::memory_order_relaxed);
  s.queue_full = queue_full_.load(std::memory_order_relaxed);
  s.unexpected = unexpected_.load(std::memory_order_relaxed);
  s.rendezvous = rendezvous_.load(std::memory_order_relaxed);
  return s;
}

}  // namespace sidecore::progress
