// sidecore model — the dedicated-core model of seed 004 (Denis, Jaeger, Jeannot, Reynier,
// CCGRID 2022), Sections III-B to III-D, for one rank:
//
//   t_dedicated = t_comp·N/(N−1)                                        (III-B2: t_newcomp)
//               + N_nonblocking·t_minMPInonblock + N_test·t_minMPItest + N_wait·t_minMPIwait
//               + α·N_blocking·(t_minMPInonblock + t_minMPIwait)        (III-C2: converted calls)
//               + (1−α)·N_blocking·t_MPIblockingcom                      (III-C2: remaining blocking)
//               + t_MPIother                                             (III-C2c)
//
// with t_MPIblockingcom = t_MPIblocking / N_blocking (Section IV: t_MPIblockprogress taken as 0)
// and the minimum times taken as the shortest measured call of each category (Section IV).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sidecore/common/common.hpp"
#include "sidecore/common/dedicated_core.hpp"
#include "sidecore/common/profile.hpp"
#include "sidecore/model/scaling.hpp"

namespace sidecore::model {

/// Default noise band: a predicted change within ±2 % of t_noprogress is "within noise".
inline constexpr double default_noise = dedicated::default_noise;

/// The model's inputs for one rank, from a calibration run without progress (SIDECORE_PROGRESS=off).
struct rank_inputs {
  int rank = 0;
  double t_noprogress_s = 0.0;  ///< total run time without progress
  double t_comp_s = 0.0;        ///< computation time (outside communication calls)
  int n_core = 0;               ///< cores per node (the dedicated core is taken from these)
  std::array<category_totals, category_count> categories{};  ///< indexed by sidecore::category
  int calling_threads = 0;      ///< threads of the rank that made calls (0: not recorded)
  /// The categories sum the calls of several threads: the profile has no communicating-thread totals, so the
  /// model cannot judge this rank (docs/model.md, "When the model cannot judge").
  bool all_thread_categories = false;
  /// Where t_noprogress_s and t_comp_s come from, for the terms' formulas: measured (the default); t_comp derived
  /// as t_noprogress - t_MPI (an mpiP report, which has no computation time); or moved by with_cores() from the
  /// core count they were measured on (measured_n_core, with the measured times) to n_core.
  bool t_comp_derived = false;
  int measured_n_core = 0;  ///< > 0: with_cores() moved the computation from this core count
  double measured_t_noprogress_s = 0.0;
  double measured_t_comp_s = 0.0;

