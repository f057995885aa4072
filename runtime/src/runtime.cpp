// Lifecycle, communicators and point-to-point: the public C++ API of sidecore.hpp.
#include <omp.h>

#include <array>
#include <cctype>
#include <cstdio>
#include <optional>
#include <vector>

#include <sched.h>
#include <unistd.h>
#include <string>

#include <sidecore/instrument/instrument.hpp>
#include <sidecore/sidecore.hpp>

#include "mode_switch.hpp"
#include "call_scope.hpp"
#include "state.hpp"

namespace sidecore {

using detail::g_phase;
using detail::g_state;
using detail::phase;
namespace tag = progress::tag;

namespace detail {

std::atomic<int> g_phase{0};
runtime_state* g_state = nullptr;

// The checks below are on every call: the test is inline, the message is built out of line (cold).
[[noreturn, gnu::cold, gnu::noinline]] void throw_not_running(const char* what) {
  const int p = g_phase.load(std::memory_order_acquire);
  throw error(errc::not_initialized, std::string("sidecore::") + what + " called " +
                                         (p == 0 ? "before sidecore::init()" : "after sidecore::finalize()") +
                                         "; call it between init() and finalize()");
}

[[noreturn, gnu::cold, gnu::noinline]] void throw_bad_comm(const comm& c, const char* what) {
  if (c.id() < 0 || c.id() >= tag::max_comms)
    throw error(errc::invalid_argument, std::string("sidecore::") + what + ": the communicator is null (default-"
                                        "constructed, freed, or split with color -1); pass world() or a live one");
  throw error(errc::invalid_argument, std::string("sidecore::") + what + ": communicator id " +
                                          std::to_string(c.id()) + " was freed; pass world() or a live one");
}

}  // namespace detail

namespace {

using detail::call_scope;

// The ranks found dead by the time finalize returned (failed_ranks() after finalize).
std::vector<int> g_failed_ranks;

[[noreturn, gnu::cold, gnu::noinline]] void throw_bad_request(const request& r, const char* what) {
  if (r.handle() == 0)
    throw error(errc::invalid_request, std::string("sidecore::") + what +
                                           ": the request was never started (default-constructed or moved from)");
  throw error(errc::invalid_request, std::string("sidecore::") + what +
                                         ": the request was already completed and consumed by an earlier wait/test");
}

// The sentence of this thread's last request that completed with an error that has one (send's exception, the
// blocking collectives', the C API's sc_last_error).
thread_local std::string t_request_error;

[[gnu::cold, gnu::noinline]] void note_error(const detail::runtime_state& s, const progress::completion& c,
                                             std::uint64_t handle) {
  t_request_error = c.kind == progress::req_kind::schedule ? s.coll->describe(handle, c) : s.eng->describe(c);
}

// What a completed request (engine handle `handle`) reports, as the public status.
[[gnu::always_inline]] inline status to_status(const detail::runtime_state& s, const progress::completion& c,
                                              std::uint64_t handle) {
  status st;
  if (c.kind == progress::req_kind::recv && c.result != progress::req_result::canceled) {
    st.source = c.source;
    st.tag = tag::user_of(c.tag);
  }
  st.bytes = c.bytes;
  switch (c.result) {
    case progress::req_result::ok: st.error = errc::success; break;
    case progress::req_result::truncated: st.error = errc::truncated; break;
    case progress::req_result::canceled: st.error = errc::canceled; break;
    case progress::req_result::transport:
      st.error = errc::transport;
      note_error(s, c, handle);
      break;
    case progress::req_result::invalid:
      st.error = errc::invalid_argument;
      note_error(s, c, handle);
      break;
    case progress::req_result::peer_failed:
      st.error = errc::peer_failed;
      note_error(s, c, handle);
      break;
  }
  return st;
}

// Trace records for the replay (instrument::trace_post / trace_done; docs/simulate.md).
[[gnu::cold, gnu::noinline]] void trace_post(const detail::runtime_state& s, const request& r, bool send, int peer,
                                             int world_peer, int t, int comm_id, std::int64_t bytes) noexcept {
  const auto b = static_cast<std::size_t>(bytes);
  const char* proto = !send ? "posted" : progress::is_inline(r.handle()) ? "inject"
                                       : b <= s.eng->eager_max()         ? "eager"
                                                                          : "rndv";
  instrument::trace_post(send, r.handle(), peer, world_peer, t, comm_id, b, proto);
}

// `handle` completed with `c` (a receive: its matched source and tag, mapped to the init communicator through the
// message's communicator id).
[[gnu::cold, gnu::noinline]] void trace_done(const detail::runtime_state& s, std::uint64_t handle,
                                             const progress::completion& c) noexcept {
  if (c.kind != progress::req_kind::recv || c.result == progress::req_result::canceled || c.source < 0) {
    instrument::trace_done(handle, -1, -1, -1, c.bytes);
    return;
  }
  const int id = tag::comm_of(c.tag);
  const detail::comm_entry* e =
      id >= 0 && id < tag::max_comms ? s.comms[static_cast<std::size_t>(id)].load(std::memory_order_acquire) : nullptr;
  const int world = e != nullptr && static_cast<std::size_t>(c.source) < e->to_world.size()
                        ? e->to_world[static_cast<std::size_t>(c.source)]
                        : -1;
  instrument::trace_done(handle, c.source, world, tag::user_of(c.tag), c.bytes);
}


// The engine handle whose completion a request waits for: its own, or a persistent request's current run (*p set;
// 0 while it is inactive). Throws errc::invalid_request for a freed persistent request.
std::uint64_t engine_handle(detail::runtime_state& s, const request& r, detail::persistent_op** p, const char* what);

// The request's current operation completed and its result was read: a nonblocking request is consumed, a
// persistent one becomes inactive.
void mark_done(request& r, detail::persistent_op* p) noexcept {
  if (p) p->running = 0;
  else request_access::mark_consumed(r);
}

// Reads a completed request's result and frees it (the handle becomes stale, or a persistent request inactive): *st
// when given. False if the request has not completed, or names nothing to wait for (an inactive persistent request,
// a consumed or empty handle).
bool consume_if_done(detail::runtime_state& s, request& r, status* st) {
  detail::persistent_op* p = nullptr;
  const std::uint64_t h = detail::is_persistent(r.handle()) ? engine_handle(s, r, &p, "test") : r.handle();
  progress::completion c;
  if (h == 0 || s.eng->test(h, c) != progress::test_result::done) return false;
  if (instrument::tracing()) trace_done(s, h, c);
  const status done = to_status(s, c, h);
  mark_done(r, p);
  if (st) *st = done;
  return true;
}

// A send that completed inside isend (progress::is_inline: no slot) is consumed here: *st (when given) gets its
// status. False, and nothing touched, for any other handle.
bool take_inline(request& r, status* st) noexcept {
  if (!progress::is_inline(r.handle())) return false;
  instrument::trace_done(r.handle(), -1, -1, -1, progress::inline_bytes(r.handle()));
  if (st) {
    *st = status{};
    st->bytes = progress::inline_bytes(r.handle());
  }
  request_access::mark_consumed(r);
  return true;
}

[[noreturn, gnu::cold, gnu::noinline]] void throw_bad_buffer(const void* buf, std::int64_t bytes, const char* what) {
  if (bytes < 0)
    throw error(errc::invalid_argument, std::string("sidecore::") + what + ": bytes=" + std::to_string(bytes) +
                                            " is negative; accepted: 0 or more");
  (void)buf;
  throw error(errc::invalid_argument, std::string("sidecore::") + what + ": buf is null with bytes=" +
                                          std::to_string(bytes) + "; a null buffer is accepted only with 0 bytes");
}

[[noreturn, gnu::cold, gnu::noinline]] void throw_too_large(const detail::runtime_state& s, std::int64_t bytes,
                                                            const char* what) {
  throw error(errc::invalid_argument, std::string("sidecore::") + what + ": bytes=" + std::to_string(bytes) +
                                          " exceeds the largest message of provider " + s.eng->provider() + " (" +
                                          std::to_string(s.eng->max_msg_size()) + " bytes)");
}

[[noreturn, gnu::cold, gnu::noinline]] void throw_bad_rank(const detail::comm_entry& c, int r, bool allow_any,
                                                           const char* arg, const char* what) {
  throw error(errc::invalid_argument, std::string("sidecore::") + what + ": " + arg + "=" + std::to_string(r) +
                                          " is not a rank of the communicator; accepted: 0.." +
                                          std::to_string(c.size - 1) + (allow_any ? " or any_source" : ""));
}

[[noreturn, gnu::cold, gnu::noinline]] void throw_bad_tag(int t, bool allow_any, const char* what) {
  throw error(errc::invalid_argument, std::string("sidecore::") + what + ": tag=" + std::to_string(t) +
                                          " is out of range; accepted: 0.." + std::to_string(tag_max) +
                                          (allow_any ? " or any_tag" : ""));
}

inline void check_buffer(const void* buf, std::int64_t bytes, const char* what) {
  if (bytes < 0 || (buf == nullptr && bytes > 0)) [[unlikely]]
    throw_bad_buffer(buf, bytes, what);
}

inline void check_size(const detail::runtime_state& s, std::int64_t bytes, const char* what) {
  if (static_cast<std::uint64_t>(bytes) > s.eng->max_msg_size()) [[unlikely]]
    throw_too_large(s, bytes, what);
}

inline void check_rank(const detail::comm_entry& c, int r, bool allow_any, const char* arg, const char* what) {
  if (static_cast<unsigned>(r) >= static_cast<unsigned>(c.size) && !(allow_any && r == any_source)) [[unlikely]]
    throw_bad_rank(c, r, allow_any, arg, what);
}

inline void check_tag(int t, bool allow_any, const char* what) {
  if (static_cast<unsigned>(t) > static_cast<unsigned>(tag_max) && !(allow_any && t == any_tag)) [[unlikely]]
    throw_bad_tag(t, allow_any, what);
}

void mpi_check(int rc, const char* call) {
  if (rc != MPI_SUCCESS) {
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, msg, &len);
    throw error(errc::mpi, std::string(call) + " failed: " + std::string(msg, static_cast<std::size_t>(len)));
  }
}

detail::comm_entry* make_entry(MPI_Comm mpi, MPI_Comm world, int id, std::size_t coll_cache) {
  auto* e = new detail::comm_entry;
  e->mpi = mpi;
  MPI_Comm_rank(mpi, &e->rank);
  MPI_Comm_size(mpi, &e->size);
  MPI_Group g_comm, g_world;
  MPI_Comm_group(mpi, &g_comm);
  MPI_Comm_group(world, &g_world);
  std::vector<int> ranks(static_cast<std::size_t>(e->size));
  for (int i = 0; i < e->size; ++i) ranks[static_cast<std::size_t>(i)] = i;
  e->to_world.resize(ranks.size());
  MPI_Group_translate_ranks(g_comm, e->size, ranks.data(), g_world, e->to_world.data());
  MPI_Group_free(&g_comm);
  MPI_Group_free(&g_world);
  e->coll = std::make_shared<progress::coll_comm>(id, e->rank, e->to_world, coll_cache);
  return e;
}

// Collective over the parent: an id that no member uses. Ids are handed out in increasing order first (a rank's
// next_comm_id is above every id it ever held, so the largest over the members is free at all of them), which
// keeps a freed id unused for as long as possible: a stale copy of a freed comm is reported as freed, not taken
// for a newer one. Once the id space is used up, the lowest id free at every member is reused (one more
// allreduce, of the members' in-use bitmaps); only the communicators alive at once are limited.
int agree_comm_id(detail::runtime_state& s, MPI_Comm parent) {
  int mine = s.next_comm_id, id = 0;
  mpi_check(MPI_Allreduce(&mine, &id, 1, MPI_INT, MPI_MAX, parent), "MPI_Allreduce (communicator id)");
  if (id < tag::max_comms) {
    s.next_comm_id = id + 1;
    return id;
  }
  constexpr int words = (tag::max_comms + 63) / 64;
  std::array<std::uint64_t, words> used{}, any{};
  for (int i = 0; i < tag::max_comms; ++i)
    if (s.comms[static_cast<std::size_t>(i)].load(std::memory_order_relaxed))
      used[static_cast<std::size_t>(i / 64)] |= std::uint64_t{1} << (i % 64);
  mpi_check(MPI_Allreduce(used.data(), any.data(), words, MPI_UINT64_T, MPI_BOR, parent),
            "MPI_Allreduce (communicator ids in use)");
  for (int i = 1; i < tag::max_comms; ++i)
    if ((any[static_cast<std::size_t>(i / 64)] >> (i % 64) & 1) == 0) return i;
  throw error(errc::invalid_argument, "too many communicators alive at once: sidecore supports " +
                                          std::to_string(tag::max_comms - 1) +
                                          " besides world() (free the ones you no longer use)");
}

// One doorbell per rank in an MPI shared window of the node, so that a rank that sends to a sleeping peer on
// the same node wakes it at once (see progress::doorbell); with SIDECORE_SHM_FASTPATH, after it the rank's inbox:
// one node ring per rank of the node (indexed by the writer's rank in the node communicator).
// A doorbell is 64-byte aligned (its own cache line); MPICH's shared segment is not always (UBSan, 1 rank: a
// 16-byte aligned base). Each rank's segment holds one doorbell plus the slack to align it, then its rings.
progress::doorbell* aligned_bell(void* base) noexcept {
  const auto a = reinterpret_cast<std::uintptr_t>(base);
  const std::uintptr_t al = alignof(progress::doorbell);
  return reinterpret_cast<progress::doorbell*>((a + al - 1) & ~(al - 1));
}

void setup_doorbells(detail::runtime_state& s, MPI_Comm world) {
  int local = 0, nranks = 0, my_local = 0;
  MPI_Comm_size(s.node, &local);
  MPI_Comm_rank(s.node, &my_local);
  MPI_Comm_size(world, &nranks);
  // The rings follow the doorbell's cache line; none for a rank alone on its node.
  const bool fastpath = s.cfg.shm_fastpath && local > 1;
  const std::size_t ring_bytes = fastpath ? progress::engine::node_ring_bytes(s.cfg.eager_max) : 0;
  const auto seg = static_cast<MPI_Aint>(sizeof(progress::doorbell) + alignof(progress::doorbell) +
                                         ring_bytes * static_cast<std::size_t>(local));
  void* base = nullptr;
  mpi_check(MPI_Win_allocate_shared(seg, 1, MPI_INFO_NULL, s.node, &base, &s.bell_window),
            "MPI_Win_allocate_shared (doorbells)");
  progress::doorbell* mine = aligned_bell(base);
  new (mine) progress::doorbell();
  mine->pid.store(static_cast<std::int32_t>(getpid()), std::memory_order_relaxed);  // peers check it lives
  const auto rings_of = [ring_bytes](progress::doorbell* bell) { return reinterpret_cast<char*>(bell + 1); };
  for (int j = 0; j < local && fastpath; ++j)
    progress::engine::init_node_ring(rings_of(mine) + ring_bytes * static_cast<std::size_t>(j), ring_bytes);
  MPI_Barrier(s.node);
  MPI_Group g_node, g_world;
  MPI_Comm_group(s.node, &g_node);
  MPI_Comm_group(world, &g_world);
  std::vector<progress::doorbell*> peers(static_cast<std::size_t>(nranks), nullptr);
  std::vector<void*> inbox, outbox;
  if (fastpath) {
    inbox.assign(static_cast<std::size_t>(nranks), nullptr);
    outbox.assign(static_cast<std::size_t>(nranks), nullptr);
  }
  for (int i = 0; i < local; ++i) {
    MPI_Aint sz = 0;
    int disp = 0;
    void* ptr = nullptr;
    mpi_check(MPI_Win_shared_query(s.bell_window, i, &sz, &disp, &ptr), "MPI_Win_shared_query (doorbells)");
    int w = 0;
    MPI_Group_translate_ranks(g_node, 1, &i, g_world, &w);
    if (w < 0 || w >= nranks || ptr == nullptr) continue;
    progress::doorbell* bell = aligned_bell(ptr);
    peers[static_cast<std::size_t>(w)] = bell;
    if (fastpath && i != my_local) {
      inbox[static_cast<std::size_t>(w)] = rings_of(mine) + ring_bytes * static_cast<std::size_t>(i);
      outbox[static_cast<std::size_t>(w)] = rings_of(bell) + ring_bytes * static_cast<std::size_t>(my_local);
    }
  }
  MPI_Group_free(&g_node);
  MPI_Group_free(&g_world);
  std::vector<int> local_ranks;
  for (int i = 0; i < nranks; ++i)
    if (peers[static_cast<std::size_t>(i)]) local_ranks.push_back(i);
  s.eng->set_doorbells(mine, std::move(peers));
  int me = 0;
  MPI_Comm_rank(world, &me);
  s.eng->connect_peers(me, local_ranks, nranks, s.cfg.peer_timeout_s);
  if (fastpath) s.eng->set_node_rings(inbox, outbox);
}

// Settings that must be the same on every rank, each for its own reason: the collectives' (another algorithm or
// segment size is another message pattern, which would hang or fail the first collective); mode auto (its window
// and agreements are collective: a rank without it never joins them); SIDECORE_EAGER_MAX (a larger eager message
// than a peer's receive buffers is lost at the peer). Every rank learns of a difference and throws.
void agree_shared_settings(const detail::settings& cfg, MPI_Comm comm) {
  constexpr int n = coll::kind_count + 3;
  constexpr int at_auto = coll::kind_count + 1, at_eager = coll::kind_count + 2;
  long long mine[n], lo[n], hi[n];
  for (int k = 0; k < coll::kind_count; ++k) mine[k] = static_cast<long long>(cfg.coll_algorithm[static_cast<std::size_t>(k)]);
  mine[coll::kind_count] = static_cast<long long>(cfg.coll_segment);
  mine[at_auto] = cfg.mode == detail::progress_mode::automatic ? 1 : 0;
  mine[at_eager] = static_cast<long long>(cfg.eager_max);
  mpi_check(MPI_Allreduce(mine, lo, n, MPI_LONG_LONG, MPI_MIN, comm), "MPI_Allreduce (collective settings)");
  mpi_check(MPI_Allreduce(mine, hi, n, MPI_LONG_LONG, MPI_MAX, comm), "MPI_Allreduce (collective settings)");
  for (int k = 0; k < n; ++k) {
    if (lo[k] == hi[k]) continue;
    std::string var = "SIDECORE_COLL_SEGMENT", value = std::to_string(cfg.coll_segment);
    if (k == at_auto) {
      throw error(errc::bad_setting, std::string("sidecore::init: SIDECORE_PROGRESS=auto on some ranks only (this rank: ") +
                                         detail::mode_name(cfg.mode) + "); mode auto decides for the whole job: give "
                                         "every rank auto, or none");
    }
    if (k == at_eager) {
      var = "SIDECORE_EAGER_MAX";
      value = std::to_string(cfg.eager_max);
    } else if (k < coll::kind_count) {
      var = "SIDECORE_COLL_";
      for (char ch : coll::kind_name(static_cast<coll::kind>(k))) var += static_cast<char>(std::toupper(ch));
      value = std::string(coll::algorithm_name(cfg.coll_algorithm[static_cast<std::size_t>(k)]));
    }
    throw error(errc::bad_setting, "sidecore::init: " + var + " differs between ranks (this rank: " + value +
                                       "); give every rank the same value");
  }
}

}  // namespace

