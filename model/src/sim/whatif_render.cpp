// Timelines and the sweep figure of the trace-driven what-if (whatif_render.hpp).
#include "sidecore/model/sim/whatif_render.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace sidecore::model::sim {

void busy_recorder::cpu_busy(std::uint32_t rank, unsigned cpu, cpu_work what, op_id, double begin, double end) {
  busy_.push_back({rank, cpu, what, begin, end});
}

void busy_recorder::message(op_id, std::uint32_t, double, double) {}

namespace {
const char* work_name(cpu_work w) {
  return w == cpu_work::calc ? "calc" : w == cpu_work::send ? "o send" : "o reception";
}
const char* work_colour(cpu_work w) {
  return w == cpu_work::calc ? "#9e9e9e" : w == cpu_work::send ? "#1f77b4" : "#2ca02c";
}
}  // namespace

std::string whatif_chrome_json(const std::array<const busy_recorder*, 3>& timelines, std::uint32_t ranks) {
  using nlohmann::json;
  json events = json::array();
  for (std::size_t s = 0; s < 3; ++s) {
    if (timelines[s] == nullptr) continue;
    for (std::uint32_t r = 0; r < ranks; ++r) {
      const std::size_t pid = s * ranks + r;
      events.push_back({{"ph", "M"}, {"pid", pid}, {"name", "process_name"},
                        {"args", {{"name", fmt::format("{} / rank {}", scenario_name(all_scenarios[s]), r)}}}});
      events.push_back({{"ph", "M"}, {"pid", pid}, {"name", "process_sort_index"}, {"args", {{"sort_index", pid}}}});
      for (unsigned c = 0; c < 2; ++c)
        events.push_back({{"ph", "M"}, {"pid", pid}, {"tid", c}, {"name", "thread_name"},
                          {"args", {{"name", c == 0 ? "cpu 0: application" : "cpu 1: progress"}}}});
    }
    for (const busy_recorder::busy& b : timelines[s]->spans())
      events.push_back({{"ph", "X"}, {"pid", s * ranks + b.rank}, {"tid", b.cpu}, {"name", work_name(b.what)},
                        {"ts", b.begin / 1e3}, {"dur", (b.end - b.begin) / 1e3}});
  }
  return json{{"traceEvents", events}, {"displayTimeUnit", "ns"}}.dump() + "\n";
}

std::string whatif_svg(const std::array<const busy_recorder*, 3>& timelines, std::uint32_t ranks,
                       const std::array<double, 3>& makespans, const std::vector<sweep_point>& sweep) {
  constexpr double W = 960, left = 190, right = 20, plot_h = 240, row_h = 14;
  const double tmax = std::max({makespans[0], makespans[1], makespans[2], 1.0});
  std::string body;
  double y = 20;
  // The sweep: speedup against bandwidth (log x).
  if (sweep.size() >= 2) {
    double smin = 1, smax = 1;
    for (const sweep_point& p : sweep)
      for (std::size_t s = 1; s < 3; ++s)
        if (p.makespan_ns[s] > 0) {
          smin = std::min(smin, p.makespan_ns[0] / p.makespan_ns[s]);
          smax = std::max(smax, p.makespan_ns[0] / p.makespan_ns[s]);
        }
    smin = std::max(0.0, smin * 0.95);
    smax *= 1.05;
    const double x0 = std::log10(sweep.front().bandwidth_factor), x1 = std::log10(sweep.back().bandwidth_factor);
    auto px = [&](double f) { return left + (std::log10(f) - x0) / (x1 - x0) * (W - left - right); };
    auto py = [&](double v) { return y + 20 + (1 - (v - smin) / (smax - smin)) * (plot_h - 40); };
    body += fmt::format("<text x=\"{}\" y=\"{}\" font-weight=\"bold\">Speedup against progress in calls, by network "
                        "bandwidth (1 = the parameters')</text>\n", left, y + 10);
    body += fmt::format(
        "<line x1=\"{0}\" y1=\"{1:.1f}\" x2=\"{2}\" y2=\"{1:.1f}\" stroke=\"#bbb\" stroke-dasharray=\"4\"/>\n", left,
        py(1.0), W - right);
    body += fmt::format("<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">1.0</text>\n", left - 4, py(1.0) + 4);
    body +=
        fmt::format("<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">{:.2f}</text>\n", left - 4, py(smax) + 4, smax);
    body +=
        fmt::format("<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">{:.2f}</text>\n", left - 4, py(smin) + 4, smin);
    for (const sweep_point& p : sweep)
      body += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\" font-size=\"10\">{:g}</text>\n",
                          px(p.bandwidth_factor), y + plot_h - 4, p.bandwidth_factor);
    const char* colours[3] = {"#000", "#d62728", "#1f77b4"};
    for (std::size_t s = 1; s < 3; ++s) {
      std::string pts;
      for (const sweep_point& p : sweep)
        if (p.makespan_ns[s] > 0)
          pts += fmt::format("{:.1f},{:.1f} ", px(p.bandwidth_factor), py(p.makespan_ns[0] / p.makespan_ns[s]));
      body +=
          fmt::format("<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"2\" points=\"{}\"/>\n", colours[s], pts);
      body += fmt::format("<text x=\"{}\" y=\"{}\" fill=\"{}\">{}</text>\n", W - right - 150,
                          y + 30 + 16 * static_cast<double>(s), colours[s], scenario_name(all_scenarios[s]));
    }
    y += plot_h + 20;
  }
  // The timelines, on one time axis.
  auto tx = [&](double ns) { return left + ns / tmax * (W - left - right); };
  body += fmt::format("<text x=\"{}\" y=\"{}\" font-weight=\"bold\">Timelines (0 to {:.3f} ms; grey: computation, "
                      "blue: o of sends, green: o of receptions)</text>\n", left, y, tmax / 1e6);
  y += 10;
  for (std::size_t s = 0; s < 3; ++s) {
    if (timelines[s] == nullptr) continue;
    const unsigned cpus = s == 0 ? 1 : 2;
    body += fmt::format("<text x=\"4\" y=\"{}\" font-weight=\"bold\">{} ({:.3f} ms)</text>\n", y + 12,
                        scenario_name(all_scenarios[s]), makespans[s] / 1e6);
    y += 16;
    for (std::uint32_t r = 0; r < ranks; ++r)
      for (unsigned c = 0; c < cpus; ++c) {
        const double ry = y + (r * cpus + c) * row_h;
        body += fmt::format("<text x=\"12\" y=\"{:.1f}\" font-size=\"10\">rank {} {}</text>\n", ry + 10, r,
                            c == 0 ? "application" : "progress");
      }
    for (const busy_recorder::busy& b : timelines[s]->spans()) {
      if (b.end <= b.begin) continue;
      const double ry = y + (b.rank * cpus + std::min(b.cpu, cpus - 1)) * row_h;
      body += fmt::format("<rect x=\"{:.2f}\" y=\"{:.1f}\" width=\"{:.2f}\" height=\"{}\" fill=\"{}\"/>\n", tx(b.begin),
                          ry + 1, std::max(0.3, tx(b.end) - tx(b.begin)), row_h - 2, work_colour(b.what));
    }
    y += ranks * cpus * row_h + 10;
  }
  return fmt::format("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1:.0f}\" viewBox=\"0 0 {0} "
                     "{1:.0f}\" font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" "
                     "fill=\"white\"/>\n{2}</svg>\n",
                     W, y + 10, body);
}

}  // namespace sidecore::model::sim
