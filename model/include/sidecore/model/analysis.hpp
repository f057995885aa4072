// sidecore model — the full answer for one job: prediction, sweep, break-even, slope, what-if,
// and the diagnostics of seed 004's Section V failure cases. The command's outputs render this.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sidecore/model/input.hpp"
#include "sidecore/model/job.hpp"

namespace sidecore::model {

/// Thresholds of the diagnostics (docs/model.md, "Diagnostics").
struct diagnostic_thresholds {
  /// BT-MZ case: flag nonblocking transfers when the overlap upper bound max_s is below this
  /// fraction of their transfer time.
  double overlap_fraction = 0.5;
  /// MiniMD case: flag wait time that grows by more than this fraction from off to core mode.
  double wait_growth = 0.25;
  /// Kripke case: flag when there are at least this many test calls per nonblocking initiation.
  double tests_per_init = 2.0;
  /// Flag t_noprogress − t_comp − t_MPI beyond this fraction of t_noprogress.
  double unaccounted_fraction = 0.05;
  /// Flag |predicted − measured| / measured beyond this, when a core-mode run is given.
  double model_error = 0.10;
  /// Ignore effects smaller than this fraction of t_noprogress.
  double significance = 0.01;
};

/// One finding. id is stable: "no-overlap-window" (BT-MZ), "wait-grows-in-core" (MiniMD),
/// "many-tests" (Kripke), "inconsistent-inputs", "missing-minimum", "model-error",
/// "no-overlap-data", "no-core-run".
struct diagnostic {
  enum class level { info, warning };
  std::string id;
  level severity = level::info;
  int rank = -1;           ///< the rank the numbers are from (-1: the job)
  int ranks_affected = 0;  ///< how many ranks showed it
  std::string title;
  std::string message;
  double magnitude_s = 0.0;  ///< size of the effect in seconds (used to pick the worst rank)
};

/// A core-mode run compared with the prediction at alpha = 0 (the unmodified application).
struct validation_result {
  double measured_t_dedicated_s = 0.0;   ///< slowest core-mode rank's t_total_s
  double predicted_t_dedicated_s = 0.0;
  double measured_speedup = 0.0;
  double predicted_speedup = 0.0;
  double relative_error = 0.0;           ///< (predicted − measured) / measured
  int measured_slowest_rank = 0;
};

/// Options of analyze().
struct analysis_options {
  model_options model;
  alpha_range sweep;            ///< for the sweep table and plot
  int max_cores = 1024;         ///< N_core what-if search limit
  diagnostic_thresholds thresholds;
};

/// The full answer.
struct analysis {
  std::string source;
  std::string provider;
  bool from_mpip = false;
  int nranks = 0;
  std::string scaling;          ///< scaling model description
  double noise = default_noise;
  job_prediction job;           ///< at options.model.alpha
  std::vector<sweep_point> sweep;
  break_even_result break_even;
  slope_result slope;
  core_whatif whatif;
  std::optional<validation_result> validation;
  std::vector<diagnostic> diagnostics;
  std::vector<std::string> warnings;   ///< from the readers
  std::vector<profile> calibration;    ///< kept for the report (overlap, progress thread)
  std::vector<profile> core_run;
  std::vector<rank_inputs> inputs;     ///< the calibration inputs, for re-evaluation (CSV per alpha)
  analysis_options options;            ///< the options it ran with
};

/// The diagnostics alone (Section V failure cases and input checks), worst rank per kind.
[[nodiscard]] std::vector<diagnostic> diagnose(const job_input& in, const job_prediction& at_alpha,
                                               const job_prediction& at_zero, const diagnostic_thresholds& th);

/// Runs everything. Throws input_error on invalid inputs or options.
[[nodiscard]] analysis analyze(const job_input& in, const analysis_options& opt);

}  // namespace sidecore::model
