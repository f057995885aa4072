// Diagnostics from the failure cases of seed 004, Section V, and the analysis driver.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include <fmt/format.h>

#include "sidecore/model/analysis.hpp"
#include "sidecore/common/input_error.hpp"

namespace sidecore::model {
namespace {

const profile* find_rank(const std::vector<profile>& ps, int rank) {
  for (const auto& p : ps)
    if (p.rank == rank) return &p;
  return nullptr;
}

// The last bin of a profile may be unbounded (hi_bytes = 2^64 - 1).
std::string size_range(const overlap_size_bin& b) {
  if (b.hi_bytes == std::numeric_limits<std::uint64_t>::max()) return fmt::format(">= {} B", b.lo_bytes);
  return fmt::format("{}-{} B", b.lo_bytes, b.hi_bytes);
}

// BT-MZ (Section V): nonblocking transfers with no computation between initiation and completion.
void check_overlap_window(const job_input& in, const prediction& p, const diagnostic_thresholds& th,
                          std::vector<diagnostic>& out) {
  const profile* prof = find_rank(in.calibration, p.rank);
  if (!prof || !prof->overlap) prof = find_rank(in.core_run, p.rank);
  if (!prof || !prof->overlap) return;
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
                  "t_dedicated would be about {:.4g} s (speedup {:.3f} instead of {:.3f}).{} Place independent "
                  "computation between the initiation and the wait.",
                  t.max_s, t.xfer_time_s, t.count, 100.0 * t.max_s / t.xfer_time_s, correction, t_adj,
                  p.t_noprogress_s / t_adj, p.speedup, worst),
      hidden_missing});
}

// MiniMD (Section V): wait time grows in core mode: progress still happens inside MPI_Wait.
void check_wait_growth(const job_input& in, const prediction& p, const diagnostic_thresholds& th,
                       std::vector<diagnostic>& out) {
  const profile* off = find_rank(in.calibration, p.rank);
  const profile* core = find_rank(in.core_run, p.rank);
  if (!core) return;
  double w_off = 0;
  if (off) w_off = (*off)[category::wait].time_s;
  else
    for (const auto& r : in.ranks)
      if (r.rank == p.rank) w_off = r[category::wait].time_s;
  const double w_core = (*core)[category::wait].time_s;
  if (w_core <= w_off * (1.0 + th.wait_growth) || w_core - w_off < th.significance * p.t_noprogress_s) return;
  out.push_back(diagnostic{
      "wait-grows-in-core", diagnostic::level::warning, p.rank, 1,
      "Wait time grows with the dedicated core (the MiniMD case): progress is still done in the wait",
      fmt::format("Time in wait calls is {:.4g} s without progress and {:.4g} s with the dedicated core, where the model "
                  "expects N_wait*t_minMPIwait = {:.4g} s. The waiting thread and the progress thread compete to "
                  "progress the same requests, so the gain is smaller than predicted (by about {:.4g} s). Check that "
                  "wait calls only read the request state in core mode.",
                  w_off, w_core, p.t_wait_s, w_core - p.t_wait_s),
      w_core - w_off});
}

