// The dedicated-core model for one rank (seed 004, Sections III-B to III-D and IV).
#include "sidecore/model/model.hpp"

#include <cmath>

#include <fmt/format.h>

#include "sidecore/common/dedicated_core.hpp"
#include "sidecore/common/input_error.hpp"

namespace sidecore::model {
namespace {

const category_totals& cat(const rank_inputs& in, category c) { return in[c]; }

void check_seconds(double v, const std::string& source, const std::string& field) {
  if (!std::isfinite(v)) throw input_error(source, field, "must be a finite number of seconds");
  if (v < 0) throw input_error(source, field, fmt::format("negative time {} s; times must be >= 0", v));
}

}  // namespace

double rank_inputs::t_mpi_s() const noexcept {
  double s = 0;
  for (const auto& c : categories) s += c.time_s;
  return s;
}

void validate(const rank_inputs& in, const std::string& source, bool require_two_cores) {
  const std::string r = fmt::format("rank {}", in.rank);
  check_seconds(in.t_noprogress_s, source, r + ": t_noprogress (t_total_s)");
  check_seconds(in.t_comp_s, source, r + ": t_comp (t_comp_s)");
  if (in.n_core < 1 || (require_two_cores && in.n_core == 1))
    throw input_error(
        source, r + ": N_core (n_core)",
        fmt::format("N_core = {}; a dedicated core needs N_core >= 2 cores per node{}", in.n_core,
                    in.n_core == 1 ? ". The run gave the rank one core (as `mpiexec -bind-to core` does): "
                                     "give the node's core count with --cores N, and the prediction is "
                                     "for nodes of N cores, the computation measured on 1 core moved "
                                     "to N with the scaling model"
                                   : ""));
  for (int c = 0; c < category_count; ++c) {
    const auto& t = in.categories[static_cast<std::size_t>(c)];
    const std::string f = fmt::format("{}: categories.{}", r, category_name(static_cast<category>(c)));
    check_seconds(t.time_s, source, f + ".time_s");
    check_seconds(t.min_s, source, f + ".min_s");
    if (t.count > 0 && t.min_s > t.time_s * (1 + 1e-9))
      throw input_error(source, f + ".min_s", "shortest call exceeds the category's total time; need min_s <= time_s");
  }
  if (in.t_noprogress_s <= 0)
    throw input_error(source, r + ": t_noprogress (t_total_s)", "the run time must be > 0 s to compute a speedup");
}

rank_inputs inputs_from_profile(const profile& p, const std::string& source) {
  if (p.kind != profile_kind::rank)
    throw input_error(source, "kind", "expected a rank profile here; flatten job profiles first");
  if (p.mode != progress_mode::off)
    throw input_error(source, fmt::format("rank {}: mode", p.rank),
                      "the model's calibration run must be recorded with SIDECORE_PROGRESS=off (mode \"off\"), "
                      "got \"core\"; give the run without progress as well, the core-mode one is compared with "
                      "the prediction");
  rank_inputs in;
  in.rank = p.rank;
  in.t_noprogress_s = p.t_total_s;
  in.t_comp_s = p.t_comp_s;
  in.n_core = p.n_core;
  in.calling_threads = p.calling_threads;
  in.categories = p.categories;
  // Seed 004 models one communicating thread: its calls and t_comp are on one timeline. With several calling
  // threads the all-thread sums overlap in time; the communicating thread's own totals keep the model's meaning.
  if (p.calling_threads > 1) {
    if (p.thread_categories) in.categories = *p.thread_categories;
    else in.all_thread_categories = true;
  }
  return in;
}

void validate(const model_options& opt) {
  if (!std::isfinite(opt.alpha) || opt.alpha < 0.0 || opt.alpha > 1.0)
    throw input_error("--alpha", "",
                      fmt::format("alpha {} is outside [0, 1]; alpha is the fraction of blocking calls converted to "
                                  "nonblocking (0 = the application as it is, 1 = all of them)",
                                  opt.alpha));
  if (!std::isfinite(opt.noise) || opt.noise < 0.0 || opt.noise >= 1.0)
    throw input_error::refused("--noise", fmt::format("{}", opt.noise * 100), "a percentage in [0, 100)");
}

std::string_view verdict_name(verdict v) noexcept {
  switch (v) {
    case verdict::pays_off: return "pays off";
    case verdict::does_not_pay_off: return "does not pay off";
    case verdict::within_noise: return "within noise";
    case verdict::cannot_judge: return "cannot judge";
  }
  return "unknown";
}

verdict classify(double speedup, double noise) noexcept {
  switch (dedicated::classify(speedup, noise)) {
    case dedicated::outcome::pays_off: return verdict::pays_off;
    case dedicated::outcome::does_not_pay_off: return verdict::does_not_pay_off;
    case dedicated::outcome::within_noise: return verdict::within_noise;
  }
  return verdict::within_noise;
}

double dedicated_time_slope(const rank_inputs& in) noexcept {
  const auto& b = cat(in, category::blocking);
  const double per_converted = cat(in, category::init).min_s + cat(in, category::wait).min_s;
  return static_cast<double>(b.count) * per_converted - b.time_s;
}

double conversion_efficiency(const rank_inputs& in) noexcept {
  const auto& b = cat(in, category::blocking);
  if (b.time_s <= 0) return 0.0;
  return -dedicated_time_slope(in) / b.time_s;
}

prediction predict(const rank_inputs& in, const model_options& opt) {
  validate(opt);
  validate(in, "inputs");
  const auto& blocking = cat(in, category::blocking);
  const auto& init = cat(in, category::init);
  const auto& test = cat(in, category::test);
  const auto& wait = cat(in, category::wait);
  const auto& other = cat(in, category::other);
  const double a = opt.alpha;
  const int n = in.n_core;

  prediction p;
  p.rank = in.rank;
  p.n_core = n;
  p.alpha = a;
  p.t_noprogress_s = in.t_noprogress_s;
  p.t_comp_s = in.t_comp_s;
  p.t_mpi_noprogress_s = in.t_mpi_s();

  // The formula itself is common/'s (dedicated_core.hpp), shared with the runtime's auto mode.
  dedicated::inputs din;
  din.t_noprogress_s = in.t_noprogress_s;
  din.t_comp_s = in.t_comp_s;
  din.categories = in.categories;
  din.alpha = a;
  // III-B2: computation on N−1 cores; the paper's 1/N, or the chosen scaling model.
  din.newcomp_ratio = opt.scaling.time_ratio(n, n - 1);
  const dedicated::terms t = dedicated::predict(din);
  p.t_newcomp_s = t.t_newcomp_s;
  p.t_overhead_s = p.t_newcomp_s - in.t_comp_s;
  p.t_init_s = t.t_init_s;
  p.t_test_s = t.t_test_s;
  p.t_wait_s = t.t_wait_s;
  p.t_nonblock_dedicated_s = p.t_init_s + p.t_test_s + p.t_wait_s;
  p.t_blockingcom_s = t.t_blockingcom_s;
  p.t_converted_s = t.t_converted_s;
  p.t_remaining_blocking_s = t.t_remaining_blocking_s;
  p.t_oldblocking_s = p.t_converted_s + p.t_remaining_blocking_s;
  p.t_other_s = t.t_other_s;
  p.t_mpi_dedicated_s = t.t_mpi_dedicated_s;
  p.t_mpi_overlapable_s = p.t_mpi_noprogress_s - p.t_mpi_dedicated_s;
  p.t_dedicated_s = t.t_dedicated_s;
  p.gain_s = t.gain_s;
  p.speedup = t.speedup;
  p.result = classify(p.speedup, opt.noise);

  auto add = [&](std::string symbol, double v, std::string formula, std::string why) {
    p.terms.push_back(term{std::move(symbol), v, std::move(formula), std::move(why)});
  };
  const bool moved = in.measured_n_core > 0;
  add("t_noprogress", p.t_noprogress_s,
      moved ? fmt::format("{:.6g} - {:.6g} + {:.6g}", in.measured_t_noprogress_s, in.measured_t_comp_s, in.t_comp_s)
            : "measured",
      moved ? fmt::format("run time of the calibration run ({:.6g} s measured on {} cores), its computation moved to "
                          "{} cores",
                          in.measured_t_noprogress_s, in.measured_n_core, n)
            : "run time of the calibration run, without a progress thread");
  add("t_comp", p.t_comp_s,
      moved            ? fmt::format("{:.6g} * {:.6g}", in.measured_t_comp_s,
                                     in.t_comp_s / std::max(in.measured_t_comp_s, 1e-300))
      : in.t_comp_derived ? fmt::format("max(0, {:.6g} - {:.6g})", in.t_noprogress_s, p.t_mpi_noprogress_s)
                          : "measured",
      moved ? fmt::format("computation time measured on {} cores, moved to {} cores with the scaling model",
                          in.measured_n_core, n)
      : in.t_comp_derived ? "computation time of the calibration run: t_noprogress - t_MPI (the report has no "
                            "computation time)"
                          : "computation time of the calibration run (time outside communication calls)");
  add("t_MPI", p.t_mpi_noprogress_s,
      fmt::format("{:.6g} + {:.6g} + {:.6g} + {:.6g} + {:.6g}", blocking.time_s, init.time_s, test.time_s, wait.time_s,
                  other.time_s),
      "communication time of the calibration run: blocking + init + test + wait + other (III-C1)");
  add("t_newcomp", p.t_newcomp_s,
      opt.scaling.model_kind() == scaling_model::kind::linear
          ? fmt::format("{:.6g} * {}/{}", in.t_comp_s, n, n - 1)
          : fmt::format("{:.6g} * {:.6g}", in.t_comp_s, p.t_newcomp_s / std::max(in.t_comp_s, 1e-300)),
      fmt::format("computation on N_core-1 = {} cores, {} (III-B2)", n - 1, opt.scaling.newcomp_formula()));
  add("t_overhead", p.t_overhead_s, fmt::format("{:.6g} - {:.6g}", p.t_newcomp_s, p.t_comp_s),
      "computation slowdown from giving one core to progress (III-B2)");
  add("N_nonblocking*t_minMPInonblock", p.t_init_s, fmt::format("{} * {:.6g}", init.count, init.min_s),
      "nonblocking initiations only register the request; progress is on the dedicated core (III-C2a)");
  add("N_test*t_minMPItest", p.t_test_s, fmt::format("{} * {:.6g}", test.count, test.min_s),
      "test calls only read the request state (III-C2a)");
  add("N_wait*t_minMPIwait", p.t_wait_s, fmt::format("{} * {:.6g}", wait.count, wait.min_s),
      "waits find the transfer done, assuming enough computation between initiation and wait (III-C2a)");
  add("alpha*N_blocking*(t_minMPInonblock+t_minMPIwait)", p.t_converted_s,
      fmt::format("{:g} * {} * ({:.6g} + {:.6g})", a, blocking.count, init.min_s, wait.min_s),
      "blocking calls converted to an initiation plus a wait, both at their minimum (III-C2b)");
  add("(1-alpha)*N_blocking*t_MPIblockingcom", p.t_remaining_blocking_s,
      fmt::format("{:g} * {} * {:.6g}", 1.0 - a, blocking.count, p.t_blockingcom_s),
      "blocking calls kept; t_MPIblockingcom = t_MPIblocking/N_blocking, progress share taken as 0 (Section IV)");
  add("t_MPIother", p.t_other_s, "measured", "management calls, unchanged by a dedicated core (III-C2c)");
  add("t_MPIdedicated", p.t_mpi_dedicated_s, "sum of the six terms above",
      "communication time with a dedicated core (III-C2c)");
  add("t_MPIoverlapable", p.t_mpi_overlapable_s,
      fmt::format("{:.6g} - {:.6g}", p.t_mpi_noprogress_s, p.t_mpi_dedicated_s),
      p.t_mpi_overlapable_s >= 0 ? "communication time the dedicated core removes (III-A)"
                                 : "communication time the dedicated core adds, negative here (III-A)");
  add("t_dedicated", p.t_dedicated_s, fmt::format("{:.6g} + {:.6g}", p.t_newcomp_s, p.t_mpi_dedicated_s),
      "predicted run time with a dedicated core: t_newcomp + t_MPIdedicated (III-D)");
  return p;
}

}  // namespace sidecore::model
