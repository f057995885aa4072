// The engine's construction and teardown, and the public functions that belong to no one concept: properties,
// hooks, the peer connections made at start-up. See engine_core.hpp for where everything else lives.
#include <sidecore/progress/engine.hpp>

#include <cstdio>
#include <cstdlib>

#include <sidecore/common/common.hpp>
#include <sidecore/progress/tag.hpp>

#include "engine_core.hpp"
#include "fd_room.hpp"

namespace sidecore::progress {

std::unique_ptr<engine> engine::open(const engine_config& cfg) { return std::make_unique<engine_core>(cfg); }

engine::~engine() = default;

engine_core::engine_core(const engine_config& c)
    : cfg(c), ep(c.provider, hdr_size), pool(c.max_requests), queue(c.queue_capacity) {
  provider_ = ep.provider;
  fd_stalls.recv_watched = provider_ != "shm";
  fabric_name_ = ep.fabric_name;
  max_msg_size_ = ep.max_msg_size;
  inject_size_ = ep.inject_size;
  // Eager data goes out as two iovecs (header, data) when it does not fit an inject; a provider with a single
  // iovec sends eagerly only what fits an inject.
  eager_max_ = cfg.eager_max;
  if (ep.iov_limit < 2 && eager_max_ > inject_size_ - hdr_size) eager_max_ = inject_size_ - hdr_size;
  caller_limit = cfg.caller_progress ? eager_max_ + 1 : 0;
  serialized.store(cfg.serialized_callers, std::memory_order_relaxed);
  if (cfg.serialized_callers) lock.start_bias();  // the opening thread: MPI's init thread, FUNNELED's caller
  cq_read_max = cfg.cq_batch == 0 ? 1 : cfg.cq_batch < 64 ? cfg.cq_batch : 64;
  inject_buf.resize(inject_size_);
  setup_rx_buffers();
}

void engine_core::too_many() const {
  throw too_many_requests(std::to_string(pool.capacity()) + " requests are in flight, the most this rank may have",
                          pool.capacity());
}

void engine_core::callers_not_serialized() noexcept {
  if (!serialized.exchange(false, std::memory_order_relaxed)) return;
  std::fprintf(stderr,
               "sidecore: warning: address %u: two threads called sidecore at the same time, but MPI's thread level "
               "(below MPI_THREAD_MULTIPLE) says that one thread at a time does (said once). sidecore's calls stay "
               "correct, MPI's may not: ask MPI_Init_thread for MPI_THREAD_MULTIPLE when threads communicate at "
               "once\n",
               my_index);
}

engine_core::~engine_core() {
  stop_thread();
  ep.close();  // before the receive buffers' memory goes: the provider may still write into posted buffers
  while (matching.unexp_head) {
    unexpected_msg* m = matching.unexp_head;
    matching.unexp_head = m->next;
    std::free(m->data);
    delete m;
  }
}

void engine::connect_peers(int me, const std::vector<int>& node_peers, int nranks, double timeout_s) {
  std::vector<std::uint64_t> handles;
  std::vector<int> peer_of;  // per handle
  char dummy = 0;
  const std::uint64_t t = tag::make(tag::kind::internal, 0, 1);
  // A stall here is init's error (below): the engine's warning about receives that wait would only repeat it.
  fd_watch& fds_watch = core_of(*this).fd_stalls;
  fds_watch.warned_recv = true;
  struct warn_after {
    fd_watch& w;
    ~warn_after() { w.warned_recv = false; }
  } const rearm{fds_watch};
  for (int p : node_peers) {
    if (p == me) continue;
    handles.push_back(start_recv(&dummy, 0, t, 0, p, p, 0));
    handles.push_back(start_send(&dummy, 0, p, t, p, me, 0));
    peer_of.insert(peer_of.end(), {p, p});
  }
  const std::uint64_t deadline = timeout_s > 0 ? now_ns() + static_cast<std::uint64_t>(timeout_s * 1e9) : 0;
  const auto wait_all = [&](std::vector<std::uint64_t>& hs) {
    for (std::size_t i = 0; i < hs.size(); ++i) {
      completion c;
      if (is_inline(hs[i])) continue;  // a send the provider took at once has nothing to wait for
      // The thread is not started yet (init): this thread progresses. A connection the provider could not accept
      // for want of a file descriptor is never reported: a stall with the descriptors used up is taken for that,
      // also without a deadline (SIDECORE_PEER_TIMEOUT 0), where init would otherwise wait for ever.
      const std::uint64_t since = now_ns();
      std::uint64_t next_look = since + fd_stall_ns;
      while (test(hs[i], c) == test_result::pending) {
        (void)progress();  // may report work while none gets done: a send retried from the backlog
        const std::uint64_t now = now_ns();
        if (deadline != 0 && now > deadline) {
          char secs[32];
          std::snprintf(secs, sizeof secs, "%g", timeout_s);
          throw transport_error("no exchange with peer rank " + std::to_string(peer_of[i]) + " completed within " +
                                secs + " s (SIDECORE_PEER_TIMEOUT) on provider '" + provider_ +
                                "': is the link to that rank's host up?");
        }
        if (now < next_look) continue;
        next_look = now + fd_stall_ns / 4;
        if (const std::string fds = fd_room_note(fd_stall_margin); !fds.empty())
          throw transport_error("no exchange with peer rank " + std::to_string(peer_of[i]) + " completed within " +
                                std::to_string((now - since) / 1000000000) + " s on provider '" + provider_ +
                                "', and " + fds);
      }
      // A send the engine failed, for one (failure::fds_used_up: it found the same stall first).
      if (c.result != req_result::ok) throw transport_error(describe(c));
    }
    hs.clear();
  };
  wait_all(handles);
  // Every peer of this node has sent to us, so each has mapped our shm region: its name can go.
  core_of(*this).ep.unlink_shm_region();
  // One message of each size class the provider treats apart, around the ring of all ranks (each rank sends
  // one and receives one of each): tcp;ofi_rxm allocates and initialises a buffer pool per protocol (eager, SAR,
  // rendezvous) at the first message that needs it; measured with libfabric 1.17, the first eager message above
  // the inject size mapped and touched 16.5 MiB (~96 ms on a quiet 2-core VM, over 600 ms loaded) and the first
  // 64 KiB message 190-440 ms. The pools belong to the endpoint, so one message per class is enough; the ring
  // reaches every endpoint, also where each node holds one rank.
  if (nranks < 2 || me < 0 || me >= nranks) return;
  const int next = (me + 1) % nranks, prev = (me + nranks - 1) % nranks;
  for (std::size_t len : {inject_size_, std::size_t{64} << 10, std::size_t{256} << 10}) {
    if (len > max_msg_size_) break;
    std::vector<char> out(len), in(len);
    handles.push_back(start_recv(in.data(), len, t, 0, prev, prev, 0));
    handles.push_back(start_send(out.data(), len, next, t, next, me, 0));
    peer_of.assign({prev, next});
    wait_all(handles);
  }
}

bool engine::thread_running() const noexcept {
  return static_cast<const engine_core&>(*this).running.load(std::memory_order_acquire);
}

std::size_t engine::requests_in_use() const noexcept { return static_cast<const engine_core&>(*this).pool.in_use(); }
std::size_t engine::operations_in_use() const noexcept {
  return static_cast<const engine_core&>(*this).pool.in_use_by_application();
}

void engine::set_xfer_hook(xfer_hook hook) noexcept { core_of(*this).on_xfer = hook; }
void engine::set_idle_hook(idle_hook hook) noexcept { core_of(*this).on_idle = hook; }

}  // namespace sidecore::progress
