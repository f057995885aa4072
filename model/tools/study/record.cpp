// The study's JSON record (record.hpp).
#include "record.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <set>
#include <type_traits>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "sidecore/common/input_error.hpp"
#include "sidecore/common/input_limits.hpp"
#include "sidecore/common/json_input.hpp"

namespace sidecore::tools::study {
namespace {

using nlohmann::json;

constexpr const char* schema_name = "sidecore-study";
constexpr int schema_version = 1;
// The ranges of a record's numbers: --reps as validate() takes it, the cores of a rank (profiles take at most 2^20
// threads), a load average far above any host's.
constexpr int max_record_reps = 99;
constexpr int max_record_cores = 1 << 20;
constexpr double max_record_load = 1e6;

json settings_json(const config& c) {
  json j;
  j["app"] = c.app;
  j["ranks"] = c.ranks;
  j["inputs"] = c.inputs;
  j["reps"] = c.reps;
  j["alphas"] = c.alphas;
  j["alpha_option"] = c.alpha_option;
  j["mpiexec"] = c.mpiexec;
  j["preload"] = c.preload;
  j["preload_library"] = c.preload_library;
  j["cores_per_rank"] = c.cores_per_rank ? json(*c.cores_per_rank) : json(nullptr);
  j["host_cores"] = c.host_cores ? json(*c.host_cores) : json(nullptr);
  return j;
}

// Reads j[key] as T, or throws input_error naming the JSON path. A number read into an integer must be an integer
// within T's range: nlohmann converts a float (27777777777777777777 is read as one) or a wider integer with a bare
// cast, undefined beyond the range.
template <class T>
T field(const json& j, const char* key, const std::string& source, const std::string& path) {
  const std::string where = path.empty() ? key : path + "." + key;
  if (!j.is_object() || !j.contains(key)) throw input_error(source, where, "missing");
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    const json& v = j.at(key);
    const bool fits = v.is_number_unsigned()  ? std::in_range<T>(v.get<std::uint64_t>())
                      : v.is_number_integer() ? std::in_range<T>(v.get<std::int64_t>())
                                              : !v.is_number();  // not a number: the wrong type, below
    if (!fits)
      throw input_error(source, where, fmt::format("{} is not accepted; accepted: an integer in {}..{}", v.dump(),
                                                   std::numeric_limits<T>::min(), std::numeric_limits<T>::max()));
  }
  try {
    return j.at(key).get<T>();
  } catch (const json::exception&) {
    throw input_error(source, where, fmt::format("has the wrong type: {}", j.at(key).dump()));
  }
}

// j[key] as a number in [lo, hi] (finite), or input_error naming the file, the field, the value and the range:
// a resumed record's numbers are compared as measured, so a damaged one must not pass for a measurement.
double number_in(const json& j, const char* key, const std::string& source, const std::string& path, double lo,
                 double hi, const char* what) {
  const double v = field<double>(j, key, source, path);
  if (!(v >= lo && v <= hi))
    throw input_error(source, path.empty() ? key : path + "." + key,
                      fmt::format("{} is not accepted; accepted: {} in [{:g}, {:g}]", j.at(key).dump(), what, lo, hi));
  return v;
}

// j[key] as an integer in [lo, hi], likewise; `why` (may be empty) says where the range comes from.
int int_in(const json& j, const char* key, const std::string& source, const std::string& path, int lo, int hi,
           const std::string& why = "") {
  const int v = field<int>(j, key, source, path);
  if (v < lo || v > hi)
    throw input_error(source, path.empty() ? key : path + "." + key,
                      fmt::format("{} is not accepted; accepted: an integer in [{} - {}]{}", v, lo, hi,
                                  why.empty() ? "" : " (" + why + ")"));
  return v;
}

std::optional<int> optional_int(const json& j, const char* key, const std::string& source, const std::string& path) {
  if (!j.contains(key) || j.at(key).is_null()) return std::nullopt;
  return field<int>(j, key, source, path);
}

config settings_from(const json& j, const std::string& source) {
  config c;
  const std::string p = "settings";
  c.app = field<std::vector<std::string>>(j, "app", source, p);
  c.ranks = int_in(j, "ranks", source, p, 1, max_study_ranks);
  c.inputs = field<std::vector<std::string>>(j, "inputs", source, p);
  c.reps = int_in(j, "reps", source, p, 1, max_record_reps);
  c.alphas = field<std::vector<double>>(j, "alphas", source, p);
  c.alpha_option = field<std::string>(j, "alpha_option", source, p);
  c.mpiexec = field<std::string>(j, "mpiexec", source, p);
  c.preload = field<bool>(j, "preload", source, p);
  c.preload_library = field<std::string>(j, "preload_library", source, p);
  c.cores_per_rank = optional_int(j, "cores_per_rank", source, p);
  c.host_cores = optional_int(j, "host_cores", source, p);
  return c;
}

json run_json(const run_record& r) {
  return json{{"id", r.spec.id},
              {"case", r.spec.case_index},
              {"kind", run_kind_name(r.spec.kind)},
              {"alpha", r.spec.alpha},
              {"rep", r.spec.rep},
              {"command", r.command},
              {"ok", r.ok},
              {"exit_status", r.exit_status},
              {"stderr_tail", r.stderr_tail},
              {"error", r.error},
              {"wall_s", r.wall_s},
              {"profile", r.profile},
              {"t_total_s", r.t_total_s},
              {"t_comp_s", r.t_comp_s},
              {"n_core", r.n_core},
              {"provider", r.provider},
              {"blocking_calls", r.blocking_calls},
              {"load_before", r.load_before}};
}

// A run of the record whose settings are `c` (its cases and repetitions bound the run's case and rep).
run_record run_from(const json& j, const config& c, const std::string& source, const std::string& path) {
  run_record r;
  const int cases = static_cast<int>(c.cases().size());
  r.spec.id = field<std::string>(j, "id", source, path);
  r.spec.case_index = int_in(j, "case", source, path, 0, cases - 1, fmt::format("the record's {} cases", cases));
  r.spec.kind = parse_run_kind(field<std::string>(j, "kind", source, path), source + ": " + path);
  r.spec.alpha = number_in(j, "alpha", source, path, 0, 1, "a number");
  r.spec.rep = int_in(j, "rep", source, path, 0, c.reps - 1, fmt::format("the record's --reps {}", c.reps));
  r.command = field<std::string>(j, "command", source, path);
  r.ok = field<bool>(j, "ok", source, path);
  r.exit_status = field<int>(j, "exit_status", source, path);
  r.stderr_tail = field<std::string>(j, "stderr_tail", source, path);
  r.error = field<std::string>(j, "error", source, path);
  r.wall_s = number_in(j, "wall_s", source, path, 0, max_input_seconds, "a number of seconds");
  r.profile = field<std::string>(j, "profile", source, path);
  r.t_total_s = number_in(j, "t_total_s", source, path, 0, max_input_seconds, "a number of seconds");
  r.t_comp_s = number_in(j, "t_comp_s", source, path, 0, max_input_seconds, "a number of seconds");
  // A finished run read its core count from its profile; a failed one may have none (0).
  r.n_core = r.ok ? int_in(j, "n_core", source, path, 1, max_record_cores, "a run that finished")
                  : int_in(j, "n_core", source, path, 0, max_record_cores);
  r.provider = field<std::string>(j, "provider", source, path);
  r.blocking_calls = field<std::uint64_t>(j, "blocking_calls", source, path);
  if (j.contains("load_before"))
    r.load_before = number_in(j, "load_before", source, path, 0, max_record_load, "a number");
  return r;
}

}  // namespace