const char* errc_name(errc code) noexcept {
  switch (code) {
    case errc::success: return "success";
    case errc::invalid_argument: return "invalid_argument";
    case errc::not_initialized: return "not_initialized";
    case errc::already_initialized: return "already_initialized";
    case errc::invalid_request: return "invalid_request";
    case errc::truncated: return "truncated";
    case errc::canceled: return "canceled";
    case errc::bad_setting: return "bad_setting";
    case errc::topology: return "topology";
    case errc::transport: return "transport";
    case errc::mpi: return "mpi";
    case errc::peer_failed: return "peer_failed";
  }
  return "unknown";
}

// ---- lifecycle ------------------------------------------------------------------------------------------------

void init(MPI_Comm user_comm) {
  int expected = static_cast<int>(phase::before_init);
  if (g_phase.load() != expected)
    throw error(errc::already_initialized, g_phase.load() == static_cast<int>(phase::running)
                                               ? "sidecore::init called twice; call it once, after MPI_Init"
                                               : "sidecore::init called after sidecore::finalize; sidecore cannot be "
                                                 "initialized again in the same process");
  int mpi_ok = 0;
  MPI_Initialized(&mpi_ok);
  if (!mpi_ok) throw error(errc::mpi, "sidecore::init needs MPI initialized: call MPI_Init or MPI_Init_thread first");
  if (user_comm == MPI_COMM_NULL) throw error(errc::invalid_argument, "sidecore::init: comm is MPI_COMM_NULL");

  // Local set-up first (settings, topology, provider), then every rank learns whether all succeeded before
  // any collective step: bad input on one rank gives an error on every rank, never a hang.
  auto s = std::make_unique<detail::runtime_state>();
  std::string local_error;
  errc local_code = errc::success;
  try {
    s->cfg = detail::read_settings();
    s->topo = std::make_unique<detail::topology>();
    if (s->cfg.mode == detail::progress_mode::core) s->reserved_core = s->topo->choose_reserved(s->cfg.progress_core);
    if (s->cfg.mode == detail::progress_mode::automatic) {
      try {  // mode auto on one core: no core to reserve, which the verdict says; a bad index is still an error
        s->reserved_core = s->topo->choose_reserved(s->cfg.progress_core);
      } catch (const error& e) {
        if (e.code() != errc::topology) throw;
        s->no_core_reason = e.what();
      }
    }
    if (!s->cfg.xfer_table.empty()) {
      try {
        (void)instrument::read_xfer_time_table(s->cfg.xfer_table);
      } catch (const std::exception& e) {
        throw error(errc::bad_setting, std::string("SIDECORE_XFER_TABLE='") + s->cfg.xfer_table + "': " + e.what());
      }
    }
  } catch (const error& e) {
    local_error = e.what();
    local_code = e.code();
  }
  const auto agree = [&](const char* step) {
    int ok = local_error.empty() ? 1 : 0, all_ok = 0;
    mpi_check(MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, user_comm), "MPI_Allreduce (init agreement)");
    if (!ok) throw error(local_code, local_error);
    if (!all_ok)
      throw error(errc::bad_setting, std::string("sidecore::init failed on another rank during ") + step +
                                         " (that rank printed why); no rank is initialized");
  };
  agree("settings and topology");
  agree_shared_settings(s->cfg, user_comm);

  MPI_Comm world = MPI_COMM_NULL;
  mpi_check(MPI_Comm_dup(user_comm, &world), "MPI_Comm_dup");
  int nranks = 0;
  MPI_Comm_size(world, &nranks);
  if (nranks > tag::max_ranks)
    throw error(errc::invalid_argument, "sidecore::init: " + std::to_string(nranks) + " ranks; sidecore supports up to " +
                                            std::to_string(tag::max_ranks));

  progress::engine_config ec;
  ec.provider = s->cfg.provider;
  MPI_Comm node = MPI_COMM_NULL;
  mpi_check(MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node), "MPI_Comm_split_type");
  s->node = node;
  if (ec.provider.empty()) {
    int local = 0;
    MPI_Comm_size(node, &local);
    int one_host = local == nranks, all_one_host = 0;
    mpi_check(MPI_Allreduce(&one_host, &all_one_host, 1, MPI_INT, MPI_MIN, world), "MPI_Allreduce");
    ec.provider = all_one_host ? "shm" : "tcp;ofi_rxm";
  }
  ec.idle = s->cfg.idle;
  ec.spin_us = s->cfg.spin_us;
  ec.yield_us = s->cfg.yield_us;
  ec.block_us = s->cfg.block_us;
  ec.caller_progress = s->cfg.caller_progress;
  ec.self_path = s->cfg.self_path;
  ec.queue_capacity = s->cfg.submit_queue;
  ec.cq_batch = s->cfg.cq_batch;
  ec.eager_max = s->cfg.eager_max;
  ec.recv_buffers = s->cfg.recv_buffers;
  ec.send_credits = s->cfg.send_credits;
  ec.eager_credits = s->cfg.eager_credits;
  int thread_level = MPI_THREAD_SINGLE;
  MPI_Query_thread(&thread_level);
  ec.serialized_callers = thread_level != MPI_THREAD_MULTIPLE;
  try {
    s->eng = progress::engine::open(ec);
  } catch (const progress::transport_error& e) {
    local_error = std::string("sidecore::init: ") + e.what();
    local_code = errc::transport;
  }
  try {
    agree("opening the libfabric endpoint");
    s->eng->connect(world);
    s->eng->set_peer_timeout(s->cfg.peer_timeout_s);
    int me = 0;
    MPI_Comm_rank(world, &me);
    if (me == 0 && nranks > 1) {
      const std::string w = detail::memory_budget_warning(s->cfg, static_cast<std::uint64_t>(nranks - 1),
                                                          s->eng->provider());
      if (!w.empty()) std::fputs(w.c_str(), stderr);
    }
  } catch (const progress::transport_error& e) {
    MPI_Comm_free(&world);
    throw error(errc::transport, std::string("sidecore::init: ") + e.what());
  } catch (...) {
    MPI_Comm_free(&world);
    throw;
  }

  s->comms[0].store(make_entry(world, world, 0, s->cfg.coll_cache), std::memory_order_release);
  s->coll = std::make_unique<progress::coll_executor>(*s->eng);
  for (std::size_t k = 0; k < s->coll_algorithm.size(); ++k)
    s->coll_algorithm[k].store(static_cast<std::uint8_t>(s->cfg.coll_algorithm[k]), std::memory_order_relaxed);
  s->coll_segment.store(s->cfg.coll_segment, std::memory_order_relaxed);
  try {
    setup_doorbells(*s, world);
  } catch (const progress::transport_error& e) {
    throw error(errc::transport, std::string("sidecore::init: ") + e.what());
  }

  g_state = s.release();
  g_phase.store(static_cast<int>(phase::running), std::memory_order_release);
  detail::watch_mpi_finalize();
  try {
    detail::instrument_start(*g_state, comm_access::make(0));
  } catch (...) {
    finalize();
    g_phase.store(static_cast<int>(phase::before_init), std::memory_order_release);
    throw;
  }
  // Core mode: fence OpenMP off the reserved core, then start the pinned progress thread. (Calibration above
  // ran with the application thread progressing: it measures the transfer, not the hand-off.)
  g_state->off_threads = omp_get_max_threads();
  g_state->fence.threads = g_state->off_threads;
  if (g_state->cfg.mode == detail::progress_mode::core) detail::enter_core_mode(*g_state);
  if (g_state->cfg.mode == detail::progress_mode::automatic) {
    try {
      g_state->autom = std::make_unique<detail::auto_controller>(*g_state, g_state->comms[0].load()->mpi,
                                                                 g_state->comms[0].load()->rank);
    } catch (...) {
      finalize();
      g_phase.store(static_cast<int>(phase::before_init), std::memory_order_release);
      throw;
    }
  }

  const int r = g_state->comms[0].load()->rank;
  if (g_state->cfg.verbose >= 2 || (g_state->cfg.verbose == 1 && r == 0)) {
    std::fprintf(stderr, "sidecore: rank %d: mode %s, provider %s, %d cores (cpuset %s), reserved %s, %d OpenMP threads\n",
                 r, detail::mode_name(g_state->cfg.mode), g_state->eng->provider().c_str(), g_state->topo->cores(),
                 g_state->topo->allowed_list().c_str(),
                 g_state->reserved_core >= 0 ? g_state->topo->describe_core(g_state->reserved_core).c_str() : "none",
                 g_state->fence.threads);
    for (const auto& n : g_state->fence.notes) std::fprintf(stderr, "sidecore: rank %d: %s\n", r, n.c_str());
  }
}

