// Measurement, parameter and transfer-table files of the LogGP fit; table and SVG (files.hpp).
#include "sidecore/model/loggp/files.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cmath>
#include <stdexcept>
#include <tuple>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "sidecore/common/input_error.hpp"
#include "sidecore/common/json_input.hpp"
#include "sidecore/common/input_file.hpp"
#include "sidecore/common/input_limits.hpp"

namespace sidecore::model::loggp {

namespace {

using nlohmann::json;

// A line's intercept and slope for the simulator, which needs both >= 0. A range that starts far above
// 1 B may have a negative value at s = 1 (its signs are held at its own first size, fit.hpp): then the
// intercept is 0 and the slope gives the fitted value at `bytes`, the size the parameters stand for.
std::pair<double, double> simulator_line(double at_one, double slope, std::uint64_t bytes) {
  if (at_one >= 0 || bytes <= 1) return {std::max(0.0, at_one), std::max(0.0, slope)};
  const double x = static_cast<double>(bytes) - 1;
  return {0.0, std::max(0.0, at_one + slope * x) / x};
}

// The simulator's parameters for messages of `bytes` from a range's fitted L and lines o_s(s), o_r(s) and
// g + (s-1)G. Under LogGOPSim's rules a message's first byte arrives o + L after its send started and the
// receiver's CPU takes it in for o + (s-1)max(O, G); the sender's (s-1)O delays nothing. The one-way time
// L + 2o + (s-1)max(O, G) is the fit's half PRTT(1,0,s), L + o_s(s) + o_r(s) + (s-1)G (eq. 1), only with
// 2o = o_s + o_r and max(O, G) = O_s + O_r + G: G carries the whole per-byte cost (where o_s + o_r is
// negative at s = 1, o is 0 and G carries the sum at `bytes`, as simulator_line() does). O, which only keeps
// the sender's CPU busy, is the sender's O_s (at most G, so that G stays the maximum). g is the fitted g: the
// NIC's gap g + (s-1)G then exceeds the fitted one by (s-1)(O_s + O_r), which no g could undo at every size.
// Where g is negative at s = 1 (a range far from 1 B) it is what is left of the fitted gap at `bytes` once
// the simulator's (s-1)G is charged, at least 0.
sidecore::model::sim::loggops_params simulator_params(double L, const line_fit& o_s, const line_fit& o_r,
                                                      const line_fit& g_all, std::uint64_t bytes) {
  sidecore::model::sim::loggops_params p;
  p.L = std::max(0.0, L);
  double half_per_byte = 0;
  std::tie(p.o, half_per_byte) = simulator_line((o_s.at_one + o_r.at_one) / 2,
                                                (o_s.slope + o_r.slope + g_all.slope) / 2, bytes);
  p.G = 2 * half_per_byte;
  p.O = std::min(std::max(0.0, o_s.slope), p.G);
  const double x = bytes > 1 ? static_cast<double>(bytes) - 1 : 0.0;
  p.g = g_all.at_one >= 0 ? g_all.at_one : std::max(0.0, g_all(bytes) - x * p.G);
  return p;
}

// The tolerance the check reports against: the fit's, or issue 16's 5 % (fit_options' default) where splitting is off.
double reported_tolerance(const fit_options& o) { return o.tolerance > 0 ? o.tolerance : fit_options{}.tolerance; }

const json& field(const json& j, const char* key, const std::string& path, const std::string& source) {
  if (!j.is_object() || !j.contains(key))
    throw input_error(source, path.empty() ? key : path + "." + key, "missing");
  return j[key];
}

double time_field(const json& j, const char* key, const std::string& path, const std::string& source) {
  const json& v = field(j, key, path, source);
  constexpr double max_ns = max_input_seconds * 1e9;
  static_assert(max_input_seconds == 1e9, "the message below names the limit in seconds");
  if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0 || v.get<double>() > max_ns)
    throw input_error(source, path + "." + key,
                      fmt::format("{} is not accepted; accepted: a time in ns, 0 .. {:g} (1e9 s)", v.dump(), max_ns));
  return v.get<double>();
}

// Refuses series[index] when an earlier series has its transport: the commands pick a series by transport, and two
// would each be picked by one of them.
void check_transport_once(const json& series, std::size_t index, const std::string& source) {
  const json& t = series[index]["transport"];
  for (std::size_t k = 0; k < index; ++k)
    if (series[k].is_object() && series[k].contains("transport") && series[k]["transport"] == t)
      throw input_error(source, fmt::format("series[{}].transport", index),
                        fmt::format("{} is given twice (series[{}] too); accepted: one series per transport", t.dump(),
                                    k));
}

// j[key] as a string, or "" when it is absent (nlohmann's value() would throw its own type_error for a
// value that is not a string, which no caller expects).
std::string optional_string(const json& j, const char* key, const std::string& path, const std::string& source) {
  if (!j.is_object() || !j.contains(key)) return "";
  const json& v = j[key];
  if (!v.is_string())
    throw input_error(source, path + "." + key, fmt::format("{} is not accepted; accepted: a string", v.dump()));
  return v.get<std::string>();
}

// A range of a parameter file with the signs the fit gives it: every per-byte term >= 0, and o_s, o_r and g >= 0 at
// the range's first size (at s = 1 before version 3). The simulator would clamp any other sign to 0 and so simulate
// parameters the file does not give. `num` reads a finite number, refusing anything else.
template <typename Num>
void check_signs(const json& r, const std::string& rp, long long version, Num&& num, const std::string& path) {
  constexpr double max_ns = sidecore::model::sim::max_param_ns;
  const std::pair<const char*, const char*> lines[] = {
      {"o_s_ns", "O_s_ns_per_byte"}, {"o_r_ns", "O_r_ns_per_byte"}, {"g_ns", "G_ns_per_byte"}};
  for (const auto& [at_one, per_byte] : lines) {
    const double b = num(r, rp, per_byte);
    if (!(b >= 0 && b <= max_ns))
      throw input_error(path, rp + "." + per_byte,
                        fmt::format("{} is not accepted; accepted: a time per byte in ns, 0 .. {:g} (the fit holds "
                                    "every per-byte term >= 0)", r[per_byte].dump(), max_ns));
  }
  for (const auto& [at_one, per_byte] : lines) {
    const double a = num(r, rp, at_one);
    if (version < 3) {
      if (a < 0)
        throw input_error(path, rp + "." + at_one,
                          fmt::format("{} is not accepted; accepted: a time in ns, >= 0 (in a file of version {} the "
                                      "signs hold at s = 1)", r[at_one].dump(), version));
      continue;
    }
    const double first = num(r, rp, "first_bytes");
    const double x0 = std::max(0.0, first - 1);
    const double slope = num(r, rp, per_byte);
    // The fit holds the value at the first size at exactly 0 at worst; s = 1 and back loses a few ulps of it.
    if (a + slope * x0 < -1e-9 * slope * x0)
      throw input_error(path, rp + "." + at_one,
                        fmt::format("{} is not accepted; accepted: a time in ns whose value at the range's first size "
                                    "({} B), {} + {} x (first_bytes - 1), is >= 0", r[at_one].dump(), first, at_one,
                                    per_byte));
  }
}

}  // namespace

