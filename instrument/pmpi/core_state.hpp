// libsidecore-pmpi.so — the progress core's private state, shared by its files: the settings and the reservation
// made at load time (core_setup.cpp), the two engines (mpich_async.cpp, poll_thread.cpp) and MPI_Init's part
// (progress_core.cpp).
#pragma once

#include <sched.h>

#include <cstdint>
#include <string>
#include <vector>

#include "progress_core.hpp"

namespace sidecore::instrument::pmpi::core {

struct core_state {
  bool active = false;           ///< a core is reserved and the progress is (to be) started on it
  bool stand_down = false;       ///< the program links libsidecore (stands_down())
  engine eng = engine::sidecore;
  int verbose = 0;               ///< SIDECORE_VERBOSE: 1 rank 0, 2 every rank
  int process_cores = 0;         ///< the process's cores before the fence (reserved one included)
  int machine_cores = 0;         ///< the machine's cores, counted as process_cores (cores, or PUs without cores)
  std::string reserved_name;     ///< "Core L#1 (PU P#1)"
  cpu_set_t reserved_cpus{};     ///< the reserved core's PUs
  std::vector<std::string> notes;  ///< what the set-up decided, for SIDECORE_VERBOSE
};

/// The one instance (filled by the library's constructor, read-only once MPI_Init has returned).
core_state& state() noexcept;

/// The rank for messages written before MPI_Init: PMI_RANK (set by mpiexec) or the process id.
[[nodiscard]] std::string who();

/// The program set its own CPU mask after the fence: the processes it starts keep that mask (core_setup.cpp).
void withdraw_fence_note() noexcept;

/// Binds the calling thread to the reserved core. Returns false, with errno's text in `why`, on failure.
bool pin_to_reserved(std::string& why);

/// Engine mpich: while on, a thread that MPICH creates (its start routine lies in the MPI library) is pinned to the
/// reserved core and named "sidecore-mpich" before it runs. Returns the number of threads caught since the start.
void catch_mpi_threads(bool on) noexcept;
[[nodiscard]] int mpi_threads_caught() noexcept;

/// Engine sidecore: starts the pinned progress thread (after MPI_Init_thread gave MPI_THREAD_MULTIPLE), and stops
/// it, returning its accounting.
struct poll_stats {
  double busy_s = 0;        ///< time spent driving MPI's progress
  double idle_s = 0;        ///< time waiting for work (nothing outstanding, or the application inside MPI)
  std::uint64_t polls = 0;  ///< progress calls made
};
void start_poll_thread();
poll_stats stop_poll_thread();

}  // namespace sidecore::instrument::pmpi::core
