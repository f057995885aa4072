// sidecore model — job-level prediction (the slowest rank decides), the alpha sweep, the
// break-even alpha, the conversion slope (seed 004, Section VI-C) and the N_core what-if.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sidecore/model/model.hpp"

namespace sidecore::model {

/// The job's answer at one alpha. The job ends with its slowest rank, so the job's times are the
/// maxima over ranks (t_noprogress and t_dedicated may come from different ranks; both are named).
struct job_prediction {
  double alpha = 0.0;
  std::vector<prediction> ranks;        ///< one per rank, in input order
  std::size_t slowest = 0;              ///< index in ranks of the largest t_dedicated
  std::size_t slowest_noprogress = 0;   ///< index in ranks of the largest t_noprogress
  double t_noprogress_s = 0.0;
  double t_dedicated_s = 0.0;
  double speedup = 0.0;                 ///< t_noprogress / t_dedicated
  verdict result = verdict::within_noise;
};

/// Predicts every rank and the job. Throws input_error on an empty rank list or invalid inputs/options.
[[nodiscard]] job_prediction predict_job(const std::vector<rank_inputs>& ranks, const model_options& opt);

/// An alpha sweep "START:STOP:STEP".
struct alpha_range {
  double start = 0.0;
  double stop = 1.0;
  double step = 0.05;
};
/// Parses "START:STOP:STEP" (e.g. "0:1:0.1"); throws input_error (source "--alpha-sweep") unless
/// 0 <= START <= STOP <= 1 and STEP > 0 with at most 10001 points.
[[nodiscard]] alpha_range parse_alpha_range(std::string_view text);
/// The alpha values of a range, START first, STOP included when reached within rounding.
/// Throws input_error like parse_alpha_range.
[[nodiscard]] std::vector<double> alpha_values(const alpha_range& r);

/// One point of the alpha sweep (job level).
struct sweep_point {
  double alpha = 0.0;
  double t_dedicated_s = 0.0;
  double speedup = 0.0;
  int slowest_rank = 0;
  verdict result = verdict::within_noise;
};
/// The job's predicted time and speedup for every alpha of the range (opt.alpha is ignored).
[[nodiscard]] std::vector<sweep_point> alpha_sweep(const std::vector<rank_inputs>& ranks, const model_options& opt,
                                                   const alpha_range& range);

/// Where t_dedicated = t_noprogress (speedup exactly 1, no noise band) for alpha in [0, 1].
/// t_dedicated is linear in alpha per rank, so the job's time is a maximum of lines: the alphas
/// where it does not exceed t_noprogress form one interval, computed in closed form.
struct break_even_result {
  enum class kind {
    never,     ///< slower than without progress for every alpha in [0, 1]
    always,    ///< at least as fast for every alpha in [0, 1]: no break-even inside
    crossing,  ///< at least as fast exactly for alpha in [pays_off_from, pays_off_to]
  };
  kind k = kind::never;
  double pays_off_from = 0.0;
  double pays_off_to = 0.0;
  std::optional<double> alpha;  ///< the break-even alpha (crossing only): the interval end inside (0, 1)
  /// A sentence: "break-even at alpha = 0.3700: t_dedicated <= t_noprogress for alpha >= 0.3700", "none in [0, 1]:
  /// ...". It does not say "pays off": the verdict needs a speedup beyond the noise band, break-even only 1.
  [[nodiscard]] std::string describe() const;
};
[[nodiscard]] break_even_result break_even(const std::vector<rank_inputs>& ranks, const model_options& opt);

/// Section VI-C: "the slope of each case plot ... represents the efficiency of blocking to
/// nonblocking transformation".
struct slope_result {
  double speedup_per_alpha = 0.0;  ///< secant of the speedup curve: speedup(1) − speedup(0)
  double speedup_slope_at_alpha = 0.0;  ///< derivative d speedup / d alpha at opt.alpha (right derivative)
  double time_slope_s = 0.0;       ///< d t_dedicated / d alpha of the slowest rank at opt.alpha, s per unit alpha
  double conversion_efficiency = 0.0;  ///< that rank's share of blocking time removed by conversion (1 = all)
  /// False when that rank has blocking calls but no measured initiation or wait: a converted call's cost is
  /// unknown, taken as 0, so the slope and efficiency are optimistic bounds (the efficiency is not printed).
  bool cost_known = true;
  int rank = 0;                    ///< the slowest rank at opt.alpha
};
[[nodiscard]] slope_result conversion_slope(const std::vector<rank_inputs>& ranks, const model_options& opt);

/// The inputs as they would be on nodes with n_core cores: each rank's computation is moved from
/// its measured core count to n_core with the scaling model, and t_noprogress changes by the same
/// amount (communication time is kept). Throws input_error when the scaling model does not cover
/// a core count or n_core < 2.
[[nodiscard]] std::vector<rank_inputs> with_cores(const std::vector<rank_inputs>& ranks, int n_core,
                                                  const scaling_model& scaling);

/// N_core what-if: the smallest core count per node for which the dedicated core pays off
/// (verdict "pays off", i.e. beyond the noise band) at opt.alpha.
struct core_whatif {
  std::optional<int> n_core;       ///< empty: not found in the searched range
  double speedup = 0.0;            ///< job speedup at n_core (when found)
  int searched_from = 2;
  int searched_to = 2;             ///< last core count examined
  [[nodiscard]] std::string describe() const;
};
/// The largest max_cores min_cores_to_pay_off() accepts.
inline constexpr int max_cores_searched = 65536;

/// Searches 2..max_cores (limited to what the scaling model covers). Throws input_error when
/// max_cores is outside 2..max_cores_searched.
[[nodiscard]] core_whatif min_cores_to_pay_off(const std::vector<rank_inputs>& ranks, const model_options& opt,
                                               int max_cores = 1024);

}  // namespace sidecore::model
