// Computation-scaling models (seed 004, Section III-B; docs/model.md "Scaling models").
#include "sidecore/model/scaling.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <sstream>

#include <fmt/format.h>

#include "sidecore/common/input_error.hpp"
#include "sidecore/common/input_file.hpp"
#include "sidecore/common/input_limits.hpp"

namespace sidecore::model {

scaling_model scaling_model::linear() { return scaling_model{}; }

scaling_model scaling_model::power_law(double delta) {
  if (!std::isfinite(delta) || delta < -1.0 || delta > 2.0)
    throw input_error::refused("--delta", fmt::format("{}", delta),
                               "a number in [-1, 2] (1 = linear scaling, 0 = no scaling)");
  scaling_model m;
  m.kind_ = kind::power_law;
  m.delta_ = delta;
  return m;
}

scaling_model scaling_model::from_table(std::vector<scaling_point> points, std::string source) {
  if (points.size() < 2)
    throw input_error(source, "", fmt::format("a scaling table needs at least 2 points (threads, t_comp_s); got {}",
                                              points.size()));
  std::sort(points.begin(), points.end(), [](const auto& a, const auto& b) { return a.threads < b.threads; });
  for (std::size_t i = 0; i < points.size(); ++i) {
    const auto& p = points[i];
    if (p.threads < 1) throw input_error(source, "threads", fmt::format("thread count {} is not >= 1", p.threads));
    if (!std::isfinite(p.t_comp_s) || p.t_comp_s <= 0 || p.t_comp_s > max_input_seconds)
      throw input_error(source, "t_comp_s",
                        fmt::format("time {} for {} threads is not accepted; accepted: a positive number of seconds, "
                                    "at most {:g}",
                                    p.t_comp_s, p.threads, max_input_seconds));
    if (i > 0 && points[i - 1].threads == p.threads)
      throw input_error(source, "threads", fmt::format("thread count {} appears twice", p.threads));
  }
  scaling_model m;
  m.kind_ = kind::table;
  m.table_ = std::move(points);
  m.source_ = std::move(source);
  return m;
}

scaling_model scaling_model::read_table_file(const std::string& path) {
  return parse_table(read_input_file(path, max_table_bytes, "scaling table"), path);
}

namespace {

constexpr long max_table_threads = 1L << 20;
constexpr double min_table_seconds = 1e-9;

// `text` read as a decimal number (digits, an optional fraction, an optional exponent: 12, 0.5, .5, 3., 8e1), or
// NaN for any other form.
double decimal_number(const std::string& text) {
  std::size_t i = 0;
  const auto digits = [&] {
    const std::size_t from = i;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
    return i - from;
  };
  std::size_t mantissa = digits();
  if (i < text.size() && text[i] == '.') {
    ++i;
    mantissa += digits();
  }
  if (mantissa == 0) return std::nan("");
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
    if (digits() == 0) return std::nan("");
  }
  if (i != text.size()) return std::nan("");
  double v = 0;
  const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  // Out of range (1e400, 1e-400): outside the accepted range either way.
  if (ec == std::errc::result_out_of_range) return std::nan("");
  return ec == std::errc() && p == text.data() + text.size() ? v : std::nan("");
}

}  // namespace

