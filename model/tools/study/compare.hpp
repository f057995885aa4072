// `sidecore study`: from the runs to the comparison the paper makes (seed 004, Section VI, Tables I/II and
// Figures 2-5): medians of the repetitions, the model's prediction from the calibration and scaling runs, the
// measured dedicated run, the error, every term side by side, and whether the comparison can be judged at all.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "record.hpp"
#include "sidecore/common/profile.hpp"
#include "sidecore/model/analysis.hpp"

namespace sidecore::tools::study {

/// The median of a sample (the mean of the two middle values for an even size); nullopt when empty.
[[nodiscard]] std::optional<double> median(std::vector<double> v);
/// The index of the value that is the median (the lower middle for an even size): whose run to show in full.
/// Throws std::invalid_argument when empty.
[[nodiscard]] std::size_t median_index(const std::vector<double>& v);
/// The value at median_index(): a sample's own value (the lower middle for an even size); nullopt when empty.
[[nodiscard]] std::optional<double> middle(const std::vector<double>& v);

/// One row of the term-by-term table: the calibration run's measured time, the model's predicted time with a
/// dedicated core, and the dedicated run's measured time, for the rank that decides the job.
struct term_row {
  std::string name;
  double calibration_s = 0;
  double predicted_s = 0;
  std::optional<double> measured_s;
};

/// A point of the app's alpha knob: the converted code run in core mode against the model at the alpha the
/// calibration's blocking calls say was converted.
struct alpha_result {
  double app_alpha = 0;                 ///< the value given to the app's option
  int reps = 0;                         ///< successful runs
  std::optional<double> model_alpha;    ///< 1 - blocking calls (converted run) / blocking calls (calibration)
  std::optional<double> predicted_s;
  std::optional<double> measured_s;
  std::optional<double> error;          ///< (predicted - measured) / measured
};

/// A finding of the diagnostics, with the paper's failure case it stands for.
struct finding {
  std::string id;
  std::string paper_case;  ///< "BT-MZ (no computation between initiation and wait)", ... or empty
  std::string text;
};

/// The comparison of one case.
struct case_result {
  int case_index = 0;
  std::string input;
  int reps_calibration = 0, reps_scaling = 0, reps_dedicated = 0;
  int cores_per_rank = 0;            ///< 0: unknown (no calibration run)
  std::string cores_source;          ///< "the calibration profile (hwloc: the rank's cpuset)" or "--cores-per-rank"
  std::optional<double> t_noprogress_s;
  std::optional<double> t_comp_n_s, t_comp_n1_s;  ///< medians at N and N-1 threads
  std::string scaling;               ///< the scaling model used, and why
  std::optional<double> predicted_s, measured_s, error;
  std::optional<double> predicted_speedup, measured_speedup;
  /// (max - min) / median over the repetitions: calibration and dedicated wall times, scaling runs' computation;
  /// nullopt with fewer than two runs. Above 5 % the finding "noisy-runs" says so.
  std::optional<double> spread_calibration, spread_scaling, spread_dedicated;
  std::string predicted_verdict;     ///< the model's headline
  bool judged = false;
  std::vector<std::string> not_judged;  ///< why not, in words, each with what to do
  std::vector<term_row> terms;
  int terms_rank = 0;                ///< the rank the terms are from
  std::vector<finding> findings;
  std::vector<alpha_result> alphas;
  std::optional<model::analysis> analysis;  ///< the median calibration with the median dedicated run: the report
};

/// Reads a run's job profile (path relative to the study folder); the default reads the file.
using profile_loader = std::function<profile(const run_record&)>;

/// Compares every case of the record. host_cores: this host's cores, for its load average and, where the profiles
/// do not name their ranks' hosts, as the cores every rank shared. A comparison that ran more busy threads on a host
/// than it has cores is marked oversubscribed and not judged: per host, counted in the profiles' host cores, as
/// predict judges it; with the record's --host-cores (or profiles without a host), ranks x cores per rank against
/// that count. Never throws for missing or failed runs: what is missing is said in not_judged.
[[nodiscard]] std::vector<case_result> compare(const study_record& rec, const profile_loader& load, int host_cores);

/// The comparison as JSON (the "comparison" member of the record).
[[nodiscard]] nlohmann::json to_json(const std::vector<case_result>& cases);

}  // namespace sidecore::tools::study
