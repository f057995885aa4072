// Diagnostics from the failure cases of seed 004, Section V, and the analysis driver.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "sidecore/model/analysis.hpp"

namespace sidecore::model {
namespace {

const profile* find_rank(const std::vector<profile>& ps, int rank) {
  for (const auto& p : ps)
    if (p.rank == rank) return &p;
  return nullptr;
}

// The calls the model reads from a profile: the communicating thread's own when several threads made calls.
const category_totals& calls_of(const profile& p, category c) {
  if (p.calling_threads > 1 && p.thread_categories) return (*p.thread_categories)[static_cast<std::size_t>(c)];
  return p[c];
}

// Whether a profile recorded any transfer (a PMPI profile writes an empty overlap section: source "none").
bool has_overlap_data(const profile& p) { return p.overlap && p.overlap->total.count > 0; }

// The last bin of a profile may be unbounded (hi_bytes = 2^64 - 1).
std::string size_range(const overlap_size_bin& b) {
  if (b.hi_bytes == std::numeric_limits<std::uint64_t>::max()) return fmt::format(">= {} B", b.lo_bytes);
  return fmt::format("{}-{} B", b.lo_bytes, b.hi_bytes);
}

// The job's speedup, as the verdict computes it (the job's t_noprogress over the largest t_dedicated), with each
// rank's t_dedicated replaced by changed(rank's prediction).
template <class F>
double job_speedup_if(const job_prediction& j, F changed) {
  double worst = 0;
  for (const prediction& r : j.ranks) worst = std::max(worst, changed(r));
  return worst > 0 ? j.t_noprogress_s / worst : 0.0;
}

// BT-MZ (Section V): nonblocking transfers with no computation between initiation and completion.
void check_overlap_window(const job_input& in, const job_prediction& j, const prediction& p,
                          const diagnostic_thresholds& th, std::vector<diagnostic>& out) {
  const profile* prof = find_rank(in.calibration, p.rank);
  if (!prof || !has_overlap_data(*prof)) prof = find_rank(in.core_run, p.rank);
  if (!prof || !has_overlap_data(*prof)) return;
  const overlap_bounds& t = prof->overlap->total;
  const double hidden_missing = t.xfer_time_s - t.max_s;
  if (t.xfer_time_s <= 0 || t.max_s >= th.overlap_fraction * t.xfer_time_s) return;
  if (hidden_missing < th.significance * p.t_noprogress_s) return;
  // The model removes all progress time from init/test/wait; at least (xfer_time − max) of the
  // transfers cannot hide behind computation and will still be waited for.
  const rank_inputs* ri = nullptr;
  for (const auto& r : in.ranks)
    if (r.rank == p.rank) ri = &r;
  double removed = 0;
  if (ri)
    removed = (*ri)[category::init].time_s + (*ri)[category::test].time_s + (*ri)[category::wait].time_s -
              p.t_nonblock_dedicated_s;
  const double correction = std::clamp(hidden_missing, 0.0, std::max(0.0, removed));
  const double t_adj = p.t_dedicated_s + correction;
  const double speedup_adj =
      job_speedup_if(j, [&](const prediction& r) { return r.rank == p.rank ? t_adj : r.t_dedicated_s; });
  std::string worst;
  const overlap_size_bin* wb = nullptr;
  for (const auto& b : prof->overlap->by_size)
    if (!wb || b.bounds.xfer_time_s - b.bounds.max_s > wb->bounds.xfer_time_s - wb->bounds.max_s) wb = &b;
  if (wb && wb->bounds.xfer_time_s > 0)
    worst += fmt::format(" Most of it in messages of {} ({:.4g} s of transfer, at most {:.4g} s overlappable).",
                         size_range(*wb), wb->bounds.xfer_time_s, wb->bounds.max_s);
  const overlap_region* wr = nullptr;
  for (const auto& r : prof->overlap->by_region)
    if (!wr || r.bounds.xfer_time_s - r.bounds.max_s > wr->bounds.xfer_time_s - wr->bounds.max_s) wr = &r;
  if (wr && wr->bounds.xfer_time_s > 0)
    worst += fmt::format(" Worst region: \"{}\" ({:.4g} s of transfer, at most {:.4g} s overlappable).", wr->name,
                         wr->bounds.xfer_time_s, wr->bounds.max_s);
  out.push_back(diagnostic{
      "no-overlap-window", diagnostic::level::warning, p.rank, 1,
      "Nonblocking transfers without computation to hide behind (the NAS BT-MZ case): prediction optimistic",
      fmt::format("The overlap upper bound is {:.4g} s for {:.4g} s of transfer time ({} transfers, {:.0f} %): there "
                  "is little computation between initiation and completion, so a dedicated core cannot hide these "
                  "transfers, while the model assumes it hides them all. Counting the {:.4g} s that cannot be hidden, "
                  "t_dedicated would be about {:.4g} s (the job's speedup {:.3f} instead of {:.3f}{}).{} Place "
                  "independent computation between the initiation and the wait.",
                  t.max_s, t.xfer_time_s, t.count, 100.0 * t.max_s / t.xfer_time_s, correction, t_adj, speedup_adj,
                  j.speedup, j.alpha > 0 ? fmt::format(", at alpha {:g}", j.alpha) : std::string(), worst),
      hidden_missing});
}

// MiniMD (Section V): wait time grows in core mode: progress still happens inside MPI_Wait.
void check_wait_growth(const job_input& in, const prediction& p, const diagnostic_thresholds& th,
                       std::vector<diagnostic>& out) {
  const profile* off = find_rank(in.calibration, p.rank);
  const profile* core = find_rank(in.core_run, p.rank);
  if (!core) return;
  double w_off = 0;
  if (off) w_off = calls_of(*off, category::wait).time_s;
  else
    for (const auto& r : in.ranks)
      if (r.rank == p.rank) w_off = r[category::wait].time_s;
  const double w_core = calls_of(*core, category::wait).time_s;
  if (w_core <= w_off * (1.0 + th.wait_growth) || w_core - w_off < th.significance * p.t_noprogress_s) return;
  out.push_back(diagnostic{
      "wait-grows-in-core", diagnostic::level::warning, p.rank, 1,
      "Wait time grows with the dedicated core (the MiniMD case): progress is still done in the wait",
      fmt::format(
          "Time in wait calls is {:.4g} s without progress and {:.4g} s with the dedicated core, where the model "
          "expects N_wait*t_minMPIwait = {:.4g} s. The waiting thread and the progress thread compete to "
          "progress the same requests, so the gain is smaller than predicted (by about {:.4g} s). Check that "
          "wait calls only read the request state in core mode.",
          w_off, w_core, p.t_wait_s, w_core - p.t_wait_s),
      w_core - w_off});
}

// MiniMD beside a progress thread (issue 15: Sendrecv 10-50 times longer): blocking calls grow in core mode. The
// model keeps them as measured, so what they lose is missing from the prediction.
void check_blocking_growth(const job_input& in, const prediction& p, const diagnostic_thresholds& th,
                           std::vector<diagnostic>& out) {
  const profile* core = find_rank(in.core_run, p.rank);
  const rank_inputs* ri = nullptr;
  for (const auto& r : in.ranks)
    if (r.rank == p.rank) ri = &r;
  if (!core || !ri) return;
  const category_totals& b_off = (*ri)[category::blocking];
  const category_totals& b_core = calls_of(*core, category::blocking);
  if (b_core.time_s <= b_off.time_s * (1.0 + th.wait_growth) ||
      b_core.time_s - b_off.time_s < th.significance * p.t_noprogress_s)
    return;
  // Per call when both runs made blocking calls (their numbers may differ a little), else in total.
  const double ratio = b_off.count > 0 && b_core.count > 0 && b_off.time_s > 0
                           ? (b_core.time_s / static_cast<double>(b_core.count)) /
                                 (b_off.time_s / static_cast<double>(b_off.count))
                           : 0.0;
  out.push_back(diagnostic{
      "blocking-grows-in-core", diagnostic::level::warning, p.rank, 1,
      "Blocking calls take longer with the dedicated core: the gain is smaller than predicted",
      fmt::format("Time in blocking calls is {:.4g} s without progress and {:.4g} s with the dedicated core ({} calls "
                  "against {}{}). The model keeps blocking calls as they were measured, so the prediction misses "
                  "about {:.4g} s. The calling thread and the progress thread compete for the same requests, locks "
                  "or memory bandwidth inside the blocking call; converting these calls to nonblocking ones "
                  "(alpha) or giving the progress thread less to do in them recovers it.",
                  b_off.time_s, b_core.time_s, b_off.count, b_core.count,
                  ratio > 0 ? fmt::format("; {:.1f} times longer per call", ratio) : std::string(),
                  b_core.time_s - b_off.time_s),
      b_core.time_s - b_off.time_s});
}

// Kripke (Section VI-B): many test calls that a dedicated core makes unnecessary.
void check_many_tests(const job_input& in, const job_prediction& j, const prediction& p,
                      const diagnostic_thresholds& th, std::vector<diagnostic>& out) {
  const rank_inputs* ri = nullptr;
  for (const auto& r : in.ranks)
    if (r.rank == p.rank) ri = &r;
  if (!ri) return;
  const auto& test = (*ri)[category::test];
  const auto& init = (*ri)[category::init];
  const double per_init = static_cast<double>(test.count) / std::max<double>(1.0, static_cast<double>(init.count));
  if (test.count == 0 || per_init < th.tests_per_init) return;
  if (p.t_test_s < th.significance * p.t_noprogress_s) return;
  std::string core_note;
  if (const profile* core = find_rank(in.core_run, p.rank))
    core_note = fmt::format(" The core-mode run made {} test calls against {} without progress.",
                            (*core)[category::test].count, test.count);
  const double t_best = p.t_dedicated_s - p.t_test_s;
  const double speedup_best = job_speedup_if(j, [](const prediction& r) { return r.t_dedicated_s - r.t_test_s; });
  out.push_back(diagnostic{
      "many-tests", diagnostic::level::info, p.rank, 1,
      "Many test calls that a dedicated core makes unnecessary (the Kripke case): gain beyond the model",
      fmt::format("{} test calls ({:.1f} per nonblocking initiation) still cost N_test*t_minMPItest = {:.4g} s in the "
                  "prediction. With a dedicated core the transfers complete in the background, so fewer tests are "
                  "needed; without them t_dedicated would be {:.4g} s (the job's speedup up to {:.3f}, every rank's "
                  "tests left out, instead of {:.3f}).{}",
                  test.count, per_init, p.t_test_s, t_best, speedup_best, j.speedup, core_note),
      p.t_test_s});
}

void check_inputs(const job_input& in, const prediction& p, double alpha, const diagnostic_thresholds& th,
                  std::vector<diagnostic>& out) {
  const double u = p.t_noprogress_s - p.t_comp_s - p.t_mpi_noprogress_s;
  if (std::abs(u) > th.unaccounted_fraction * p.t_noprogress_s)
    out.push_back(diagnostic{
        "inconsistent-inputs", diagnostic::level::warning, p.rank, 1,
        "t_noprogress differs from t_comp + t_MPI",
        fmt::format("t_noprogress = {:.4g} s but t_comp + t_MPI = {:.4g} + {:.4g} = {:.4g} s ({:+.4g} s, {:+.1f} %). "
                    "The model predicts t_dedicated from t_comp and the call categories only, so this time is {} "
                    "the prediction; check that t_comp was measured on the communicating thread.",
                    p.t_noprogress_s, p.t_comp_s, p.t_mpi_noprogress_s, p.t_comp_s + p.t_mpi_noprogress_s, u,
                    100.0 * u / p.t_noprogress_s, u > 0 ? "missing from" : "counted twice in"),
        std::abs(u)});
  const rank_inputs* ri = nullptr;
  for (const auto& r : in.ranks)
    if (r.rank == p.rank) ri = &r;
  // The alpha analysis (sweep, break-even, slope) is always printed, so an unknown cost matters at alpha = 0 too.
  if (ri && (*ri)[category::blocking].count > 0 &&
      ((*ri)[category::init].count == 0 || (*ri)[category::wait].count == 0))
    out.push_back(diagnostic{
        "missing-minimum", alpha > 0 ? diagnostic::level::warning : diagnostic::level::info, p.rank, 1,
        "No measured minimum for converted calls",
        fmt::format("The run made {} nonblocking initiations and {} waits, so t_minMPInonblock or t_minMPIwait is "
                    "unknown and taken as 0: the cost of converted calls is underestimated{}, and the alpha sweep, "
                    "break-even and slope are optimistic bounds.",
                    (*ri)[category::init].count, (*ri)[category::wait].count,
                    alpha > 0 ? fmt::format(" (alpha = {:g} here)", alpha) : std::string()),
        1.0});
}

}  // namespace

void mark_not_judged(analysis& a, const std::string& why) {
  if (a.validation) a.validation->not_judged = why;
  std::erase_if(a.diagnostics, [](const diagnostic& d) { return d.id == "model-error"; });
}

std::vector<diagnostic> diagnose(const job_input& in, const job_prediction& at_alpha, const job_prediction& at_zero,
                                 const diagnostic_thresholds& th) {
  std::vector<diagnostic> all;
  for (std::size_t i = 0; i < at_alpha.ranks.size(); ++i) {
    const prediction& p = at_alpha.ranks[i];
    check_overlap_window(in, at_alpha, p, th, all);
    check_wait_growth(in, at_zero.ranks[i], th, all);
    check_blocking_growth(in, at_zero.ranks[i], th, all);
    check_many_tests(in, at_alpha, p, th, all);
    check_inputs(in, p, at_alpha.alpha, th, all);
  }
  // One finding per kind, with the number of ranks that show it. Its numbers come from the rank that decides the
  // job's time when that rank shows it (they then match the verdict above), else from the rank where it is largest.
  const int decider = at_alpha.ranks[at_alpha.slowest].rank;
  std::vector<diagnostic> out;
  for (const auto& d : all) {
    auto it = std::find_if(out.begin(), out.end(), [&](const diagnostic& x) { return x.id == d.id; });
    if (it == out.end()) {
      out.push_back(d);
    } else {
      const int n = it->ranks_affected + 1;
      if (it->rank != decider && (d.rank == decider || d.magnitude_s > it->magnitude_s)) *it = d;
      it->ranks_affected = n;
    }
  }
  for (auto& d : out)
    if (at_alpha.ranks.size() > 1)
      d.message += fmt::format(" (Numbers from rank {}{}; {} of {} ranks show this.)", d.rank,
                               d.rank == decider ? ", the rank that decides the job's time" : "", d.ranks_affected,
                               at_alpha.ranks.size());

  if (!in.core_run.empty()) {
    const profile* slow = &in.core_run.front();
    for (const auto& c : in.core_run)
      if (c.t_total_s > slow->t_total_s) slow = &c;
    const double measured = slow->t_total_s;
    const double err = measured > 0 ? (at_zero.t_dedicated_s - measured) / measured : 0.0;
    if (std::abs(err) > th.model_error) {
      // The warnings that can explain an error of this sign: the transfers that do not overlap and the calls that
      // take longer beside the progress thread make the real run slower than predicted, never faster; the
      // information findings (no overlap data, a missing minimum for alpha > 0) explain nothing here.
      const bool optimistic = err < 0;
      auto explains = [&](const diagnostic& d) {
        if (d.severity != diagnostic::level::warning) return false;
        const bool slows_the_core_run =
            d.id == "no-overlap-window" || d.id == "wait-grows-in-core" || d.id == "blocking-grows-in-core";
        return optimistic || !slows_the_core_run;
      };
      std::vector<std::string> why;
      for (const auto& d : out)
        if (explains(d)) why.push_back(d.id);
      const std::string paper = "Section V of Denis et al. (CCGRID 2022) lists the usual reasons";
      const std::string reasons =
          why.empty() ? "No other finding explains it; " + paper
                      : fmt::format("The finding{} {} say{} why; {}", why.size() == 1 ? "" : "s", fmt::join(why, ", "),
                                    why.size() == 1 ? "s" : "", paper);
      out.push_back(diagnostic{
          "model-error", diagnostic::level::warning, slow->rank, 1,
          "Prediction differs from the measured core-mode run",
          fmt::format("Predicted t_dedicated {:.4g} s (alpha = 0), measured {:.4g} s on rank {} ({:+.1f} %): the model "
                      "is {}. {} (no computation between initiation and wait, progress done in the wait, non-linear "
                      "OpenMP scaling: give a measured --scaling-table).",
                      at_zero.t_dedicated_s, measured, slow->rank, 100.0 * err, err < 0 ? "optimistic" : "pessimistic",
                      reasons),
          std::abs(at_zero.t_dedicated_s - measured)});
    }
  } else {
    out.push_back(
        diagnostic{"no-core-run", diagnostic::level::info, -1, 0, "No core-mode run to compare with",
                   "Give also a profile recorded with SIDECORE_PROGRESS=core to compare the prediction with a "
                   "real run and to check whether wait time grows with the dedicated core (the MiniMD case).",
                   0.0});
  }
  const bool any_overlap = std::any_of(in.calibration.begin(), in.calibration.end(), has_overlap_data) ||
                           std::any_of(in.core_run.begin(), in.core_run.end(), has_overlap_data);
  if (!any_overlap)
    out.push_back(diagnostic{
        "no-overlap-data", diagnostic::level::info, -1, 0, "No overlap bounds in the input",
        in.from_mpip ? "mpiP reports hold no overlap bounds, so the model cannot check that computation sits between "
                       "initiation and wait (the NAS BT-MZ case). A sidecore profile carries them."
        : is_pmpi_provider(in.provider)
            ? "A PMPI profile (libsidecore-pmpi.so) records each MPI call's time and count, not the transfers "
              "inside the MPI library, so it holds no overlap bounds and the model cannot check that computation "
              "sits between initiation and wait (the NAS BT-MZ case). An application linked with sidecore records "
              "them."
            : "The profiles record no transfer, so the model cannot check that computation sits between "
              "initiation and wait (the NAS BT-MZ case).",
        0.0});
  std::stable_sort(out.begin(), out.end(),
                   [](const diagnostic& a, const diagnostic& b) { return a.severity > b.severity; });
  return out;
}

analysis analyze(const job_input& measured, const analysis_options& opt) {
  validate(opt.model);
  analysis a;
  // --cores N: the question is "what if the node had N cores"; each rank's computation moves from its measured
  // core count to N (with_cores), the hypotheses are checked on what was measured.
  job_input in = measured;
  if (measured.what_if_cores) {
    const int n = *measured.what_if_cores;
    in.ranks = with_cores(measured.ranks, n, opt.model.scaling);
    int lo = measured.ranks.front().n_core, hi = lo;
    for (const auto& r : measured.ranks) {
      lo = std::min(lo, r.n_core);
      hi = std::max(hi, r.n_core);
    }
    a.cores_note = fmt::format("what if the node had {} cores (--cores {}): the calibration run had {}, its "
                               "computation moved to {} cores with the scaling model",
                               n, n, lo == hi ? fmt::format("{}", lo) : fmt::format("{}..{}", lo, hi), n);
    // A dedicated run on other core counts measures another question than the one asked.
    if (!in.core_run.empty() && (lo != n || hi != n)) {
      in.notes.push_back(fmt::format("the core-mode run is not compared with the prediction: it ran on {} cores, "
                                     "the prediction is for {}",
                                     lo == hi ? fmt::format("{}", lo) : fmt::format("{}..{}", lo, hi), n));
      in.core_run.clear();
    }
  }
  a.cannot_judge = check_assumptions(measured, opt.thresholds);
  a.source = in.source;
  a.provider = in.provider;
  a.from_mpip = in.from_mpip;
  a.nranks = in.nranks;
  a.scaling = opt.model.scaling.describe();
  a.scaling_reason = opt.scaling_reason;
  a.noise = opt.model.noise;
  a.job = predict_job(in.ranks, opt.model);
  model_options zero = opt.model;
  zero.alpha = 0.0;
  const job_prediction at_zero = predict_job(in.ranks, zero);
  a.sweep = alpha_sweep(in.ranks, opt.model, opt.sweep);
  a.break_even = break_even(in.ranks, opt.model);
  a.slope = conversion_slope(in.ranks, opt.model);
  a.whatif = min_cores_to_pay_off(in.ranks, opt.model, opt.max_cores);
  if (!in.core_run.empty()) {
    validation_result v;
    const profile* slow = &in.core_run.front();
    for (const auto& c : in.core_run)
      if (c.t_total_s > slow->t_total_s) slow = &c;
    v.measured_t_dedicated_s = slow->t_total_s;
    v.measured_slowest_rank = slow->rank;
    v.predicted_t_dedicated_s = at_zero.t_dedicated_s;
    v.measured_speedup = v.measured_t_dedicated_s > 0 ? at_zero.t_noprogress_s / v.measured_t_dedicated_s : 0.0;
    v.predicted_speedup = at_zero.speedup;
    v.relative_error = v.measured_t_dedicated_s > 0
                           ? (v.predicted_t_dedicated_s - v.measured_t_dedicated_s) / v.measured_t_dedicated_s
                           : 0.0;
    a.validation = v;
  }
  a.diagnostics = diagnose(in, a.job, at_zero, opt.thresholds);
  if (const auto& sc = opt.model.scaling; sc.model_kind() == scaling_model::kind::table && !a.job.ranks.empty()) {
    // Measured, not assumed (a power law with delta < 0 is the user's statement): fewer threads computing faster
    // is what a busy or noisy host measures, and it makes the dedicated core look free.
    const auto& slow = a.job.ranks[a.job.slowest];
    const int n = slow.n_core;
    const double ratio = n >= 2 && sc.covers(n) && sc.covers(n - 1) ? sc.time_ratio(n, n - 1) : 1.0;
    if (ratio < 1.0)
      a.diagnostics.push_back(diagnostic{
          "scaling-faster-on-fewer-threads", diagnostic::level::warning, slow.rank, 1,
          "The measured scaling says the computation is faster on fewer threads",
          fmt::format("{}: t_comp on {} threads is {:.4g} times t_comp on {}, so t_overhead is negative and the "
                      "dedicated core costs the computation nothing. A host busy with other work or noisy "
                      "repetitions measure that; measure the table again on a quiet host, one thread per core.",
                      sc.describe(), n - 1, ratio, n),
          0.0});
  }
  if (!a.cannot_judge.empty()) mark_not_judged(a, "the model cannot judge this run (see why above)");
  a.warnings = in.warnings;
  a.notes = in.notes;
  a.incomplete = in.incomplete;
  a.calibration = in.calibration;
  a.core_run = in.core_run;
  a.inputs = in.ranks;
  a.options = opt;
  return a;
}

}  // namespace sidecore::model
