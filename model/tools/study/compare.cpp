// The study's comparison (compare.hpp).
#include "compare.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "sidecore/common/input_error.hpp"
#include "sidecore/model/input.hpp"

namespace sidecore::tools::study {
namespace {

namespace m = sidecore::model;

// The paper's failure cases (seed 004, Section VI) as the diagnostics name them.
std::string paper_case(const std::string& id) {
  if (id == "no-overlap-window") return "BT-MZ: no computation between initiation and wait";
  if (id == "wait-grows-in-core" || id == "blocking-grows-in-core")
    return "MiniMD: progress still done in the wait, calls slower beside the progress thread";
  if (id == "many-tests") return "Kripke: many test calls, each cheap only with a dedicated core";
  if (id == "nonlinear-scaling") return "Figure 1: computation that does not scale linearly with threads";
  return {};
}

struct runs_of_case {
  std::vector<const run_record*> calibration, scaling, dedicated;
};

runs_of_case gather(const study_record& rec, int case_index) {
  runs_of_case r;
  for (const auto& run : rec.runs) {
    if (!run.ok || run.spec.case_index != case_index) continue;
    if (run.spec.kind == run_kind::calibration) r.calibration.push_back(&run);
    else if (run.spec.kind == run_kind::scaling) r.scaling.push_back(&run);
    else if (run.spec.kind == run_kind::dedicated) r.dedicated.push_back(&run);
  }
  return r;
}

std::vector<double> totals(const std::vector<const run_record*>& runs) {
  std::vector<double> v;
  for (const auto* r : runs) v.push_back(r->t_total_s);
  return v;
}
std::vector<double> comps(const std::vector<const run_record*>& runs) {
  std::vector<double> v;
  for (const auto* r : runs) v.push_back(r->t_comp_s);
  return v;
}

// (max - min) / median of a sample of at least two; nullopt otherwise.
std::optional<double> spread_of(const std::vector<double>& v) {
  const auto med = median(v);
  if (v.size() < 2 || !med || *med <= 0) return std::nullopt;
  const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  return (*hi - *lo) / *med;
}

// Above this spread of the repetitions, the machine's noise is as large as the errors the model is judged by
// (issue 15's targets: median 2 %, worst 5 %).
constexpr double noisy_spread = 0.05;

void add_spread(case_result& cr, const runs_of_case& runs) {
  cr.spread_calibration = spread_of(totals(runs.calibration));
  cr.spread_scaling = spread_of(comps(runs.scaling));
  cr.spread_dedicated = spread_of(totals(runs.dedicated));
  std::vector<std::string> wide;
  const auto say = [&](const std::optional<double>& s, const std::vector<double>& v, const char* what) {
    if (!s || *s <= noisy_spread) return;
    const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
    wide.push_back(fmt::format("{} {:.4g}-{:.4g} s ({:.0f} % of their median)", what, *lo, *hi, 100 * *s));
  };
  say(cr.spread_calibration, totals(runs.calibration), "calibrations");
  say(cr.spread_scaling, comps(runs.scaling), "scaling runs' computation");
  say(cr.spread_dedicated, totals(runs.dedicated), "dedicated runs");
  if (wide.empty()) return;
  cr.findings.push_back({"noisy-runs", "",
                         fmt::format("The repetitions spread more than {:.0f} %: {}; an error smaller than that "
                                     "spread cannot be told from the machine's noise: more --reps, or a quieter "
                                     "machine",
                                     100 * noisy_spread, fmt::join(wide, ", "))});
}

// The profile with N_core replaced (--cores-per-rank) and, for a dedicated run, its mode set to core: the PMPI
// library of an unmodified app may not record the mode it ran in, and the study knows it.
profile prepared(profile p, int cores_override, bool core_mode) {
  auto fix = [&](profile& q) {
    if (cores_override > 0) q.n_core = cores_override;
    if (core_mode) q.mode = progress_mode::core;
  };
  fix(p);
  for (auto& r : p.ranks) fix(r);
  return p;
}

bool names_every_host(const profile& job) {
  if (job.ranks.empty()) return job.host.has_value();
  return std::all_of(job.ranks.begin(), job.ranks.end(), [](const profile& r) { return r.host.has_value(); });
}

const profile* rank_of(const profile& job, int rank) {
  for (const auto& r : job.ranks)
    if (r.rank == rank) return &r;
  return job.kind == profile_kind::rank && job.rank == rank ? &job : nullptr;
}

double category_time(const profile& p, category c) { return p[c].time_s; }

void add_terms(case_result& cr, const m::analysis& a, const profile* measured) {
  const m::prediction& p = a.job.ranks[a.job.slowest];
  cr.terms_rank = p.rank;
  const m::rank_inputs* in = nullptr;
  for (const auto& r : a.inputs)
    if (r.rank == p.rank) in = &r;
  if (!in) return;
  auto meas = [&](auto f) -> std::optional<double> {
    if (!measured) return std::nullopt;
    return f(*measured);
  };
  auto cat_row = [&](const char* name, category c, double predicted) {
    cr.terms.push_back({name, (*in)[c].time_s, predicted, meas([&](const profile& q) { return category_time(q, c); })});
  };
  cr.terms.push_back({"computation (t_comp -> t_newcomp)", in->t_comp_s, p.t_newcomp_s,
                      meas([](const profile& q) { return q.t_comp_s; })});
  cat_row("nonblocking initiation", category::init, p.t_init_s);
  cat_row("test", category::test, p.t_test_s);
  cat_row("wait", category::wait, p.t_wait_s);
  cat_row("blocking", category::blocking, p.t_oldblocking_s);
  cat_row("other calls", category::other, p.t_other_s);
  cr.terms.push_back({"t_MPI (all calls)", in->t_mpi_s(), p.t_mpi_dedicated_s, meas([](const profile& q) {
                        double s = 0;
                        for (const auto& c : q.categories) s += c.time_s;
                        return s;
                      })});
  cr.terms.push_back({"total (t_noprogress -> t_dedicated)", in->t_noprogress_s, p.t_dedicated_s,
                      meas([](const profile& q) { return q.t_total_s; })});
}

void compare_alphas(case_result& cr, const study_record& rec, const m::analysis& a, double blocking_calibration) {
  for (double app_alpha : rec.settings.alphas) {
    alpha_result ar;
    ar.app_alpha = app_alpha;
    std::vector<double> t, blocking;
    for (const auto& run : rec.runs)
      if (run.ok && run.spec.case_index == cr.case_index && run.spec.kind == run_kind::alpha &&
          run.spec.alpha == app_alpha) {
        t.push_back(run.t_total_s);
        blocking.push_back(static_cast<double>(run.blocking_calls));
      }
    ar.reps = static_cast<int>(t.size());
    ar.measured_s = median(t);
    if (!t.empty() && blocking_calibration > 0) {
      // The model's alpha is a fraction of all blocking calls; the app's knob may convert only some kinds of them
      // (apps/md: the per-step swaps, not the migrations), so the fraction converted is read from the counts.
      ar.model_alpha = std::clamp(1.0 - *median(blocking) / blocking_calibration, 0.0, 1.0);
      m::model_options o = a.options.model;
      o.alpha = *ar.model_alpha;
      ar.predicted_s = m::predict_job(a.inputs, o).t_dedicated_s;
    }
    if (ar.predicted_s && ar.measured_s && *ar.measured_s > 0)
      ar.error = (*ar.predicted_s - *ar.measured_s) / *ar.measured_s;
    cr.alphas.push_back(ar);
  }
}

}  // namespace

std::optional<double> median(std::vector<double> v) {
  if (v.empty()) return std::nullopt;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::size_t median_index(const std::vector<double>& v) {
  if (v.empty()) throw std::invalid_argument("median_index: empty sample");
  std::vector<std::size_t> idx(v.size());
  for (std::size_t i = 0; i < idx.size(); ++i) idx[i] = i;
  std::stable_sort(idx.begin(), idx.end(), [&](std::size_t x, std::size_t y) { return v[x] < v[y]; });
  return idx[(v.size() - 1) / 2];
}

std::optional<double> middle(const std::vector<double>& v) {
  if (v.empty()) return std::nullopt;
  return v[median_index(v)];
}

std::vector<case_result> compare(const study_record& rec, const profile_loader& load, int host_cores) {
  const config& c = rec.settings;
  std::vector<case_result> out;
  const auto cases = c.cases();
  for (int ci = 0; ci < static_cast<int>(cases.size()); ++ci) {
    case_result cr;
    cr.case_index = ci;
    cr.input = cases[static_cast<std::size_t>(ci)];
    const runs_of_case runs = gather(rec, ci);
    cr.reps_calibration = static_cast<int>(runs.calibration.size());
    cr.reps_scaling = static_cast<int>(runs.scaling.size());
    cr.reps_dedicated = static_cast<int>(runs.dedicated.size());
    // The headline's times are runs' own (the lower median for an even count), so that they are the runs shown in
    // full below (the mean of the two middle runs would match no table and no report); t_noprogress is set again
    // below to the calibration run whose prediction is shown.
    cr.t_noprogress_s = middle(totals(runs.calibration));
    cr.measured_s = middle(totals(runs.dedicated));
    cr.t_comp_n_s = median(comps(runs.calibration));
    cr.t_comp_n1_s = median(comps(runs.scaling));
    if (runs.calibration.empty()) {
      cr.not_judged.push_back("no calibration run finished: nothing to predict from");
      out.push_back(std::move(cr));
      continue;
    }
    cr.cores_per_rank = c.cores_per_rank ? *c.cores_per_rank : runs.calibration.front()->n_core;
    cr.cores_source = c.cores_per_rank ? "--cores-per-rank" : "the calibration profile (hwloc: the rank's cpuset)";
    if (cr.cores_per_rank < 2) {
      cr.not_judged.push_back(fmt::format(
          "each rank had {} core (from {}): a dedicated core needs at least 2 per rank, one for progress and one to "
          "compute; give each rank its cores (mpiexec -bind-to core:K, --mpiexec \"mpiexec -bind-to core:4\"), or "
          "say how many with --cores-per-rank",
          cr.cores_per_rank, cr.cores_source));
      out.push_back(std::move(cr));
      continue;
    }
    std::vector<double> loads;
    for (const auto* r : runs.calibration) loads.push_back(r->load_before);
    for (const auto* r : runs.dedicated) loads.push_back(r->load_before);
    const long busy = static_cast<long>(c.ranks) * cr.cores_per_rank;
    const int this_host = c.host_cores ? *c.host_cores : host_cores;
    // The load average counts the runnable threads of the whole host, the study's own previous runs (up to `busy`
    // threads, decaying over a minute) and the build before it included: beyond the host's cores plus those, other
    // work was taking the cores the runs were timed on.
    if (const auto busy_load = median(loads);
        this_host > 0 && busy_load && *busy_load > static_cast<double>(this_host + busy))
      cr.not_judged.push_back(fmt::format(
          "the host was busy: its load average was {:.1f} when the runs started (median) on {} cores, more than the "
          "study's own {} threads explain, so other work took the cores the runs were timed on; run the study on an "
          "otherwise idle host",
          *busy_load, this_host, busy));

    m::analysis_options opt;
    if (cr.t_comp_n1_s && cr.t_comp_n_s && *cr.t_comp_n_s > 0 && *cr.t_comp_n1_s > 0) {
      opt.model.scaling =
          m::scaling_model::from_table({{cr.cores_per_rank - 1, *cr.t_comp_n1_s}, {cr.cores_per_rank, *cr.t_comp_n_s}},
                                       "of the study's scaling run");
      opt.scaling_reason = fmt::format("t_comp {:.4g} s with N-1 = {} thread(s) (scaling runs), {:.4g} s with N = {} "
                                       "(calibrations), medians of the slowest rank",
                                       *cr.t_comp_n1_s, cr.cores_per_rank - 1, *cr.t_comp_n_s, cr.cores_per_rank);
    } else {
      opt.scaling_reason = "linear (the paper's assumption): no scaling run finished";
    }
    const int override_cores = c.cores_per_rank ? *c.cores_per_rank : 0;
    try {
      // Every calibration repetition predicts; the one whose prediction is the median is shown in full.
      std::vector<profile> cal;
      std::vector<double> predicted;
      for (const auto* r : runs.calibration) {
        cal.push_back(prepared(load(*r), override_cores, false));
        predicted.push_back(m::analyze(m::make_job_input({cal.back()}, {r->profile}), opt).job.t_dedicated_s);
      }
      const std::size_t mc = median_index(predicted);
      // Oversubscription is the model's per-host judgement where the profiles name each rank's host (its cores
      // counted as n_core is, what predict says too); the study's own rule, every rank on this host, where the user
      // counted the host's cores (--host-cores) or the profiles do not say.
      const bool own_rule = c.host_cores.has_value() || !names_every_host(cal[mc]);
      if (own_rule && this_host > 0 && busy > this_host)
        cr.not_judged.push_back(fmt::format(
            "oversubscribed: {} ranks x {} cores each = {} busy threads on this host's {} cores{}: the times measure "
            "threads taking turns on cores, not the model's trade-off; run where every rank has cores of its own "
            "(docs/study.md)",
            c.ranks, cr.cores_per_rank, busy, this_host, c.host_cores ? " (--host-cores)" : ""));
      cr.t_noprogress_s = runs.calibration[mc]->t_total_s;  // the run shown in full, whose prediction is the headline
      std::vector<profile> inputs{cal[mc]};
      std::vector<std::string> sources{runs.calibration[mc]->profile};
      std::optional<profile> ded;
      if (!runs.dedicated.empty()) {
        const std::size_t md = median_index(totals(runs.dedicated));
        ded = prepared(load(*runs.dedicated[md]), override_cores, true);
        inputs.push_back(*ded);
        sources.push_back(runs.dedicated[md]->profile);
      }
      m::analysis a = m::analyze(m::make_job_input(inputs, sources), opt);
      cr.scaling = a.scaling + " (" + a.scaling_reason + ")";
      cr.predicted_s = predicted[mc];
      cr.predicted_speedup = *cr.t_noprogress_s / *cr.predicted_s;
      cr.predicted_verdict = std::string(m::verdict_name(a.headline()));
      if (cr.measured_s && *cr.measured_s > 0) {
        cr.error = (*cr.predicted_s - *cr.measured_s) / *cr.measured_s;
        cr.measured_speedup = *cr.t_noprogress_s / *cr.measured_s;
      }
      add_terms(cr, a, ded ? rank_of(*ded, a.job.ranks[a.job.slowest].rank) : nullptr);
      for (const auto& b : a.cannot_judge)
        if (b.id != "oversubscribed" || !own_rule)  // the study's own rule, above, decides otherwise
          cr.not_judged.push_back(b.id + ": " + b.reason);
      for (const auto& d : a.diagnostics) cr.findings.push_back({d.id, paper_case(d.id), d.title});
      if (cr.t_comp_n1_s && cr.t_comp_n_s) {
        const double measured_ratio = *cr.t_comp_n1_s / *cr.t_comp_n_s;
        const double linear_ratio = static_cast<double>(cr.cores_per_rank) / (cr.cores_per_rank - 1);
        if (std::abs(measured_ratio / linear_ratio - 1) > 0.05)
          cr.findings.push_back({"nonlinear-scaling", paper_case("nonlinear-scaling"),
                                 fmt::format("computation took {:.3f}x as long with {} thread(s) as with {}; linear "
                                             "scaling says {:.3f}x: the measured table is used",
                                             measured_ratio, cr.cores_per_rank - 1, cr.cores_per_rank, linear_ratio)});
      }
      add_spread(cr, runs);
      std::vector<double> blocking;
      for (const auto* r : runs.calibration) blocking.push_back(static_cast<double>(r->blocking_calls));
      compare_alphas(cr, rec, a, *median(blocking));
      cr.analysis = std::move(a);
    } catch (const input_error& e) {
      cr.not_judged.push_back(std::string("the model refused the profiles: ") + e.what());
    }
    if (!cr.measured_s)
      cr.not_judged.push_back("no dedicated (core mode) run finished: nothing measured to compare with");
    cr.judged = cr.not_judged.empty();
    if (!cr.judged) {  // the difference measured the machine: never called the model's error
      std::erase_if(cr.findings, [](const auto& f) { return f.id == "model-error"; });
      if (cr.analysis) m::mark_not_judged(*cr.analysis, fmt::format("{}", fmt::join(cr.not_judged, "; ")));
    }
    out.push_back(std::move(cr));
  }
  return out;
}

nlohmann::json to_json(const std::vector<case_result>& cases) {
  using nlohmann::json;
  auto opt = [](const std::optional<double>& v) { return v ? json(*v) : json(nullptr); };
  json out = json::array();
  for (const auto& c : cases) {
    json j{
        {"case", c.case_index},
        {"input", c.input},
        {"reps", {{"calibration", c.reps_calibration}, {"scaling", c.reps_scaling}, {"dedicated", c.reps_dedicated}}},
        {"cores_per_rank", c.cores_per_rank},
        {"cores_source", c.cores_source},
        {"t_noprogress_s", opt(c.t_noprogress_s)},
        {"t_comp_n_s", opt(c.t_comp_n_s)},
        {"t_comp_n_minus_1_s", opt(c.t_comp_n1_s)},
        {"scaling", c.scaling},
        {"predicted_t_dedicated_s", opt(c.predicted_s)},
        {"measured_t_dedicated_s", opt(c.measured_s)},
        {"relative_error", opt(c.error)},
        {"spread",
         {{"calibration", opt(c.spread_calibration)},
          {"scaling", opt(c.spread_scaling)},
          {"dedicated", opt(c.spread_dedicated)}}},
        {"predicted_speedup", opt(c.predicted_speedup)},
        {"measured_speedup", opt(c.measured_speedup)},
        {"predicted_verdict", c.predicted_verdict},
        {"judged", c.judged},
        {"not_judged", c.not_judged},
        {"terms_rank", c.terms_rank}};
    j["terms"] = json::array();
    for (const auto& t : c.terms)
      j["terms"].push_back({{"term", t.name}, {"calibration_s", t.calibration_s}, {"predicted_s", t.predicted_s},
                            {"measured_s", opt(t.measured_s)}});
    j["findings"] = json::array();
    for (const auto& f : c.findings)
      j["findings"].push_back({{"id", f.id}, {"paper_case", f.paper_case}, {"text", f.text}});
    j["alphas"] = json::array();
    for (const auto& a : c.alphas)
      j["alphas"].push_back({{"app_alpha", a.app_alpha},
                             {"reps", a.reps},
                             {"model_alpha", opt(a.model_alpha)},
                             {"predicted_t_dedicated_s", opt(a.predicted_s)},
                             {"measured_t_dedicated_s", opt(a.measured_s)},
                             {"relative_error", opt(a.error)}});
    out.push_back(std::move(j));
  }
  return out;
}

}  // namespace sidecore::tools::study
