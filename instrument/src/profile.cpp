// Profile JSON (schema "sidecore-profile", version 1; docs/profile-schema.md): rank profiles and their merge into a
// job profile. Written with nlohmann_json only: instrument/ does not link the model (layering).
#include <algorithm>
#include <limits>
#include <map>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "profile_data.hpp"
#include "sidecore/instrument/instrument.hpp"

namespace sidecore::instrument {

namespace {
using json = nlohmann::ordered_json;  // keeps the schema's field order in the output
constexpr std::string_view schema_name = "sidecore-profile";
constexpr int schema_version = 1;

double s(std::uint64_t ns) { return static_cast<double>(ns) * 1e-9; }

json bounds_json(const internal::overlap_acc& a) {
  return json{{"min_s", s(a.min_ns)}, {"max_s", s(a.max_ns)}, {"xfer_time_s", s(a.xfer_ns)}, {"count", a.count}};
}
}  // namespace

namespace internal {

std::string rank_profile_to_json(const profile_data& p) {
  json j;
  j["schema"] = schema_name;
  j["schema_version"] = schema_version;
  j["kind"] = "rank";
  j["rank"] = p.rank;
  j["nranks"] = p.nranks;
  j["mode"] = p.mode;
  j["provider"] = p.provider;
  j["n_core"] = p.n_core;
  j["t_total_s"] = p.t_total_s;
  j["t_comp_s"] = p.t_comp_s;
  if (!p.command.empty()) j["command"] = p.command;
  json cats = json::object();
  for (std::size_t c = 0; c < category_count; ++c) {
    const category_acc& a = p.categories[c];
    cats[std::string(category_name(static_cast<category>(c)))] = {
        {"time_s", s(a.time_ns)}, {"count", a.count}, {"min_s", a.count == 0 ? 0.0 : s(a.min_ns)}};
  }
  j["categories"] = std::move(cats);
  json ov;
  ov["xfer_time_source"] = p.xfer_time_source;
  ov["total"] = bounds_json(p.total);
  json by_size = json::array();
  for (const auto& b : p.by_size) {
    json e = bounds_json(b.acc);
    e["lo_bytes"] = b.lo;
    // The schema's bins are inclusive on both ends; the last bin is unbounded.
    e["hi_bytes"] = b.bounded ? b.hi - 1 : std::numeric_limits<std::uint64_t>::max();
    by_size.push_back(std::move(e));
  }
  ov["by_size"] = std::move(by_size);
  json by_region = json::array();
  for (const auto& r : p.by_region) {
    json e = bounds_json(r.acc);
    e["name"] = r.name;
    by_region.push_back(std::move(e));
  }
  ov["by_region"] = std::move(by_region);
  j["overlap"] = std::move(ov);
  json regions = json::array();
  for (const auto& r : p.regions) {
    json rc = json::object();
    for (std::size_t c = 0; c < category_count; ++c) {
      rc[std::string(category_name(static_cast<category>(c)))] = {{"time_s", s(r.cats[c].time)},
                                                                  {"count", r.cats[c].count}};
    }
    regions.push_back({{"name", r.name}, {"entries", r.entries}, {"time_s", s(r.time_ns)}, {"categories", std::move(rc)}});
  }
  j["regions"] = std::move(regions);
  json clock = {{"source", p.clock_source}};
  if (p.tsc_hz > 0) clock["tsc_hz"] = p.tsc_hz;
  if (!p.clock_note.empty()) clock["note"] = p.clock_note;
  j["event_clock"] = std::move(clock);
  if (p.has_progress) {
    j["progress_thread"] = {{"busy_s", p.progress_busy_s},
                            {"idle_s", p.progress_idle_s},
                            {"polls", p.progress_polls},
                            {"completions", p.progress_completions}};
  }
  return j.dump(2) + "\n";
}

}  // namespace internal

namespace {

[[noreturn]] void bad(std::size_t i, const std::string& what) {
  throw std::invalid_argument(fmt::format("merge_job_profile: input {}: {}", i, what));
}

// A merge target: a default-constructed json is null, which value() refuses; make it an object.
json& slot(json& j) {
  if (j.is_null()) j = json::object();
  return j;
}

void add_bounds(json& into, const json& from) {
  for (const char* k : {"min_s", "max_s", "xfer_time_s"}) into[k] = into.value(k, 0.0) + from.value(k, 0.0);
  into["count"] = into.value("count", std::uint64_t{0}) + from.value("count", std::uint64_t{0});
}

}  // namespace

std::string merge_job_profile(const std::vector<std::string>& rank_jsons) {
  if (rank_jsons.empty()) throw std::invalid_argument("merge_job_profile: no rank profiles");
  std::vector<json> ranks;
  for (std::size_t i = 0; i < rank_jsons.size(); ++i) {
    json r;
    try {
      r = json::parse(rank_jsons[i]);
    } catch (const json::exception& e) {
      bad(i, std::string("not JSON: ") + e.what());
    }
    if (!r.is_object() || r.value("schema", "") != schema_name || r.value("schema_version", 0) != schema_version) {
      bad(i, fmt::format("not a \"{}\" version {} profile", schema_name, schema_version));
    }
    if (r.value("kind", "") != "rank") bad(i, "kind must be \"rank\"");
    for (const char* k : {"rank", "nranks", "mode", "provider", "n_core", "t_total_s", "t_comp_s", "categories"}) {
      if (!r.contains(k)) bad(i, fmt::format("missing field \"{}\"", k));
    }
    ranks.push_back(std::move(r));
  }
  // Sorted by rank; errors name the inputs by their position in rank_jsons.
  std::vector<std::size_t> order(ranks.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return ranks[a]["rank"] < ranks[b]["rank"]; });
  for (std::size_t k = 1; k < order.size(); ++k) {
    const std::size_t i = order[k], prev = order[k - 1];
    if (ranks[i]["rank"] == ranks[prev]["rank"]) {
      bad(i, fmt::format("rank {} appears twice (also input {})", ranks[i]["rank"].dump(), prev));
    }
  }
  for (std::size_t i = 1; i < ranks.size(); ++i) {
    if (ranks[i]["mode"] != ranks[0]["mode"]) {
      bad(i, fmt::format("mode {} differs from input 0's {}: a job profile does not mix modes", ranks[i]["mode"].dump(),
                         ranks[0]["mode"].dump()));
    }
  }
  {
    std::vector<json> sorted;
    sorted.reserve(ranks.size());
    for (const std::size_t i : order) sorted.push_back(std::move(ranks[i]));
    ranks = std::move(sorted);
  }
  const json& r0 = ranks.front();
  json j;
  j["schema"] = schema_name;
  j["schema_version"] = schema_version;
  j["kind"] = "job";
  j["nranks"] = r0["nranks"];
  j["mode"] = r0["mode"];
  j["provider"] = r0["provider"];
  j["n_core"] = r0["n_core"];
  if (r0.contains("command")) j["command"] = r0["command"];
  // Job totals follow the model's merge (model/include/sidecore/common/profile.hpp, make_job_profile): times of the
  // run are the maximum over ranks; category times and counts are summed, minima are the minimum; overlap and
  // progress-thread figures are summed.
  double t_total = 0, t_comp = 0;
  json cats = json::object();
  bool any_overlap = false, any_progress = false;
  json total = json::object();
  std::map<std::pair<std::uint64_t, std::uint64_t>, json> bins;  // ascending sizes
  std::map<std::string, json> regions;
  std::map<std::string, json> region_times;  // "regions", summed by name
  std::vector<std::string> sources;
  json prog = {{"busy_s", 0.0}, {"idle_s", 0.0}, {"polls", 0}, {"completions", 0}};
  for (const json& r : ranks) {
    t_total = std::max(t_total, r["t_total_s"].get<double>());
    t_comp = std::max(t_comp, r["t_comp_s"].get<double>());
    for (const auto& [name, c] : r["categories"].items()) {
      json& m = slot(cats[name]);
      const auto count = c.value("count", std::uint64_t{0});
      const auto prev = m.value("count", std::uint64_t{0});
      m["time_s"] = m.value("time_s", 0.0) + c.value("time_s", 0.0);
      if (count > 0) m["min_s"] = prev == 0 ? c.value("min_s", 0.0) : std::min(m.value("min_s", 0.0), c.value("min_s", 0.0));
      else if (!m.contains("min_s")) m["min_s"] = 0.0;
      m["count"] = prev + count;
    }
    if (auto it = r.find("overlap"); it != r.end() && it->is_object()) {
      any_overlap = true;
      const std::string src = it->value("xfer_time_source", "none");
      if (std::find(sources.begin(), sources.end(), src) == sources.end()) sources.push_back(src);
      add_bounds(total, it->value("total", json::object()));
      for (const json& b : it->value("by_size", json::array())) {
        json& m = slot(bins[{b.value("lo_bytes", std::uint64_t{0}), b.value("hi_bytes", std::uint64_t{0})}]);
        m["lo_bytes"] = b["lo_bytes"];
        m["hi_bytes"] = b["hi_bytes"];
        add_bounds(m, b);
      }
      for (const json& b : it->value("by_region", json::array())) {
        json& m = slot(regions[b.value("name", "")]);
        m["name"] = b["name"];
        add_bounds(m, b);
      }
    }
    if (auto it = r.find("regions"); it != r.end() && it->is_array()) {
      for (const json& g : *it) {
        if (!g.is_object()) continue;
        json& m = slot(region_times[g.value("name", "")]);
        m["name"] = g.value("name", "");
        m["entries"] = m.value("entries", std::uint64_t{0}) + g.value("entries", std::uint64_t{0});
        m["time_s"] = m.value("time_s", 0.0) + g.value("time_s", 0.0);
        json& mc = slot(m["categories"]);
        for (std::size_t c = 0; c < category_count; ++c) {
          const std::string name(category_name(static_cast<category>(c)));
          json& mcc = slot(mc[name]);
          const json from = g.contains("categories") && g["categories"].contains(name) ? g["categories"][name]
                                                                                         : json::object();
          mcc["time_s"] = mcc.value("time_s", 0.0) + from.value("time_s", 0.0);
          mcc["count"] = mcc.value("count", std::uint64_t{0}) + from.value("count", std::uint64_t{0});
        }
      }
    }
    if (auto it = r.find("progress_thread"); it != r.end() && it->is_object()) {
      any_progress = true;
      prog["busy_s"] = prog["busy_s"].get<double>() + it->value("busy_s", 0.0);
      prog["idle_s"] = prog["idle_s"].get<double>() + it->value("idle_s", 0.0);
      prog["polls"] = prog["polls"].get<std::uint64_t>() + it->value("polls", std::uint64_t{0});
      prog["completions"] = prog["completions"].get<std::uint64_t>() + it->value("completions", std::uint64_t{0});
    }
  }
  j["t_total_s"] = t_total;
  j["t_comp_s"] = t_comp;
  j["categories"] = std::move(cats);
  if (any_overlap) {
    json ov;
    std::string src;
    for (const auto& x : sources) src += (src.empty() ? "" : "; ") + x;
    ov["xfer_time_source"] = src;
    ov["total"] = total.empty() ? bounds_json({}) : total;
    json by_size = json::array();
    for (auto& [k, v] : bins) by_size.push_back(std::move(v));
    ov["by_size"] = std::move(by_size);
    json by_region = json::array();
    for (auto& [k, v] : regions) by_region.push_back(std::move(v));
    ov["by_region"] = std::move(by_region);
    j["overlap"] = std::move(ov);
  }
  json regions_out = json::array();
  for (auto& [k, v] : region_times) regions_out.push_back(std::move(v));
  j["regions"] = std::move(regions_out);
  if (any_progress) {
    j["progress_thread"] = std::move(prog);
  }
  j["ranks"] = std::move(ranks);
  return j.dump(2) + "\n";
}

}  // namespace sidecore::instrument
