// Job-level prediction, alpha sweep, break-even, slope and N_core what-if.
#include "sidecore/model/job.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>

#include <fmt/format.h>

#include "sidecore/common/input_error.hpp"

namespace sidecore::model {

job_prediction predict_job(const std::vector<rank_inputs>& ranks, const model_options& opt) {
  validate(opt);
  if (ranks.empty()) throw input_error("", "ranks", "no rank inputs: the job prediction needs at least one rank");
  job_prediction j;
  j.alpha = opt.alpha;
  j.ranks.reserve(ranks.size());
  for (const auto& r : ranks) j.ranks.push_back(predict(r, opt));
  for (std::size_t i = 1; i < j.ranks.size(); ++i) {
    if (j.ranks[i].t_dedicated_s > j.ranks[j.slowest].t_dedicated_s) j.slowest = i;
    if (j.ranks[i].t_noprogress_s > j.ranks[j.slowest_noprogress].t_noprogress_s) j.slowest_noprogress = i;
  }
  j.t_noprogress_s = j.ranks[j.slowest_noprogress].t_noprogress_s;
  j.t_dedicated_s = j.ranks[j.slowest].t_dedicated_s;
  j.speedup = j.t_dedicated_s > 0 ? j.t_noprogress_s / j.t_dedicated_s : 0.0;
  j.result = classify(j.speedup, opt.noise);
  return j;
}

namespace {

constexpr const char* sweep_form = "START:STOP:STEP, three numbers, e.g. 0:1:0.05";

double parse_number(std::string_view text, std::string_view s, std::string_view what) {
  const std::string str(s);
  char* end = nullptr;
  const double v = std::strtod(str.c_str(), &end);
  if (str.empty() || *end != '\0' || !std::isfinite(v))
    throw input_error::refused("--alpha-sweep", std::string(text),
                               fmt::format("{} ({} '{}' is not a number)", sweep_form, what, str));
  return v;
}

constexpr std::size_t max_sweep_points = 10001;

}  // namespace

alpha_range parse_alpha_range(std::string_view text) {
  const auto c1 = text.find(':');
  const auto c2 = c1 == std::string_view::npos ? c1 : text.find(':', c1 + 1);
  if (c1 == std::string_view::npos || c2 == std::string_view::npos || text.find(':', c2 + 1) != std::string_view::npos)
    throw input_error::refused("--alpha-sweep", std::string(text), sweep_form);
  alpha_range r;
  r.start = parse_number(text, text.substr(0, c1), "START");
  r.stop = parse_number(text, text.substr(c1 + 1, c2 - c1 - 1), "STOP");
  r.step = parse_number(text, text.substr(c2 + 1), "STEP");
  (void)alpha_values(r);  // validates
  return r;
}

std::vector<double> alpha_values(const alpha_range& r) {
  if (!(r.start >= 0.0 && r.start <= r.stop && r.stop <= 1.0))
    throw input_error::refused("--alpha-sweep", fmt::format("{}:{}:{}", r.start, r.stop, r.step),
                               "START:STOP:STEP with 0 <= START <= STOP <= 1 (alpha is a fraction)");
  if (!(r.step > 0.0) || !std::isfinite(r.step))
    throw input_error::refused("--alpha-sweep", fmt::format("{}:{}:{}", r.start, r.stop, r.step),
                               "START:STOP:STEP with STEP > 0");
  const double span = (r.stop - r.start) / r.step;
  if (span + 1 > static_cast<double>(max_sweep_points))
    throw input_error::refused("--alpha-sweep", fmt::format("{}:{}:{}", r.start, r.stop, r.step),
                               fmt::format("at most {} points ({:.10g} asked; a larger STEP)", max_sweep_points,
                                           span + 1));
  const auto n = static_cast<std::size_t>(std::floor(span + 1e-9));
  std::vector<double> v;
  v.reserve(n + 2);
  for (std::size_t i = 0; i <= n; ++i) v.push_back(std::min(r.stop, r.start + static_cast<double>(i) * r.step));
  if (r.stop - v.back() > 1e-9) v.push_back(r.stop);
  return v;
}

std::vector<sweep_point> alpha_sweep(const std::vector<rank_inputs>& ranks, const model_options& opt,
                                     const alpha_range& range) {
  std::vector<sweep_point> out;
  model_options o = opt;
  for (double a : alpha_values(range)) {
    o.alpha = a;
    const job_prediction j = predict_job(ranks, o);
    out.push_back(sweep_point{a, j.t_dedicated_s, j.speedup, j.ranks[j.slowest].rank, j.result});
  }
  return out;
}

break_even_result break_even(const std::vector<rank_inputs>& ranks, const model_options& opt) {
  model_options o = opt;
  o.alpha = 0.0;
  const job_prediction at0 = predict_job(ranks, o);
  o.alpha = 1.0;
  const job_prediction at1 = predict_job(ranks, o);
  const double t_np = at0.t_noprogress_s;
  // Each rank: t(alpha) = a + b*alpha. Keep the alphas with t(alpha) <= t_np, intersected over ranks.
  double lo = 0.0;
  double hi = 1.0;
  bool empty = false;
  for (std::size_t i = 0; i < at0.ranks.size(); ++i) {
    const double a = at0.ranks[i].t_dedicated_s;
    const double b = at1.ranks[i].t_dedicated_s - a;
    const double scale = std::max({std::abs(a), std::abs(t_np), 1e-300});
    if (std::abs(b) <= 1e-12 * scale) {
      if (a > t_np) empty = true;
    } else if (b > 0) {
      hi = std::min(hi, (t_np - a) / b);
    } else {
      lo = std::max(lo, (t_np - a) / b);
    }
  }
  break_even_result r;
  if (empty || lo > hi) {
    r.k = break_even_result::kind::never;
    return r;
  }
  r.pays_off_from = lo;
  r.pays_off_to = hi;
  if (lo <= 0.0 && hi >= 1.0) {
    r.k = break_even_result::kind::always;
    r.pays_off_from = 0.0;
    r.pays_off_to = 1.0;
    return r;
  }
  r.k = break_even_result::kind::crossing;
  r.alpha = lo > 0.0 ? lo : hi;
  return r;
}

// Break-even is speedup 1, not the verdict's noise band: the sentences say which side of t_noprogress t_dedicated is
// on, not "pays off", which a speedup within the band is not.
std::string break_even_result::describe() const {
  switch (k) {
    case kind::never:
      return "none in [0, 1]: t_dedicated > t_noprogress for every alpha";
    case kind::always:
      return "none in [0, 1]: t_dedicated <= t_noprogress for every alpha";
    case kind::crossing:
      if (pays_off_from > 0.0 && pays_off_to < 1.0)
        return fmt::format("break-even at alpha = {:.4f}: t_dedicated <= t_noprogress for alpha in [{:.4f}, {:.4f}]",
                           pays_off_from, pays_off_from, pays_off_to);
      if (pays_off_from > 0.0)
        return fmt::format("break-even at alpha = {:.4f}: t_dedicated <= t_noprogress for alpha >= {:.4f}",
                           pays_off_from, pays_off_from);
      return fmt::format("break-even at alpha = {:.4f}: t_dedicated <= t_noprogress for alpha <= {:.4f}", pays_off_to,
                         pays_off_to);
  }
  return {};
}

slope_result conversion_slope(const std::vector<rank_inputs>& ranks, const model_options& opt) {
  model_options o = opt;
  const job_prediction here = predict_job(ranks, o);
  o.alpha = 0.0;
  const double s0 = predict_job(ranks, o).speedup;
  o.alpha = 1.0;
  const double s1 = predict_job(ranks, o).speedup;
  slope_result s;
  s.speedup_per_alpha = s1 - s0;
  // Right derivative: among the ranks tied for slowest, the steepest line leads for larger alpha.
  std::size_t lead = here.slowest;
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    const bool tied = here.ranks[i].t_dedicated_s >= here.t_dedicated_s * (1 - 1e-12);
    if (tied && dedicated_time_slope(ranks[i]) > dedicated_time_slope(ranks[lead])) lead = i;
  }
  s.rank = ranks[lead].rank;
  s.time_slope_s = dedicated_time_slope(ranks[lead]);
  s.conversion_efficiency = conversion_efficiency(ranks[lead]);
  const rank_inputs& r = ranks[lead];
  s.cost_known = r[category::blocking].count == 0 || (r[category::init].count > 0 && r[category::wait].count > 0);
  s.speedup_slope_at_alpha = here.t_dedicated_s > 0
                                 ? -here.t_noprogress_s * s.time_slope_s / (here.t_dedicated_s * here.t_dedicated_s)
                                 : 0.0;
  return s;
}

