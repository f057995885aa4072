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
  /// Why the difference is not the model's error (the run cannot be judged: it measured the machine, docs/study.md);
  /// empty when it is judged.
  std::string not_judged;
};

/// A hypothesis of the model that the inputs break: then the model cannot judge (docs/model.md, "When the model
/// cannot judge"). id is stable: "several-communicating-threads", "mpi-above-run-time", "no-computation",
/// "oversubscribed".
struct broken_assumption {
  std::string id;
  int rank = -1;           ///< the rank the numbers are from (-1: the job)
  int ranks_affected = 0;  ///< how many ranks break it
  std::string reason;      ///< what does not hold, with the numbers, and what to do
};

/// The hypotheses the formula rests on, checked on the calibration inputs (measured, before any --cores what-if):
/// one calling thread or its own totals, t_MPI within the run time, computation to overlap with, and no more
/// ranks on one host than the cores each saw. One entry per broken hypothesis, numbers from its worst rank.
[[nodiscard]] std::vector<broken_assumption> check_assumptions(const job_input& in, const diagnostic_thresholds& th);

/// Options of analyze().
struct analysis_options {
  model_options model;
  /// Why this scaling model was chosen, for the output ("--scaling-table given", "default: ..."); empty: none said.
  std::string scaling_reason;
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
  std::string scaling_reason;   ///< why that scaling model (from the options)
  std::string cores_note;       ///< with a --cores what-if: the question asked and the measured core counts
  double noise = default_noise;
  job_prediction job;           ///< at options.model.alpha
  std::vector<sweep_point> sweep;
  break_even_result break_even;
  slope_result slope;
  core_whatif whatif;
  std::optional<validation_result> validation;
  std::vector<diagnostic> diagnostics;
  std::vector<broken_assumption> cannot_judge;  ///< non-empty: the headline is "cannot judge", not job.result
  std::vector<std::string> warnings;   ///< from the readers
  std::vector<std::string> notes;      ///< which data the model used, where there was a choice
  std::vector<std::string> incomplete; ///< the limits the profiles' runs reached (job_input::incomplete)
  std::vector<profile> calibration;    ///< kept for the report (overlap, progress thread)
  std::vector<profile> core_run;
  std::vector<rank_inputs> inputs;     ///< the calibration inputs, for re-evaluation (CSV per alpha)
  analysis_options options;            ///< the options it ran with

  /// The verdict to print first: cannot_judge when a hypothesis is broken, else the job's verdict at alpha.
  [[nodiscard]] verdict headline() const noexcept { return cannot_judge.empty() ? job.result : verdict::cannot_judge; }
};

/// The diagnostics alone (Section V failure cases and input checks), worst rank per kind.
/// Says that the measured core-mode run cannot judge the prediction, and why: the validation's difference is then
/// printed as a difference, and no "model-error" finding is made of it.
void mark_not_judged(analysis& a, const std::string& why);

[[nodiscard]] std::vector<diagnostic> diagnose(const job_input& in, const job_prediction& at_alpha,
                                               const job_prediction& at_zero, const diagnostic_thresholds& th);

/// Runs everything: checks the hypotheses on the measured inputs (cannot_judge), answers a --cores what-if
/// (in.what_if_cores) by moving each rank to that core count, then predicts. Throws input_error on invalid inputs
/// or options, or when the scaling model does not cover the measured and asked core counts.
[[nodiscard]] analysis analyze(const job_input& in, const analysis_options& opt);

}  // namespace sidecore::model
