// libsidecore-pmpi.so — the dedicated progress core for unmodified MPI programs (docs/pmpi.md).
//
// SIDECORE_PROGRESS=core: when the library is loaded (before main, after the program's own libraries' constructors,
// libgomp's included) one core of the process is reserved with hwloc (SIDECORE_PROGRESS_CORE, the runtime's rule)
// and OpenMP is fenced off it; MPI_Init then asks for MPI_THREAD_MULTIPLE and starts the background progress on the
// reserved core, by one of two engines (SIDECORE_PMPI_PROGRESS):
//   mpich    MPICH's own asynchronous progress thread (MPIR_CVAR_ASYNC_PROGRESS=1), caught when MPI_Init creates
//            it (pthread_create is interposed while MPI_Init runs) and pinned to the reserved core;
//   sidecore a thread of ours pinned to the reserved core that drives MPICH's progress engine while the
//            application has nonblocking operations outstanding and is not inside MPI itself.
// Every setting is read once, when the library is loaded; a rejected value is reported on stderr (the variable, the
// value, what is accepted) and the default kept, as for the profiler's settings.
#pragma once

#include <sched.h>

#include <atomic>
#include <string>

#include "sidecore/common/common.hpp"

namespace sidecore::instrument::pmpi::core {

enum class engine { mpich, sidecore };

/// True when SIDECORE_PROGRESS=core took effect: a core is reserved and OpenMP fenced off it (set at load time;
/// MPI_Init turns it off again when MPICH cannot give MPI_THREAD_MULTIPLE or start the progress).
[[nodiscard]] bool active() noexcept;

/// True when the program links libsidecore (found when the library is loaded): the application profiles itself
/// (SIDECORE_PROFILE) and runs its own progress core, so this library does neither; MPI calls pass straight through.
[[nodiscard]] bool stands_down() noexcept;

/// The profile's mode: "core" while active(), else "off".
[[nodiscard]] const char* mode_name() noexcept;

/// What runs on which core, for the profile's provider and verbose output, e.g. "core mode: sidecore progress
/// thread on Core L#1 (PU P#1)"; empty in mode off.
[[nodiscard]] std::string description();

/// Cores the process could run on before the fence narrowed the main thread's CPU mask (the model's N_core, the
/// reserved core included); 0 when the library did not look (mode off).
[[nodiscard]] int process_cores() noexcept;
/// The machine's cores, counted as process_cores() counts them; 0 where process_cores() is 0.
[[nodiscard]] int machine_cores() noexcept;

/// Adds to `set` the CPUs of OpenMP's places, when the process has OpenMP and places: with OMP_PROC_BIND set,
/// libgomp binds the main thread to its first place as the program loads, so the thread's CPU mask is then one
/// place, not the cpuset the launcher gave the rank; the places were made from that cpuset.
void add_openmp_places(cpu_set_t& set) noexcept;

/// MPI_Init / MPI_Init_thread through PMPI: in core mode with MPI_THREAD_MULTIPLE and the chosen engine started on
/// the reserved core (`provided` gets the level MPICH gave); otherwise exactly the application's call (`provided`
/// null: MPI_Init). Returns PMPI's error code.
int init(int* argc, char*** argv, int required, int* provided);

/// Stops the sidecore progress thread (engine sidecore), records its accounting in the profile, and frees what it
/// used; MPICH stops its own thread in MPI_Finalize. Call on entering MPI_Finalize, before the profile is written.
void finish();

/// Says what was reserved and decided, on stderr, when SIDECORE_VERBOSE is 1 (rank 0) or 2 (every rank).
void report(int rank);

namespace detail {
/// Nonzero while the sidecore engine runs: the wrappers then tell it when the application is inside MPI and when it
/// has started nonblocking operations (call_scope, pmpi_internal.hpp).
extern std::atomic<bool> watching;
extern std::atomic<int> app_calls;   ///< application threads inside an intercepted MPI call now
extern std::atomic<bool> armed;      ///< a nonblocking operation was started since the last wait returned
}  // namespace detail

/// Called by every intercepted MPI call on entry and exit (one relaxed load when the sidecore engine is not running).
inline void on_call_enter() noexcept {
  if (detail::watching.load(std::memory_order_relaxed)) detail::app_calls.fetch_add(1, std::memory_order_acq_rel);
}
inline void on_call_exit(category c) noexcept {
  if (!detail::watching.load(std::memory_order_relaxed)) return;
  if (c == category::init) detail::armed.store(true, std::memory_order_release);
  if (c == category::wait) detail::armed.store(false, std::memory_order_release);
  detail::app_calls.fetch_sub(1, std::memory_order_acq_rel);
}

}  // namespace sidecore::instrument::pmpi::core
