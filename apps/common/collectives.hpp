// The collectives the mini-apps use, behind one small interface. sidecore's own collectives (iallreduce,
// allreduce, barrier, ...) are not there yet: these run MPI's on the communicator's MPI twin (comm.mpi()). When
// sidecore has them, this file and collectives.cpp are the only place to change.
//
// Until then sidecore's profile does not see these calls: their time counts as computation in SIDECORE_PROFILE's
// t_comp. docs/apps.md says which app calls what, and how often.
#pragma once

#include <cstdint>
#include <span>

#include <sidecore/sidecore.hpp>

namespace apps {

/// Element-wise sum over the ranks of `c`, in place, on every rank (MPI_Allreduce).
void allreduce_sum(std::span<double> values, const sidecore::comm& c = sidecore::world());
/// Element-wise sum modulo 2^64 (exact and independent of the order of the ranks: used for state checksums).
void allreduce_sum(std::span<std::uint64_t> values, const sidecore::comm& c = sidecore::world());
/// The largest `value` over the ranks of `c`, on every rank.
[[nodiscard]] double allreduce_max(double value, const sidecore::comm& c = sidecore::world());
/// The largest `value` over the ranks of `c`, on every rank (exit codes, error flags).
[[nodiscard]] int allreduce_max(int value, const sidecore::comm& c = sidecore::world());
/// Waits for every rank of `c`.
void barrier(const sidecore::comm& c = sidecore::world());

}  // namespace apps
