// The collectives the mini-apps use, behind one small interface: sidecore's blocking collectives, in place, so that
// sidecore's profile counts their time as blocking communication (docs/apps.md says which app calls what, and how
// often).
#pragma once

#include <cstdint>
#include <span>

#include <sidecore/sidecore.hpp>

namespace apps {

/// Element-wise sum over the ranks of `c`, in place, on every rank.
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