const run_record* study_record::done(const std::string& id) const {
  for (const auto& r : runs)
    if (r.ok && r.spec.id == id) return &r;
  return nullptr;
}

std::vector<run_record> runs_to_resume(std::vector<run_record> old, const std::vector<run_spec>& plan,
                                       const std::function<std::string(const run_record&)>& profile_problem,
                                       std::vector<std::string>& dropped) {
  std::vector<run_record> kept;
  std::set<std::string> ids;
  for (run_record& r : old) {
    if (!r.ok) continue;
    const auto in_plan = std::find_if(plan.begin(), plan.end(), [&](const run_spec& p) { return p.id == r.spec.id; });
    std::string why;
    if (in_plan == plan.end()) {
      why = "not a run of this study's plan";
    } else if (in_plan->kind != r.spec.kind) {
      why = fmt::format("the record says {} where the plan has {}", run_kind_name(r.spec.kind),
                        run_kind_name(in_plan->kind));
    } else if (in_plan->case_index != r.spec.case_index || in_plan->rep != r.spec.rep ||
               in_plan->alpha != r.spec.alpha) {
      why = fmt::format("the record's case {}, repetition {}, alpha {} are not the plan's ({}, {}, {})",
                        r.spec.case_index, r.spec.rep, r.spec.alpha, in_plan->case_index, in_plan->rep,
                        in_plan->alpha);
    } else if (ids.contains(r.spec.id)) {
      why = "given twice";
    } else if (std::string p = profile_problem(r); !p.empty()) {
      why = "its profile: " + p;
    }
    if (!why.empty()) {
      dropped.push_back(r.spec.id + ": " + why);
      continue;
    }
    ids.insert(r.spec.id);
    kept.push_back(std::move(r));
  }
  return kept;
}

