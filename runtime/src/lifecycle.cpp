// Lifecycle of the runtime: init (settings, topology, the endpoint, node set-up, instrumentation, core mode),
// finalize, and what a running runtime reports (info, failed ranks, error-code names).
#include <omp.h>

#include <cctype>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <new>
#include <string>
#include <system_error>
#include <type_traits>
#include <vector>

#include <sidecore/common/fingerprint.hpp>
#include <sidecore/instrument/instrument.hpp>
#include <sidecore/sidecore.hpp>

#include "mode_switch.hpp"
#include "state.hpp"
#include "watched_wait.hpp"

namespace sidecore {

using detail::g_phase;
using detail::g_state;
using detail::mpi_check;
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

}  // namespace detail

void detail::mpi_check(int rc, const char* call) {
  if (rc != MPI_SUCCESS) {
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, msg, &len);
    throw error(errc::mpi, std::string(call) + " failed: " + std::string(msg, static_cast<std::size_t>(len)));
  }
}

namespace {

// The ranks found dead by the time finalize returned (failed_ranks() after finalize).
std::vector<int> g_failed_ranks;

// A string's fingerprint as a non-negative long long, so that one allreduce compares a text setting across ranks.
long long fingerprint(const std::string& text) noexcept { return static_cast<long long>(fingerprint64(text) >> 1); }

// A setting every rank must share: what the ranks compare, and this rank's error when they differ.
struct shared_setting {
  long long key;
  std::string error;
};

// `path` made absolute against the working directory ("" stays: no output; one that cannot be made stays as given).
std::string absolute_output(const std::string& path) {
  if (path.empty()) return path;
  std::error_code ec;
  const std::filesystem::path abs = std::filesystem::absolute(path, ec);
  return ec ? path : abs.string();
}

std::string differs(const std::string& var, const std::string& value) {
  return "sidecore::init: " + var + " differs between ranks (this rank: " + value + "); give every rank the same value";
}

std::string set_on_some_ranks(const char* var, bool set) {
  return std::string("sidecore::init: ") + var + " is set on some ranks only (this rank: " + (set ? "set" : "not set") +
         "); the instrumentation's set-up joins every rank: set it on every rank, or none (%r in a path gives each "
         "rank its file)";
}

// Settings that must be the same on every rank, each for its own reason: the collectives' (another algorithm or
// segment size is another message pattern, which would hang or fail the first collective); mode auto (its window
// and agreements are collective: a rank without it never joins them); SIDECORE_EAGER_MAX (a larger eager message
// than a peer's receive buffers is lost at the peer); SIDECORE_SEND_CREDITS and SIDECORE_EAGER_CREDITS (a receiver
// gives credits back once it owes half of its own window: a sender with a smaller window waits for ever); the
// provider (endpoints of two providers cannot address each other); whether SIDECORE_PROFILE, SIDECORE_TRACE and
// SIDECORE_XFER_TABLE are set (the instrumentation's set-up is collective: the calibration ping-pong that a table
// replaces, the clock offsets, the exchanges at finalize; a rank without them never joins); with them,
// SIDECORE_COLL_SAMPLES (the ranks sample the same collective instances only with the same capacity, and the
// cross-rank figures need an instance on every rank). In mode auto also its
// step window and step re-checks (every rank must vote at the same step(): a rank blocked in a vote at another step
// than its peers waits inside their communication). In the order init checks them: the first that differs is named.
std::vector<shared_setting> shared_settings(const detail::settings& cfg) {
  std::vector<shared_setting> v;
  for (int k = 0; k < coll::kind_count; ++k) {
    const coll::algorithm a = cfg.coll_algorithm[static_cast<std::size_t>(k)];
    std::string var = "SIDECORE_COLL_";
    for (char ch : coll::kind_name(static_cast<coll::kind>(k))) var += static_cast<char>(std::toupper(ch));
    v.push_back({static_cast<long long>(a), differs(var, std::string(coll::algorithm_name(a)))});
  }
  v.push_back({static_cast<long long>(cfg.coll_segment),
               differs("SIDECORE_COLL_SEGMENT", std::to_string(cfg.coll_segment))});
  const bool automatic = cfg.mode == detail::progress_mode::automatic;
  v.push_back({automatic ? 1 : 0, std::string("sidecore::init: SIDECORE_PROGRESS=auto on some ranks only "
                                              "(this rank: ") + detail::mode_name(cfg.mode) +
                                      "); mode auto decides for the whole job: give every rank auto, or none"});
  v.push_back({static_cast<long long>(cfg.eager_max), differs("SIDECORE_EAGER_MAX", std::to_string(cfg.eager_max))});
  v.push_back({static_cast<long long>(cfg.send_credits),
               differs("SIDECORE_SEND_CREDITS", std::to_string(cfg.send_credits))});
  v.push_back({static_cast<long long>(cfg.eager_credits),
               differs("SIDECORE_EAGER_CREDITS", std::to_string(cfg.eager_credits))});
  v.push_back({fingerprint(cfg.provider),
               differs("SIDECORE_PROVIDER", cfg.provider.empty() ? "not set (automatic)" : "'" + cfg.provider + "'")});
  v.push_back({cfg.profile_path.empty() ? 0 : 1, set_on_some_ranks("SIDECORE_PROFILE", !cfg.profile_path.empty())});
  v.push_back({cfg.trace_path.empty() ? 0 : 1, set_on_some_ranks("SIDECORE_TRACE", !cfg.trace_path.empty())});
  v.push_back({cfg.xfer_table.empty() ? 0 : 1, set_on_some_ranks("SIDECORE_XFER_TABLE", !cfg.xfer_table.empty())});
  const bool collecting = !cfg.profile_path.empty() || !cfg.trace_path.empty();
  v.push_back({collecting ? static_cast<long long>(cfg.coll_samples) : 0,
               differs("SIDECORE_COLL_SAMPLES", std::to_string(cfg.coll_samples))});
  const long long steps = automatic ? static_cast<long long>(cfg.auto_steps) : 0;
  v.push_back({steps, differs("SIDECORE_AUTO_STEPS", steps == 0 ? "not set (time window)" : std::to_string(steps))});
  // Time re-checks need not agree (a time window closes at another moment on each rank anyway): -2 stands for any.
  const detail::auto_recheck& rc = cfg.auto_recheck_every;
  const long long recheck = !automatic || rc.per == detail::auto_recheck::unit::none ? -1
                            : rc.per == detail::auto_recheck::unit::seconds     ? -2
                                                                                : static_cast<long long>(rc.every);
  v.push_back({recheck, differs("SIDECORE_AUTO_RECHECK", recheck == -1   ? "off"
                                                         : recheck == -2 ? "in seconds"
                                                                         : std::to_string(recheck) + " steps")});
  return v;
}

// Every rank learns of a difference in a shared setting and throws.
void agree_shared_settings(const detail::settings& cfg, MPI_Comm comm) {
  const std::vector<shared_setting> shared = shared_settings(cfg);
  const int n = static_cast<int>(shared.size());
  std::vector<long long> mine, lo(shared.size()), hi(shared.size());
  for (const shared_setting& x : shared) mine.push_back(x.key);
  const char* what = "MPI_Allreduce (collective settings)";
  mpi_check(MPI_Allreduce(mine.data(), lo.data(), n, MPI_LONG_LONG, MPI_MIN, comm), what);
  mpi_check(MPI_Allreduce(mine.data(), hi.data(), n, MPI_LONG_LONG, MPI_MAX, comm), what);
  for (std::size_t k = 0; k < shared.size(); ++k)
    if (lo[k] != hi[k]) throw error(errc::bad_setting, shared[k].error);
}

// Lets go of what init made, in the order the provider needs: the engine first (the provider lets go of the
// buffers of operations still in flight, scratch included), then the collectives' state, this rank's mapping of the
// node segment (the node's other ranks keep theirs), the communicators. free_mpi false leaves MPI's objects to the
// end of the process: with a dead rank a barrier may still be pending on world's duplicate. Used by finalize and
// by an init that fails after opening the engine, so that a later init starts afresh.
void release_runtime(detail::runtime_state& s, bool free_mpi) {
  if (s.coll) s.coll->detach();
  s.eng.reset();
  for (auto& p : s.persistent.clear())
    if (p->coll && s.coll) s.coll->destroy(p->coll);
  s.coll.reset();
  s.node_shm.reset();
  if (free_mpi && s.node != MPI_COMM_NULL) MPI_Comm_free(&s.node);
  for (auto& slot : s.comms) {
    detail::comm_entry* e = slot.exchange(nullptr);
    if (!e) continue;
    if (free_mpi) MPI_Comm_free(&e->mpi);
    delete e;
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

namespace {

// Whether MPI knows `comm` as an intracommunicator, asked without MPI's default abort: an invalid handle raises its
// error on MPI_COMM_WORLD (MPICH 4.0) or on MPI_COMM_SELF (MPI 4.0's rule for errors of no object), whose handlers
// return for this one question and are put back after it.
[[nodiscard]] bool is_intracommunicator(MPI_Comm comm, bool& inter) {
  MPI_Errhandler world = MPI_ERRHANDLER_NULL, self = MPI_ERRHANDLER_NULL;
  MPI_Comm_get_errhandler(MPI_COMM_WORLD, &world);
  MPI_Comm_get_errhandler(MPI_COMM_SELF, &self);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  int flag = 0;
  const bool known = MPI_Comm_test_inter(comm, &flag) == MPI_SUCCESS;
  inter = known && flag != 0;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, world);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, self);
  MPI_Errhandler_free(&world);
  MPI_Errhandler_free(&self);
  return known && !inter;
}

// A communicator handle as text: MPICH's are integers, other MPIs' pointers.
template <typename Handle>
[[nodiscard]] std::string handle_text(Handle c) {
  char text[32];
  if constexpr (std::is_integral_v<Handle>)
    std::snprintf(text, sizeof text, "0x%llx",
                  static_cast<unsigned long long>(static_cast<std::make_unsigned_t<Handle>>(c)));
  else
    std::snprintf(text, sizeof text, "%p", static_cast<const void*>(c));
  return text;
}

}  // namespace

void init(MPI_Comm user_comm) {
  // MPI's state first: after MPI_Finalize no MPI call may be made (MPICH aborts on one), MPI_Finalized aside.
  int mpi_done = 0;
  MPI_Finalized(&mpi_done);
  if (mpi_done)
    throw error(errc::mpi, "sidecore::init called after MPI_Finalize; call it between MPI_Init and MPI_Finalize");
  int expected = static_cast<int>(phase::before_init);
  if (g_phase.load() != expected)
    throw error(errc::already_initialized, g_phase.load() == static_cast<int>(phase::running)
                                               ? "sidecore::init called twice; call it once, after MPI_Init"
                                               : "sidecore::init called after sidecore::finalize; sidecore cannot be "
                                                 "initialized again in the same process");
  int mpi_ok = 0;
  MPI_Initialized(&mpi_ok);
  if (!mpi_ok) throw error(errc::mpi, "sidecore::init needs MPI initialized: call MPI_Init or MPI_Init_thread first");
  constexpr const char* accepted =
      "accepted: an MPI intracommunicator of the ranks that use sidecore, such as "
      "MPI_COMM_WORLD (in Fortran MPI_COMM_WORLD of `use mpi`, or MPI_COMM_WORLD%MPI_VAL "
      "of `use mpi_f08`; SIDECORE_COMM_WORLD is sidecore's own communicator, which init makes)";
  if (user_comm == MPI_COMM_NULL)
    throw error(errc::invalid_argument, std::string("sidecore::init: comm is MPI_COMM_NULL; ") + accepted);
  bool inter = false;
  if (!is_intracommunicator(user_comm, inter))
    throw error(errc::invalid_argument,
                std::string("sidecore::init: comm ") +
                    (inter ? "is an intercommunicator"
                           : "(handle " + handle_text(user_comm) + ") is not an MPI communicator") +
                    "; " + accepted);

  // Local set-up first (settings, topology, provider), then every rank learns whether all succeeded before
  // any collective step: bad input on one rank gives an error on every rank, never a hang.
  auto s = std::make_unique<detail::runtime_state>();
  std::string local_error;
  errc local_code = errc::success;
  try {
    s->cfg = detail::read_settings();
    // Output paths as the user read them: relative to where the run starts, though the program may change
    // directory before finalize writes them.
    s->cfg.profile_path = absolute_output(s->cfg.profile_path);
    s->cfg.trace_path = absolute_output(s->cfg.trace_path);
    s->topo = std::make_unique<detail::topology>();
    if (s->cfg.mode == detail::progress_mode::core) s->reserved_core = s->topo->choose_reserved(s->cfg.progress_core);
    if (s->cfg.mode == detail::progress_mode::automatic) {
      try {  // mode auto on one core: no core to reserve, which the verdict says; a bad index is still an error
        s->reserved_core = s->topo->choose_reserved(s->cfg.progress_core);
      } catch (const error& e) {
        if (e.code() != errc::topology) throw;
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
  if (int me = 0; MPI_Comm_rank(user_comm, &me) == MPI_SUCCESS && me == 0) {
    const std::string w = detail::ignored_auto_settings_warning(s->cfg);
    if (!w.empty()) std::fputs(w.c_str(), stderr);
  }

  MPI_Comm world = MPI_COMM_NULL;
  mpi_check(MPI_Comm_dup(user_comm, &world), "MPI_Comm_dup");
  int nranks = 0;
  MPI_Comm_size(world, &nranks);
  if (nranks > tag::max_ranks)
    throw error(errc::invalid_argument, "sidecore::init: " + std::to_string(nranks) +
                                            " ranks; sidecore supports up to " + std::to_string(tag::max_ranks));

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
  ec.max_requests = static_cast<std::uint32_t>(s->cfg.max_requests);
  int thread_level = MPI_THREAD_SINGLE;
  MPI_Query_thread(&thread_level);
  ec.serialized_callers = thread_level != MPI_THREAD_MULTIPLE;
  try {
    s->eng = progress::engine::open(ec);
  } catch (const progress::config_error& e) {
    // engine_config::recv_buffers is SIDECORE_RECV_BUFFERS; a member with no setting of its own is named as it is.
    local_error = std::string("sidecore::init: ") +
                  (std::string(e.field) == "recv_buffers"
                       ? "SIDECORE_RECV_BUFFERS=" + std::to_string(s->cfg.recv_buffers) + " " + e.reason
                       : std::string(e.what()));
    local_code = errc::bad_setting;
  } catch (const progress::transport_error& e) {
    local_error = std::string("sidecore::init: ") + e.what();
    local_code = errc::transport;
  } catch (const std::bad_alloc&) {
    const std::uint64_t rx_bytes = static_cast<std::uint64_t>(s->cfg.recv_buffers) * (s->cfg.eager_max + 40);
    local_error = "sidecore::init: out of memory opening the engine: its receive buffers take SIDECORE_RECV_BUFFERS=" +
                  std::to_string(s->cfg.recv_buffers) + " x (SIDECORE_EAGER_MAX=" + std::to_string(s->cfg.eager_max) +
                  " + 40) = " + std::to_string(rx_bytes) + " bytes, its request pool SIDECORE_MAX_REQUESTS=" +
                  std::to_string(s->cfg.max_requests) + " slots; lower them, or raise the process's memory limit";
    local_code = errc::bad_setting;
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
    release_runtime(*s, true);
    throw error(errc::transport, std::string("sidecore::init: ") + e.what());
  } catch (...) {
    MPI_Comm_free(&world);
    release_runtime(*s, true);
    throw;
  }

  s->comms[0].store(detail::make_comm_entry(world, world, 0, s->cfg.coll_cache), std::memory_order_release);
  s->coll = std::make_unique<progress::coll_executor>(*s->eng);
  for (std::size_t k = 0; k < s->coll_algorithm.size(); ++k)
    s->coll_algorithm[k].store(static_cast<std::uint8_t>(s->cfg.coll_algorithm[k]), std::memory_order_relaxed);
  s->coll_segment.store(s->cfg.coll_segment, std::memory_order_relaxed);
  // Nothing runs yet when the node's set-up fails: what init made is let go (MPI_Comm_free waits for no rank).
  // The connection of a node's ranks can fail on some ranks only (one out of file descriptors): the others must
  // not go on into the collectives that follow, so every rank agrees on the outcome.
  try {
    try {
      detail::setup_doorbells(*s, world);
    } catch (const progress::transport_error& e) {
      local_error = std::string("sidecore::init: ") + e.what();
      local_code = errc::transport;
    } catch (const error& e) {
      local_error = e.what();
      local_code = e.code();
    }
    agree("the connection of each node's ranks");
  } catch (...) {
    release_runtime(*s, true);
    throw;
  }

  g_state = s.release();
  g_phase.store(static_cast<int>(phase::running), std::memory_order_release);
  detail::watch_mpi_finalize();
  try {
    detail::instrument_start(*g_state, comm_access::make(0, 0));
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
    std::fprintf(stderr,
                 "sidecore: rank %d: mode %s, provider %s, %d cores (cpuset %s), reserved %s, %d OpenMP threads\n", r,
                 detail::mode_name(g_state->cfg.mode), g_state->eng->provider().c_str(), g_state->topo->cores(),
                 g_state->topo->allowed_list().c_str(),
                 g_state->reserved_core >= 0 ? g_state->topo->describe_core(g_state->reserved_core).c_str() : "none",
                 g_state->fence.threads);
    for (const auto& n : g_state->fence.notes) std::fprintf(stderr, "sidecore: rank %d: %s\n", r, n.c_str());
  }
}

namespace {

// An MPI_Ibarrier over c completed while progressing and watching the peers (complete_unless_peer_died): false as
// soon as a rank is found dead, the barrier left to the end of the process.
bool every_rank_reached(detail::runtime_state& s, MPI_Comm c) {
  MPI_Request barrier;
  mpi_check(MPI_Ibarrier(c, &barrier), "MPI_Ibarrier");
  return detail::complete_unless_peer_died(*s.eng, barrier);
}

}  // namespace

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
  bool peer_died = !every_rank_reached(s, w->mpi);
  // From here this rank waits for nobody once a rank died: a peer on the node that finds it gone takes that for its
  // end, not its failure (there is no collective left below to keep it from exiting before slower survivors).
  if (peer_died) s.eng->mark_ended();
  s.eng->stop_thread();
  const std::size_t left = s.eng->operations_in_use();
  if (left > 0)
    std::fprintf(stderr, "sidecore: warning: rank %d: %zu operation(s) not completed at finalize; they are dropped\n",
                 w->rank, left);
  // The profiles' exchange watches the peers (a rank may die after the barrier above, in it); t_total: the measured
  // window, as t_comp.
  detail::instrument_finish(s, comm_access::make(0, 0), -1.0, s.eng->failed_peers());
  if (!peer_died) {
    // A second barrier, watched as the first: a rank that died since (in the exchange above) is found here. A rank
    // that ends after this barrier ends normally: nothing below waits for another rank.
    peer_died = !every_rank_reached(s, w->mpi);
    s.eng->mark_ended();
  }
  g_failed_ranks = s.eng->failed_peers();
  g_phase.store(static_cast<int>(phase::finalized), std::memory_order_release);
  // MPI_Comm_free itself waits for no rank (MPICH).
  release_runtime(s, !peer_died);
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
comm world() { return comm_access::make(0, 0); }

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

}  // namespace sidecore
