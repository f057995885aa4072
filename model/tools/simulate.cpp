// `sidecore simulate` (simulate.hpp, docs/simulate.md).
#include "simulate.hpp"

#include <chrono>
#include <climits>
#include <cmath>
#include <sstream>
#include <iostream>
#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sidecore/common/input_error.hpp"
#include "sidecore/model/sim/collective.hpp"
#include "sidecore/model/sim/goal.hpp"
#include "sidecore/model/sim/timeline.hpp"
#include "cli_values.hpp"
#include "write_file.hpp"

namespace sidecore::tools {

namespace sim = sidecore::model::sim;

CLI::App* add_simulate(CLI::App& app, simulate_args& a) {
  CLI::App* c = app.add_subcommand(
      "simulate", "simulate a GOAL schedule (LogGOPSim's format) or one of sidecore's collectives (--pattern) with the "
      "LogGOPS model and print each rank's finish time");
  c->add_option("goal", a.goal_file, "GOAL text file (LogGOPSim's schedule language)");
  // The accepted range of L, o, g, G, O and the per-byte costs (sim::validate, check_cost).
  const std::string range = fmt::format("in [0, {:g}]", sim::max_param_ns);
  c->add_option("-L", a.params.L, "latency L in ns, " + range + " (default 2500)");
  c->add_option("-o", a.params.o, "CPU overhead o per message in ns, " + range + " (default 1500)");
  c->add_option("-g", a.params.g, "NIC gap g per message in ns, " + range + " (default 1000)");
  c->add_option("-G", a.params.G, "NIC gap G per byte in ns, " + range + " (default 6)");
  c->add_option("-O", a.params.O, "CPU overhead O per byte in ns, " + range + " (default 0)");
  c->add_option("-S", a.params.S, "largest eager message in bytes; larger ones use rendezvous (default 65535)");
  c->add_flag("-b,--batchmode", a.batch, "print only the latest finishing rank, whatever the rank count");
  c->add_flag("--all-hosts", a.all_hosts, "print every rank's finish time, also above 16 ranks");
  c->add_option("--format", a.format, "output: text (default) or json")->check(CLI::IsMember({"text", "json"}));
  c->add_option("--pattern", a.pattern,
                "simulate sidecore's schedule of a collective instead of a file: KIND[:ALGORITHM] as the "
                "SIDECORE_COLL_* settings name them (allreduce:ring, bcast, alltoall:bruck; auto when left out), or "
                "binomial-bcast (= bcast:binomial)");
  a.pattern_options.push_back(c->add_option("--ranks", a.ranks,
                fmt::format("ranks of the collective, an integer in [1 - {}] whose schedule has at most {} operations "
                            "(every kind has at least 2 per rank but one: at most {} ranks)",
                            INT_MAX, sim::max_collective_ops, sim::max_collective_ops / 2 + 1))
      ->check(CLI::Range(1, INT_MAX)));
  a.pattern_options.push_back(
      c->add_option("--bytes", a.bytes,
                    "bytes of the collective: the buffer of bcast, reduce, allreduce; each rank's block of the others "
                    "(default 8; reductions sum float64, so a multiple of 8)"));
  a.pattern_options.push_back(c->add_option("--root", a.root, "root of bcast, reduce, gather, scatter (default 0)"));
  a.pattern_options.push_back(c->add_option(
      "--segment", a.segment, "pipelining segment in bytes, as SIDECORE_COLL_SEGMENT (default 131072)"));
  a.pattern_options.push_back(c->add_option("--reduce-ns-per-byte", a.reduce_ns_per_byte,
                                            "CPU time of a collective's reductions in ns per byte, " + range +
                                                " (default 0)"));
  a.pattern_options.push_back(c->add_option("--copy-ns-per-byte", a.copy_ns_per_byte,
                                            "CPU time of a collective's local copies in ns per byte, " + range +
                                                " (default 0)"));
  c->add_option("--write-goal", a.write_goal, "also write the simulated schedule as a GOAL file");
  c->add_option("--timeline", a.timeline,
                fmt::format("write the simulation's timeline as Chrome trace-event JSON (Perfetto): CPUs' calcs "
                            "and o, messages; of a schedule of at most {} operations", sim::max_timeline_ops));
  return c;
}

namespace {

void check_cost(double v, const char* option) {
  if (!std::isfinite(v) || v < 0 || v > sim::max_param_ns)
    throw input_error::refused(option, fmt::format("{}", v),
                               fmt::format("a number of nanoseconds per byte in [0, {:g}]", sim::max_param_ns));
}

sim::schedule load(const simulate_args& a) {
  if (!a.pattern.empty()) {
    if (!a.goal_file.empty()) throw input_error("--pattern", "", "give either a GOAL file or --pattern, not both");
    sim::collective_call call = sim::parse_collective_pattern(a.pattern);
    if (!a.ranks) throw input_error("--ranks", "", "--pattern needs --ranks N (accepted: 1 .. 2147483647)");
    if (a.root && !sim::has_root(call.kind))
      throw input_error("--root", "", fmt::format("{} has no root; accepted: --root only with bcast, reduce, gather, "
                                                  "scatter", sidecore::coll::kind_name(call.kind)));
    check_cost(a.reduce_ns_per_byte, "--reduce-ns-per-byte");
    check_cost(a.copy_ns_per_byte, "--copy-ns-per-byte");
    call.ranks = *a.ranks;
    call.bytes = a.bytes;
    call.root = a.root.value_or(0);
    // 0 is the call's "the default segment": given on the command line it is a segment size, and out of range.
    for (const CLI::Option* o : a.pattern_options)
      if (o->get_name() == "--segment" && o->count() > 0 && a.segment == 0)
        throw input_error::refused("--segment", "0", "a size in bytes in [1024 - 67108864] (the range of "
                                                     "SIDECORE_COLL_SEGMENT)");
    call.segment_bytes = a.segment;
    return sim::build_collective(call, {a.reduce_ns_per_byte, a.copy_ns_per_byte});
  }
  if (a.goal_file.empty())
    throw input_error("GOAL", "", "no input: give a GOAL file or --pattern KIND[:ALGORITHM] --ranks N");
  for (const CLI::Option* o : a.pattern_options)
    if (o->count() > 0)
      throw input_error::refused(o->get_name(), o->results().back(),
                                 o->get_name() + " together with --pattern (a GOAL file gives the whole schedule)");
  return sim::read_goal_file(a.goal_file);
}

// Beyond a 64-bit integer (a calc of 2^64 ns) std::llround is undefined (glibc gives -9223372036854775808): the
// double's integer digits instead.
bool fits_llround(double t) { return std::abs(t) < 9.2e18; }
std::string ns_text(double t) {
  return fits_llround(t) ? fmt::format("{}", std::llround(t)) : fmt::format("{:.0f}", t);
}
// The seconds of "Maximum finishing time at host H: T (X s)": LogGOPSim writes the integer T divided by 1e9 with
// std::cout's default format (%g, six significant digits: 1435023 ns is "0.00143502 s"), so this does the same.
std::string seconds_text(double t) {
  std::ostringstream out;
  out << (fits_llround(t) ? static_cast<double>(std::llround(t)) : std::round(t)) / 1e9;
  return out.str();
}

// The simulator's clocks are doubles, exact for every integer nanosecond below 2^53 (about 104 days) only.
void warn_if_inexact(const sim::sim_result& r) {
  const double latest = r.makespan_ns();
  if (latest < 9007199254740992.0) return;
  std::cout.flush();  // the warning comes after the times it is about
  std::cerr << fmt::format("sidecore simulate: warning: the latest finish time, {} ns, is past 2^53 ns (about 104 "
                           "days), where the simulator's clocks (doubles) no longer hold every nanosecond: the times "
                           "printed may be off by {} ns or more\n",
                           ns_text(latest), ns_text(std::nextafter(latest, HUGE_VAL) - latest));
}

}  // namespace

int run_simulate(const simulate_args& a) {
  check_outputs({{"FILE", a.goal_file}}, {{"--write-goal", a.write_goal}, {"--timeline", a.timeline}});
  sim::validate(a.params);
  const sim::schedule s = load(a);
  if (!a.timeline.empty() && s.num_ops() > sim::max_timeline_ops)
    throw input_error("--timeline", "",
                      fmt::format("{} has {} operations; accepted: a timeline of at most {} operations (leave "
                                  "--timeline out, or simulate fewer ranks)", s.source(), s.num_ops(),
                                  sim::max_timeline_ops));
  const auto t0 = std::chrono::steady_clock::now();
  std::optional<sim::chrome_timeline> timeline;
  if (!a.timeline.empty()) timeline.emplace(s);
  const sim::sim_result r = sim::simulate(s, a.params, timeline ? &*timeline : nullptr);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!r.complete) {
    std::cerr << fmt::format("sidecore simulate: error: {}: {}:\n", s.source(), r.failure_summary());
    for (const std::string& p : r.problems) std::cerr << "  " << p << "\n";
    return 2;
  }
  // Only a simulation that completed writes its outputs: a failing command leaves no file behind (check_outputs).
  if (!a.write_goal.empty()) {
    std::ostringstream text;
    sim::write_goal(s, text);
    write_file(a.write_goal, text.str(), "--write-goal");
  }
  const sim::loggops_params& p = a.params;
  if (a.format == "json") {
    nlohmann::json j;
    j["schema"] = "sidecore-simulate";
    j["version"] = 1;
    j["source"] = s.source();
    j["params"] = {{"L_ns", p.L}, {"o_ns", p.o}, {"g_ns", p.g}, {"G_ns_per_byte", p.G}, {"O_ns_per_byte", p.O},
                   {"S_bytes", p.S}};
    j["ranks"] = s.num_ranks();
    j["finish_ns"] = r.finish_ns;
    j["makespan_ns"] = r.makespan_ns();
    j["events"] = r.events;
    j["messages"] = r.messages;
    j["size_mismatches"] = r.size_mismatches;
    std::cout << j.dump(2) << "\n";
    if (timeline) write_file(a.timeline, timeline->json(), "--timeline");
    warn_if_inexact(r);
    return 0;
  }
  // LogGOPSim's output: every host up to 16 ranks, else the latest one.
  if ((s.num_ranks() <= 16 || a.all_hosts) && !a.batch) {
    for (std::uint32_t i = 0; i < s.num_ranks(); ++i)
      std::cout << "Host " << i << ": " << ns_text(r.finish_ns[i]) << "\n";
  } else {
    std::uint32_t host = 0;
    for (std::uint32_t i = 1; i < s.num_ranks(); ++i)
      if (r.finish_ns[i] > r.finish_ns[host]) host = i;
    std::cout << fmt::format("Maximum finishing time at host {}: {} ({} s)\n", host, ns_text(r.finish_ns[host]),
                             seconds_text(r.finish_ns[host]));
  }
  std::cout << fmt::format("LogGOPS: L={} o={} g={} G={} O={} S={}; {} ranks ({} CPU, {} NIC each); {}\n", p.L, p.o,
                           p.g, p.G, p.O, p.S, s.num_ranks(), s.num_cpus(), s.num_nics(), s.source());
  std::cout << fmt::format("simulated: {} operations, {} messages, {} events in {:.3f} s ({:.3g} events/s)\n",
                           s.num_ops(), r.messages, r.events, secs,
                           secs > 0 ? static_cast<double>(r.events) / secs : 0.0);
  if (r.size_mismatches)
    std::cout << fmt::format("note: {} receive(s) matched a message of another size (LogGOPSim then decides eager or "
                             "rendezvous by whichever of the two was posted second)\n", r.size_mismatches);
  // After the finish times, which come first as in LogGOPSim (a message about replacing the file comes after them).
  if (timeline) write_file(a.timeline, timeline->json(), "--timeline");
  warn_if_inexact(r);
  return 0;
}

}  // namespace sidecore::tools