std::string to_json_text(const study_record& r, const json* comparison) {
  json j;
  j["schema"] = schema_name;
  j["schema_version"] = schema_version;
  j["settings"] = settings_json(r.settings);
  j["runs"] = json::array();
  for (const auto& run : r.runs) j["runs"].push_back(run_json(run));
  if (comparison) j["comparison"] = *comparison;
  // The app's stderr may hold any bytes: those that are not UTF-8 are saved as U+FFFD (validate() keeps the
  // settings UTF-8; a run's text must not cost the record).
  return j.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

study_record parse_record(const std::string& text, const std::string& source) {
  const json j = parse_json_input(text, source);
  const auto schema = field<std::string>(j, "schema", source, "");
  if (schema != schema_name)
    throw input_error(source, "schema", fmt::format("\"{}\": a study record has schema \"{}\"", schema, schema_name));
  const int version = field<int>(j, "schema_version", source, "");
  if (version != schema_version)
    throw input_error(source, "schema_version",
                      fmt::format("{}: this sidecore reads version {}", version, schema_version));
  study_record r;
  r.settings = settings_from(field<json>(j, "settings", source, ""), source);
  const json runs = field<json>(j, "runs", source, "");
  if (!runs.is_array()) throw input_error(source, "runs", "must be an array");
  for (std::size_t i = 0; i < runs.size(); ++i)
    r.runs.push_back(run_from(runs[i], r.settings, source, fmt::format("runs[{}]", i)));
  return r;
}

void check_same_study(const config& stored, const config& now, const std::string& source) {
  auto differ = [&](const char* option, const std::string& was, const std::string& is) {
    throw input_error("--resume", option,
                      fmt::format("{} holds a study with {} {}, this command asks for {}: resume the same study, or "
                                  "give another --out",
                                  source, option, was, is));
  };
  const auto words = [](const std::vector<std::string>& v) { return fmt::format("\"{}\"", fmt::join(v, " ")); };
  if (stored.app != now.app) differ("APP", words(stored.app), words(now.app));
  if (stored.ranks != now.ranks) differ("-n", std::to_string(stored.ranks), std::to_string(now.ranks));
  if (stored.inputs != now.inputs) differ("--inputs", words(stored.inputs), words(now.inputs));
  if (stored.alphas != now.alphas)
    differ("--alpha", fmt::format("{}", fmt::join(stored.alphas, ",")), fmt::format("{}", fmt::join(now.alphas, ",")));
  if (stored.alpha_option != now.alpha_option) differ("--alpha-option", stored.alpha_option, now.alpha_option);
  if (stored.mpiexec != now.mpiexec) differ("--mpiexec", stored.mpiexec, now.mpiexec);
  if (stored.preload != now.preload) differ("--preload", stored.preload ? "on" : "off", now.preload ? "on" : "off");
  // More repetitions add runs; fewer would leave runs in the record that the medians still use, under a header
  // that says fewer.
  if (now.reps < stored.reps)
    throw input_error("--resume", "--reps",
                      fmt::format("{} holds a study with --reps {}, this command asks for {}; accepted: {} or more "
                                  "(more repetitions add runs)",
                                  source, stored.reps, now.reps, stored.reps));
  if (stored.cores_per_rank != now.cores_per_rank)
    differ("--cores-per-rank", stored.cores_per_rank ? std::to_string(*stored.cores_per_rank) : "(from the profile)",
           now.cores_per_rank ? std::to_string(*now.cores_per_rank) : "(from the profile)");
}

}  // namespace sidecore::tools::study