void finalize() {
  detail::runtime_state& s = detail::state_or_throw("finalize");
  // The profile's window (t_total and t_comp) ends here: the wait for the other ranks below is neither the
  // application's computation nor its run time.
  instrument::end_window();
  if (s.autom) s.autom->finish();  // collective: every agreement started is completed
  detail::comm_entry* w = s.comms[0].load();
  // Wait for every rank while still progressing, so a peer that needs our progress to finish its own
  // transfers (rendezvous) is not left hanging in a barrier. A dead rank never enters it: the engine watches every
  // peer meanwhile, and once one is found dead the barrier is left (the live ranks leave it as they find the death).
  s.eng->watch_all_peers();
  MPI_Request barrier;
  mpi_check(MPI_Ibarrier(w->mpi, &barrier), "MPI_Ibarrier");
  for (int done = 0; !done && s.eng->failed_peer_count() == 0;) {
    MPI_Test(&barrier, &done, MPI_STATUS_IGNORE);
    if (!s.eng->thread_running()) s.eng->progress();
    else sched_yield();  // the progress thread watches the peers
  }
  g_failed_ranks = s.eng->failed_peers();
  const bool peer_died = !g_failed_ranks.empty();
  const std::size_t left = s.eng->requests_in_use();
  if (left > 0)
    std::fprintf(stderr, "sidecore: warning: rank %d: %zu request(s) still in flight at finalize; they are dropped\n",
                 w->rank, left);
  s.eng->stop_thread();
  detail::instrument_finish(s, comm_access::make(0), -1.0, g_failed_ranks);  // t_total: the measured window, as t_comp
  g_phase.store(static_cast<int>(phase::finalized), std::memory_order_release);
  s.coll->detach();
  s.eng.reset();  // first: the provider lets go of the buffers of operations still in flight (scratch included)
  for (auto& p : s.persistent.clear())
    if (p->coll) s.coll->destroy(p->coll);
  s.coll.reset();
  // MPI_Win_free is collective (MPICH waits for every rank of the node in it), and the barrier above may still be
  // pending on world's duplicate: with a dead rank, MPI's objects are left to the end of the process.
  if (!peer_died && s.bell_window != MPI_WIN_NULL) MPI_Win_free(&s.bell_window);
  if (!peer_died && s.node != MPI_COMM_NULL) MPI_Comm_free(&s.node);
  for (auto& slot : s.comms) {
    detail::comm_entry* e = slot.exchange(nullptr);
    if (!e) continue;
    if (!peer_died) MPI_Comm_free(&e->mpi);
    delete e;
  }
  delete g_state;
  g_state = nullptr;
}

