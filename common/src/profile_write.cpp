// sidecore profile: writing the JSON (docs/profile-schema.md), in the schema's field order.
#include "sidecore/common/profile.hpp"

#include <cctype>
#include <string>

#include <nlohmann/json.hpp>

#include "sidecore/common/input_error.hpp"
#include "sidecore/common/output_file.hpp"

namespace sidecore {
namespace {

using json = nlohmann::json;

// The writer, for nlohmann::json (keys sorted) and ordered_json (the schema's field order, as written to files).
template <class J>
J categories_json(const std::array<category_totals, category_count>& cats) {
  J out = J::object();
  for (int c = 0; c < category_count; ++c) {
    const auto& t = cats[static_cast<std::size_t>(c)];
    out[std::string(category_name(static_cast<category>(c)))] = {
        {"time_s", t.time_s}, {"count", t.count}, {"min_s", t.min_s}};
  }
  return out;
}

template <class J>
J bounds_json(const overlap_bounds& b) {
  return J{{"min_s", b.min_s}, {"max_s", b.max_s}, {"xfer_time_s", b.xfer_time_s}, {"count", b.count}};
}

template <class J>
J stats_json(const duration_stats& d) {
  J h = J::array();
  for (const auto& [bin, n] : d.histogram) h.push_back(J::array({bin, n}));
  return J{{"count", d.count},   {"min_s", d.min_s},       {"max_s", d.max_s},       {"mean_s", d.mean_s},
           {"stddev_s", d.stddev_s}, {"median_s", d.median_s}, {"histogram", std::move(h)}};
}

template <class J>
J collectives_json(const collectives_section& c) {
  J kinds = J::array();
  for (const auto& k : c.by_kind) {
    J ranks = J::array();
    for (const auto& r : k.ranks) {
      ranks.push_back({{"rank", r.rank},
                       {"last_arrivals", r.last_arrivals},
                       {"first_arrivals", r.first_arrivals},
                       {"last_departures", r.last_departures},
                       {"first_departures", r.first_departures},
                       {"mean_arrival_position", r.mean_arrival_position},
                       {"mean_departure_position", r.mean_departure_position},
                       {"arrival_wait_s", r.arrival_wait_s}});
    }
    kinds.push_back({{"kind", k.kind},
                     {"count", k.count},
                     {"bytes", k.bytes},
                     {"latency", stats_json<J>(k.latency)},
                     {"sampled", k.sampled},
                     {"arrival_wait", stats_json<J>(k.arrival_wait)},
                     {"departure_wait", stats_json<J>(k.departure_wait)},
                     {"ranks", std::move(ranks)}});
  }
  return J{{"clock",
            {{"offset_s", c.clock.offset_s},
             {"bound_s", c.clock.bound_s},
             {"rtt_s", c.clock.rtt_s},
             {"method", c.clock.method}}},
           {"sample_capacity", c.sample_capacity},
           {"unmatched", c.unmatched},
           {"by_kind", std::move(kinds)}};
}

template <class J>
J regions_json(const std::vector<region_profile>& regions) {
  J out = J::array();
  for (const auto& r : regions) {
    J cats = J::object();
    for (int c = 0; c < category_count; ++c) {
      const auto& t = r.categories[static_cast<std::size_t>(c)];
      cats[std::string(category_name(static_cast<category>(c)))] = {{"time_s", t.time_s}, {"count", t.count}};
    }
    out.push_back({{"name", r.name}, {"entries", r.entries}, {"time_s", r.time_s}, {"categories", std::move(cats)}});
  }
  return out;
}

template <class J>
void write(J& j, const profile& p, bool nested) {
  j = J::object();
  if (!nested) {
    j["schema"] = profile_schema_name;
    j["schema_version"] = profile_schema_version;
  }
  j["kind"] = profile_kind_name(p.kind);
  if (p.kind == profile_kind::rank) j["rank"] = p.rank;
  j["nranks"] = p.nranks;
  if (!p.run.empty()) j["run"] = p.run;
  j["mode"] = progress_mode_name(p.mode);
  j["provider"] = p.provider;
  j["n_core"] = p.n_core;
  if (p.host) j["host"] = {{"id", p.host->id}, {"cores", p.host->cores}};
  j["t_total_s"] = p.t_total_s;
  j["t_comp_s"] = p.t_comp_s;
  if (!p.command.empty()) j["command"] = p.command;
  j["categories"] = categories_json<J>(p.categories);
  if (p.calling_threads > 0) j["calling_threads"] = p.calling_threads;
  if (p.thread_categories) j["communicating_thread"] = {{"categories", categories_json<J>(*p.thread_categories)}};
  if (p.overlap) {
    J o = {{"xfer_time_source", p.overlap->xfer_time_source}, {"total", bounds_json<J>(p.overlap->total)}};
    J bs = J::array();
    for (const auto& b : p.overlap->by_size) {
      J e = bounds_json<J>(b.bounds);
      e["lo_bytes"] = b.lo_bytes;
      e["hi_bytes"] = b.hi_bytes;
      bs.push_back(std::move(e));
    }
    o["by_size"] = std::move(bs);
    J br = J::array();
    for (const auto& r : p.overlap->by_region) {
      J e = bounds_json<J>(r.bounds);
      e["name"] = r.name;
      br.push_back(std::move(e));
    }
    o["by_region"] = std::move(br);
    J bo = J::array();
    for (const auto& x : p.overlap->by_op) {
      J e = bounds_json<J>(x.bounds);
      e["op"] = x.op;
      bo.push_back(std::move(e));
    }
    o["by_op"] = std::move(bo);
    j["overlap"] = std::move(o);
  }
  j["regions"] = regions_json<J>(p.regions);
  if (p.event_clock) {
    J c = {{"source", p.event_clock->source}};
    if (p.event_clock->tsc_hz > 0) c["tsc_hz"] = p.event_clock->tsc_hz;
    if (!p.event_clock->note.empty()) c["note"] = p.event_clock->note;
    j["event_clock"] = std::move(c);
  }
  if (p.progress_thread) {
    const auto& s = *p.progress_thread;
    j["progress_thread"] = {
        {"busy_s", s.busy_s}, {"idle_s", s.idle_s}, {"polls", s.polls}, {"completions", s.completions}};
  }
  if (p.collectives) j["collectives"] = collectives_json<J>(*p.collectives);
  if (!p.limits.empty()) {  // absent when no limit was reached: older readers and profiles stay as they were
    J ls = J::array();
    for (const limit_hit& l : p.limits) {
      J e = {{"limit", l.limit}, {"capacity", l.capacity}, {"count", l.count}, {"detail", l.detail}};
      if (!l.ranks.empty()) e["ranks"] = l.ranks;
      ls.push_back(std::move(e));
    }
    j["limits"] = std::move(ls);
  }
  if (p.auto_mode) {
    json section;  // one writer of the section, for both JSON flavours
    to_json(section, *p.auto_mode);
    j["auto"] = J::parse(section.dump());
  }
  if (p.kind == profile_kind::job) {
    J rs = J::array();
    for (const auto& r : p.ranks) {
      J e;
      write(e, r, true);
      rs.push_back(std::move(e));
    }
    j["ranks"] = std::move(rs);
  }
}

// Whether text[i] opens an array of exactly two unsigned integers as dump(2) writes it ("[\n  183,\n  2\n]"): their
// offsets and the end. The raw newline after '[' is what tells such an array from text inside a string, where a
// newline is always escaped.
bool pair_at(const std::string& text, std::size_t i, std::size_t& a, std::size_t& b, std::size_t& end) {
  if (i + 1 >= text.size() || text[i + 1] != '\n') return false;
  const auto skip = [&](std::size_t k) { return text.find_first_not_of(" \n", k); };
  const auto digit = [&](std::size_t k) {
    return k < text.size() && std::isdigit(static_cast<unsigned char>(text[k]));
  };
  a = skip(i + 1);
  if (!digit(a)) return false;
  std::size_t k = text.find_first_not_of("0123456789", a);
  if (k == std::string::npos || text[k] != ',') return false;
  b = skip(k + 1);
  if (!digit(b)) return false;
  k = skip(text.find_first_not_of("0123456789", b));
  if (k == std::string::npos || text[k] != ']') return false;
  end = k + 1;
  return true;
}

}  // namespace

void to_json(json& j, const auto_section& a) {
  json ds = json::array();
  for (const auto_decision& d : a.decisions) {
    json e = {{"trigger", d.trigger},
              {"steps", d.steps},
              {"start_s", d.start_s},
              {"window_s", d.window_s},
              {"t_comp_s", d.t_comp_s},
              {"t_mpi_s", d.t_mpi_s},
              {"t_dedicated_s", d.t_dedicated_s},
              {"n_core", d.n_core},
              {"job_t_noprogress_s", d.job_t_noprogress_s},
              {"job_t_dedicated_s", d.job_t_dedicated_s},
              {"slowest_rank_off", d.slowest_rank_off},
              {"slowest_rank_core", d.slowest_rank_core},
              {"speedup", d.speedup},
              {"verdict", d.verdict},
              {"reason", d.reason},
              {"forced", d.forced}};
    if (d.switch_s) e["switch_s"] = *d.switch_s;
    ds.push_back(std::move(e));
  }
  j = json{{"decisions", std::move(ds)}};
}

std::string_view profile_kind_name(profile_kind k) noexcept { return k == profile_kind::job ? "job" : "rank"; }
std::string_view progress_mode_name(progress_mode m) noexcept { return m == progress_mode::core ? "core" : "off"; }

void to_json(nlohmann::json& j, const profile& p) { write(j, p, false); }
void to_json(nlohmann::ordered_json& j, const profile& p) { write(j, p, false); }

std::string format_profile(const profile& p) {
  nlohmann::ordered_json j;
  write(j, p, false);
  const std::string text = j.dump(2);
  // Histogram pairs on one line each ("[183, 2]"), not four: dump() gives every array element a line of its own.
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    std::size_t a = 0, b = 0, end = 0;
    if (text[i] == '[' && pair_at(text, i, a, b, end)) {
      out += "[" + text.substr(a, text.find_first_not_of("0123456789", a) - a) + ", " +
             text.substr(b, text.find_first_not_of("0123456789", b) - b) + "]";
      i = end;
    } else {
      out += text[i++];
    }
  }
  return out + "\n";
}

void write_profile_file(const std::string& path, const profile& p) {
  try {
    (void)write_output_file(path, format_profile(p));
  } catch (const output_error& e) {
    throw input_error(path, "", "cannot write profile: " + e.reason());
  }
}

}  // namespace sidecore
