// Issue 16's check of a fit (fit.hpp, fit_check): docs/loggp.md, "Checks and residuals".
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "sidecore/model/loggp/fit.hpp"

namespace sidecore::model::loggp {

namespace {

// |v_i / (the log-log line through sizes i-1 and i+1 at s_i) - 1|; 0 at the ends or where a value is not > 0.
double off_neighbours(const std::vector<prtt_point>& p, std::size_t i, double prtt_point::*v) {
  if (i == 0 || i + 1 >= p.size()) return 0;
  const double a = p[i - 1].*v, b = p[i].*v, c = p[i + 1].*v;
  if (!(a > 0 && b > 0 && c > 0)) return 0;
  const double la = std::log(static_cast<double>(p[i - 1].bytes)), lb = std::log(static_cast<double>(p[i].bytes)),
               lc = std::log(static_cast<double>(p[i + 1].bytes));
  const double line = std::exp(std::log(a) + (std::log(c) - std::log(a)) * (lb - la) / (lc - la));
  return std::abs(b / line - 1);
}

}  // namespace

fit_check check_fit(const series_fit& f, double tolerance) {
  if (!(tolerance > 0) || !std::isfinite(tolerance))
    throw std::invalid_argument(
        fmt::format("tolerance = {} is not accepted; accepted: a finite number > 0", tolerance));
  fit_check c;
  c.tolerance = tolerance;
  c.ranges = f.ranges.size();
  const std::vector<prtt_point>& pts = f.series.points;
  for (const range_fit& r : f.ranges) {
    double range_miss = 0;
    for (std::size_t i = r.first; i <= r.last && i < pts.size(); ++i) {
      const prtt_point& p = pts[i];
      double e = std::abs(r.prtt1(p.bytes) - p.prtt1_ns) / p.prtt1_ns;
      const bool with_n = p.prttn_ns > 0;  // as the residuals count it (range_residuals)
      if (with_n) e = std::max(e, std::abs(r.prttn(p.bytes, f.series.n) - p.prttn_ns) / p.prttn_ns);
      ++c.sizes;
      range_miss = std::max(range_miss, e);
      if (e <= tolerance) {
        ++c.sizes_within;
        continue;
      }
      const double rough = std::max(off_neighbours(pts, i, &prtt_point::prtt1_ns),
                                    with_n ? off_neighbours(pts, i, &prtt_point::prttn_ns) : 0.0);
      c.misses_off_neighbours += rough > tolerance ? 1 : 0;
    }
    c.ranges_within += range_miss <= tolerance ? 1 : 0;
    if (range_miss > c.largest_miss) {
      c.largest_miss = range_miss;
      c.largest_first_bytes = r.first_bytes;
      c.largest_last_bytes = r.last_bytes;
    }
  }
  return c;
}

}  // namespace sidecore::model::loggp
