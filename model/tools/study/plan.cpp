// The study's runs (plan.hpp).
#include "plan.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

#include "sidecore/common/input_error.hpp"

namespace sidecore::tools::study {

std::string_view run_kind_name(run_kind k) noexcept {
  switch (k) {
    case run_kind::calibration: return "calibration";
    case run_kind::scaling: return "scaling";
    case run_kind::dedicated: return "dedicated";
    case run_kind::alpha: return "alpha";
  }
  return "?";
}

run_kind parse_run_kind(std::string_view name, const std::string& source) {
  for (run_kind k : {run_kind::calibration, run_kind::scaling, run_kind::dedicated, run_kind::alpha})
    if (run_kind_name(k) == name) return k;
  throw input_error(source, "kind",
                    fmt::format("\"{}\" is not a run kind: calibration, scaling, dedicated or alpha", name));
}

std::vector<run_spec> make_plan(const config& c) {
  std::vector<run_spec> plan;
  const auto ncases = static_cast<int>(c.cases().size());
  for (int i = 0; i < ncases; ++i)
    for (int rep = 0; rep < c.reps; ++rep) {
      for (run_kind k : {run_kind::calibration, run_kind::scaling, run_kind::dedicated})
        plan.push_back({fmt::format("c{}.{}.r{}", i, run_kind_name(k), rep), i, k, 0.0, rep});
      for (double a : c.alphas)  // {}: the shortest text that reads back as a, so distinct points get distinct ids
        plan.push_back({fmt::format("c{}.alpha-{}.r{}", i, a, rep), i, run_kind::alpha, a, rep});
    }
  return plan;
}

launch make_launch(const config& c, const run_spec& r, int cores_per_rank, const std::string& profile_pattern) {
  launch l;
  l.argv = split_words(c.mpiexec);
  l.argv.push_back("-n");
  l.argv.push_back(std::to_string(c.ranks));
  l.argv.insert(l.argv.end(), c.app.begin(), c.app.end());
  for (auto& w : split_words(c.cases()[static_cast<std::size_t>(r.case_index)])) l.argv.push_back(std::move(w));
  if (r.kind == run_kind::alpha) {
    l.argv.push_back(c.alpha_option);
    l.argv.push_back(fmt::format("{}", r.alpha));  // shortest text that reads back as the same double
  }
  const bool core = r.kind == run_kind::dedicated || r.kind == run_kind::alpha;
  l.env["SIDECORE_PROGRESS"] = core ? "core" : "off";
  l.env["SIDECORE_PROFILE"] = profile_pattern;
  if (r.kind == run_kind::calibration && cores_per_rank > 0) l.env["OMP_NUM_THREADS"] = std::to_string(cores_per_rank);
  else if (r.kind == run_kind::scaling) l.env["OMP_NUM_THREADS"] = std::to_string(cores_per_rank - 1);
  else l.env["OMP_NUM_THREADS"] = std::nullopt;
  // The computation must be placed alike in every run, or the scaling table measures the placement: in core mode
  // sidecore's fence binds each OpenMP thread to one application core, so the runs in mode off bind one thread per
  // core too, N-1 threads filling places 0..N-2 and leaving the last core (the one core mode reserves by default)
  // idle. A preloaded app's core-mode runs get the same places: the PMPI library does not bind OpenMP's threads
  // itself, and close binding of its N-1 threads keeps them off the last core. Places the user set are theirs.
  const auto user_set = [](const char* name) {
    const char* v = std::getenv(name);
    return v != nullptr && *v != '\0';
  };
  const bool bind = !user_set("OMP_PLACES") && !user_set("OMP_PROC_BIND") && (!core || c.preload);
  if (bind) {
    l.env["OMP_PLACES"] = "cores";
    l.env["OMP_PROC_BIND"] = "close";
  }
  if (c.preload) {
    const char* old = std::getenv("LD_PRELOAD");
    l.env["LD_PRELOAD"] = old && *old ? c.preload_library + ":" + old : c.preload_library;
  }
  return l;
}

namespace {
// A word as a POSIX shell reads it back: as it is when every character is plain, else in single quotes (a quote
// inside written '\'').
std::string shell_word(const std::string& w) {
  const bool plain = !w.empty() && std::all_of(w.begin(), w.end(), [](char ch) {
    return std::isalnum(static_cast<unsigned char>(ch)) != 0 || std::strchr("_@%+=:,./-", ch) != nullptr;
  });
  if (plain) return w;
  std::string q = "'";
  for (char ch : w) q += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return q + "'";
}
}  // namespace

std::string describe(const launch& l) {
  // env(1) takes its -u options before the assignments: the string runs as it reads, pasted into a shell.
  std::string s = "env";
  for (const auto& [k, v] : l.env)
    if (!v) s += " -u " + shell_word(k);
  for (const auto& [k, v] : l.env)
    if (v) s += " " + shell_word(k + "=" + *v);
  for (const std::string& w : l.argv) s += " " + shell_word(w);
  return s;
}

}  // namespace sidecore::tools::study