std::vector<int> failed_ranks() {
  if (g_phase.load(std::memory_order_acquire) == static_cast<int>(phase::running)) return g_state->eng->failed_peers();
  return g_failed_ranks;
}

bool initialized() noexcept { return g_phase.load(std::memory_order_acquire) == static_cast<int>(phase::running); }

// A handle only: it does not throw, so that a call such as isend(..., c = world()) before init reports
// itself (isend), not world(). Using the handle checks the state.
comm world() { return comm_access::make(0); }

int rank() { return detail::comm_or_throw(world(), "rank").rank; }
int size() { return detail::comm_or_throw(world(), "size").size; }

runtime_info info() {
  detail::runtime_state& s = detail::state_or_throw("info");
  runtime_info i;
  i.mode = s.core_active ? "core" : "off";
  i.auto_mode = s.cfg.mode == detail::progress_mode::automatic;
  i.provider = s.eng->provider();
  i.reserved_core = s.reserved_core;
  i.n_core = s.cfg.n_core > 0 ? s.cfg.n_core : s.topo->cores();  // as the profile's n_core (instrument_glue.cpp)
  i.omp_threads = s.fence.threads;
  return i;
}

// ---- communicators ------------------------------------------------------------------------------------------

int comm::rank() const { return detail::comm_or_throw(*this, "comm::rank").rank; }
int comm::size() const { return detail::comm_or_throw(*this, "comm::size").size; }
MPI_Comm comm::mpi() const { return detail::comm_or_throw(*this, "comm::mpi").mpi; }

