// The dedicated-core formula of seed 004 (Denis, Jaeger, Jeannot, Reynier, CCGRID 2022, Sections III-B to III-D, fed
// as in Section IV), from one rank's category totals: the one copy of the formula, shared by the model (`sidecore
// predict`, model/) and the runtime's SIDECORE_PROGRESS=auto decision (runtime/), which may not depend on model/.
// The C++ standard library and common.hpp/profile.hpp's plain structs only.
//
//   t_dedicated = t_newcomp + t_MPIdedicated
//   t_newcomp   = t_comp · ratio            (ratio = T(N−1)/T(N) of the scaling model; linear: N/(N−1))
//   t_MPIdedicated = N_nonblocking·t_minMPInonblock + N_test·t_minMPItest + N_wait·t_minMPIwait
//                  + α·N_blocking·(t_minMPInonblock + t_minMPIwait) + (1 − α)·N_blocking·t_MPIblockingcom
//                  + t_MPIother
//   t_MPIblockingcom = t_MPIblocking / N_blocking            (Section IV: the progress share taken as 0)
#pragma once

#include <array>
#include <cstdint>

#include "sidecore/common/common.hpp"
#include "sidecore/common/profile.hpp"

namespace sidecore::dedicated {

/// Default noise band: a predicted change within ±2 % of t_noprogress is "within noise".
inline constexpr double default_noise = 0.02;

/// One rank's measured inputs (a run, or a window of one, without progress) and the formula's two parameters.
struct inputs {
  double t_noprogress_s = 0.0;  ///< run time without progress
  double t_comp_s = 0.0;        ///< computation time (outside communication calls, on the communicating thread)
  std::array<category_totals, category_count> categories{};  ///< indexed by sidecore::category
  double alpha = 0.0;           ///< fraction of blocking calls converted to an initiation plus a wait, [0, 1]
  /// t_newcomp / t_comp: how much longer the computation takes on one core less. The paper's linear scaling on
  /// N_core cores: N_core / (N_core − 1) (linear_ratio).
  double newcomp_ratio = 1.0;
  [[nodiscard]] const category_totals& operator[](category c) const noexcept {
    return categories[static_cast<std::size_t>(c)];
  }
};

/// Every term of the formula, in seconds (speedup: a ratio).
struct terms {
  double t_mpi_s = 0.0;                 ///< t_MPI: the five categories' times
  double t_newcomp_s = 0.0;             ///< computation on one core less (III-B2)
  double t_init_s = 0.0;                ///< N_nonblocking·t_minMPInonblock
  double t_test_s = 0.0;                ///< N_test·t_minMPItest
  double t_wait_s = 0.0;                ///< N_wait·t_minMPIwait
  double t_blockingcom_s = 0.0;         ///< t_MPIblockingcom: the mean blocking call
  double t_converted_s = 0.0;           ///< α·N_blocking·(t_minMPInonblock + t_minMPIwait)
  double t_remaining_blocking_s = 0.0;  ///< (1−α)·N_blocking·t_MPIblockingcom
  double t_other_s = 0.0;               ///< t_MPIother, unchanged (III-C2c)
  double t_mpi_dedicated_s = 0.0;       ///< communication time with a dedicated core
  double t_dedicated_s = 0.0;           ///< t_newcomp + t_MPIdedicated (III-D)
  double gain_s = 0.0;                  ///< t_noprogress − t_dedicated
  double speedup = 0.0;                 ///< t_noprogress / t_dedicated; 0 when t_dedicated is 0
};

/// t_newcomp / t_comp under the paper's linear scaling: n_core / (n_core − 1). Needs n_core >= 2 (returns 0 below).
[[nodiscard]] double linear_ratio(int n_core) noexcept;

/// Applies the formula. No validation: callers check their inputs (finite, non-negative times; the model's
/// validate() names the bad field); the result of bad inputs is meaningless but never undefined.
[[nodiscard]] terms predict(const inputs& in) noexcept;

/// A prediction against the noise band.
enum class outcome : std::uint8_t { pays_off, does_not_pay_off, within_noise };
/// pays_off when speedup > 1 + noise, does_not_pay_off when speedup < 1 − noise, else within_noise.
[[nodiscard]] outcome classify(double speedup, double noise) noexcept;

}  // namespace sidecore::dedicated
