// Hand-written SVG: predicted speedup against alpha.
#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "sidecore/model/render.hpp"

namespace sidecore::model {
namespace {

// About `target` round tick values covering [lo, hi] (1, 2 or 5 times a power of ten apart).
std::vector<double> nice_ticks(double lo, double hi, int target) {
  const double span = hi - lo;
  if (!(span > 0)) return {lo};
  const double raw = span / target;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    step = m * mag;
    if (step >= raw) break;
  }
  std::vector<double> t;
  for (double v = std::ceil(lo / step - 1e-9) * step; v <= hi + step * 1e-9; v += step)
    t.push_back(std::abs(v) < 1e-12 ? 0.0 : v);
  return t;
}

}  // namespace

std::string xml_escape(std::string_view s) {
  std::string o;
  o.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      case '\'': o += "&#39;"; break;
      default: o += c;
    }
  }
  return o;
}

std::string render_alpha_svg(const analysis& a) {
  constexpr double W = 720, H = 440, L = 80, R = 30, T = 50, B = 70;
  const auto& pts = a.sweep;
  double x0 = pts.empty() ? 0.0 : pts.front().alpha;
  double x1 = pts.empty() ? 1.0 : pts.back().alpha;
  if (x1 - x0 < 1e-9) {
    x0 = std::max(0.0, x0 - 0.05);
    x1 = std::min(1.0, x1 + 0.05);
    if (x1 - x0 < 1e-9) x1 = x0 + 0.1;
  }
  double y0 = 1.0 - a.noise;
  double y1 = 1.0 + a.noise;
  for (const auto& p : pts) {
    y0 = std::min(y0, p.speedup);
    y1 = std::max(y1, p.speedup);
  }
  const double pad = std::max(0.05 * (y1 - y0), 0.01);
  y0 -= pad;
  y1 += pad;
  auto X = [&](double v) { return L + (v - x0) / (x1 - x0) * (W - L - R); };
  auto Y = [&](double v) { return T + (y1 - v) / (y1 - y0) * (H - T - B); };

  std::string s;
  s += fmt::format("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
                   "font-family=\"sans-serif\" font-size=\"12\" role=\"img\" aria-label=\"predicted speedup against "
                   "alpha\">\n",
                   W, H);
  s += fmt::format("<rect x=\"0\" y=\"0\" width=\"{}\" height=\"{}\" fill=\"#ffffff\"/>\n", W, H);
  s += fmt::format("<text x=\"{}\" y=\"24\" text-anchor=\"middle\" font-size=\"15\" font-weight=\"bold\">Predicted "
                   "speedup with a dedicated progress core against alpha</text>\n",
                   W / 2);
  // Noise band and the speedup-1 line.
  s += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"#e8e8e8\"/>\n", L,
                   Y(1.0 + a.noise), W - L - R, std::max(0.5, Y(1.0 - a.noise) - Y(1.0 + a.noise)));
  // Grid and ticks.
  for (double v : nice_ticks(x0, x1, 10)) {
    s += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" stroke=\"#dddddd\"/>\n", X(v),
                     T, H - B);
    s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{:g}</text>\n", X(v), H - B + 18, v);
  }
  for (double v : nice_ticks(y0, y1, 8)) {
    s += fmt::format("<line x1=\"{1:.1f}\" y1=\"{0:.1f}\" x2=\"{2:.1f}\" y2=\"{0:.1f}\" stroke=\"#dddddd\"/>\n", Y(v),
                     L, W - R);
    s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\">{:g}</text>\n", L - 8, Y(v) + 4, v);
  }
  s += fmt::format("<line x1=\"{0:.1f}\" y1=\"{2:.1f}\" x2=\"{1:.1f}\" y2=\"{2:.1f}\" stroke=\"#555555\" "
                   "stroke-dasharray=\"6 4\"/>\n",
                   L, W - R, Y(1.0));
  // Label the band on the side the curve leaves free: left for a rising curve, right otherwise. It stays inside the
  // plot area (below T + 14); the break-even text has the line above the plot area to itself.
  const bool rising = pts.size() > 1 && pts.back().speedup > pts.front().speedup;
  s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"{}\" fill=\"#555555\">speedup 1 (noise band "
                   "+/-{:g} %)</text>\n",
                   rising ? L + 6 : W - R - 4, std::max(Y(1.0 + a.noise) - 4, T + 14), rising ? "start" : "end",
                   a.noise * 100);
  // Axes.
  s += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"none\" "
                   "stroke=\"#000000\"/>\n",
                   L, T, W - L - R, H - T - B);
  s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">alpha: fraction of blocking calls converted "
                   "to nonblocking</text>\n",
                   L + (W - L - R) / 2, H - 24);
  s += fmt::format("<text transform=\"translate(20 {:.1f}) rotate(-90)\" text-anchor=\"middle\">predicted speedup "
                   "(t_noprogress / t_dedicated)</text>\n",
                   T + (H - T - B) / 2);
  // The curve.
  if (!pts.empty()) {
    std::string poly;
    for (const auto& p : pts) poly += fmt::format("{:.2f},{:.2f} ", X(p.alpha), Y(p.speedup));
    s += fmt::format("<polyline points=\"{}\" fill=\"none\" stroke=\"#1f5fbf\" stroke-width=\"2.5\"/>\n", poly);
    for (const auto& p : pts)
      s += fmt::format("<circle cx=\"{:.2f}\" cy=\"{:.2f}\" r=\"2.5\" fill=\"#1f5fbf\"><title>alpha {:g}: speedup "
                       "{:.4f}</title></circle>\n",
                       X(p.alpha), Y(p.speedup), p.alpha, p.speedup);
  }
  // Break-even: each end of the interval where t_dedicated <= t_noprogress that lies inside (0, 1) and the plot.
  std::vector<double> ends;
  if (a.break_even.k == break_even_result::kind::crossing) {
    for (const double e : {a.break_even.pays_off_from, a.break_even.pays_off_to})
      if (e > 0 && e < 1 && e >= x0 && e <= x1 && (ends.empty() || e != ends.front())) ends.push_back(e);
  } else if (a.break_even.alpha && *a.break_even.alpha >= x0 && *a.break_even.alpha <= x1) {
    ends.push_back(*a.break_even.alpha);
  }
  for (const double e : ends) {
    const double bx = X(e);
    s += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" stroke=\"#c0392b\" "
                     "stroke-width=\"1.5\"/>\n",
                     bx, T, H - B);
    s += fmt::format(
        "<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"5\" fill=\"none\" stroke=\"#c0392b\" stroke-width=\"2\"/>\n", bx,
        Y(1.0));
  }
  if (ends.size() == 2) {
    s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" fill=\"#c0392b\">{}</text>\n", L, T - 6,
                     xml_escape(fmt::format("break-even: t_dedicated <= t_noprogress for alpha in [{:.3f}, {:.3f}]",
                                            ends[0], ends[1])));
  } else if (ends.size() == 1) {
    const double bx = X(ends[0]);
    s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"{}\" fill=\"#c0392b\">break-even alpha = "
                     "{:.3f}</text>\n",
                     bx + (bx > W / 2 ? -6 : 6), T - 6, bx > W / 2 ? "end" : "start", ends[0]);
  } else {
    s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" fill=\"#c0392b\">{}</text>\n", L, T - 6,
                     xml_escape("break-even: " + a.break_even.describe()));
  }
  s += "</svg>\n";
  return s;
}

}  // namespace sidecore::model