comm comm::dup() const {
  const call_scope scope(category::other, "sidecore::comm::dup");
  detail::comm_entry& parent = detail::comm_or_throw(*this, "comm::dup");
  detail::runtime_state& s = *g_state;
  std::lock_guard<std::mutex> lock(s.comm_mutex);
  const int id = agree_comm_id(s, parent.mpi);
  MPI_Comm m;
  mpi_check(MPI_Comm_dup(parent.mpi, &m), "MPI_Comm_dup");
  s.comms[static_cast<std::size_t>(id)].store(make_entry(m, s.comms[0].load()->mpi, id, s.cfg.coll_cache),
                                              std::memory_order_release);
  return comm_access::make(id);
}

comm comm::split(int color, int key) const {
  const call_scope scope(category::other, "sidecore::comm::split");
  detail::comm_entry& parent = detail::comm_or_throw(*this, "comm::split");
  if (color < -1)
    throw error(errc::invalid_argument, "sidecore::comm::split: color=" + std::to_string(color) +
                                            " is not accepted; accepted: 0 or more, or -1 to take no part");
  detail::runtime_state& s = *g_state;
  std::lock_guard<std::mutex> lock(s.comm_mutex);
  const int id = agree_comm_id(s, parent.mpi);
  MPI_Comm m;
  mpi_check(MPI_Comm_split(parent.mpi, color < 0 ? MPI_UNDEFINED : color, key, &m), "MPI_Comm_split");
  if (m == MPI_COMM_NULL) return comm();
  s.comms[static_cast<std::size_t>(id)].store(make_entry(m, s.comms[0].load()->mpi, id, s.cfg.coll_cache),
                                              std::memory_order_release);
  return comm_access::make(id);
}

