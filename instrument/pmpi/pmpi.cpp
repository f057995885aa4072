// libsidecore-pmpi.so — a profiler for unmodified MPI programs: LD_PRELOAD it into any program built with the
// system MPICH. MPI_Init/MPI_Init_thread start sidecore's instrumentation, every intercepted MPI call is counted in
// its model category (wrappers.cpp), and MPI_Finalize writes one profile per rank and, on rank 0, the job profile.
//
// Settings (environment, read once in MPI_Init; the files are checked there, and a file that cannot be written stops
// the job with its path and the reason):
//   SIDECORE_PROFILE            profile path, %r = rank (default "sidecore-profile.%r.json"; "off" disables);
//                               the job profile goes to the path with %r = "job"
//   SIDECORE_TRACE              Chrome trace-event file, %r = rank (default: no trace; "off" disables); spaces
//                               and tabs around either path are ignored
//   SIDECORE_TRACE_MAX_EVENTS   bound on trace events per rank (default 1000000)
//   SIDECORE_SIZE_BINS          message-size bin edges (default: 0 and the powers of four)
//   SIDECORE_RING_EVENTS        per-thread ring capacity in records (default 1024)
//   SIDECORE_COLL_SAMPLES       collective instances kept per communicator for the cross-rank figures (default 1024)
//   SIDECORE_NCORE              cores available to a rank (default: the process's CPU affinity mask)
// and, read when the library is loaded: SIDECORE_PROGRESS, SIDECORE_PROGRESS_CORE, SIDECORE_PMPI_PROGRESS and
// SIDECORE_VERBOSE, the dedicated progress core (progress_core.hpp, docs/pmpi.md).
// The numbers accept what sidecore's settings table accepts (instrument/include/sidecore/instrument/env.hpp); a
// rejected value is reported on stderr (variable, value, what is accepted) and the default kept.
#include <mpi.h>
#include <sched.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include "collectives.hpp"
#include "pmpi_internal.hpp"
#include "sidecore/instrument/collectives.hpp"
#include "progress_core.hpp"
#include "sidecore/instrument/env.hpp"