std::vector<rank_inputs> with_cores(const std::vector<rank_inputs>& ranks, int n_core, const scaling_model& scaling) {
  if (n_core < 2)
    throw input_error("N_core", "", fmt::format("N_core = {}; a dedicated core needs N_core >= 2", n_core));
  std::vector<rank_inputs> out = ranks;
  for (auto& r : out) {
    if (r.measured_n_core == 0 && n_core != r.n_core) {
      r.measured_n_core = r.n_core;
      r.measured_t_noprogress_s = r.t_noprogress_s;
      r.measured_t_comp_s = r.t_comp_s;
    }
    const double t_comp = r.t_comp_s * scaling.time_ratio(r.n_core, n_core);
    r.t_noprogress_s = r.t_noprogress_s - r.t_comp_s + t_comp;
    r.t_comp_s = t_comp;
    r.n_core = n_core;
  }
  return out;
}

core_whatif min_cores_to_pay_off(const std::vector<rank_inputs>& ranks, const model_options& opt, int max_cores) {
  // The search predicts the whole job once per count: 65536 counts take about a second, 2^31 would take hours.
  if (max_cores < 2 || max_cores > max_cores_searched)
    throw input_error::refused("--max-cores", std::to_string(max_cores),
                               fmt::format("an integer in [2 - {}]", max_cores_searched));
  core_whatif w;
  int from = 2;
  int to = max_cores;
  if (opt.scaling.model_kind() == scaling_model::kind::table) {
    from = std::max(from, opt.scaling.table().front().threads + 1);
    to = std::min(to, opt.scaling.table().back().threads);
  }
  w.searched_from = from;
  w.searched_to = from - 1;
  for (int n = from; n <= to; ++n) {
    const job_prediction j = predict_job(with_cores(ranks, n, opt.scaling), opt);
    w.searched_to = n;
    if (j.result == verdict::pays_off) {
      w.n_core = n;
      w.speedup = j.speedup;
      break;
    }
  }
  return w;
}

std::string core_whatif::describe() const {
  if (searched_to < searched_from) return "no core count could be examined (the scaling model covers none)";
  if (n_core)
    return fmt::format("pays off from N_core = {} cores per node (predicted speedup {:.4f})", *n_core, speedup);
  return fmt::format("does not pay off for any N_core in {}..{}", searched_from, searched_to);
}

}  // namespace sidecore::model