void comm::free() {
  const call_scope scope(category::other, "sidecore::comm::free");
  detail::comm_entry& e = detail::comm_or_throw(*this, "comm::free");
  if (id_ == 0) throw error(errc::invalid_argument, "sidecore::comm::free: world() cannot be freed");
  detail::runtime_state& s = *g_state;
  std::lock_guard<std::mutex> lock(s.comm_mutex);
  mpi_check(MPI_Barrier(e.mpi), "MPI_Barrier (comm::free)");
  detail::comm_entry* owned = s.comms[static_cast<std::size_t>(id_)].exchange(nullptr);
  MPI_Comm_free(&owned->mpi);
  delete owned;
  id_ = -1;
}

// ---- requests -------------------------------------------------------------------------------------------------

request& request::operator=(request&& other) noexcept {
  if (this != &other) {
    this->~request();
    handle_ = other.handle_;
    other.handle_ = 0;
  }
  return *this;
}

request::~request() {
  if (handle_ == 0 || handle_ == request_access::consumed || progress::is_inline(handle_) || !initialized()) return;
  if (detail::is_persistent(handle_)) (void)detail::free_persistent(*g_state, handle_);
  else g_state->eng->orphan(handle_);
  handle_ = 0;
}

bool request::active() const noexcept {
  if (handle_ == 0 || !initialized()) return false;
  if (progress::is_inline(handle_)) return true;
  if (detail::is_persistent(handle_)) {
    const detail::persistent_op* p = g_state->persistent.find(handle_);
    return p && p->running != 0;
  }
  return g_state->eng->active(handle_);
}