// Kripke (Section VI-B): many test calls that a dedicated core makes unnecessary.
void check_many_tests(const job_input& in, const prediction& p, const diagnostic_thresholds& th,
                      std::vector<diagnostic>& out) {
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
  out.push_back(diagnostic{
      "many-tests", diagnostic::level::info, p.rank, 1,
      "Many test calls that a dedicated core makes unnecessary (the Kripke case): gain beyond the model",
      fmt::format("{} test calls ({:.1f} per nonblocking initiation) still cost N_test*t_minMPItest = {:.4g} s in the "
                  "prediction. With a dedicated core the transfers complete in the background, so fewer tests are "
                  "needed; without them t_dedicated would be {:.4g} s (speedup up to {:.3f} instead of {:.3f}).{}",
                  test.count, per_init, p.t_test_s, t_best, p.t_noprogress_s / t_best, p.speedup, core_note),
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
  if (ri && alpha > 0 && (*ri)[category::blocking].count > 0 &&
      ((*ri)[category::init].count == 0 || (*ri)[category::wait].count == 0))
    out.push_back(diagnostic{
        "missing-minimum", diagnostic::level::warning, p.rank, 1,
        "No measured minimum for converted calls",
        fmt::format("The run made {} nonblocking initiations and {} waits, so t_minMPInonblock or t_minMPIwait is "
                    "unknown and taken as 0: the cost of the alpha = {:g} converted calls is underestimated.",
                    (*ri)[category::init].count, (*ri)[category::wait].count, alpha),
        1.0});
}

}  // namespace

std::vector<diagnostic> diagnose(const job_input& in, const job_prediction& at_alpha, const job_prediction& at_zero,
                                 const diagnostic_thresholds& th) {
  std::vector<diagnostic> all;
  for (std::size_t i = 0; i < at_alpha.ranks.size(); ++i) {
    const prediction& p = at_alpha.ranks[i];
    check_overlap_window(in, at_zero.ranks[i], th, all);
    check_wait_growth(in, at_zero.ranks[i], th, all);
    check_many_tests(in, p, th, all);
    check_inputs(in, p, at_alpha.alpha, th, all);
  }
  // One finding per kind: the rank where it is largest, with the number of ranks that show it.
  std::vector<diagnostic> out;
  for (const auto& d : all) {
    auto it = std::find_if(out.begin(), out.end(), [&](const diagnostic& x) { return x.id == d.id; });
    if (it == out.end()) {
      out.push_back(d);
    } else {
      const int n = it->ranks_affected + 1;
      if (d.magnitude_s > it->magnitude_s) *it = d;
      it->ranks_affected = n;
    }
  }
  for (auto& d : out)
    if (at_alpha.ranks.size() > 1)
      d.message += fmt::format(" (Numbers from rank {}; {} of {} ranks show this.)", d.rank, d.ranks_affected,
                               at_alpha.ranks.size());

  if (!in.core_run.empty()) {
    const profile* slow = &in.core_run.front();
    for (const auto& c : in.core_run)
      if (c.t_total_s > slow->t_total_s) slow = &c;
    const double measured = slow->t_total_s;
    const double err = measured > 0 ? (at_zero.t_dedicated_s - measured) / measured : 0.0;
    if (std::abs(err) > th.model_error)
      out.push_back(diagnostic{
          "model-error", diagnostic::level::warning, slow->rank, 1, "Prediction differs from the measured core-mode run",
          fmt::format("Predicted t_dedicated {:.4g} s (alpha = 0), measured {:.4g} s on rank {} ({:+.1f} %): the model "
                      "is {}. Read the other findings for the reason; Section V of seed 004 lists the usual ones "
                      "(no computation between initiation and wait, progress done in the wait, non-linear OpenMP "
                      "scaling: try --scaling).",
                      at_zero.t_dedicated_s, measured, slow->rank, 100.0 * err, err < 0 ? "optimistic" : "pessimistic"),
          std::abs(at_zero.t_dedicated_s - measured)});
  } else {
    out.push_back(diagnostic{"no-core-run", diagnostic::level::info, -1, 0, "No core-mode run to compare with",
                             "Give also a profile recorded with SIDECORE_PROGRESS=core to compare the prediction with a "
                             "real run and to check whether wait time grows with the dedicated core (the MiniMD case).",
                             0.0});
  }
  const bool any_overlap = std::any_of(in.calibration.begin(), in.calibration.end(),
                                       [](const profile& p) { return p.overlap.has_value(); }) ||
                           std::any_of(in.core_run.begin(), in.core_run.end(),
                                       [](const profile& p) { return p.overlap.has_value(); });
  if (!any_overlap)
    out.push_back(diagnostic{
        "no-overlap-data", diagnostic::level::info, -1, 0, "No overlap bounds in the input",
        in.from_mpip ? "mpiP reports hold no overlap bounds, so the model cannot check that computation sits between "
                       "initiation and wait (the NAS BT-MZ case). A sidecore profile carries them."
                     : "The profiles hold no overlap section, so the model cannot check that computation sits "
                       "between initiation and wait (the NAS BT-MZ case).",
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
  a.warnings = in.warnings;
  a.notes = in.notes;
  a.calibration = in.calibration;
  a.core_run = in.core_run;
  a.inputs = in.ranks;
  a.options = opt;
  return a;
}

}  // namespace sidecore::model
