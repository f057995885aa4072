// JSON and CSV rendering.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sidecore/model/render.hpp"

namespace sidecore::model {
namespace {

using json = nlohmann::json;

json prediction_json(const prediction& p) {
  json terms = json::array();
  for (const auto& t : p.terms)
    terms.push_back(
        {{"symbol", t.symbol}, {"value_s", t.value_s}, {"formula", t.formula}, {"explanation", t.explanation}});
  return {{"rank", p.rank},
          {"n_core", p.n_core},
          {"alpha", p.alpha},
          {"t_noprogress_s", p.t_noprogress_s},
          {"t_comp_s", p.t_comp_s},
          {"t_mpi_s", p.t_mpi_noprogress_s},
          {"t_newcomp_s", p.t_newcomp_s},
          {"t_overhead_s", p.t_overhead_s},
          {"t_init_s", p.t_init_s},
          {"t_test_s", p.t_test_s},
          {"t_wait_s", p.t_wait_s},
          {"t_nonblock_dedicated_s", p.t_nonblock_dedicated_s},
          {"t_blockingcom_s", p.t_blockingcom_s},
          {"t_converted_s", p.t_converted_s},
          {"t_remaining_blocking_s", p.t_remaining_blocking_s},
          {"t_other_s", p.t_other_s},
          {"t_mpi_dedicated_s", p.t_mpi_dedicated_s},
          {"t_mpi_overlapable_s", p.t_mpi_overlapable_s},
          {"t_dedicated_s", p.t_dedicated_s},
          {"gain_s", p.gain_s},
          {"speedup", p.speedup},
          {"verdict", verdict_name(p.result)},
          {"terms", std::move(terms)}};
}

std::string break_even_kind(break_even_result::kind k) {
  switch (k) {
    case break_even_result::kind::never: return "never";
    case break_even_result::kind::always: return "always";
    case break_even_result::kind::crossing: return "crossing";
  }
  return "unknown";
}

// CSV field: quoted when it holds a comma, quote or newline.
std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string o = "\"";
  for (char c : s) {
    if (c == '"') o += '"';
    o += c;
  }
  return o + "\"";
}

}  // namespace

std::string formula_outcome(const job_prediction& j) {
  if (j.t_dedicated_s <= 0) return "t_dedicated 0 s, no speedup";
  return fmt::format("speedup {:.3f}, \"{}\"", j.speedup, verdict_name(j.result));
}

std::string_view shown_verdict(const analysis& a, verdict v) noexcept {
  return verdict_name(a.cannot_judge.empty() ? v : verdict::cannot_judge);
}

std::string whatif_sentence(const analysis& a) {
  if (a.cannot_judge.empty()) return a.whatif.describe();
  return "cannot judge (the model's hypotheses do not hold, above); the formula alone: " + a.whatif.describe();
}

std::string conversion_sentence(const slope_result& s) {
  if (!s.cost_known)
    return "what converting removes is unknown: the run made no nonblocking initiation or no wait, so a converted "
           "call's cost was not measured (the sweep and break-even take it as 0, an optimistic bound)";
  if (s.conversion_efficiency < 0)
    return fmt::format("converting adds {:.1f} % to its blocking time (a converted call's initiation and wait, at "
                       "their minimum, cost more than its blocking call took)",
                       -100.0 * s.conversion_efficiency);
  return fmt::format("converting removes {:.1f} % of its blocking time", 100.0 * s.conversion_efficiency);
}