scaling_model scaling_model::parse_table(std::string_view text, const std::string& path) {
  std::istringstream in{std::string(text)};
  std::vector<scaling_point> points;
  std::string line;
  int lineno = 0;
  bool header_seen = false;
  while (std::getline(in, line)) {
    ++lineno;
    if (auto h = line.find('#'); h != std::string::npos) line.erase(h);
    std::replace(line.begin(), line.end(), ',', ' ');
    std::replace(line.begin(), line.end(), '\t', ' ');
    std::istringstream ls(line);
    std::string a, b, extra;
    if (!(ls >> a)) continue;  // blank or comment
    const std::string where = fmt::format("line {}", lineno);
    if (!(ls >> b) || (ls >> extra))
      throw input_error(path, where, "expected two columns: threads t_comp_s");
    // A header names its columns ("threads,t_comp_s"); a first word starting with a digit is data ("0x4").
    if (std::isalpha(static_cast<unsigned char>(a.front())) && points.empty() && !header_seen) {
      header_seen = true;
      continue;
    }
    // Only decimal digits: strtol would take "+4", and a value past 2^20 would be named as a wrong form.
    const bool digits = a.find_first_not_of("0123456789") == std::string::npos;
    long threads = 0;
    if (digits) {
      const auto [p, ec] = std::from_chars(a.data(), a.data() + a.size(), threads);
      if (ec != std::errc() || p != a.data() + a.size()) threads = 0;
    }
    if (threads < 1 || threads > max_table_threads)
      throw input_error(path, where, fmt::format("thread count '{}' is not accepted; accepted: an integer in [1 - {}] "
                                                 "(decimal digits)", a, max_table_threads));
    // A decimal number: strtod would also take hex ("0x10" s is 16 s), "inf", "+5"; and a time below a nanosecond
    // (a denormal such as 1e-310 among them) is no measured computation, and its logarithm and ratios in the
    // interpolation lose their precision.
    const double t = decimal_number(b);
    if (!(t >= min_table_seconds && t <= max_input_seconds))
      throw input_error(path, where, fmt::format("time '{}' is not accepted; accepted: a decimal number of seconds in "
                                                 "[{:g}, {:g}]", b, min_table_seconds, max_input_seconds));
    points.push_back({static_cast<int>(threads), t});
  }
  return from_table(std::move(points), path);
}

bool scaling_model::covers(int threads) const noexcept {
  if (threads < 1) return false;
  if (kind_ != kind::table) return true;
  return threads >= table_.front().threads && threads <= table_.back().threads;
}

double scaling_model::table_time(int threads) const {
  if (!covers(threads))
    throw input_error(source_, "threads",
                      fmt::format("thread count {} is outside the measured range {}..{}; the table must cover "
                                  "N_core - 1 and N_core",
                                  threads, table_.front().threads, table_.back().threads));
  auto hi = std::lower_bound(table_.begin(), table_.end(), threads,
                             [](const scaling_point& p, int n) { return p.threads < n; });
  if (hi->threads == threads) return hi->t_comp_s;
  auto lo = hi - 1;
  // Piecewise power law: log t is linear in log N between the two neighbours.
  const double x = (std::log(threads) - std::log(lo->threads)) / (std::log(hi->threads) - std::log(lo->threads));
  return std::exp(std::log(lo->t_comp_s) + x * (std::log(hi->t_comp_s) - std::log(lo->t_comp_s)));
}

double scaling_model::time_ratio(int from_threads, int to_threads) const {
  if (from_threads < 1 || to_threads < 1)
    throw input_error("N_core", "", fmt::format("thread counts must be >= 1 (got {} and {}); N_core must be >= 2",
                                                from_threads, to_threads));
  switch (kind_) {
    case kind::linear:
      return static_cast<double>(from_threads) / to_threads;
    case kind::power_law:
      return std::pow(static_cast<double>(from_threads) / to_threads, delta_);
    case kind::table:
      return table_time(to_threads) / table_time(from_threads);
  }
  return 1.0;
}

std::string scaling_model::describe() const {
  switch (kind_) {
    case kind::linear:
      return "linear: t_comp proportional to 1/N (Denis et al., Section III-B2)";
    case kind::power_law:
      return fmt::format("power law: t_comp proportional to N^-{:g} (delta = {:g})", delta_, delta_);
    case kind::table:
      return fmt::format("measured table {} ({} points, {}..{} threads, log-log interpolation)", source_, table_.size(),
                         table_.front().threads, table_.back().threads);
  }
  return {};
}

std::string scaling_model::newcomp_formula() const {
  switch (kind_) {
    case kind::linear:
      return "t_comp * N/(N-1)";
    case kind::power_law:
      return fmt::format("t_comp * (N/(N-1))^{:g}", delta_);
    case kind::table:
      return "t_comp * T(N-1)/T(N), T from the scaling table";
  }
  return {};
}

}  // namespace sidecore::model