measurement parse_measurement(const json& j, const std::string& source) {
  if (!j.is_object() || !j.contains("schema") || j["schema"] != "sidecore-prtt")
    throw input_error(source, "schema", "not a sidecore PRTT measurement (\"schema\" must be \"sidecore-prtt\")");
  if (!j.contains("version") || !j["version"].is_number_integer() || j["version"] != 1)
    throw input_error(
        source, "version",
        fmt::format("unknown version {}; accepted: 1", j.contains("version") ? j["version"].dump() : "(none)"));
  measurement m;
  if (j.contains("machine")) m.machine = j["machine"];
  const json& series = field(j, "series", "", source);
  if (!series.is_array() || series.empty()) throw input_error(source, "series", "must be a non-empty array");
  for (std::size_t si = 0; si < series.size(); ++si) {
    const std::string sp = fmt::format("series[{}]", si);
    const json& s = series[si];
    prtt_series ps;
    const json& t = field(s, "transport", sp, source);
    if (!t.is_string()) throw input_error(source, sp + ".transport", "must be a string");
    ps.transport = t.get<std::string>();
    check_transport_once(series, si, source);
    ps.provider = optional_string(s, "provider", sp, source);
    ps.mode = optional_string(s, "mode", sp, source);
    const json& n = field(s, "n", sp, source);
    // Compared as the integer JSON holds: get<int>() would wrap 4294967301 to 5.
    const bool n_fits = n.is_number_unsigned() ? n.get<std::uint64_t>() <= INT_MAX
                                               : n.is_number_integer() && n.get<std::int64_t>() <= INT_MAX;
    if (!n_fits || n.get<std::int64_t>() < 2)
      throw input_error(source, sp + ".n",
                        fmt::format("{} is not accepted; accepted: an integer, 2 .. {}", n.dump(), INT_MAX));
    ps.n = n.get<int>();
    const json& pts = field(s, "points", sp, source);
    if (!pts.is_array() || pts.size() < 2) throw input_error(source, sp + ".points", "must be an array of >= 2 sizes");
    for (std::size_t pi = 0; pi < pts.size(); ++pi) {
      const std::string pp = fmt::format("{}.points[{}]", sp, pi);
      const json& b = field(pts[pi], "bytes", pp, source);
      if (!b.is_number_unsigned() || b.get<std::uint64_t>() == 0)
        throw input_error(source, pp + ".bytes", fmt::format("{} is not a size in bytes >= 1", b.dump()));
      prtt_point p;
      p.bytes = b.get<std::uint64_t>();
      p.prtt1_ns = time_field(pts[pi], "prtt1_ns", pp, source);
      p.prttn_ns = time_field(pts[pi], "prttn_ns", pp, source);
      p.prttd_ns = time_field(pts[pi], "prttd_ns", pp, source);
      p.o_r_ns = time_field(pts[pi], "o_r_ns", pp, source);
      ps.points.push_back(p);
    }
    try {
      (void)derive(ps);
    } catch (const std::invalid_argument& e) {
      throw input_error(source, sp, e.what());
    }
    m.series.push_back(std::move(ps));
  }
  return m;
}