  [[nodiscard]] const category_totals& operator[](category c) const noexcept {
    return categories[static_cast<std::size_t>(c)];
  }
  [[nodiscard]] category_totals& operator[](category c) noexcept { return categories[static_cast<std::size_t>(c)]; }
  /// Sum of the five category times: t_MPI of the calibration run.
  [[nodiscard]] double t_mpi_s() const noexcept;
};

/// Checks one rank's inputs; throws input_error naming `source` and the field when a time is
/// negative or not finite, n_core <= 1 (a dedicated core needs at least one other core; with
/// require_two_cores false, n_core >= 1 is enough: the caller moves the rank to more cores), or a
/// category's min_s exceeds its time_s.
void validate(const rank_inputs& in, const std::string& source, bool require_two_cores = true);

/// Converts a rank profile recorded in off mode. With several calling threads (calling_threads > 1) the
/// categories are the communicating thread's own (communicating_thread) when the profile has them, else the
/// all-thread sums with all_thread_categories set. Throws input_error naming `source` when the profile is a job
/// profile or was recorded in core mode.
[[nodiscard]] rank_inputs inputs_from_profile(const profile& p, const std::string& source);

/// Model parameters.
struct model_options {
  double alpha = 0.0;                              ///< fraction of blocking calls converted, [0, 1]
  scaling_model scaling = scaling_model::linear(); ///< computation scaling (the paper: linear)
  double noise = default_noise;                    ///< half-width of the "within noise" band, [0, 1)
};

/// Throws input_error (source "--alpha" / "--noise") when alpha is outside [0, 1] or not finite,
/// or noise is outside [0, 1).
void validate(const model_options& opt);

/// Verdict of a prediction against the noise band; cannot_judge when the model's hypotheses do not hold (never
/// returned by classify: analysis::headline() gives it).
enum class verdict : std::uint8_t { pays_off, does_not_pay_off, within_noise, cannot_judge };
/// "pays off", "does not pay off", "within noise", "cannot judge".
[[nodiscard]] std::string_view verdict_name(verdict v) noexcept;
/// pays_off when speedup > 1 + noise, does_not_pay_off when speedup < 1 − noise, else within_noise.
[[nodiscard]] verdict classify(double speedup, double noise) noexcept;

/// One term of the model, as printed in the term-by-term breakdown.
struct term {
  std::string symbol;       ///< "t_newcomp", "N_test*t_minMPItest", ...
  double value_s = 0.0;     ///< seconds
  std::string formula;      ///< the formula with the numbers put in
  std::string explanation;  ///< what the term means and where it comes from in the paper
};

/// The model's answer for one rank at one alpha; every term separately.
struct prediction {
  int rank = 0;
  int n_core = 0;
  double alpha = 0.0;
  double t_noprogress_s = 0.0;
  double t_comp_s = 0.0;
  double t_mpi_noprogress_s = 0.0;  ///< t_MPI: sum of the measured categories
  double t_newcomp_s = 0.0;         ///< computation on N−1 cores (III-B2)
  double t_overhead_s = 0.0;        ///< t_newcomp − t_comp
  double t_init_s = 0.0;            ///< N_nonblocking·t_minMPInonblock
  double t_test_s = 0.0;            ///< N_test·t_minMPItest
  double t_wait_s = 0.0;            ///< N_wait·t_minMPIwait
  double t_nonblock_dedicated_s = 0.0;  ///< the three above (III-C2a)
  double t_blockingcom_s = 0.0;     ///< t_MPIblockingcom: mean blocking call (Section IV)
  double t_converted_s = 0.0;       ///< α·N_blocking·(t_minMPInonblock + t_minMPIwait)
  double t_remaining_blocking_s = 0.0;  ///< (1−α)·N_blocking·t_MPIblockingcom
  double t_oldblocking_s = 0.0;     ///< the two above (III-C2b)
  double t_other_s = 0.0;           ///< t_MPIother, unchanged (III-C2c)
  double t_mpi_dedicated_s = 0.0;   ///< MPI time with a dedicated core
  double t_mpi_overlapable_s = 0.0; ///< t_MPI − t_MPIdedicated: the communication gain (III-A)
  double t_dedicated_s = 0.0;       ///< t_newcomp + t_MPIdedicated (III-D)
  double gain_s = 0.0;              ///< t_noprogress − t_dedicated
  double speedup = 0.0;             ///< t_noprogress / t_dedicated
  verdict result = verdict::within_noise;
  std::vector<term> terms;          ///< every term with its formula and explanation
};

/// Applies the Section III-D formula to one rank. Throws input_error on invalid inputs or options
/// (see the two validate functions) or when the scaling table does not cover N_core and N_core−1.
[[nodiscard]] prediction predict(const rank_inputs& in, const model_options& opt);

/// d t_dedicated / d alpha for this rank, in seconds per unit alpha (the formula is linear in
/// alpha): N_blocking·(t_minMPInonblock + t_minMPIwait) − t_MPIblocking. Negative: converting
/// blocking calls helps.
[[nodiscard]] double dedicated_time_slope(const rank_inputs& in) noexcept;

/// Fraction of the blocking time that converting all blocking calls removes:
/// 1 − N_blocking·(t_minMPInonblock + t_minMPIwait) / t_MPIblocking; 0 when there is no blocking time.
[[nodiscard]] double conversion_efficiency(const rank_inputs& in) noexcept;

}  // namespace sidecore::model
