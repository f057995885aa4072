// `sidecore whatif` (whatif.hpp, docs/simulate.md).
#include "whatif.hpp"

#include <algorithm>
#include <cmath>
#include <iostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sidecore/common/input_error.hpp"
#include "sidecore/model/loggp/files.hpp"
#include "sidecore/model/scaling.hpp"
#include "sidecore/model/sim/whatif_render.hpp"
#include "cli_values.hpp"
#include "write_file.hpp"

namespace sidecore::tools {

namespace sim = sidecore::model::sim;

CLI::App* add_whatif(CLI::App& app, whatif_args& a) {
  CLI::App* c = app.add_subcommand(
      "whatif", "replay a run's SIDECORE_TRACE files with the LogGOPS simulator: progress in calls, a dedicated "
                "progress core, and ideal overlap (Subotic et al.)");
  c->add_option("traces", a.traces, "the run's trace files, one per rank (SIDECORE_TRACE with %r)")->required();
  c->add_option("--loggp", a.loggp_file, "LogGP parameter file of `sidecore loggp -o` (else LogGOPSim's defaults)");
  a.opt_series = c->add_option("--loggp-series", a.loggp_series,
                               "with --loggp: transport of the parameter file's series to use (default sidecore)");
  a.opt_L = c->add_option("-L", a.params.L, "latency L in ns (wins over --loggp)");
  a.opt_o = c->add_option("-o", a.params.o, "CPU overhead o per message in ns");
  a.opt_g = c->add_option("-g", a.params.g, "NIC gap g per message in ns");
  a.opt_G = c->add_option("-G", a.params.G, "NIC gap G per byte in ns (1/bandwidth)");
  a.opt_O = c->add_option("-O", a.params.O, "CPU overhead O per byte in ns");
  a.opt_S = c->add_option("-S", a.params.S, "largest eager message in bytes (default: the traces' SIDECORE_EAGER_MAX)");
  c->add_option("--cores", a.cores,
                "cores N of a rank: the dedicated core leaves N-1 to the computation (default: the traces' OpenMP "
                "threads)")
      ->check(CLI::Range(2, 1 << 20));
  c->add_option("--scaling", a.scaling_file, "measured scaling table (threads t_comp_s per line) instead of N/(N-1)");
  c->add_option("--chunks", a.chunks, "chunks per message in the ideal-overlap scenario (default 16)")
      ->check(CLI::Range(1, 4096));
  c->add_option("--format", a.format, "output: text (default) or json")->check(CLI::IsMember({"text", "json"}));
  c->add_option("--timeline", a.timeline, "write the three scenarios' timelines side by side as Chrome trace JSON");
  c->add_option("--svg", a.svg, "write the bandwidth sweep and the timelines as an SVG");
  c->add_flag("--no-sweep", a.no_sweep, "skip the bandwidth sweep");
  return c;
}

namespace {

// The message size that splits the bytes moved in two halves: the range of the LogGP fit to replay with.
std::uint64_t weighted_median_bytes(const std::vector<sim::traced_message>& ms) {
  std::vector<std::uint64_t> b;
  double total = 0;
  for (const auto& m : ms) {
    b.push_back(m.bytes);
    total += static_cast<double>(m.bytes);
  }
  std::sort(b.begin(), b.end());
  double acc = 0;
  for (std::uint64_t x : b)
    if ((acc += static_cast<double>(x)) >= total / 2) return x;
  return b.empty() ? 1 : b.back();
}

std::string ms(double ns) { return fmt::format("{:.3f}", ns / 1e6); }

}  // namespace

whatif_setup prepare_whatif(const whatif_args& a) {
  if (a.opt_series != nullptr && a.opt_series->count() > 0 && a.loggp_file.empty())
    throw input_error::refused("--loggp-series", a.loggp_series,
                               "--loggp-series together with --loggp FILE (the parameter file whose series it picks)");
  whatif_setup w;
  std::vector<sim::rank_trace> traces;
  for (const std::string& f : a.traces) traces.push_back(sim::read_trace_file(f));
  w.lt = sim::link_traces(std::move(traces));
  const sim::rank_trace& t0 = w.lt.ranks.front();
  sim::loggops_params p;
  if (!a.loggp_file.empty()) {
    const std::uint64_t bytes = weighted_median_bytes(w.lt.messages);
    p = model::loggp::read_loggops_params(a.loggp_file, a.loggp_series, bytes);
    w.params_from = fmt::format("--loggp {} (series {}, the range of {} B, the median message by bytes)", a.loggp_file,
                                a.loggp_series, bytes);
  } else {
    w.params_from = "LogGOPSim's defaults";
  }
  bool given = false;
  auto take = [&](CLI::Option* opt, double& dst, double v) {
    if (opt != nullptr && opt->count() > 0) dst = v, given = true;
  };
  take(a.opt_L, p.L, a.params.L);
  take(a.opt_o, p.o, a.params.o);
  take(a.opt_g, p.g, a.params.g);
  take(a.opt_G, p.G, a.params.G);
  take(a.opt_O, p.O, a.params.O);
  if (a.opt_S != nullptr && a.opt_S->count() > 0) {
    p.S = a.params.S;
    given = true;
  } else if (t0.eager_max > 0) {
    p.S = t0.eager_max;  // sidecore's own eager/rendezvous switch, as the run used it
  }
  if (given) w.params_from += ", with the options given";
  sim::validate(p);
  w.opts.params = p;
  w.opts.chunks = a.chunks;
  const int n = a.cores > 0 ? a.cores : t0.omp_threads;
  if (n < 2)
    throw input_error("--cores", "",
                      fmt::format("the traces ran {} OpenMP thread(s): give --cores N (N >= 2), the cores a rank "
                                  "computes on without a progress core",
                                  t0.omp_threads));
  if (a.model_scaling || !a.scaling_file.empty()) {
    const auto sm = a.model_scaling ? *a.model_scaling : model::scaling_model::read_table_file(a.scaling_file);
    w.opts.dedicated_comp_factor = sm.time_ratio(n, n - 1);
    w.scaling_text = fmt::format("{} cores -> {}, {}: computation x{:.4f}", n, n - 1, sm.describe(),
                                 w.opts.dedicated_comp_factor);
  } else {
    w.opts.dedicated_comp_factor = static_cast<double>(n) / (n - 1);
    w.scaling_text = fmt::format("{} cores -> {}, linear (N/(N-1)): computation x{:.4f}", n, n - 1,
                                 w.opts.dedicated_comp_factor);
  }
  return w;
}

std::vector<std::string> compare_with_model(const whatif_args& a, double t_noprogress_s, double t_dedicated_s,
                                            const std::string& calibration_run) {
  whatif_args q = a;
  const whatif_setup w = prepare_whatif(q);
  if (!calibration_run.empty() && !w.lt.run.empty() && w.lt.run != calibration_run)
    throw input_error("--trace", w.lt.ranks.front().source,
                      fmt::format("the traces are of run \"{}\", the calibration profiles of run \"{}\": give the "
                                  "traces that the calibration run wrote (SIDECORE_TRACE beside SIDECORE_PROFILE)",
                                  w.lt.run, calibration_run));
  const sim::whatif_result r = sim::run_whatif(w.lt, w.opts);
  for (const sim::sim_result& s : r.sims)
    if (!s.complete) throw input_error("--trace", "", "the replay of the traces cannot finish: " + s.problems.front());
  const double sim_off = r.makespan(sim::scenario::in_calls) / 1e9,
               sim_ded = r.makespan(sim::scenario::dedicated_core) / 1e9;
  std::vector<std::string> out;
  out.push_back(fmt::format("trace replay (sidecore whatif, LogGOPS from {}; {}): t_noprogress {:.6f} s, t_dedicated "
                            "{:.6f} s, speedup {:.3f}; the model: t_noprogress {:.6f} s, t_dedicated {:.6f} s, speedup "
                            "{:.3f}",
                            w.params_from, w.scaling_text, sim_off, sim_ded, sim_off / sim_ded, t_noprogress_s,
                            t_dedicated_s, t_dedicated_s > 0 ? t_noprogress_s / t_dedicated_s : 0.0));
  const sim::overlap_room room = sim::measure_overlap_room(w.lt);
  const double total = static_cast<double>(room.nonblocking_bytes + room.blocking_bytes);
  if (room.nonblocking_bytes > 0 && room.bytes_without_room * 10 >= room.nonblocking_bytes * 9)
    out.push_back(fmt::format("why they differ: {:.0f} % of the nonblocking bytes had no computation (< 1 µs) between "
                              "their initiation and their wait: a progress core moves them, but there is nothing to "
                              "overlap them with (Denis et al., Section V: BT-MZ); the model counts their whole wait "
                              "time as recoverable, the replay only what the timing allows",
                              100.0 * static_cast<double>(room.bytes_without_room) /
                                  static_cast<double>(room.nonblocking_bytes)));
  else if (room.nonblocking_bytes > 0)
    out.push_back(fmt::format("computation between initiation and wait: {:.3f} ms over all ranks (each stretch once), "
                              "{:.0f} % of the nonblocking bytes with less than 1 µs of it; the replay overlaps only "
                              "that computation, the model the whole nonblocking wait",
                              room.comp_overlappable_ns / 1e6,
                              100.0 * static_cast<double>(room.bytes_without_room) /
                                  static_cast<double>(room.nonblocking_bytes)));
  if (total > 0 && room.blocking_bytes > 0)
    out.push_back(fmt::format("{:.0f} % of the bytes moved in blocking calls: the replay overlaps none of them (what "
                              "the model's alpha converts, the trace did not)",
                              100.0 * static_cast<double>(room.blocking_bytes) / total));
  const double rel = t_dedicated_s > 0 ? (sim_ded - t_dedicated_s) / t_dedicated_s : 0;
  if (std::abs(rel) > 0.1)
    out.push_back(fmt::format("the simulated t_dedicated is {:+.0f} % from the analytical one; the model works from "
                              "measured category times, the replay from the LogGOPS parameters (check them with "
                              "`sidecore whatif`: its progress-in-calls time against the traced run)",
                              rel * 100));
  return out;
}

int run_whatif(const whatif_args& a) {
  std::vector<named_path> inputs{{"--loggp", a.loggp_file}, {"--scaling", a.scaling_file}};
  for (const std::string& t : a.traces) inputs.push_back({"TRACE", t});
  check_outputs(inputs, {{"--timeline", a.timeline}, {"--svg", a.svg}});
  const whatif_setup w = prepare_whatif(a);
  const sim::linked_traces& lt = w.lt;
  const auto nr = static_cast<std::uint32_t>(lt.ranks.size());
  std::array<sim::busy_recorder, 3> rec;
  const bool want_timelines = !a.timeline.empty() || !a.svg.empty();
  const sim::whatif_result r =
      sim::run_whatif(lt, w.opts, want_timelines ? std::array<sim::sim_observer*, 3>{&rec[0], &rec[1], &rec[2]}
                                                 : std::array<sim::sim_observer*, 3>{});
  for (sim::scenario sc : sim::all_scenarios) {
    const sim::sim_result& s = r.sims[static_cast<std::size_t>(sc)];
    if (s.complete) continue;
    std::cerr << fmt::format("sidecore whatif: error: the replay ({}): {}:\n", sim::scenario_name(sc),
                             s.failure_summary());
    for (const std::string& p : s.problems) std::cerr << "  " << p << "\n";
    return 2;
  }
  std::vector<double> factors;
  if (!a.no_sweep)
    for (int e = -6; e <= 6; ++e) factors.push_back(std::pow(4.0, e));
  const std::vector<sim::sweep_point> sweep = sim::bandwidth_sweep(lt, w.opts, factors);
  // What each overlapping scenario needs to match progress in calls at the parameters' bandwidth, and what
  // progress in calls needs to match it.
  struct need {
    double scenario_needs, calls_needs;
  };
  std::array<need, 3> needs{};
  if (!a.no_sweep)
    for (std::size_t s = 1; s < 3; ++s) {
      needs[s].scenario_needs = sim::bandwidth_to_reach(lt, w.opts, sim::all_scenarios[s],
                                                        r.makespan(sim::scenario::in_calls), 1.0 / 4096, 4096);
      needs[s].calls_needs = sim::bandwidth_to_reach(lt, w.opts, sim::scenario::in_calls,
                                                     r.makespan(sim::all_scenarios[s]), 1.0 / 4096, 4096);
    }
  const std::array<double, 3> makespans{r.makespan(sim::scenario::in_calls), r.makespan(sim::scenario::dedicated_core),
                                        r.makespan(sim::scenario::ideal_overlap)};
  if (!a.timeline.empty())
    write_file(a.timeline, sim::whatif_chrome_json({&rec[0], &rec[1], &rec[2]}, nr), "--timeline");
  if (!a.svg.empty()) write_file(a.svg, sim::whatif_svg({&rec[0], &rec[1], &rec[2]}, nr, makespans, sweep), "--svg");
  const double traced = *std::max_element(r.traced_ns.begin(), r.traced_ns.end());
  const double err = traced > 0 ? (makespans[0] - traced) / traced : 0;
  // The bandwidth factor a scenario needs (bandwidth_needed: -1 none up to 4096x, 0 already at 1/4096x).
  auto need_text = [](double f) {
    return f < 0 ? std::string("at no bandwidth up to 4096x") : f == 0 ? std::string("already at 1/4096x the bandwidth")
                                                                        : fmt::format("with {:.3g}x the bandwidth", f);
  };
  const sim::loggops_params& p = w.opts.params;
  if (a.format == "json") {
    nlohmann::json j;
    j["schema"] = "sidecore-whatif";
    j["version"] = 1;
    j["traces"] = a.traces;
    j["params"] = {{"L_ns", p.L}, {"o_ns", p.o}, {"g_ns", p.g}, {"G_ns_per_byte", p.G}, {"O_ns_per_byte", p.O},
                   {"S_bytes", p.S}, {"from", w.params_from}};
    j["dedicated_comp_factor"] = w.opts.dedicated_comp_factor;
    j["chunks"] = w.opts.chunks;
    j["messages"] = lt.messages.size();
    j["traced_ns"] = r.traced_ns;
    j["replay_error_rel"] = err;
    for (sim::scenario sc : sim::all_scenarios) {
      const auto i = static_cast<std::size_t>(sc);
      nlohmann::json s{{"name", sim::scenario_name(sc)}, {"finish_ns", r.sims[i].finish_ns},
                       {"makespan_ns", makespans[i]}, {"speedup", r.speedup(sc)}};
      if (i > 0 && !a.no_sweep)
        s["bandwidth_to_match_in_calls"] = needs[i].scenario_needs,
        s["in_calls_bandwidth_to_match"] = needs[i].calls_needs;
      j["scenarios"].push_back(s);
    }
    j["sweep"] = nlohmann::json::array();
    for (const auto& sp : sweep)
      j["sweep"].push_back({{"bandwidth_factor", sp.bandwidth_factor}, {"makespan_ns", sp.makespan_ns}});
    j["warnings"] = lt.warnings;
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  std::cout << fmt::format("sidecore whatif: {} ranks, {} messages replayed; traces recorded in mode {}, provider {}, "
                           "{} OpenMP thread(s)\n",
                           nr, lt.messages.size(), lt.ranks[0].mode, lt.ranks[0].provider, lt.ranks[0].omp_threads);
  std::cout << fmt::format("LogGOPS: L={:g} o={:g} g={:g} G={:g} O={:g} S={} ({})\n", p.L, p.o, p.g, p.G, p.O, p.S,
                           w.params_from);
  std::cout << fmt::format("dedicated core: {}; ideal overlap: {} chunk(s) per message\n\n", w.scaling_text,
                           w.opts.chunks);
  std::string head = fmt::format("{:<20}", "time (ms)");
  for (std::uint32_t i = 0; i < nr && i < 16; ++i) head += fmt::format(" {:>10}", fmt::format("rank {}", i));
  std::cout << head << fmt::format(" {:>10} {:>8}\n", "run", "speedup");
  std::string row = fmt::format("{:<20}", "traced run");
  for (std::uint32_t i = 0; i < nr && i < 16; ++i) row += fmt::format(" {:>10}", ms(r.traced_ns[i]));
  std::cout << row << fmt::format(" {:>10}\n", ms(traced));
  for (sim::scenario sc : sim::all_scenarios) {
    const auto i = static_cast<std::size_t>(sc);
    row = fmt::format("{:<20}", sim::scenario_name(sc));
    for (std::uint32_t k = 0; k < nr && k < 16; ++k) row += fmt::format(" {:>10}", ms(r.sims[i].finish_ns[k]));
    std::cout << row << fmt::format(" {:>10} {:>8.3f}\n", ms(makespans[i]), r.speedup(sc));
  }
  std::cout << fmt::format("\nprogress in calls against the traced run: {:+.1f} %\n", err * 100);
  if (!a.no_sweep) {
    std::cout << "\nbandwidth sweep (G divided by the factor; speedups against progress in calls at that bandwidth):\n";
    std::cout << fmt::format("{:>10} {:>14} {:>14} {:>14} {:>10} {:>10}\n", "bandwidth", "in calls (ms)",
                             "dedicated (ms)", "ideal (ms)", "dedicated", "ideal");
    for (const auto& sp : sweep)
      std::cout << fmt::format("{:>9.4g}x {:>14} {:>14} {:>14} {:>10.3f} {:>10.3f}\n", sp.bandwidth_factor,
                               ms(sp.makespan_ns[0]), ms(sp.makespan_ns[1]), ms(sp.makespan_ns[2]),
                               sp.makespan_ns[0] / sp.makespan_ns[1], sp.makespan_ns[0] / sp.makespan_ns[2]);
    for (std::size_t s = 1; s < 3; ++s)
      std::cout << fmt::format("{} matches progress in calls ({} ms) {}; progress in calls matches it ({} ms) {}\n",
                               sim::scenario_name(sim::all_scenarios[s]), ms(makespans[0]),
                               need_text(needs[s].scenario_needs), ms(makespans[s]), need_text(needs[s].calls_needs));
  }
  for (const std::string& wn : lt.warnings) std::cout << "warning: " << wn << "\n";
  return 0;
}

}  // namespace sidecore::tools