measurement read_measurement(const std::string& path) {
  return parse_measurement(parse_json_input(read_input_file(path, max_profile_bytes, "measurement file"), path), path);
}

json measurement_json(const measurement& m) {
  json j;
  j["schema"] = "sidecore-prtt";
  j["version"] = 1;
  j["machine"] = m.machine;
  j["series"] = json::array();
  for (const prtt_series& s : m.series) {
    json js{{"transport", s.transport}, {"provider", s.provider}, {"mode", s.mode}, {"n", s.n}};
    js["points"] = json::array();
    for (const prtt_point& p : s.points)
      js["points"].push_back({{"bytes", p.bytes}, {"prtt1_ns", p.prtt1_ns}, {"prttn_ns", p.prttn_ns},
                              {"prttd_ns", p.prttd_ns}, {"o_r_ns", p.o_r_ns}});
    j["series"].push_back(std::move(js));
  }
  return j;
}

json params_json(const measurement& m, const std::vector<series_fit>& fits, const fit_options& o) {
  json j;
  j["schema"] = "sidecore-loggp";
  j["version"] = params_version;
  j["machine"] = m.machine;
  j["method"] = {
      {"paper", "Hoefler, Schneider, Lumsdaine: LogGP in Theory and Practice, Section 2"},
      {"fit",
       "per range, one weighted least squares over PRTT(1,0,s), PRTT(n,0,s), o_s(s) and o_r(s), "
       "parameters but L >= 0 at the range's first size; ranges split where the fit misses PRTT by more than "
       "the tolerance and the Bayesian information criterion keeps the cut"},
      {"overhead_weight", o.overhead_weight},
      {"pfact", o.pfact},
      {"lookahead", o.lookahead},
      {"tolerance", o.tolerance}};
  j["series"] = json::array();
  for (const series_fit& f : fits) {
    json s{{"transport", f.series.transport}, {"provider", f.series.provider}, {"mode", f.series.mode},
           {"n", f.series.n},   {"latency_ns", f.latency_ns}};
    s["ranges"] = json::array();
    for (const range_fit& r : f.ranges) {
      json res = json::object();
      for (const auto& [name, e] : {std::pair{"prtt1", r.residuals.prtt1}, std::pair{"prttn", r.residuals.prttn},
                                    std::pair{"o_s", r.residuals.o_s}, std::pair{"o_r", r.residuals.o_r},
                                    std::pair{"g_all", r.residuals.g_all}}) {
        res[std::string(name) + "_max_rel"] = e.max_rel;
        res[std::string(name) + "_rms_rel"] = e.rms_rel;
      }
      s["ranges"].push_back({{"first_bytes", r.first_bytes},
                             {"last_bytes", r.last_bytes},
                             {"points", r.last - r.first + 1},
                             {"L_ns", r.L_ns},
                             {"o_s_ns", r.o_s.at_one},
                             {"O_s_ns_per_byte", r.o_s.slope},
                             {"o_r_ns", r.o_r.at_one},
                             {"O_r_ns_per_byte", r.o_r.slope},
                             {"g_ns", r.g_all.at_one},
                             {"G_ns_per_byte", r.g_all.slope},
                             {"held_at_zero", r.held_at_zero},
                             {"residuals", std::move(res)}});
    }
    s["protocol_changes_after_bytes"] = json::array();
    for (std::size_t c : f.changes) s["protocol_changes_after_bytes"].push_back(f.derived[c].bytes);
    const fit_check chk = check_fit(f, reported_tolerance(o));
    s["check"] = {{"tolerance", chk.tolerance},
                  {"ranges", chk.ranges},
                  {"ranges_within", chk.ranges_within},
                  {"sizes", chk.sizes},
                  {"sizes_within", chk.sizes_within},
                  {"misses_off_neighbours", chk.misses_off_neighbours},
                  {"largest_miss_rel", chk.largest_miss},
                  {"largest_miss_range", {chk.largest_first_bytes, chk.largest_last_bytes}}};
    s["tolerance_splits_after_bytes"] = json::array();
    for (std::size_t c : f.splits) s["tolerance_splits_after_bytes"].push_back(f.derived[c].bytes);
    s["per_size"] = json::array();
    for (const derived_point& d : f.derived)
      s["per_size"].push_back({{"bytes", d.bytes},
                               {"o_s_ns", d.o_s_ns},
                               {"o_r_ns", d.o_r_ns},
                               {"g_all_ns", d.g_all_ns},
                               {"prtt1_ns", d.prtt1_ns}});
    s["warnings"] = f.warnings;
    j["series"].push_back(std::move(s));
  }
  return j;
}

