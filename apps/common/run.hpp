// The life of a mini-app: MPI_Init_thread, its options, sidecore::init, the app's body, sidecore::finalize and
// MPI_Finalize, with every failure turned into a message that names the app and an exit status.
#pragma once

#include <functional>
#include <string>

#include "cli.hpp"

namespace apps {

/// Runs `body` between sidecore::init and sidecore::finalize and returns the process's exit status:
/// 0 when --help was asked, 2 for a bad option or an apps::usage_error (printed by rank 0 with the usage hint),
/// otherwise what `body` returns (it must return the same value on every rank: make it collective). A
/// sidecore::error or std::exception escaping `body` is printed with the rank and aborts the job (status 1).
int run(int argc, char** argv, cli& options, const std::function<int()>& body);

/// Refuses inputs whose memory no node holds, before the app allocates it: `bytes` is at least what this rank will
/// allocate, `inputs` names the options that set it and their values ("--n 65536"). Throws apps::usage_error on
/// every rank when the ranks of some node need more than its physical memory together (APPS_NODE_MEMORY_MIB, when
/// set, stands for it). Collective over MPI_COMM_WORLD; plain MPI, so that sidecore's profile of the app does not
/// count it.
void require_memory(double bytes, const std::string& inputs);

/// One line describing where the app runs: ranks, sidecore mode, provider, reserved core, OpenMP threads, N_core.
[[nodiscard]] std::string describe_runtime();

/// Seconds on a monotonic clock (for the app's own timing).
[[nodiscard]] double seconds();

}  // namespace apps
