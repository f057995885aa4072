// Computation-scaling models (seed 004, Section III-B; docs/model.md "Scaling models").
#include "sidecore/model/scaling.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
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
    const bool wordy = std::any_of(a.begin(), a.end(), [](unsigned char ch) { return std::isalpha(ch) && ch != 'e'; });
    if (wordy && points.empty() && !header_seen) {
      header_seen = true;
      continue;
    }
    char* end = nullptr;
    errno = 0;
    const long threads = std::strtol(a.c_str(), &end, 10);
    if (*end != '\0' || errno != 0 || threads < 1 || threads > 1 << 20)
      throw input_error(path, where, fmt::format("thread count \"{}\" is not an integer >= 1", a));
    const double t = std::strtod(b.c_str(), &end);
    if (*end != '\0' || !std::isfinite(t) || t <= 0 || t > max_input_seconds)
      throw input_error(path, where,
                        fmt::format("time \"{}\" is not a positive number of seconds of at most {:g}", b, max_input_seconds));
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
      return "linear: t_comp proportional to 1/N (seed 004, Section III-B2)";
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