namespace sidecore::instrument::pmpi {
namespace {

struct state {
  bool init_seen = false;  // MPI_Init or MPI_Init_thread went through this library (begin_profiling ran)
  bool started = false;
  bool profile = false;
  bool trace = false;
  std::string profile_pattern;
  MPI_Comm comm = MPI_COMM_NULL;  // private duplicate of MPI_COMM_WORLD for gathering profiles
  int rank = 0;
  int nranks = 1;
};
state g;

// A setting read with its strict parser (env.hpp): unset keeps the default; a rejected value is reported with the
// parser's message (the variable, the value, what is accepted) and the default is kept: a profiler setting must not
// make MPI_Init fail.
template <class T, class Parse>
void read_setting(const char* name, T& into, Parse parse, const std::string& default_text) {
  const char* v = std::getenv(name);
  if (v == nullptr) return;
  try {
    into = static_cast<T>(parse(std::string(v)));
  } catch (const env::bad_value& e) {
    std::fprintf(stderr, "sidecore-pmpi: rank %d: %s; using the default (%s)\n", g.rank, e.what(),
                 default_text.c_str());
  }
}

// The instrumentation's exchange between ranks (clock offsets, the collectives' analysis): PMPI point-to-point on
// the private communicator, in pieces of at most 1 GiB (MPI counts are ints).
constexpr int exchange_tag = 0x5c1d;
constexpr std::size_t exchange_piece = std::size_t{1} << 30;

exchange make_exchange() {
  exchange ex;
  ex.rank = g.rank;
  ex.nranks = g.nranks;
  ex.send = [](int to, const void* data, std::size_t bytes) {
    const char* p = static_cast<const char*>(data);
    do {
      const std::size_t n = std::min(bytes, exchange_piece);
      PMPI_Send(p, static_cast<int>(n), MPI_BYTE, to, exchange_tag, g.comm);
      p += n;
      bytes -= n;
    } while (bytes > 0);
  };
  ex.recv = [](int from, void* data, std::size_t bytes) {
    char* p = static_cast<char*>(data);
    do {
      const std::size_t n = std::min(bytes, exchange_piece);
      PMPI_Recv(p, static_cast<int>(n), MPI_BYTE, from, exchange_tag, g.comm, MPI_STATUS_IGNORE);
      p += n;
      bytes -= n;
    } while (bytes > 0);
  };
  return ex;
}

// SIDECORE_PROFILE, SIDECORE_TRACE: a path, with spaces and tabs around it ignored as sidecore's settings table
// ignores them (a quoted "off " in a job script is off, not files named "off .0"); empty or "off" is no output.
std::string output_path(const char* var, const char* fallback) {
  const char* v = std::getenv(var);
  const std::string text = v == nullptr ? fallback : v;
  const std::size_t b = text.find_first_not_of(" \t"), e = text.find_last_not_of(" \t");
  const std::string path = b == std::string::npos ? std::string() : text.substr(b, e - b + 1);
  return path == "off" ? std::string() : path;
}

// An output path made absolute against the working directory of MPI_Init, where agree_outputs() checked it: the
// files are written (the trace renamed from its temporary file) at MPI_Finalize, and a program that changed its
// working directory in between would otherwise have them written elsewhere, or lose the trace.
std::string absolute_path(const std::string& path) {
  std::error_code ec;
  const std::filesystem::path abs = std::filesystem::absolute(path, ec);
  return ec ? path : abs.string();
}

int cores_from_affinity() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return 1;
  core::add_openmp_places(set);
  const int n = CPU_COUNT(&set);
  return n > 0 ? n : 1;
}

std::string command_line() {
  std::string raw;
  if (std::FILE* f = std::fopen("/proc/self/cmdline", "rb")) {
    char buf[4096];
    std::size_t n = 0;
    while ((n = std::fread(buf, 1, sizeof(buf), f)) > 0) raw.append(buf, n);
    std::fclose(f);
  }
  while (!raw.empty() && raw.back() == '\0') raw.pop_back();
  for (char& c : raw) {
    if (c == '\0') c = ' ';
  }
  return raw;
}

std::string library_version() {
  char buf[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  if (PMPI_Get_library_version(buf, &len) != MPI_SUCCESS) return "MPI";
  std::string v(buf, static_cast<std::size_t>(len));
  if (const auto nl = v.find('\n'); nl != std::string::npos) v.resize(nl);
  std::string out;  // "MPICH Version:\t4.0.2" -> "MPICH Version: 4.0.2"
  for (const char c : v) {
    const bool space = c == ' ' || c == '\t';
    if (space && (out.empty() || out.back() == ' ')) continue;
    out += space ? ' ' : c;
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

// Ends the job at MPI_Init when every rank has agreed it must stop (each has said why on stderr): every rank finalizes
// MPI and exits with status 2. Not MPI_Abort: it kills the other ranks at once, and the launcher may drop the lines
// they had just written (every rank's line was lost now and then under load).
[[noreturn]] void stop_job() {
  PMPI_Finalize();
  std::fflush(nullptr);
  std::_Exit(2);
}

// Whether the profiler runs at all, and whether it writes a profile, must be the same on every rank: its set-up
// below (the outputs' check, the clock offsets) and the profile's gathering at MPI_Finalize are collective over
// g.comm, so a rank without them would leave the others waiting there forever. A trace on some ranks only is fine
// while every rank profiles (writing a trace joins nobody). Every rank says why, then the job stops at MPI_Init.
void agree_switches(const config& cfg) {
  const int mine[2] = {cfg.profile ? 1 : 0, cfg.profile || cfg.trace ? 1 : 0};
  int lo[2] = {0, 0}, hi[2] = {0, 0};
  PMPI_Allreduce(mine, lo, 2, MPI_INT, MPI_MIN, g.comm);
  PMPI_Allreduce(mine, hi, 2, MPI_INT, MPI_MAX, g.comm);
  if (lo[0] == hi[0] && lo[1] == hi[1]) return;
  if (lo[0] != hi[0]) {
    std::fprintf(stderr,
                 "sidecore-pmpi: rank %d: profiling is on for some ranks only (this rank: SIDECORE_PROFILE=%s); "
                 "the profiler's set-up and the profile's gathering at MPI_Finalize join every rank: give every rank "
                 "a path (%%r gives each its file) or SIDECORE_PROFILE=off; stopping the job at MPI_Init\n",
                 g.rank, cfg.profile ? g.profile_pattern.c_str() : "off");
  } else {
    std::fprintf(stderr, "sidecore-pmpi: rank %d: tracing is on for some ranks only (this rank: SIDECORE_TRACE %s) "
                 "with SIDECORE_PROFILE=off: the profiler's set-up joins every rank: set SIDECORE_TRACE on every rank "
                 "or none, or profile every rank; stopping the job at MPI_Init\n",
                 g.rank, cfg.trace ? "set" : "not set");
  }
  stop_job();
}

// The ranks sample the same collective instances only with the same SIDECORE_COLL_SAMPLES, and the cross-rank
// figures need an instance on every rank: with another capacity on some rank, they would cover only the few instances
// both samples hold, under a capacity that no rank used. Every rank says so, then the job stops at MPI_Init.
void agree_coll_samples(const config& cfg) {
  const auto mine = static_cast<unsigned long long>(cfg.coll_samples);
  unsigned long long lo = 0, hi = 0;
  PMPI_Allreduce(&mine, &lo, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN, g.comm);
  PMPI_Allreduce(&mine, &hi, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, g.comm);
  if (lo == hi) return;
  std::fprintf(stderr, "sidecore-pmpi: rank %d: SIDECORE_COLL_SAMPLES differs between ranks (this rank: %llu; "
               "from %llu to %llu); the ranks sample the same collective instances only with the same value: give "
               "every rank the same value; stopping the job at MPI_Init\n", g.rank, mine, lo, hi);
  stop_job();
}

// Every rank checks the files it will write; when one cannot, the job stops here, each failing rank naming the path
// and the reason: a profiler asked for by LD_PRELOAD whose profile would be lost at MPI_Finalize is an error at
// MPI_Init, not a surprise after the run.
void agree_outputs(const config& cfg) {
  const std::string problem = check_outputs(cfg, g.rank, g.nranks);
  if (!problem.empty()) {
    // Before the agreement: no rank stops before every failing rank has said why.
    std::fprintf(stderr, "sidecore-pmpi: rank %d: %s; stopping the job at MPI_Init (fix the path, or "
                 "SIDECORE_PROFILE=off to run without the profiler)\n", g.rank, problem.c_str());
  }
  const int mine = problem.empty() ? g.nranks : g.rank;
  int first_bad = g.nranks;
  PMPI_Allreduce(&mine, &first_bad, 1, MPI_INT, MPI_MIN, g.comm);
  if (first_bad < g.nranks) stop_job();
}

// At the process's exit: a program that never called MPI_Finalize (exit() on an error path, a return from main)
// ends with its profile unwritten, since the ranks write and gather it there. Said, so that a missing profile is
// not a mystery (MPI_Abort ends the process without running this: MPICH says why itself).
void warn_if_unfinalized() {
  if (!g.started) return;
  const std::string where = g.profile ? " to '" + path_for_rank(g.profile_pattern, g.rank) + "'" : "";
  std::fprintf(stderr, "sidecore-pmpi: rank %d: the program ended without calling MPI_Finalize: no profile written%s%s "
               "(the profiler writes each rank's profile and trace, and gathers the job profile, in MPI_Finalize)\n",
               g.rank, where.c_str(), g.trace ? ", no trace" : "");
  std::fflush(stderr);
}

// At the process's exit: MPI was initialized, but not through this library's MPI_Init or MPI_Init_thread (the
// program, or a library of its own, called PMPI_Init itself; the PMPI_Init of MPICH's mpi_f08 bindings comes here,
// fortran_entries.cpp). Such a program is not profiled, and (in core mode) runs on the cores left to it without the
// progress core. Said once (by rank 0 where the launcher tells which it is), so that a missing profile is not a
// mystery.
void warn_if_initialized_past() {
  if (g.init_seen) return;
  int initialized = 0;
  if (PMPI_Initialized(&initialized) != MPI_SUCCESS || initialized == 0) return;
  const char* rank = std::getenv("PMI_RANK");
  if (rank != nullptr && std::strcmp(rank, "0") != 0) return;
  std::fprintf(stderr, "sidecore-pmpi: MPI was initialized past libsidecore-pmpi.so (by PMPI_Init or "
               "PMPI_Init_thread, not its MPI_Init or MPI_Init_thread): no profile written%s\n",
               core::active() ? ", and SIDECORE_PROGRESS=core reserved a core that no progress thread used" : "");
  std::fflush(stderr);
}

// Registered when the library is loaded: warn_if_initialized_past must run whether or not MPI_Init is seen.
__attribute__((constructor)) void watch_initialization() {
  static const bool watching = std::atexit(warn_if_initialized_past) == 0;
  (void)watching;
}

void begin_profiling() {
  g.init_seen = true;
  if (g.started) return;
  PMPI_Comm_rank(MPI_COMM_WORLD, &g.rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &g.nranks);
  if (core::stands_down()) {
    if (g.rank == 0)
      std::fprintf(stderr, "sidecore-pmpi: rank 0: the program links libsidecore, which profiles itself "
                   "(SIDECORE_PROFILE) and runs its own progress core: libsidecore-pmpi.so stands down (no profile, "
                   "no core of its own); run the program without LD_PRELOAD (sidecore study without --preload)\n");
    return;
  }
  core::report(g.rank);
  PMPI_Comm_dup(MPI_COMM_WORLD, &g.comm);

  config cfg;
  g.profile_pattern = output_path("SIDECORE_PROFILE", "sidecore-profile.%r.json");
  g.profile = !g.profile_pattern.empty();
  cfg.profile = g.profile;
  cfg.profile_path = g.profile_pattern;
  cfg.trace_path = output_path("SIDECORE_TRACE", "");
  cfg.trace = !cfg.trace_path.empty();
  read_setting("SIDECORE_TRACE_MAX_EVENTS", cfg.trace_max_events, env::parse_trace_max_events,
               std::to_string(cfg.trace_max_events));
  read_setting("SIDECORE_SIZE_BINS", cfg.size_bin_edges, env::parse_size_bins, "the powers of four");
  read_setting("SIDECORE_RING_EVENTS", cfg.ring_events, env::parse_ring_events, std::to_string(cfg.ring_events));
  read_setting("SIDECORE_COLL_SAMPLES", cfg.coll_samples, env::parse_coll_samples, std::to_string(cfg.coll_samples));
  // In core mode the main thread's mask no longer holds the reserved core: N_core is the process's, counted before.
  int n_core = core::process_cores() > 0 ? core::process_cores() : cores_from_affinity();
  const char* n_core_from = core::process_cores() > 0 ? ", the process's cores" : ", the CPU affinity mask's size";
  read_setting("SIDECORE_NCORE", n_core, env::parse_ncore, std::to_string(n_core) + n_core_from);
  agree_switches(cfg);
  if (!cfg.profile && !cfg.trace) return;
  g.trace = cfg.trace;
  agree_coll_samples(cfg);
  agree_outputs(cfg);
  if (cfg.profile) cfg.profile_path = g.profile_pattern = absolute_path(g.profile_pattern);
  if (cfg.trace) cfg.trace_path = absolute_path(cfg.trace_path);
  try {
    start(cfg, g.rank, g.nranks);
    // Without SIDECORE_PROGRESS=core a plain MPI run has no progress thread: the model's "off" (no-progress
    // calibration) run. In core mode the provider says what progresses on which core.
    const std::string where = core::description();
    set_run_info(core::mode_name(), "pmpi: " + library_version() + (where.empty() ? "" : "; " + where), n_core);
    if (core::machine_cores() > 0) set_host_cores(core::machine_cores());  // n_core counted in the same cores
    set_command_line(command_line());
    name_current_thread("main");
    claim_communicating_thread();  // MPI_Init's thread, whichever thread makes the first call
    collectives_begin(g.rank);
    const exchange ex = make_exchange();
    agree_run_id(ex);
    synchronize_clock(ex);
    open_window();  // the window starts as MPI_Init returns: the set-up above is not the program's computation
    g.started = true;
    static const bool watching_exit = std::atexit(warn_if_unfinalized) == 0;
    (void)watching_exit;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sidecore-pmpi: rank %d: cannot start profiling: %s\n", g.rank, e.what());
  }
}

void end_profiling() {
  if (!g.started) return;
  g.started = false;
  end_window();  // the window ends here, before the analysis below
  try {
    analyze_collectives(make_exchange());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sidecore-pmpi: rank %d: the collectives' cross-rank analysis failed: %s\n", g.rank, e.what());
  }
  collectives_end();
  // A rank whose own profile fails still takes part in the gathering below with an empty one: leaving it would hang
  // the other ranks in it, and the job in MPI_Finalize.
  std::string mine;
  if (g.profile) {
    try {
      mine = rank_profile_json();
      write_text_file("SIDECORE_PROFILE", path_for_rank(g.profile_pattern, g.rank), mine);
    } catch (const std::exception& e) {
      mine.clear();
      std::fprintf(stderr, "sidecore-pmpi: rank %d: cannot write the profile: %s\n", g.rank, e.what());
    }
  }
  try {
    if (g.profile) {
      const std::vector<std::string> profiles = gather_to_rank0(make_exchange(), mine);
      const std::string missing = ranks_without_text(profiles);
      if (g.rank == 0 && !missing.empty()) {
        std::fprintf(stderr, "sidecore-pmpi: rank 0: no job profile: rank(s) %s have no profile (said above)\n",
                     missing.c_str());
      } else if (g.rank == 0) {
        write_text_file("SIDECORE_PROFILE", job_path(g.profile_pattern), merge_job_profile(profiles));
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sidecore-pmpi: rank %d: cannot write the job profile: %s\n", g.rank, e.what());
  }
  try {
    stop();  // closes the trace
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sidecore-pmpi: rank %d: cannot finish the trace: %s\n", g.rank, e.what());
  }
  PMPI_Comm_free(&g.comm);
}

}  // namespace
}  // namespace sidecore::instrument::pmpi

#pragma GCC visibility push(default)
extern "C" {

// MPI_Init and MPI_Init_thread are not counted as calls: the measured window starts when they return (like mpiP's
// application time), and ends when MPI_Finalize is entered.
// In core mode (SIDECORE_PROGRESS=core) both ask for MPI_THREAD_MULTIPLE and start the progress on the reserved core.
int MPI_Init(int* argc, char*** argv) {
  const int rc = sidecore::instrument::pmpi::core::init(argc, argv, MPI_THREAD_SINGLE, nullptr);
  if (rc == MPI_SUCCESS) sidecore::instrument::pmpi::begin_profiling();
  return rc;
}

int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  const int rc = sidecore::instrument::pmpi::core::init(argc, argv, required, provided);
  if (rc == MPI_SUCCESS) sidecore::instrument::pmpi::begin_profiling();
  return rc;
}

int MPI_Finalize(void) {
  sidecore::instrument::pmpi::core::finish();
  sidecore::instrument::pmpi::end_profiling();
  return PMPI_Finalize();
}

}  // extern "C"
#pragma GCC visibility pop
