// Glue between the runtime/engine and the instrumentation (instrument/): the engine's transfer hook, regions,
// the a-priori transfer-time table (file or built-in calibration), the exchange between ranks the instrumentation
// needs (clock offsets, the collectives' cross-rank analysis), and writing profile and trace at finalize.
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include <sidecore/instrument/collectives.hpp>
#include <nlohmann/json.hpp>

#include <sidecore/common/profile.hpp>
#include <sidecore/instrument/instrument.hpp>
#include <sidecore/sidecore.hpp>

#include "state.hpp"
#include "watched_wait.hpp"

namespace sidecore::detail {

void region_enter(std::string_view name) noexcept { instrument::region_enter(name); }
void region_exit() noexcept { instrument::region_exit(); }

namespace {

// XFER_BEGIN when the operation is handed to libfabric, XFER_END when its completion is seen. For a receive
// the transfer cannot start before the buffer is posted, so posting is its earliest possible beginning; the
// size recorded is the posted size (docs/instrument.md). A collective's transfers carry its kind (xfer_event::op,
// numbered as instrument::op_kind), so the overlap breaks down per collective kind.
constexpr instrument::op_kind op_kind_of(coll::kind k) noexcept {
  return static_cast<instrument::op_kind>(static_cast<int>(k) + 1);
}
static_assert(instrument::op_kind_name(op_kind_of(coll::kind::barrier)) == "barrier" &&
                  instrument::op_kind_name(op_kind_of(coll::kind::alltoallv)) == "alltoallv",
              "xfer_event::op and the executor number collective kinds as instrument::op_kind does");

// Collective monitoring (seed 002): the executor's arrival (the call starting the instance) and departure (the
// engine completing this rank's schedule) of every instance; the communicator id and the instance number are the
// same on every member, which is how the analysis matches ranks' records.
void coll_arrive_hook(coll::kind k, int comm_id, std::uint64_t seq, std::uint64_t bytes, int comm_size) {
  instrument::coll_arrive(op_kind_of(k), static_cast<std::uint64_t>(comm_id), seq, bytes,
                          static_cast<std::uint32_t>(comm_size));
}
void coll_depart_hook(int comm_id, std::uint64_t seq) {
  instrument::coll_depart(static_cast<std::uint64_t>(comm_id), seq);
}

void xfer_hook(const progress::xfer_event& ev, bool begin) {
  if (begin) instrument::xfer_begin(ev.id, ev.bytes, ev.peer, ev.owner_thread, static_cast<instrument::op_kind>(ev.op));
  else instrument::xfer_end(ev.id, ev.owner_thread);
}

// Built-in calibration of xfer_time (seed 000 needs it a priori): half round-trip ping-pong between rank
// pairs (0,1), (2,3), ... on a private communicator, sizes 1 B .. 4 MiB in powers of four; rank 0's pair
// decides and broadcasts the table so every rank bounds with the same one. A single rank measures itself.
std::vector<std::pair<std::size_t, double>> calibrate(const comm& world) {
  comm cal = world.dup();
  const int me = cal.rank(), n = cal.size();
  const int peer = n == 1 ? me : (me % 2 == 0 ? (me + 1 < n ? me + 1 : -1) : me - 1);
  std::vector<double> seconds;
  std::vector<std::size_t> sizes;
  for (std::size_t b = 1; b <= (4U << 20); b *= 4) sizes.push_back(b);
  std::vector<char> sbuf(sizes.back(), 1), rbuf(sizes.back());
  for (std::size_t b : sizes) {
    const int iters = b >= (1U << 20) ? 4 : 20;
    double best = 1e30;
    for (int i = -1; i < iters; ++i) {  // i = -1 warms up
      if (peer < 0) break;
      const std::uint64_t t0 = now_ns();
      if (me <= peer) {  // the lower rank (or a single rank, talking to itself) sends first
        request rr = irecv(rbuf.data(), static_cast<std::int64_t>(b), peer, peer == me ? 0 : 1, cal);
        send(sbuf.data(), static_cast<std::int64_t>(b), peer, 0, cal);
        (void)wait(rr);
      } else {
        request rr = irecv(rbuf.data(), static_cast<std::int64_t>(b), peer, 0, cal);
        (void)wait(rr);
        send(sbuf.data(), static_cast<std::int64_t>(b), peer, 1, cal);
      }
      const double half = static_cast<double>(now_ns() - t0) * 0.5e-9;
      if (i >= 0 && half < best) best = half;
    }
    seconds.push_back(peer < 0 ? 0.0 : best);
  }
  MPI_Bcast(seconds.data(), static_cast<int>(seconds.size()), MPI_DOUBLE, 0, cal.mpi());
  cal.free();
  std::vector<std::pair<std::size_t, double>> table;
  for (std::size_t i = 0; i < sizes.size(); ++i) table.emplace_back(sizes[i], seconds[i]);
  return table;
}

// The instrumentation's exchange between ranks (clock offsets at init, the collectives' analysis at finalize): MPI
// point-to-point on a private communicator, in pieces of at most 1 GiB (MPI counts are ints).
MPI_Comm g_exchange_comm = MPI_COMM_NULL;
constexpr int exchange_tag = 0x5c1d;
constexpr std::size_t exchange_piece = std::size_t{1} << 30;

// A rank of the exchange found dead while this rank waited for a message to or from it (finalize's exchanges).
struct peer_lost : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Completes r while progressing `e` (its liveness checks look at every peer in finalize); throws peer_lost as soon
// as a peer is found dead (complete_unless_peer_died).
void complete_watched(MPI_Request& r, progress::engine& e) {
  if (complete_unless_peer_died(e, r)) return;
  std::string who;
  for (const int d : e.failed_peers()) who += (who.empty() ? "" : ", ") + std::to_string(d);
  throw peer_lost("rank(s) " + who + " died during the exchange");
}

// The instrumentation's exchange over c in pieces of at most 1 GiB (MPI counts are int). `watched`: finalize's,
// where a rank may die after the barrier every rank passed: each piece is then nonblocking and completed while
// watching the peers (complete_watched); else blocking calls (init, every rank alive and connected).
instrument::exchange exchange_over(MPI_Comm c, progress::engine* watched = nullptr) {
  instrument::exchange ex;
  MPI_Comm_rank(c, &ex.rank);
  MPI_Comm_size(c, &ex.nranks);
  ex.send = [c, watched](int to, const void* data, std::size_t bytes) {
    for (const char* p = static_cast<const char*>(data);;) {
      const std::size_t n = std::min(bytes, exchange_piece);
      if (watched == nullptr) {
        MPI_Send(p, static_cast<int>(n), MPI_BYTE, to, exchange_tag, c);
      } else {
        MPI_Request r = MPI_REQUEST_NULL;
        MPI_Isend(p, static_cast<int>(n), MPI_BYTE, to, exchange_tag, c, &r);
        complete_watched(r, *watched);
      }
      p += n;
      bytes -= n;
      if (bytes == 0) break;
    }
  };
  ex.recv = [c, watched](int from, void* data, std::size_t bytes) {
    for (char* p = static_cast<char*>(data);;) {
      const std::size_t n = std::min(bytes, exchange_piece);
      if (watched == nullptr) {
        MPI_Recv(p, static_cast<int>(n), MPI_BYTE, from, exchange_tag, c, MPI_STATUS_IGNORE);
      } else {
        MPI_Request r = MPI_REQUEST_NULL;
        MPI_Irecv(p, static_cast<int>(n), MPI_BYTE, from, exchange_tag, c, &r);
        complete_watched(r, *watched);
      }
      p += n;
      bytes -= n;
      if (bytes == 0) break;
    }
  };
  return ex;
}

// Every rank checks the files it will write before the run; all learn whether one cannot, so that init fails on
// every rank, naming the path and the reason, rather than a profile being lost at finalize.
void agree_outputs(const instrument::config& ic, const comm& world) {
  const std::string problem = instrument::check_outputs(ic, world.rank(), world.size());
  const int mine = problem.empty() ? world.size() : world.rank();
  int first_bad = world.size();
  MPI_Allreduce(&mine, &first_bad, 1, MPI_INT, MPI_MIN, world.mpi());
  if (!problem.empty()) throw error(errc::bad_setting, problem);
  if (first_bad < world.size()) {
    throw error(errc::bad_setting, "rank " + std::to_string(first_bad) +
                                       " cannot write its profile or trace (SIDECORE_PROFILE, SIDECORE_TRACE; that "
                                       "rank's error says why); no rank is initialized");
  }
}

// Mode auto: the profile's "auto" section (docs/profile-schema.md), added to the JSON the instrumentation wrote. The
// job profile gets rank 0's: the verdicts are collective.
std::string with_auto_section(const runtime_state& s, std::string json_text) {
  if (!s.autom) return json_text;
  nlohmann::json section;
  to_json(section, s.autom->record());
  nlohmann::ordered_json j = nlohmann::ordered_json::parse(json_text);  // keeps the writer's field order
  j["auto"] = nlohmann::ordered_json::parse(section.dump());
  return j.dump(2) + "\n";
}

}  // namespace

void instrument_start(runtime_state& s, const comm& world) {
  const settings& c = s.cfg;
  if (c.profile_path.empty() && c.trace_path.empty()) return;
  instrument::config ic;
  ic.profile = !c.profile_path.empty();
  ic.profile_path = c.profile_path;
  ic.trace = !c.trace_path.empty();
  ic.trace_path = c.trace_path;
  ic.trace_max_events = c.trace_max_events;
  if (!c.size_bins.empty()) ic.size_bin_edges = c.size_bins;
  ic.ring_events = c.ring_events;
  ic.coll_samples = c.coll_samples;
  agree_outputs(ic, world);

  instrument::xfer_time_table table;
  if (!c.xfer_table.empty()) {
    try {
      table = instrument::read_xfer_time_table(c.xfer_table);
    } catch (const std::exception& e) {
      throw error(errc::bad_setting, std::string("SIDECORE_XFER_TABLE='") + c.xfer_table + "': " + e.what());
    }
  } else if (ic.profile) {
    table = instrument::xfer_time_table(
        calibrate(world), world.size() > 1 ? "calibration: built-in ping-pong at init (ranks 0 and 1)"
                                           : "calibration: built-in ping-pong at init (rank 0 with itself)");
  }
  instrument::start(ic, world.rank(), world.size());
  instrument::set_xfer_time_table(std::move(table));
  MPI_Comm_dup(world.mpi(), &g_exchange_comm);
  const instrument::exchange ex = exchange_over(g_exchange_comm);
  instrument::agree_run_id(ex);
  instrument::synchronize_clock(ex);
  instrument::claim_communicating_thread();  // init's thread, whichever thread makes the first call
  instrument::open_window();  // the window starts as init returns: the set-up above is not the application's
  s.eng->set_xfer_hook(&xfer_hook);
  if (s.coll) s.coll->set_monitor({&coll_arrive_hook, &coll_depart_hook});
  s.eng->set_idle_hook([] { instrument::fold_current_thread(); });
}

void instrument_finish(runtime_state& s, const comm& world, double t_total_s, const std::vector<int>& dead_ranks) {
  if (!instrument::enabled()) return;
  // The progress thread's accounting, in core mode only: off mode has no progress thread (the engine's figures
  // would be the application threads' own polling), and the schema writes the section in core mode only.
  if (s.core_active) {
    const progress::engine_stats st = s.eng->stats();
    instrument::set_progress_stats(static_cast<double>(st.busy_ns) * 1e-9, static_cast<double>(st.idle_ns) * 1e-9,
                                   st.polls, st.completions);
  }
  // N_core: SIDECORE_NCORE when set, else the cores of the process's cpuset.
  const int n_core = s.cfg.n_core > 0 ? s.cfg.n_core : s.topo->cores();
  // Mode auto: the mode the run ended in (the auto section says when it switched).
  instrument::set_run_info(s.core_active ? "core" : "off", s.eng->provider(), n_core, t_total_s);
  instrument::set_host_cores(std::max(1, s.topo->machine_cores()));  // counted as topo->cores() counts n_core
  const bool live = dead_ranks.empty();
  if (live) {
    try {
      instrument::analyze_collectives(exchange_over(g_exchange_comm, s.eng.get()));
    } catch (const std::exception& e) {  // the profile is still written, without the cross-rank figures
      std::fprintf(stderr, "sidecore: rank %d: the collectives' cross-rank analysis failed: %s\n", world.rank(),
                   e.what());
    }
  }
  instrument::set_trace_info(s.eng->eager_max(), s.eng->inject_size(), s.fence.threads);
  if (!s.cfg.profile_path.empty()) {
    // A rank whose profile cannot be made still takes part in the gathering below, with an empty text: leaving it
    // would hang the others in it. One whose file cannot be written (write_text_file says why) still gives its text.
    std::string mine;
    try {
      mine = with_auto_section(s, instrument::rank_profile_json());
    } catch (const std::exception& e) {
      std::fprintf(stderr, "sidecore: rank %d: cannot make the profile: %s\n", world.rank(), e.what());
    }
    if (!mine.empty())
      instrument::write_text_file("SIDECORE_PROFILE", instrument::path_for_rank(s.cfg.profile_path, world.rank()),
                                  mine);
    // The lowest live rank says why the job has no profile (rank 0 may be the dead one).
    const auto no_job_profile = [&](const std::vector<int>& dead, const char* when) {
      int lowest = 0;
      while (std::find(dead.begin(), dead.end(), lowest) != dead.end()) ++lowest;
      if (world.rank() != lowest) return;
      std::string who;
      for (int d : dead) who += (who.empty() ? "" : ", ") + std::to_string(d);
      std::fprintf(stderr,
                   "sidecore: warning: the job profile %s was not written: rank(s) %s died%s, and gathering it needs "
                   "every rank; each live rank wrote its own (%s)\n",
                   instrument::job_path(s.cfg.profile_path).c_str(), who.c_str(), when, s.cfg.profile_path.c_str());
    };
    if (!live) {
      no_job_profile(dead_ranks, "");
      instrument::stop();
      return;
    }
    // Rank 0 gathers every rank's profile and writes the job profile. A rank that dies meanwhile leaves the job
    // without one (as one dead before finalize does); the exchange's communicator is then left to the process's end.
    std::vector<std::string> parts;
    try {
      parts = instrument::gather_to_rank0(exchange_over(g_exchange_comm, s.eng.get()), mine);
    } catch (const peer_lost&) {
      no_job_profile(s.eng->failed_peers(), " during finalize");
      instrument::stop();
      return;
    }
    MPI_Comm_free(&g_exchange_comm);
    if (world.rank() == 0) {
      const std::string missing = instrument::ranks_without_text(parts);
      if (!missing.empty()) {
        std::fprintf(stderr, "sidecore: rank 0: no job profile: rank(s) %s have no profile (said above)\n",
                     missing.c_str());
      } else {
        // Profiles that cannot make one job (in mode auto, ranks that ended in different modes): each rank's own
        // profile is written; finalize goes on.
        std::string job;
        try {
          job = with_auto_section(s, instrument::merge_job_profile(parts));
        } catch (const std::exception& e) {
          std::fprintf(stderr, "sidecore: rank 0: no job profile: %s; each rank's profile is written\n", e.what());
        }
        if (!job.empty())
          instrument::write_text_file("SIDECORE_PROFILE", instrument::job_path(s.cfg.profile_path), job);
      }
    }
  }
  if (live && g_exchange_comm != MPI_COMM_NULL && s.eng->failed_peer_count() == 0) MPI_Comm_free(&g_exchange_comm);
  instrument::stop();
}

}  // namespace sidecore::detail