std::string render_json(const analysis& a, const render_options&) {
  const job_prediction& j = a.job;
  json ranks = json::array();
  for (const auto& p : j.ranks) ranks.push_back(prediction_json(p));
  json sweep = json::array();
  for (const auto& s : a.sweep)
    sweep.push_back({{"alpha", s.alpha},
                     {"t_dedicated_s", s.t_dedicated_s},
                     {"speedup", s.speedup},
                     {"slowest_rank", s.slowest_rank},
                     {"verdict", verdict_name(s.result)}});
  json be = {{"kind", break_even_kind(a.break_even.k)},
             {"pays_off_from", a.break_even.pays_off_from},
             {"pays_off_to", a.break_even.pays_off_to},
             {"alpha", a.break_even.alpha ? json(*a.break_even.alpha) : json(nullptr)},
             {"description", a.break_even.describe()}};
  json diags = json::array();
  for (const auto& d : a.diagnostics)
    diags.push_back({{"id", d.id},
                     {"severity", d.severity == diagnostic::level::warning ? "warning" : "info"},
                     {"rank", d.rank},
                     {"ranks_affected", d.ranks_affected},
                     {"title", d.title},
                     {"message", d.message}});
  json cannot = json::array();
  for (const auto& b : a.cannot_judge)
    cannot.push_back({{"id", b.id}, {"rank", b.rank}, {"ranks_affected", b.ranks_affected}, {"reason", b.reason}});
  json out = {
      {"schema", "sidecore-prediction"},
      {"schema_version", 1},
      {"verdict", verdict_name(a.headline())},
      {"model_verdict", verdict_name(j.result)},
      {"cannot_judge", std::move(cannot)},
      {"speedup", j.speedup},
      {"t_noprogress_s", j.t_noprogress_s},
      {"t_dedicated_s", j.t_dedicated_s},
      {"slowest_rank", j.ranks[j.slowest].rank},
      {"slowest_rank_noprogress", j.ranks[j.slowest_noprogress].rank},
      {"alpha", j.alpha},
      {"noise", a.noise},
      {"scaling", a.scaling},
      {"scaling_reason", a.scaling_reason},
      {"cores_note", a.cores_note},
      {"notes", a.notes},
      {"incomplete", a.incomplete},
      {"source", a.source},
      {"provider", a.provider},
      {"nranks", a.nranks},
      {"ranks", std::move(ranks)},
      {"sweep", std::move(sweep)},
      {"break_even", std::move(be)},
      {"slope",
       {{"speedup_per_alpha", a.slope.speedup_per_alpha},
        {"speedup_slope_at_alpha", a.slope.speedup_slope_at_alpha},
        {"time_slope_s", a.slope.time_slope_s},
        {"conversion_efficiency", a.slope.cost_known ? json(a.slope.conversion_efficiency) : json(nullptr)},
        {"conversion_cost_known", a.slope.cost_known},
        {"rank", a.slope.rank}}},
      {"core_whatif",
       {{"n_core", a.whatif.n_core ? json(*a.whatif.n_core) : json(nullptr)},
        {"speedup", a.whatif.n_core ? json(a.whatif.speedup) : json(nullptr)},
        {"searched_from", a.whatif.searched_from},
        {"searched_to", a.whatif.searched_to},
        {"description", a.whatif.describe()}}},
      {"diagnostics", std::move(diags)},
      {"warnings", a.warnings}};
  if (a.validation) {
    const auto& v = *a.validation;
    out["validation"] = {{"measured_t_dedicated_s", v.measured_t_dedicated_s},
                         {"predicted_t_dedicated_s", v.predicted_t_dedicated_s},
                         {"measured_speedup", v.measured_speedup},
                         {"predicted_speedup", v.predicted_speedup},
                         {"relative_error", v.relative_error},
                         {"measured_slowest_rank", v.measured_slowest_rank},
                         {"judged", v.not_judged.empty()},
                         {"not_judged", v.not_judged}};
  }
  return out.dump(2) + "\n";
}

std::string render_csv(const analysis& a, const render_options& ro) {
  std::string o =
      "rank,alpha,n_core,t_noprogress_s,t_comp_s,t_mpi_s,t_newcomp_s,t_overhead_s,t_init_s,t_test_s,t_wait_s,"
      "t_converted_s,t_remaining_blocking_s,t_other_s,t_mpi_dedicated_s,t_dedicated_s,speedup,verdict\n";
  std::vector<double> alphas{a.job.alpha};
  if (ro.show_sweep) alphas = alpha_values(a.options.sweep);
  model_options mo = a.options.model;
  for (double alpha : alphas) {
    mo.alpha = alpha;
    const job_prediction j = alpha == a.job.alpha ? a.job : predict_job(a.inputs, mo);
    for (const auto& p : j.ranks)
      o += fmt::format(
          "{},{:g},{},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},"
          "{:.9g},{:.9g},{}\n",
          p.rank, p.alpha, p.n_core, p.t_noprogress_s, p.t_comp_s, p.t_mpi_noprogress_s, p.t_newcomp_s, p.t_overhead_s,
          p.t_init_s, p.t_test_s, p.t_wait_s, p.t_converted_s, p.t_remaining_blocking_s, p.t_other_s,
          p.t_mpi_dedicated_s, p.t_dedicated_s, p.speedup, csv_field(std::string(shown_verdict(a, p.result))));
    o += fmt::format("job,{:g},,{:.9g},,,,,,,,,,,,{:.9g},{:.9g},{}\n", j.alpha, j.t_noprogress_s, j.t_dedicated_s,
                     j.speedup, csv_field(std::string(shown_verdict(a, j.result))));
  }
  return o;
}

}  // namespace sidecore::model
