// LogGP parameters from PRTT measurements (fit.hpp; seed 001, Section 2).
#include "sidecore/model/loggp/fit.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

namespace sidecore::model::loggp {

std::vector<derived_point> derive(const prtt_series& s) {
  if (s.n < 2) throw std::invalid_argument(fmt::format("n = {}: PRTT(n, ., s) needs n >= 2", s.n));
  std::vector<derived_point> out;
  out.reserve(s.points.size());
  const double n1 = s.n - 1;
  for (std::size_t i = 0; i < s.points.size(); ++i) {
    const prtt_point& p = s.points[i];
    for (const auto& [name, v] : {std::pair{"prtt1_ns", p.prtt1_ns}, std::pair{"prttn_ns", p.prttn_ns},
                                  std::pair{"prttd_ns", p.prttd_ns}, std::pair{"o_r_ns", p.o_r_ns}})
      if (!std::isfinite(v) || v < 0)
        throw std::invalid_argument(fmt::format("size {} B: {} = {} is not a time >= 0", p.bytes, name, v));
    if (p.prtt1_ns <= 0) throw std::invalid_argument(fmt::format("size {} B: prtt1_ns must be > 0", p.bytes));
    if (i > 0 && p.bytes <= s.points[i - 1].bytes)
      throw std::invalid_argument(fmt::format("size {} B follows {} B: sizes must be strictly ascending", p.bytes,
                                              s.points[i - 1].bytes));
    derived_point d;
    d.bytes = p.bytes;
    d.prtt1_ns = p.prtt1_ns;
    d.o_r_ns = p.o_r_ns;
    const double delay = p.prtt1_ns;  // d = PRTT(1, 0, s)
    d.o_s_ns = (p.prttd_ns - p.prtt1_ns) / n1 - delay;  // eq. (4)
    d.g_all_ns = (p.prttn_ns - p.prtt1_ns) / n1;         // eq. (5)
    d.d_too_small = delay <= d.g_all_ns;
    out.push_back(d);
  }
  return out;
}

line_fit fit_line(const std::vector<std::uint64_t>& size, const std::vector<double>& val,
                  const std::vector<double>& weight, std::size_t first, std::size_t last) {
  double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (std::size_t i = first; i <= last; ++i) {
    const double x = static_cast<double>(size[i]) - 1, y = val[i], w = weight[i];
    sw += w;
    sx += w * x;
    sy += w * y;
    sxx += w * x * x;
    sxy += w * x * y;
  }
  line_fit f;
  const double det = sw * sxx - sx * sx;
  if (last == first || std::abs(det) <= 1e-12 * sw * sxx) {  // one point, or one size: a constant
    f.at_one = sy / sw;
    return f;
  }
  f.slope = (sw * sxy - sx * sy) / det;
  f.at_one = (sy - f.slope * sx) / sw;
  return f;
}

namespace {

std::vector<double> relative_weights(const std::vector<double>& val) {
  std::vector<double> w(val.size());
  for (std::size_t i = 0; i < val.size(); ++i) w[i] = val[i] > 0 ? 1.0 / (val[i] * val[i]) : 0.0;
  return w;
}

// seed 001 eq. (6), with relative residuals: sum over k..l of ((f(s_i) - v_i) / v_i)^2 / (l - k - 2).
// Points of weight 0 (a value <= 0: noise larger than the value) are left out, and out of the count.
double lsq(const std::vector<std::uint64_t>& size, const std::vector<double>& val, const std::vector<double>& weight,
           std::size_t k, std::size_t l) {
  const line_fit f = fit_line(size, val, weight, k, l);
  double sum = 0;
  std::size_t skipped = 0;
  for (std::size_t i = k; i <= l; ++i) {
    if (weight[i] == 0) {
      ++skipped;
      continue;
    }
    const double r = (f(size[i]) - val[i]) / val[i];
    sum += r * r;
  }
  const double dof = static_cast<double>(l - k) - 2 - static_cast<double>(skipped);
  return dof > 0 ? sum / dof : 0;
}

}  // namespace

std::vector<std::size_t> detect_changes(const std::vector<std::uint64_t>& size, const std::vector<double>& val,
                                        const fit_options& o) {
  std::vector<std::size_t> changes;
  const std::size_t n = val.size();
  const auto x = static_cast<std::size_t>(std::max(1, o.lookahead));
  const double floor = o.relative_floor * o.relative_floor;
  const std::vector<double> w = relative_weights(val);
  // lsq(last, current) needs current >= last + 3 (its denominator l - k - 2 >= 1).
  const auto first_test = static_cast<std::size_t>(std::max(4, o.min_points)) - 1;
  std::size_t last = 0;
  for (std::size_t cur = last + first_test; cur + x < n;) {
    const double base = std::max(lsq(size, val, w, last, cur), floor) * o.pfact;
    bool change = true;
    for (std::size_t j = 1; j <= x && change; ++j) change = lsq(size, val, w, last, cur + j) > base;
    if (change) {
      changes.push_back(cur);
      last = cur + 1;
      cur = last + first_test;
    } else {
      ++cur;
    }
  }
  return changes;
}

double range_fit::prtt1(std::uint64_t bytes) const {
  return 2 * (L_ns + o_s(bytes) + o_r(bytes) + (static_cast<double>(bytes) - 1) * g_all.slope);
}

double range_fit::prttn(std::uint64_t bytes, int n) const { return prtt1(bytes) + (n - 1) * g_all(bytes); }

const range_fit& series_fit::range_for(std::uint64_t bytes) const {
  for (const range_fit& r : ranges)
    if (bytes <= r.last_bytes) return r;
  return ranges.back();
}

series_fit fit(const prtt_series& s, const fit_options& o) {
  if (s.points.size() < 2)
    throw std::invalid_argument(fmt::format("{} measured size(s): a fit needs at least 2", s.points.size()));
  series_fit out;
  out.series = s;
  out.derived = derive(s);
  const std::size_t n = out.derived.size();
  std::vector<std::uint64_t> size(n);
  std::vector<double> gall(n), os(n), orr(n), round_trip_weight(n);
  for (std::size_t i = 0; i < n; ++i) {
    const derived_point& d = out.derived[i];
    size[i] = d.bytes;
    gall[i] = d.g_all_ns;
    os[i] = d.o_s_ns;
    orr[i] = d.o_r_ns;
    round_trip_weight[i] = 1.0 / (d.prtt1_ns * d.prtt1_ns);
    if (d.d_too_small)
      out.warnings.push_back(fmt::format("{} B: d = PRTT(1,0,s) = {:.0f} ns is not above G_all = {:.0f} ns, so o_s "
                                         "there is wrong (seed 001 Section 3: measure with d = PRTT(2,0,s))",
                                         d.bytes, d.prtt1_ns, d.g_all_ns));
    if (d.g_all_ns <= 0)
      out.warnings.push_back(fmt::format("{} B: PRTT(n,0,s) = {:.0f} ns is not above PRTT(1,0,s) = {:.0f} ns, so "
                                         "G_all <= 0 (eq. 5): noise larger than the gap; the size is left out of "
                                         "the fits of g and G",
                                         d.bytes, s.points[i].prttn_ns, s.points[i].prtt1_ns));
  }
  out.latency_ns = s.points.front().prtt1_ns / 2;
  out.changes = detect_changes(size, gall, o);
  const std::vector<double> gall_weight = relative_weights(gall);

  std::size_t first = 0;
  std::vector<std::size_t> ends = out.changes;
  ends.push_back(n - 1);
  for (std::size_t last : ends) {
    range_fit r;
    r.first = first;
    r.last = last;
    r.first_bytes = size[first];
    r.last_bytes = size[last];
    if (last - first < 1)
      out.warnings.push_back(fmt::format("the range {} B .. {} B has 1 point: g and G are not both determined",
                                         r.first_bytes, r.last_bytes));
    r.g_all = fit_line(size, gall, gall_weight, first, last);
    r.o_s = fit_line(size, os, round_trip_weight, first, last);
    r.o_r = fit_line(size, orr, round_trip_weight, first, last);
    double lsum = 0, wsum = 0;
    for (std::size_t i = first; i <= last; ++i) {
      lsum += round_trip_weight[i] * (out.derived[i].prtt1_ns / 2 - r.o_s(size[i]) - r.o_r(size[i]) -
                                      (static_cast<double>(size[i]) - 1) * r.g_all.slope);
      wsum += round_trip_weight[i];
    }
    r.L_ns = lsum / wsum;
    double g2 = 0, p2 = 0;
    for (std::size_t i = first; i <= last; ++i) {
      const double eg = gall[i] > 0 ? (r.g_all(size[i]) - gall[i]) / gall[i] : 0.0;
      const double e1 = (r.prtt1(size[i]) - s.points[i].prtt1_ns) / s.points[i].prtt1_ns;
      const double en = (r.prttn(size[i], s.n) - s.points[i].prttn_ns) / s.points[i].prttn_ns;
      g2 += eg * eg;
      p2 += e1 * e1;
      r.prtt1_max_rel = std::max(r.prtt1_max_rel, std::abs(e1));
      r.prttn_max_rel = std::max(r.prttn_max_rel, std::abs(en));
    }
    const auto cnt = static_cast<double>(last - first + 1);
    r.gall_rms_rel = std::sqrt(g2 / cnt);
    r.prtt1_rms_rel = std::sqrt(p2 / cnt);
    out.ranges.push_back(r);
    first = last + 1;
  }
  return out;
}

}  // namespace sidecore::model::loggp