std::string params_table(const std::vector<series_fit>& fits, const fit_options& o) {
  std::string out;
  auto pct = [](const residual& e) {
    return e.points == 0 ? fmt::format("{:>15}", "-")
                         : fmt::format("{:6.1f}% {:6.1f}%", 100 * e.max_rel, 100 * e.rms_rel);
  };
  for (const series_fit& f : fits) {
    out += fmt::format("{}{}{}, n = {}; latency PRTT(1,0,{})/2 = {:.3f} us\n", f.series.transport,
                       f.series.provider.empty() ? "" : " (" + f.series.provider,
                       f.series.provider.empty() ? "" : (f.series.mode.empty() ? ")" : ", mode " + f.series.mode + ")"),
                       f.series.n, f.series.points.front().bytes, f.latency_ns / 1e3);
    out += fmt::format("  {:>21} {:>9} {:>9} {:>10} {:>9} {:>10} {:>9} {:>10}  {:>8}\n", "range (bytes)", "L us",
                       "o_s us", "O_s ns/B", "o_r us", "O_r ns/B", "g us", "G ns/B", "PRTT max");
    for (const range_fit& r : f.ranges)
      out += fmt::format("  {:>10}..{:<9} {:9.3f} {:9.3f} {:10.5f} {:9.3f} {:10.5f} {:9.3f} {:10.5f}  {:7.2f}%\n",
                         r.first_bytes, r.last_bytes, r.L_ns / 1e3, r.o_s.at_one / 1e3, r.o_s.slope, r.o_r.at_one / 1e3,
                         r.o_r.slope, r.g_all.at_one / 1e3, r.g_all.slope,
                         100 * std::max(r.residuals.prtt1.max_rel, r.residuals.prttn.max_rel));
    out += fmt::format("  {:>21} {:>15} {:>15} {:>15} {:>15} {:>15}\n", "residuals max, rms", "PRTT(1,0,s)",
                       fmt::format("PRTT({},0,s)", f.series.n), "o_s", "o_r", "G_all");
    for (const range_fit& r : f.ranges)
      out += fmt::format("  {:>10}..{:<9} {} {} {} {} {}\n", r.first_bytes, r.last_bytes, pct(r.residuals.prtt1),
                         pct(r.residuals.prttn), pct(r.residuals.o_s), pct(r.residuals.o_r), pct(r.residuals.g_all));
    const fit_check chk = check_fit(f, reported_tolerance(o));
    out += fmt::format("  check: PRTT within {:g} % in {} of {} ranges, at {} of {} sizes", 100 * chk.tolerance,
                       chk.ranges_within, chk.ranges, chk.sizes_within, chk.sizes);
    if (chk.sizes_within < chk.sizes)
      out += fmt::format(
          "; the largest miss {:.1f} % in {}..{}; of the {} sizes that miss, {} differ from their "
          "neighbours by more than {:g} % themselves (noise of the measurement, or a step); the "
          "warnings below say more",
          100 * chk.largest_miss, chk.largest_first_bytes, chk.largest_last_bytes, chk.sizes - chk.sizes_within,
          chk.misses_off_neighbours, 100 * chk.tolerance);
    out += "\n";
    if (!f.splits.empty()) {
      std::vector<std::uint64_t> after;
      for (std::size_t c : f.splits) after.push_back(f.derived[c].bytes);
      out += fmt::format("  split within a protocol to meet the tolerance (not a protocol change) after: {} B\n",
                         fmt::join(after, " B, "));
    }
    for (const std::string& w : f.warnings) out += "  warning: " + w + "\n";
  }
  return out;
}

