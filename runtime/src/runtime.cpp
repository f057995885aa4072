// Lifecycle, communicators and point-to-point: the public C++ API of sidecore.hpp.
#include <omp.h>

#include <array>
#include <cstdio>
#include <optional>
#include <string>

#include <sidecore/instrument/instrument.hpp>
#include <sidecore/sidecore.hpp>

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

// CALL_ENTER/CALL_EXIT around a public call, with its model category (seed 004, Section III-C).
struct call_scope {
  category cat;
  call_scope(category c, const char* name) noexcept : cat(c) { instrument::call_enter(c, name); }
  ~call_scope() { instrument::call_exit(cat); }
  call_scope(const call_scope&) = delete;
  call_scope& operator=(const call_scope&) = delete;
};

[[noreturn, gnu::cold, gnu::noinline]] void throw_bad_request(const request& r, const char* what) {
  if (r.handle() == 0)
    throw error(errc::invalid_request, std::string("sidecore::") + what +
                                           ": the request was never started (default-constructed or moved from)");
  throw error(errc::invalid_request, std::string("sidecore::") + what +
                                         ": the request was already completed and consumed by an earlier wait/test");
}

// The sentence of this thread's last request that completed with errc::transport (send's exception, the C API's
// sc_last_error).
thread_local std::string t_transport_error;

[[gnu::cold, gnu::noinline]] void note_transport_error(const detail::runtime_state& s, const progress::completion& c) {
  t_transport_error = s.eng->describe(c);
}

// What a completed request reports, as the public status.
status to_status(const detail::runtime_state& s, const progress::completion& c) {
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
      note_transport_error(s, c);
      break;
  }
  return st;
}

// Reads a completed request's result and frees it (the handle becomes stale): *st when given. False if the request
// has not completed (or the handle names none).
bool consume_if_done(detail::runtime_state& s, request& r, status* st) {
  progress::completion c;
  if (s.eng->test(r.handle(), c) != progress::test_result::done) return false;
  const status done = to_status(s, c);
  request_access::mark_consumed(r);
  if (st) *st = done;
  return true;
}

