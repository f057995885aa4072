// libsidecore-pmpi.so — the progress core's part of MPI_Init and MPI_Finalize: ask MPICH for MPI_THREAD_MULTIPLE,
// start the chosen engine on the core reserved at load time (core_setup.cpp), stop it at the end.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>

#include "core_state.hpp"
#include "sidecore/instrument/instrument.hpp"

namespace sidecore::instrument::pmpi::core {

bool active() noexcept { return state().active; }

bool stands_down() noexcept { return state().stand_down; }

const char* mode_name() noexcept { return state().active ? "core" : "off"; }

int process_cores() noexcept { return state().process_cores; }
int machine_cores() noexcept { return state().process_cores > 0 ? state().machine_cores : 0; }

std::string description() {
  const core_state& s = state();
  if (!s.active) return {};
  const char* engine_name = s.eng == engine::mpich ? "MPICH async progress thread" : "sidecore progress thread";
  return std::string("core mode: ") + engine_name + " on " + s.reserved_name;
}

namespace {

void fall_back(const std::string& why) {
  state().active = false;
  state().notes.push_back(why);
  std::fprintf(stderr, "sidecore-pmpi: %s: %s\n", who().c_str(), why.c_str());
}

const char* level_name(int level) {
  switch (level) {
    case MPI_THREAD_SINGLE: return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED: return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED: return "MPI_THREAD_SERIALIZED";
    case MPI_THREAD_MULTIPLE: return "MPI_THREAD_MULTIPLE";
    default: return "an unknown thread level";
  }
}

// MPIR_CVAR_ASYNC_PROGRESS=1 for MPI_Init only: restored afterwards, so that processes the program starts later
// do not inherit it.
class async_progress_env {
 public:
  async_progress_env() {
    if (const char* v = std::getenv(var)) old_ = v;
    if (old_ && *old_ != "1")
      state().notes.push_back(std::string(var) + "=" + *old_ + " set by the user: overridden by " +
                              "SIDECORE_PMPI_PROGRESS=mpich for MPI_Init");
    setenv(var, "1", 1);
  }
  ~async_progress_env() {
    if (old_) setenv(var, old_->c_str(), 1);
    else unsetenv(var);
  }
  async_progress_env(const async_progress_env&) = delete;
  async_progress_env& operator=(const async_progress_env&) = delete;

 private:
  static constexpr const char* var = "MPIR_CVAR_ASYNC_PROGRESS";
  std::optional<std::string> old_;
};

}  // namespace

int init(int* argc, char*** argv, int required, int* provided) {
  core_state& s = state();
  if (!s.active) return provided != nullptr ? PMPI_Init_thread(argc, argv, required, provided) : PMPI_Init(argc, argv);
  int got = MPI_THREAD_SINGLE;
  int rc = MPI_SUCCESS;
  if (s.eng == engine::mpich) {
    const async_progress_env env;
    catch_mpi_threads(true);
    rc = PMPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &got);
    catch_mpi_threads(false);
  } else {
    rc = PMPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &got);
  }
  if (provided != nullptr) *provided = got;
  if (rc != MPI_SUCCESS) return rc;
  if (got < MPI_THREAD_MULTIPLE) {
    fall_back(std::string("SIDECORE_PROGRESS=core needs MPI_THREAD_MULTIPLE, but MPI gave ") + level_name(got) +
              ": no background progress (mode off); the reserved " + s.reserved_name + " stays unused");
    return rc;
  }
  if (s.eng == engine::mpich) {
    const int n = mpi_threads_caught();
    if (n == 0)
      fall_back("SIDECORE_PMPI_PROGRESS=mpich: MPICH started no asynchronous progress thread in MPI_Init "
                "(MPIR_CVAR_ASYNC_PROGRESS=1 ignored by this MPI build?): no background progress (mode off)");
    else
      s.notes.push_back("MPICH's asynchronous progress thread pinned to " + s.reserved_name +
                        (n > 1 ? " (" + std::to_string(n) + " threads of the MPI library caught)" : ""));
  } else {
    start_poll_thread();
    s.notes.push_back("sidecore progress thread started on " + s.reserved_name);
  }
  return rc;
}

void finish() {
  if (!state().active || state().eng != engine::sidecore) return;
  const poll_stats st = stop_poll_thread();
  // The schema's progress_thread section: busy = driving MPI's progress, idle = waiting for work. The thread
  // completes no request of its own (the application's complete in MPICH), so completions stay 0.
  if (instrument::enabled()) set_progress_stats(st.busy_s, st.idle_s, st.polls, 0);
}

void report(int rank) {
  const core_state& s = state();
  if (s.verbose == 0 || (s.verbose == 1 && rank != 0) || s.notes.empty()) return;
  for (const std::string& n : s.notes) std::fprintf(stderr, "sidecore-pmpi: rank %d: %s\n", rank, n.c_str());
}

}  // namespace sidecore::instrument::pmpi::core
