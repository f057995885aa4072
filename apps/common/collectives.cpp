#include "collectives.hpp"

#include <mpi.h>

#include <string>

namespace apps {

namespace {

void check(int rc, const char* what) {
  if (rc != MPI_SUCCESS) throw sidecore::error(sidecore::errc::mpi, std::string(what) + " failed with MPI error " + std::to_string(rc));
}

}  // namespace

void allreduce_sum(std::span<double> values, const sidecore::comm& c) {
  check(MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_DOUBLE, MPI_SUM, c.mpi()),
        "MPI_Allreduce (sum of doubles)");
}

void allreduce_sum(std::span<std::uint64_t> values, const sidecore::comm& c) {
  check(MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_UINT64_T, MPI_SUM, c.mpi()),
        "MPI_Allreduce (sum of 64-bit integers)");
}

double allreduce_max(double value, const sidecore::comm& c) {
  check(MPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_DOUBLE, MPI_MAX, c.mpi()), "MPI_Allreduce (max of a double)");
  return value;
}

int allreduce_max(int value, const sidecore::comm& c) {
  check(MPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_INT, MPI_MAX, c.mpi()), "MPI_Allreduce (max of an int)");
  return value;
}

void barrier(const sidecore::comm& c) { check(MPI_Barrier(c.mpi()), "MPI_Barrier"); }

}  // namespace apps