bool request::persistent() const noexcept {
  return detail::is_persistent(handle_) && initialized() && g_state->persistent.find(handle_) != nullptr;
}

namespace {

// may_inline: a small send may complete inside the call with a handle that has no slot (progress::is_inline);
// the C API, whose handles are integers that can be copied, asks for a slot so that a copy waited on twice is
// still recognised.
request isend_impl(const void* buf, std::int64_t bytes, int dest, int t, const comm& c, bool may_inline) {
  const call_scope scope(category::init, "sidecore::isend");
  detail::comm_entry& e = detail::comm_or_throw(c, "isend");
  detail::runtime_state& s = *g_state;
  check_buffer(buf, bytes, "isend");
  check_rank(e, dest, false, "dest", "isend");
  check_tag(t, false, "isend");
  check_size(s, bytes, "isend");
  const int world_dest = e.to_world[static_cast<std::size_t>(dest)];
  request r = request_access::make(s.eng->start_send(buf, static_cast<std::size_t>(bytes), world_dest,
                                                     tag::make(tag::kind::p2p, c.id(), t), dest, e.rank,
                                                     instrument::current_thread_id(), may_inline));
  if (instrument::tracing()) trace_post(s, r, true, dest, world_dest, t, c.id(), bytes);
  return r;
}

}  // namespace

request isend(const void* buf, std::int64_t bytes, int dest, int t, const comm& c) {
  return isend_impl(buf, bytes, dest, t, c, true);
}

request detail::isend_with_slot(const void* buf, std::int64_t bytes, int dest, int t, const comm& c) {
  return isend_impl(buf, bytes, dest, t, c, false);
}

request irecv(void* buf, std::int64_t bytes, int source, int t, const comm& c) {
  const call_scope scope(category::init, "sidecore::irecv");
  detail::comm_entry& e = detail::comm_or_throw(c, "irecv");
  detail::runtime_state& s = *g_state;
  check_buffer(buf, bytes, "irecv");
  check_rank(e, source, true, "source", "irecv");
  check_tag(t, true, "irecv");
  check_size(s, bytes, "irecv");
  const std::uint64_t ignore = t == any_tag ? tag::ignore_user() : 0;
  const std::uint64_t match = tag::make(tag::kind::p2p, c.id(), t == any_tag ? 0 : t);
  const int world_source = source == any_source ? -1 : e.to_world[static_cast<std::size_t>(source)];
  request r = request_access::make(s.eng->start_recv(buf, static_cast<std::size_t>(bytes), match, ignore, source,
                                                     world_source, instrument::current_thread_id()));
  if (instrument::tracing()) trace_post(s, r, false, source, world_source, t, c.id(), bytes);
  return r;
}

void send(const void* buf, std::int64_t bytes, int dest, int t, const comm& c) {
  const call_scope scope(category::blocking, "sidecore::send");
  request r = isend(buf, bytes, dest, t, c);
  const status st = wait(r);
  if (st.error == errc::transport)
    throw error(errc::transport,
                "sidecore::send to rank " + std::to_string(dest) + " failed in the transport: " + t_request_error);
  if (st.error == errc::peer_failed)
    throw error(errc::peer_failed, "sidecore::send to rank " + std::to_string(dest) + " failed: " + t_request_error);
}

status recv(void* buf, std::int64_t bytes, int source, int t, const comm& c) {
  const call_scope scope(category::blocking, "sidecore::recv");
  request r = irecv(buf, bytes, source, t, c);
  return wait(r);
}

namespace {

// wait() of a persistent request, out of the point-to-point path: an inactive one returns an empty status at once
// (MPI's), an active one completes its run and becomes inactive.
[[gnu::noinline]] status wait_persistent(detail::runtime_state& s, request& r) {
  detail::persistent_op* p = nullptr;
  const std::uint64_t h = engine_handle(s, r, &p, "wait");
  if (h == 0) return status{};
  progress::completion c;
  if (!s.eng->wait(h, c)) [[unlikely]]
    throw_bad_request(r, "wait");
  const status st = to_status(s, c, h);
  mark_done(r, p);
  return st;
}

}  // namespace

status wait(request& r) {
  const call_scope scope(category::wait, "sidecore::wait");
  detail::runtime_state& s = detail::state_or_throw("wait");
  if (status st; take_inline(r, &st)) return st;
  if (detail::is_persistent(r.handle())) [[unlikely]]
    return wait_persistent(s, r);
  progress::completion c;
  if (!s.eng->wait(r.handle(), c)) [[unlikely]]
    throw_bad_request(r, "wait");
  if (instrument::tracing()) trace_done(s, r.handle(), c);
  const status st = to_status(s, c, r.handle());
  request_access::mark_consumed(r);
  return st;
}