std::string params_svg(const std::vector<series_fit>& fits) {
  const double W = 720, H = 300, left = 70, right = 20, top = 30, bottom = 45;
  std::string out = fmt::format(
      R"(<svg xmlns="http://www.w3.org/2000/svg" width="{}" height="{}" font-family="sans-serif" font-size="11">)", W,
      H * static_cast<double>(fits.size()));
  out += "\n";
  const char* colors[] = {"#1f77b4", "#d62728", "#2ca02c"};
  for (std::size_t fi = 0; fi < fits.size(); ++fi) {
    const series_fit& f = fits[fi];
    const double y0 = H * static_cast<double>(fi);
    double xmin = 1e300, xmax = 0, vmin = 1e300, vmax = 0;
    for (std::size_t i = 0; i < f.derived.size(); ++i) {
      const double s = static_cast<double>(f.derived[i].bytes);
      xmin = std::min(xmin, s);
      xmax = std::max(xmax, s);
      for (double v : {f.series.points[i].prtt1_ns, f.series.points[i].prttn_ns, f.derived[i].g_all_ns}) {
        vmin = std::min(vmin, std::max(v, 1e-3));
        vmax = std::max(vmax, v);
      }
    }
    const double lx0 = std::log10(xmin), lx1 = std::max(std::log10(xmax), lx0 + 1e-9);
    const double ly0 = std::floor(std::log10(vmin)), ly1 = std::max(std::ceil(std::log10(vmax)), ly0 + 1);
    auto X = [&](double s) { return left + (std::log10(s) - lx0) / (lx1 - lx0) * (W - left - right); };
    auto Y = [&](double v) {
      return y0 + top + (ly1 - std::log10(std::max(v, 1e-3))) / (ly1 - ly0) * (H - top - bottom);
    };
    out += fmt::format(
        R"(<text x="{}" y="{}" font-weight="bold">{} {} {}: measured (points) and fitted (lines) PRTT(1,0,s), PRTT({},0,s), G_all(s)</text>)",
        left, y0 + 18, f.series.transport, f.series.provider, f.series.mode, f.series.n);
    out += "\n";
    out += fmt::format(R"(<rect x="{}" y="{}" width="{}" height="{}" fill="none" stroke="#888"/>)", left, y0 + top,
                       W - left - right, H - top - bottom);
    out += "\n";
    for (double e = ly0; e <= ly1; e += 1)
      out += fmt::format(R"(<text x="{}" y="{}" text-anchor="end">{:g} ns</text>)", left - 4, Y(std::pow(10, e)) + 4,
                         std::pow(10, e));
    for (double e = std::ceil(lx0); e <= lx1; e += 1)
      out += fmt::format(R"(<text x="{}" y="{}" text-anchor="middle">{:g} B</text>)", X(std::pow(10, e)),
                         y0 + H - bottom + 14, std::pow(10, e));
    out += fmt::format(R"(<text x="{}" y="{}" text-anchor="middle">message size (log)</text>)", (W + left) / 2,
                       y0 + H - 8);
    out += "\n";
    for (std::size_t c : f.changes) {
      const double xc = X(static_cast<double>(f.derived[c].bytes));
      out += fmt::format(
          R"(<line x1="{0}" x2="{0}" y1="{1}" y2="{2}" stroke="#999" stroke-dasharray="4 3"/><text x="{0}" y="{3}" fill="#666">protocol change after {4} B</text>)",
          xc, y0 + top, y0 + H - bottom, y0 + top + 12, f.derived[c].bytes);
      out += "\n";
    }
    for (std::size_t c : f.splits) {
      const double xc = X(static_cast<double>(f.derived[c].bytes));
      out += fmt::format(
          R"(<line x1="{0}" x2="{0}" y1="{1}" y2="{2}" stroke="#bbb" stroke-dasharray="1 3"/><text x="{0}" y="{3}" fill="#888">split after {4} B</text>)",
          xc, y0 + top, y0 + H - bottom, y0 + top + 26, f.derived[c].bytes);
      out += "\n";
    }
    for (int k = 0; k < 3; ++k) {
      auto measured = [&](std::size_t i) {
        return k == 0 ? f.series.points[i].prtt1_ns : k == 1 ? f.series.points[i].prttn_ns : f.derived[i].g_all_ns;
      };
      for (std::size_t i = 0; i < f.derived.size(); ++i)
        out += fmt::format(R"(<circle cx="{:.1f}" cy="{:.1f}" r="2.5" fill="{}"/>)",
                           X(static_cast<double>(f.derived[i].bytes)), Y(measured(i)), colors[k]);
      for (const range_fit& r : f.ranges) {
        std::string pts;
        for (std::size_t i = r.first; i <= r.last; ++i) {
          const std::uint64_t b = f.derived[i].bytes;
          const double v = k == 0 ? r.prtt1(b) : k == 1 ? r.prttn(b, f.series.n) : r.g_all(b);
          pts += fmt::format("{:.1f},{:.1f} ", X(static_cast<double>(b)), Y(v));
        }
        out += fmt::format(R"(<polyline points="{}" fill="none" stroke="{}" stroke-width="1.5"/>)", pts, colors[k]);
      }
      out +=
          fmt::format(R"(<text x="{}" y="{}" fill="{}">{}</text>)", left + 8, y0 + top + 14 + 13 * (k + 1), colors[k],
                      k == 0   ? "PRTT(1,0,s)"
                      : k == 1 ? fmt::format("PRTT({},0,s)", f.series.n)
                               : "G_all = g + (s-1)G");
      out += "\n";
    }
  }
  out += "</svg>\n";
  return out;
}