// A send that completed inside isend (progress::is_inline: no slot) is consumed here: *st (when given) gets its
// status. False, and nothing touched, for any other handle.
bool take_inline(request& r, status* st) noexcept {
  if (!progress::is_inline(r.handle())) return false;
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

detail::comm_entry* make_entry(MPI_Comm mpi, MPI_Comm world) {
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
// the same node wakes it at once (see progress::doorbell).
// A doorbell is 64-byte aligned (its own cache line); MPICH's shared segment is not always (UBSan, 1 rank: a
// 16-byte aligned base). Each rank's segment holds one doorbell plus the slack to align it.
progress::doorbell* aligned_bell(void* base) noexcept {
  const auto a = reinterpret_cast<std::uintptr_t>(base);
  const std::uintptr_t al = alignof(progress::doorbell);
  return reinterpret_cast<progress::doorbell*>((a + al - 1) & ~(al - 1));
}

void setup_doorbells(detail::runtime_state& s, MPI_Comm world) {
  constexpr auto seg = static_cast<MPI_Aint>(sizeof(progress::doorbell) + alignof(progress::doorbell));
  void* base = nullptr;
  mpi_check(MPI_Win_allocate_shared(seg, 1, MPI_INFO_NULL, s.node, &base, &s.bell_window),
            "MPI_Win_allocate_shared (doorbells)");
  progress::doorbell* mine = aligned_bell(base);
  new (mine) progress::doorbell();
  MPI_Barrier(s.node);
  int local = 0, nranks = 0;
  MPI_Comm_size(s.node, &local);
  MPI_Comm_size(world, &nranks);
  MPI_Group g_node, g_world;
  MPI_Comm_group(s.node, &g_node);
  MPI_Comm_group(world, &g_world);
  std::vector<progress::doorbell*> peers(static_cast<std::size_t>(nranks), nullptr);
  for (int i = 0; i < local; ++i) {
    MPI_Aint sz = 0;
    int disp = 0;
    void* ptr = nullptr;
    mpi_check(MPI_Win_shared_query(s.bell_window, i, &sz, &disp, &ptr), "MPI_Win_shared_query (doorbells)");
    int w = 0;
    MPI_Group_translate_ranks(g_node, 1, &i, g_world, &w);
    if (w >= 0 && w < nranks && ptr != nullptr) peers[static_cast<std::size_t>(w)] = aligned_bell(ptr);
  }
  MPI_Group_free(&g_node);
  MPI_Group_free(&g_world);
  std::vector<int> local_ranks;
  for (int i = 0; i < nranks; ++i)
    if (peers[static_cast<std::size_t>(i)]) local_ranks.push_back(i);
  s.eng->set_doorbells(mine, std::move(peers));
  int me = 0;
  MPI_Comm_rank(world, &me);
  s.eng->connect_peers(me, local_ranks);
}

const char* mode_name(detail::progress_mode m) { return m == detail::progress_mode::core ? "core" : "off"; }

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
  ec.queue_capacity = s->cfg.submit_queue;
  ec.cq_batch = s->cfg.cq_batch;
  ec.eager_max = s->cfg.eager_max;
  ec.recv_buffers = s->cfg.recv_buffers;
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
  } catch (const progress::transport_error& e) {
    MPI_Comm_free(&world);
    throw error(errc::transport, std::string("sidecore::init: ") + e.what());
  } catch (...) {
    MPI_Comm_free(&world);
    throw;
  }

  s->comms[0].store(make_entry(world, world), std::memory_order_release);
  setup_doorbells(*s, world);

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
  if (g_state->cfg.mode == detail::progress_mode::core) {
    g_state->fence = detail::fence_openmp(*g_state->topo, g_state->reserved_core);
    const detail::topology* topo = g_state->topo.get();
    const int core = g_state->reserved_core;
    g_state->eng->start_thread([topo, core] {
      if (instrument::enabled()) instrument::mark_progress_thread();
      std::string why;
      if (!topo->bind_thread_to_core(core, &why)) std::fprintf(stderr, "sidecore: warning: progress thread: %s\n", why.c_str());
    });
  } else {
    g_state->fence.threads = omp_get_max_threads();
  }


  const int r = g_state->comms[0].load()->rank;
  if (g_state->cfg.verbose >= 2 || (g_state->cfg.verbose == 1 && r == 0)) {
    std::fprintf(stderr, "sidecore: rank %d: mode %s, provider %s, %d cores (cpuset %s), reserved %s, %d OpenMP threads\n",
                 r, mode_name(g_state->cfg.mode), g_state->eng->provider().c_str(), g_state->topo->cores(),
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
  detail::comm_entry* w = s.comms[0].load();
  // Wait for every rank while still progressing, so a peer that needs our progress to finish its own
  // transfers (rendezvous) is not left hanging in a barrier.
  MPI_Request barrier;
  mpi_check(MPI_Ibarrier(w->mpi, &barrier), "MPI_Ibarrier");
  for (int done = 0; !done;) {
    MPI_Test(&barrier, &done, MPI_STATUS_IGNORE);
    if (!s.eng->thread_running()) s.eng->progress();
  }
  const std::size_t left = s.eng->requests_in_use();
  if (left > 0)
    std::fprintf(stderr, "sidecore: warning: rank %d: %zu request(s) still in flight at finalize; they are dropped\n",
                 w->rank, left);
  s.eng->stop_thread();
  detail::instrument_finish(s, comm_access::make(0), -1.0);  // t_total: the measured window, as t_comp
  g_phase.store(static_cast<int>(phase::finalized), std::memory_order_release);
  s.eng.reset();
  if (s.bell_window != MPI_WIN_NULL) MPI_Win_free(&s.bell_window);
  if (s.node != MPI_COMM_NULL) MPI_Comm_free(&s.node);
  for (auto& slot : s.comms) {
    detail::comm_entry* e = slot.exchange(nullptr);
    if (!e) continue;
    MPI_Comm_free(&e->mpi);
    delete e;
  }
  delete g_state;
  g_state = nullptr;
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
  i.mode = mode_name(s.cfg.mode);
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
  s.comms[static_cast<std::size_t>(id)].store(make_entry(m, s.comms[0].load()->mpi), std::memory_order_release);
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
  s.comms[static_cast<std::size_t>(id)].store(make_entry(m, s.comms[0].load()->mpi), std::memory_order_release);
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
  g_state->eng->orphan(handle_);
  handle_ = 0;
}

bool request::active() const noexcept {
  return handle_ != 0 && initialized() && (progress::is_inline(handle_) || g_state->eng->active(handle_));
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
  return request_access::make(s.eng->start_send(buf, static_cast<std::size_t>(bytes), world_dest,
                                                tag::make(tag::kind::p2p, c.id(), t), dest, e.rank,
                                                instrument::current_thread_id(), may_inline));
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
  return request_access::make(s.eng->start_recv(buf, static_cast<std::size_t>(bytes), match, ignore, source,
                                                source == any_source ? -1 : e.to_world[static_cast<std::size_t>(source)],
                                                instrument::current_thread_id()));
}

void send(const void* buf, std::int64_t bytes, int dest, int t, const comm& c) {
  const call_scope scope(category::blocking, "sidecore::send");
  request r = isend(buf, bytes, dest, t, c);
  const status st = wait(r);
  if (st.error == errc::transport)
    throw error(errc::transport,
                "sidecore::send to rank " + std::to_string(dest) + " failed in the transport: " + t_transport_error);
}

status recv(void* buf, std::int64_t bytes, int source, int t, const comm& c) {
  const call_scope scope(category::blocking, "sidecore::recv");
  request r = irecv(buf, bytes, source, t, c);
  return wait(r);
}

status wait(request& r) {
  const call_scope scope(category::wait, "sidecore::wait");
  detail::runtime_state& s = detail::state_or_throw("wait");
  if (status st; take_inline(r, &st)) return st;
  progress::completion c;
  if (!s.eng->wait(r.handle(), c)) [[unlikely]]
    throw_bad_request(r, "wait");
  const status st = to_status(s, c);
  request_access::mark_consumed(r);
  return st;
}

bool test(request& r, status* st) {
  const call_scope scope(category::test, "sidecore::test");
  detail::runtime_state& s = detail::state_or_throw("test");
  if (take_inline(r, st)) return true;
  if (!s.eng->active(r.handle())) [[unlikely]]
    throw_bad_request(r, "test");
  if (consume_if_done(s, r, st)) return true;
  if (!s.eng->thread_running()) s.eng->progress();
  return consume_if_done(s, r, st);
}

namespace {

void check_statuses(std::span<request> reqs, std::span<status> statuses, const char* what) {
  if (!statuses.empty() && statuses.size() != reqs.size())
    throw error(errc::invalid_argument, std::string("sidecore::") + what + ": " + std::to_string(statuses.size()) +
                                            " statuses for " + std::to_string(reqs.size()) +
                                            " requests; accepted: none, or one per request");
}

}  // namespace

void waitall(std::span<request> reqs, std::span<status> statuses) {
  const call_scope scope(category::wait, "sidecore::waitall");
  detail::runtime_state& s = detail::state_or_throw("waitall");
  check_statuses(reqs, statuses, "waitall");
  for (std::size_t i = 0; i < reqs.size(); ++i) {
    if (take_inline(reqs[i], statuses.empty() ? nullptr : &statuses[i])) continue;
    progress::completion c;
    if (!s.eng->wait(reqs[i].handle(), c)) continue;  // inactive: skipped, as MPI skips MPI_REQUEST_NULL
    const status st = to_status(s, c);
    request_access::mark_consumed(reqs[i]);
    if (!statuses.empty()) statuses[i] = st;
  }
}

int waitany(std::span<request> reqs, status* st) {
  const call_scope scope(category::wait, "sidecore::waitany");
  detail::runtime_state& s = detail::state_or_throw("waitany");
  for (;;) {
    bool any_active = false;
    for (std::size_t i = 0; i < reqs.size(); ++i) {
      if (take_inline(reqs[i], st)) return static_cast<int>(i);
      if (!s.eng->active(reqs[i].handle())) continue;
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
    if (s.eng->pending(r.handle())) return false;  // inline and inactive handles are not pending
  for (std::size_t i = 0; i < reqs.size(); ++i) {
    if (take_inline(reqs[i], statuses.empty() ? nullptr : &statuses[i])) continue;
    (void)consume_if_done(s, reqs[i], statuses.empty() ? nullptr : &statuses[i]);  // inactive: skipped
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
  const std::optional<progress::req_kind> kind =
      progress::is_inline(r.handle()) ? progress::req_kind::send : s.eng->kind(r.handle());
  if (!kind) throw_bad_request(r, "cancel");
  if (*kind != progress::req_kind::recv)
    throw error(errc::invalid_argument, std::string("sidecore::cancel: the request is a ") +
                                            (*kind == progress::req_kind::send ? "send" : "collective") +
                                            "; only posted receives can be cancelled");
  (void)s.eng->cancel(r.handle());
}

const std::string& detail::last_transport_error() noexcept { return t_transport_error; }

}  // namespace sidecore
