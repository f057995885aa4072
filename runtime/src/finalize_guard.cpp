// A program that calls MPI_Finalize without sidecore::finalize(): MPI deletes the attributes of MPI_COMM_SELF
// first thing in MPI_Finalize, while MPI still works (MPI-4.0, section 11.2.4, "Allowing User Functions at Process
// Termination"). An attribute set there at init is the hook: its delete callback warns and finalizes sidecore, so
// the progress thread stops, the endpoint closes and the profile is written, instead of the process ending with
// a thread still running and the libfabric endpoint open.
#include <mpi.h>

#include <cstdio>
#include <exception>

#include <sidecore/sidecore.hpp>

#include "state.hpp"

namespace sidecore::detail {

namespace {

int on_comm_self_delete(MPI_Comm, int, void*, void*) {
  if (!initialized()) return MPI_SUCCESS;  // finalize() was called: nothing to do
  int rank = -1;
  if (g_state) {
    if (const comm_entry* w = g_state->comms[0].load(std::memory_order_acquire)) rank = w->rank;
  }
  std::fprintf(stderr,
               "sidecore: warning: rank %d: MPI_Finalize was called before sidecore::finalize(); finalizing sidecore "
               "now (call sidecore::finalize() before MPI_Finalize)\n",
               rank);
  try {
    finalize();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sidecore: error: rank %d: sidecore::finalize() inside MPI_Finalize failed: %s\n", rank,
                 e.what());
  }
  return MPI_SUCCESS;
}

}  // namespace

void watch_mpi_finalize() {
  int key = MPI_KEYVAL_INVALID;
  if (MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, on_comm_self_delete, &key, nullptr) != MPI_SUCCESS) return;
  MPI_Comm_set_attr(MPI_COMM_SELF, key, nullptr);
  MPI_Comm_free_keyval(&key);  // the attribute keeps the key alive until MPI_Finalize deletes it
}

}  // namespace sidecore::detail