bool test(request& r, status* st) {
  const call_scope scope(category::test, "sidecore::test");
  detail::runtime_state& s = detail::state_or_throw("test");
  if (take_inline(r, st)) return true;
  if (detail::is_persistent(r.handle())) {
    detail::persistent_op* p = nullptr;
    if (engine_handle(s, r, &p, "test") == 0) {  // inactive: complete at once, with an empty status
      if (st) *st = status{};
      return true;
    }
  } else if (!s.eng->active(r.handle())) [[unlikely]] {
    throw_bad_request(r, "test");
  }
  if (consume_if_done(s, r, st)) return true;
  if (!s.eng->thread_running()) s.eng->progress();
  return consume_if_done(s, r, st);
}

namespace {

std::uint64_t engine_handle(detail::runtime_state& s, const request& r, detail::persistent_op** p, const char* what) {
  detail::persistent_op* op = s.persistent.find(r.handle());
  if (!op) [[unlikely]]
    throw error(errc::invalid_request, std::string("sidecore::") + what + ": the persistent request was freed");
  *p = op;
  return op->running;
}

void check_statuses(std::span<request> reqs, std::span<status> statuses, const char* what) {
  if (!statuses.empty() && statuses.size() != reqs.size())
    throw error(errc::invalid_argument, std::string("sidecore::") + what + ": " + std::to_string(statuses.size()) +
                                            " statuses for " + std::to_string(reqs.size()) +
                                            " requests; accepted: none, or one per request");
}

// True while the request has an operation to wait for: not empty or consumed, not an inactive persistent request.
bool has_operation(detail::runtime_state& s, const request& r) {
  if (progress::is_inline(r.handle())) return true;
  if (!detail::is_persistent(r.handle())) return s.eng->active(r.handle());
  const detail::persistent_op* p = s.persistent.find(r.handle());
  return p && p->running != 0;
}

// True while the request's operation has not completed.
bool still_pending(detail::runtime_state& s, const request& r) {
  if (!detail::is_persistent(r.handle())) return s.eng->pending(r.handle());  // inline and inactive: not pending
  const detail::persistent_op* p = s.persistent.find(r.handle());
  return p && p->running != 0 && s.eng->pending(p->running);
}

}  // namespace

void waitall(std::span<request> reqs, std::span<status> statuses) {
  const call_scope scope(category::wait, "sidecore::waitall");
  detail::runtime_state& s = detail::state_or_throw("waitall");
  check_statuses(reqs, statuses, "waitall");
  for (std::size_t i = 0; i < reqs.size(); ++i) {
    status* out = statuses.empty() ? nullptr : &statuses[i];
    if (take_inline(reqs[i], out)) continue;
    detail::persistent_op* p = nullptr;
    const std::uint64_t h = detail::is_persistent(reqs[i].handle()) ? engine_handle(s, reqs[i], &p, "waitall")
                                                                     : reqs[i].handle();
    progress::completion c;
    if (h == 0 || !s.eng->wait(h, c)) {  // inactive: skipped, as MPI skips MPI_REQUEST_NULL
      if (out) *out = status{};
      continue;
    }
    if (instrument::tracing()) trace_done(s, h, c);
    const status st = to_status(s, c, h);
    mark_done(reqs[i], p);
    if (out) *out = st;
  }
}

int waitany(std::span<request> reqs, status* st) {
  const call_scope scope(category::wait, "sidecore::waitany");
  detail::runtime_state& s = detail::state_or_throw("waitany");
  for (;;) {
    bool any_active = false;
    for (std::size_t i = 0; i < reqs.size(); ++i) {
      if (take_inline(reqs[i], st)) return static_cast<int>(i);
      if (!has_operation(s, reqs[i])) continue;
      any_active = true;
      if (consume_if_done(s, reqs[i], st)) return static_cast<int>(i);
    }
    if (!any_active) return -1;
    if (!s.eng->thread_running()) s.eng->progress();
  }
}

bool testall(std::span<request> reqs, std::span<status> statuses) {
  const call_scope scope(category::test, "sidecore::testall");
  detail::runtime_state& s = detail::state_or_throw("testall");
  check_statuses(reqs, statuses, "testall");
  if (!s.eng->thread_running()) s.eng->progress();
  for (auto& r : reqs)
    if (still_pending(s, r)) return false;
  for (std::size_t i = 0; i < reqs.size(); ++i) {
    status* out = statuses.empty() ? nullptr : &statuses[i];
    if (take_inline(reqs[i], out)) continue;
    if (!consume_if_done(s, reqs[i], out) && out) *out = status{};  // inactive: skipped
  }
  return true;
}

int testany(std::span<request> reqs, status* st) {
  const call_scope scope(category::test, "sidecore::testany");
  detail::runtime_state& s = detail::state_or_throw("testany");
  if (!s.eng->thread_running()) s.eng->progress();
  for (std::size_t i = 0; i < reqs.size(); ++i) {
    if (take_inline(reqs[i], st)) return static_cast<int>(i);
    if (consume_if_done(s, reqs[i], st)) return static_cast<int>(i);
  }
  return -1;
}

void cancel(request& r) {
  const call_scope scope(category::other, "sidecore::cancel");
  detail::runtime_state& s = detail::state_or_throw("cancel");
  std::uint64_t h = r.handle();
  if (detail::is_persistent(h)) {
    detail::persistent_op* p = nullptr;
    h = engine_handle(s, r, &p, "cancel");
    if (h == 0)
      throw error(errc::invalid_request, "sidecore::cancel: the persistent request is inactive; start it first");
  }
  const std::optional<progress::req_kind> kind = progress::is_inline(h) ? progress::req_kind::send : s.eng->kind(h);
  if (!kind) throw_bad_request(r, "cancel");
  if (*kind != progress::req_kind::recv)
    throw error(errc::invalid_argument, std::string("sidecore::cancel: the request is a ") +
                                            (*kind == progress::req_kind::send ? "send" : "collective") +
                                            "; only posted receives can be cancelled");
  (void)s.eng->cancel(h);
}

void detail::note_request_error(const std::string& text) { t_request_error = text; }

const std::string& detail::last_transport_error() noexcept { return t_request_error; }

}  // namespace sidecore