json xfer_table_json(const series_fit& f) {
  json pts = json::array();
  for (const derived_point& d : f.derived) pts.push_back({d.bytes, f.range_for(d.bytes).prtt1(d.bytes) / 2 / 1e9});
  return {{"schema", "sidecore-xfer-table"},
          {"version", 1},
          {"source", fmt::format("sidecore loggp: half the fitted PRTT(1,0,s), {} {} {}", f.series.transport,
                                 f.series.provider, f.series.mode)},
          {"points", pts}};
}

sidecore::model::sim::loggops_params to_loggops(const series_fit& f, std::uint64_t bytes) {
  const range_fit& r = f.range_for(bytes);
  sidecore::model::sim::loggops_params p = simulator_params(r.L_ns, r.o_s, r.o_r, r.g_all, bytes);
  p.S = f.changes.empty() ? f.derived.back().bytes : f.derived[f.changes.front()].bytes;
  return p;
}

sidecore::model::sim::loggops_params read_loggops_params(const std::string& path, const std::string& transport,
                                                         std::uint64_t bytes) {
  json j = parse_json_input(read_input_file(path, max_profile_bytes, "LogGP parameter file"), path);
  if (!j.is_object() || !j.contains("schema") || j["schema"] != "sidecore-loggp")
    throw input_error(path, "schema", "not a sidecore-loggp parameter file (sidecore loggp -o writes one)");
  // Version 2 added residuals and held_at_zero, version 3 lets o_s, o_r and g be negative at s = 1 (signs held at a
  // range's first size; mapped below as to_loggops() maps them); the fields read here are the same in all three.
  if (!j.contains("version") || !j["version"].is_number_integer() || j["version"].get<long long>() < 1 ||
      j["version"].get<long long>() > params_version)
    throw input_error(path, "version", fmt::format("{} is not accepted; accepted: 1, 2, {}",
                                                   j.value("version", json()).dump(), params_version));
  if (!j.contains("series") || !j["series"].is_array()) throw input_error(path, "series", "missing or not an array");
  std::vector<std::string> have;
  for (std::size_t i = 0; i < j["series"].size(); ++i) {
    const json& s = j["series"][i];
    const std::string at = fmt::format("series[{}]", i);
    if (!s.is_object() || !s.contains("transport") || !s["transport"].is_string())
      throw input_error(path, at + ".transport", "missing or not a string");
    if (s["transport"] != transport) {
      have.push_back(s["transport"].get<std::string>());
      continue;
    }
    for (std::size_t later = i + 1; later < j["series"].size(); ++later)
      if (j["series"][later].is_object() && j["series"][later].contains("transport"))
        check_transport_once(j["series"], later, path);
    if (!s.contains("ranges") || !s["ranges"].is_array() || s["ranges"].empty())
      throw input_error(path, at + ".ranges", "missing, empty or not an array");
    auto num = [&](const json& r, const std::string& rp, const char* k) {
      if (!r.is_object() || !r.contains(k) || !r[k].is_number() || !std::isfinite(r[k].get<double>()))
        throw input_error(path, rp + "." + k, "missing or not a finite number");
      return r[k].get<double>();
    };
    std::size_t pick = 0;
    for (std::size_t k = 0; k < s["ranges"].size(); ++k)
      if (num(s["ranges"][k], fmt::format("{}.ranges[{}]", at, k), "first_bytes") <= static_cast<double>(bytes))
        pick = k;
    const json& r = s["ranges"][pick];
    const std::string rp = fmt::format("{}.ranges[{}]", at, pick);
    check_signs(r, rp, j["version"].get<long long>(), num, path);
    auto line = [&](const char* at_one, const char* slope) { return line_fit{num(r, rp, at_one), num(r, rp, slope)}; };
    sidecore::model::sim::loggops_params p =
        simulator_params(num(r, rp, "L_ns"), line("o_s_ns", "O_s_ns_per_byte"), line("o_r_ns", "O_r_ns_per_byte"),
                         line("g_ns", "G_ns_per_byte"), bytes);
    const json& changes = s.value("protocol_changes_after_bytes", json::array());
    // S is the first change: anything but ascending sizes would leave S to a fallback the file does not ask for.
    bool sizes = changes.is_array();
    for (std::size_t k = 0; sizes && k < changes.size(); ++k)
      sizes = changes[k].is_number_unsigned() && changes[k].get<std::uint64_t>() >= 1 &&
              (k == 0 || changes[k].get<std::uint64_t>() > changes[k - 1].get<std::uint64_t>());
    if (!sizes)
      throw input_error(path, at + ".protocol_changes_after_bytes",
                        fmt::format("{} is not accepted; accepted: an array of sizes in bytes, each 1 .. 2^64 - 1, "
                                    "ascending (the sizes after which the protocol changes)", changes.dump()));
    const std::string lp = fmt::format("{}.ranges[{}]", at, s["ranges"].size() - 1);
    const double last = num(s["ranges"].back(), lp, "last_bytes");
    // S falls back to it: a size, since converting a negative or a too large double to an integer is undefined.
    if (!(last >= 1 && last < 0x1p64))
      throw input_error(path, lp + ".last_bytes",
                        fmt::format("{} is not accepted; accepted: a size in bytes, 1 .. 2^64 - 1", last));
    p.S = changes.empty() ? static_cast<std::uint64_t>(last) : changes[0].get<std::uint64_t>();
    const std::pair<const char*, double> given[] = {{"L", p.L}, {"o", p.o}, {"g", p.g}, {"G", p.G}, {"O", p.O}};
    for (const auto& [name, v] : given)
      if (!(v >= 0 && v <= sidecore::model::sim::max_param_ns))
        throw input_error(path, rp,
                          fmt::format("gives the simulator {} = {} ns; accepted: 0 .. {:g} ns for each of L, o, g, G "
                                      "and O", name, v, sidecore::model::sim::max_param_ns));
    return p;
  }
  throw input_error(path, "series", fmt::format("no series of transport '{}'; there are: {}", transport,
                                                fmt::join(have, ", ")));
}

}  // namespace sidecore::model::loggp
