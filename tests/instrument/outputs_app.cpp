// A sidecore application for the output-file checks (run_output_files_test.sh): init, one exchange with the next
// rank, finalize. When init fails, every rank prints "outputs_app: rank R: init failed: <message>" and exits 3.
// OUTPUTS_APP_REMOVE_DIR: a directory rank 1 removes after init (its profile then cannot be written at finalize).
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include <sidecore/sidecore.hpp>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  try {
    sidecore::init();
  } catch (const sidecore::error& e) {
    std::fprintf(stderr, "outputs_app: rank %d: init failed: %s\n", rank, e.what());
    MPI_Finalize();
    return 3;
  }
  if (const char* gone = std::getenv("OUTPUTS_APP_REMOVE_DIR"); gone != nullptr && rank == 1)
    std::filesystem::remove_all(gone);
  int out = rank, in = -1;
  sidecore::request r = sidecore::irecv(&in, sizeof in, (rank + size - 1) % size, 1);
  sidecore::send(&out, sizeof out, (rank + 1) % size, 1);
  (void)sidecore::wait(r);
  sidecore::finalize();
  MPI_Finalize();
  if (in != (rank + size - 1) % size) {
    std::fprintf(stderr, "outputs_app: rank %d: received %d\n", rank, in);
    return 1;
  }
  std::printf("outputs_app: rank %d: done\n", rank);
  return 0;
}
