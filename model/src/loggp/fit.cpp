// LogGP parameters from PRTT measurements (fit.hpp; seed 001, Section 2).
#include "sidecore/model/loggp/fit.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <optional>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

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

std::vector<std::size_t> detect_changes(const std::vector<std::uint64_t>& size,
                                        const std::vector<change_series>& series, const fit_options& o) {
  std::vector<std::size_t> changes;
  const std::size_t n = size.size();
  for (const change_series& c : series)
    if (c.val.size() != n)
      throw std::invalid_argument(fmt::format("detect_changes: a series of {} values for {} sizes", c.val.size(), n));
  const auto x = static_cast<std::size_t>(std::max(1, o.lookahead));
  const double floor = o.relative_floor * o.relative_floor;
  std::vector<std::vector<double>> w;
  for (const change_series& c : series) w.push_back(relative_weights(c.val));
  // Does series k's protocol that began at `last` end after `cur`?
  auto ends_at = [&](std::size_t k, std::size_t last, std::size_t cur) {
    const std::vector<double>& v = series[k].val;
    const double dev = std::max(lsq(size, v, w[k], last, cur), floor);
    // The paper's test: every look-ahead deviation above pfact x the current one.
    bool paper = true;
    for (std::size_t j = 1; j <= x && paper; ++j) paper = lsq(size, v, w[k], last, cur + j) > o.pfact * dev;
    return paper;
  };
  // lsq(last, current) needs current >= last + 3 (its denominator l - k - 2 >= 1).
  const auto first_test = static_cast<std::size_t>(std::max(4, o.min_points)) - 1;
  std::size_t last = 0;
  for (std::size_t cur = last + first_test; cur + x < n;) {
    bool change = false;
    for (std::size_t k = 0; k < series.size() && !change; ++k) change = ends_at(k, last, cur);
    if (change) {
      changes.push_back(cur);
      last = cur + 1;
      // A protocol narrower than min_points (one or two measured sizes: on shm, 8192 B, the largest eager size,
      // costs about 1 us more than the eager line gives), which the paper's test cannot end: the test run
      // backwards from the sizes after it (change_series::looks_back).
      for (std::size_t wide = 1; wide <= x; ++wide) {
        const std::size_t a = last + wide, b = a + first_test;
        bool apart = false;
        for (std::size_t k = 0; b < n && k < series.size() && !apart; ++k) {
          const std::vector<double>& v = series[k].val;
          if (!series[k].looks_back) continue;
          const double dev = std::max(lsq(size, v, w[k], a, b), floor);
          const line_fit f = fit_line(size, v, w[k], a, b);
          const double limit = std::max(o.pfact * std::sqrt(dev), o.max_bend);
          apart = lsq(size, v, w[k], last, b) > o.pfact * dev;
          for (std::size_t i = last; i < a && apart; ++i)
            apart = w[k][i] > 0 && std::abs(f(size[i]) - v[i]) / v[i] > limit;
        }
        if (apart) {
          changes.push_back(a - 1);
          last = a;
          break;
        }
      }
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

namespace {

// The unknowns of a range's fit, in the order of the coefficient rows.
enum param : std::size_t { p_L, p_os, p_Os, p_or, p_Or, p_g, p_G, n_params };
constexpr std::array<const char*, n_params> param_name{"L", "o_s", "O_s", "o_r", "O_r", "g", "G"};
constexpr std::array<const char*, n_params> param_unit{"ns", "ns", "ns/B", "ns", "ns/B", "ns", "ns/B"};
using params = std::array<double, n_params>;

// One measured value and the model's linear expression for it: a . params ~ value. Its residual is
// multiplied by root_weight (the square root of its weight in the sum of squares; kept as the root so
// that 1/value does not overflow where 1/value^2 would).
struct equation {
  params a{};
  double value = 0;
  double root_weight = 0;
};

// Weighted linear least squares over the parameters marked free (the others are 0), by Householder QR
// of the weighted matrix. Its columns are scaled to unit norm first: a per-byte column holds s - 1, up to
// millions, where an intercept column holds 2. Returns nothing when the free columns are dependent (one size
// makes O_s (s-1) a multiple of o_s) or nearly so, or when values beyond double's range make a
// number of it infinite.
std::optional<params> solve(const std::vector<equation>& eqs, const std::array<bool, n_params>& is_free) {
  std::vector<std::size_t> cols;
  for (std::size_t j = 0; j < n_params; ++j)
    if (is_free[j]) cols.push_back(j);
  const std::size_t m = eqs.size(), k = cols.size();
  if (m < k) return std::nullopt;
  std::vector<double> R(m * k), y(m), scale(k, 0.0);
  for (std::size_t i = 0; i < m; ++i) {
    for (std::size_t c = 0; c < k; ++c) R[i * k + c] = eqs[i].root_weight * eqs[i].a[cols[c]];
    y[i] = eqs[i].root_weight * eqs[i].value;
    if (!std::isfinite(y[i])) return std::nullopt;
  }
  for (std::size_t c = 0; c < k; ++c) {
    double top = 0;  // the norm is taken of the column divided by its largest entry: squares could overflow
    for (std::size_t i = 0; i < m; ++i) top = std::max(top, std::abs(R[i * k + c]));
    if (top == 0 || !std::isfinite(top)) return std::nullopt;
    for (std::size_t i = 0; i < m; ++i) scale[c] += (R[i * k + c] / top) * (R[i * k + c] / top);
    scale[c] = top * std::sqrt(scale[c]);
    for (std::size_t i = 0; i < m; ++i) R[i * k + c] /= scale[c];
  }
  // With unit columns, the diagonal of R is the sine of the angle between a column and the span of
  // those before it.
  constexpr double dependent = 1e-9;
  std::vector<double> v(m);
  for (std::size_t j = 0; j < k; ++j) {
    double norm = 0;
    for (std::size_t i = j; i < m; ++i) norm += R[i * k + j] * R[i * k + j];
    norm = std::sqrt(norm);
    if (norm < dependent) return std::nullopt;
    const double alpha = R[j * k + j] > 0 ? -norm : norm;
    double vv = 0;
    for (std::size_t i = j; i < m; ++i) {
      v[i] = R[i * k + j] - (i == j ? alpha : 0.0);
      vv += v[i] * v[i];
    }
    for (std::size_t c = j; c < k; ++c) {
      double d = 0;
      for (std::size_t i = j; i < m; ++i) d += v[i] * R[i * k + c];
      d *= 2 / vv;
      for (std::size_t i = j; i < m; ++i) R[i * k + c] -= d * v[i];
    }
    double d = 0;
    for (std::size_t i = j; i < m; ++i) d += v[i] * y[i];
    d *= 2 / vv;
    for (std::size_t i = j; i < m; ++i) y[i] -= d * v[i];
  }
  std::vector<double> x(k);
  for (std::size_t j = k; j-- > 0;) {
    double t = y[j];
    for (std::size_t c = j + 1; c < k; ++c) t -= R[j * k + c] * x[c];
    x[j] = t / R[j * k + j];
  }
  params out{};
  for (std::size_t c = 0; c < k; ++c) {
    out[cols[c]] = x[c] / scale[c];
    if (!std::isfinite(out[cols[c]])) return std::nullopt;
  }
  return out;
}

double weighted_ssr(const std::vector<equation>& eqs, const params& x) {
  double sum = 0;
  for (const equation& e : eqs) {
    double f = 0;
    for (std::size_t j = 0; j < n_params; ++j) f += e.a[j] * x[j];
    const double r = e.root_weight * (f - e.value);
    sum += r * r;
  }
  return sum;
}

// The parameters that must be >= 0, per-byte terms first. Holding a set of them at 0 is a bit mask:
// bit (5 - i) holds constrained[i], so that among masks with as many bits the larger one holds
// earlier parameters; where holding either of two fits equally well (one size: o_s and O_s (s-1) are
// the same column) the per-byte term is held.
constexpr std::array<std::size_t, 6> constrained{p_Os, p_Or, p_G, p_os, p_or, p_g};
constexpr unsigned n_masks = 1u << constrained.size();
bool holds(unsigned mask, std::size_t i) { return ((mask >> (constrained.size() - 1 - i)) & 1u) != 0; }

struct nnls_result {
  params x{};
  unsigned mask = 0;                // what it held at 0
  std::optional<params> free_fit;   // the fit with only `always` held, when it exists
  bool found = false;               // false only where values beyond double's range left nothing solvable
};

// Least squares with the constrained parameters >= 0 (non-negative least squares). The constrained
// optimum is the unconstrained least-squares solution over the parameters it leaves free, so it is the
// best of the solutions over every set of held parameters whose free constrained ones come out >= 0:
// 2^6 small systems, solved exactly, in order of fewer held first. `always` is held in every one.
nnls_result nonnegative_fit(const std::vector<equation>& eqs, unsigned always) {
  std::array<unsigned, n_masks> order{};
  for (unsigned m = 0; m < n_masks; ++m) order[m] = m;
  std::sort(order.begin(), order.end(), [](unsigned a, unsigned b) {
    return std::popcount(a) != std::popcount(b) ? std::popcount(a) < std::popcount(b) : a > b;
  });
  nnls_result best;
  double best_ssr = 0;
  bool found = false;
  for (unsigned mask : order) {
    if ((mask & always) != always) continue;
    std::array<bool, n_params> is_free;
    is_free.fill(true);
    for (std::size_t i = 0; i < constrained.size(); ++i)
      if (holds(mask, i)) is_free[constrained[i]] = false;
    const std::optional<params> x = solve(eqs, is_free);
    if (mask == always) best.free_fit = x;
    if (!x) continue;
    bool feasible = true;
    for (std::size_t i = 0; i < constrained.size(); ++i) feasible = feasible && (*x)[constrained[i]] >= 0;
    if (!feasible) continue;
    if (mask == always) return {*x, mask, x, true};  // the unconstrained optimum is feasible: nothing to hold
    const double ssr = weighted_ssr(eqs, *x);
    if (!found || ssr < best_ssr) {
      best.x = *x;
      best.mask = mask;
      best_ssr = ssr;
      found = true;
    }
  }
  best.found = found;
  return best;
}

// Running sums of one series' relative residuals.
struct residual_sum {
  double max = 0, sum2 = 0;
  std::size_t n = 0;
  void add(double fitted, double measured) {
    if (measured <= 0) return;
    const double r = (fitted - measured) / measured;
    max = std::max(max, std::abs(r));
    sum2 += r * r;
    ++n;
  }
  [[nodiscard]] residual get() const {
    return {max, n > 0 ? std::sqrt(sum2 / static_cast<double>(n)) : 0.0, n};
  }
};

void check_overhead_weight(const fit_options& o) {
  if (!(o.overhead_weight > 0) || !std::isfinite(o.overhead_weight))
    throw std::invalid_argument(
        fmt::format("overhead_weight = {} is not accepted; accepted: a finite number > 0", o.overhead_weight));
}

void check_tolerance(const fit_options& o) {
  if (!(o.tolerance >= 0) || !std::isfinite(o.tolerance))
    throw std::invalid_argument(
        fmt::format("tolerance = {} is not accepted; accepted: a finite number >= 0 (0: no splits)", o.tolerance));
}

}  // namespace

range_fit fit_range(const prtt_series& s, const std::vector<derived_point>& derived, std::size_t first,
                    std::size_t last, const fit_options& o, std::vector<std::string>& warnings) {
  check_overhead_weight(o);
  if (first > last || last >= s.points.size() || last >= derived.size())
    throw std::invalid_argument(fmt::format("range of points {} .. {}: accepted: first <= last < {}", first, last,
                                            std::min(s.points.size(), derived.size())));
  range_fit r;
  r.first = first;
  r.last = last;
  r.first_bytes = s.points[first].bytes;
  r.last_bytes = s.points[last].bytes;
  const double n1 = s.n - 1;
  // The unknowns o_s, o_r and g are the values at the range's first size, not at s = 1: the signs are
  // constrained where the range's messages are (docs/loggp.md, "Signs"). u = s - first size.
  const double x0 = static_cast<double>(r.first_bytes) - 1;
  std::vector<equation> eqs;
  for (std::size_t i = first; i <= last; ++i) {
    const prtt_point& p = s.points[i];
    const derived_point& d = derived[i];
    const double x = static_cast<double>(p.bytes) - 1;
    const double u = x - x0;
    // Relative residuals for the PRTT series; those of the overheads count relative to the round trip, times
    // overhead_weight (fit_options; docs/loggp.md, "Fitting a range").
    const double overhead = std::sqrt(o.overhead_weight) / p.prtt1_ns;
    eqs.push_back({{2, 2, 2 * u, 2, 2 * u, 0, 2 * x}, p.prtt1_ns, 1 / p.prtt1_ns});  // eq. (1)
    if (d.g_all_ns > 0)                                                                // eq. (2)
      eqs.push_back({{2, 2, 2 * u, 2, 2 * u, n1, 2 * x + n1 * u}, p.prttn_ns, 1 / p.prttn_ns});
    if (d.o_s_ns > 0) eqs.push_back({{0, 1, u, 0, 0, 0, 0}, d.o_s_ns, overhead});
    if (d.o_r_ns > 0) eqs.push_back({{0, 0, 0, 1, u, 0, 0}, d.o_r_ns, overhead});
  }
  unsigned always = 0;
  if (first == last) {
    for (std::size_t i = 0; i < 3; ++i) always |= 1u << (constrained.size() - 1 - i);  // O_s, O_r, G
    warnings.push_back(fmt::format("the range {} B .. {} B has 1 size: O_s, O_r and G are not determined there and "
                                   "are held at 0 (constant overheads and gap)",
                                   r.first_bytes, r.last_bytes));
  }
  const nnls_result fit = nonnegative_fit(eqs, always);
  if (!fit.found)
    throw std::invalid_argument(fmt::format("the range {} B .. {} B: no parameters fit its values (PRTT(1,0,s) = {} ns "
                                            "at {} B): numbers beyond the range of a double",
                                            r.first_bytes, r.last_bytes, s.points[first].prtt1_ns, r.first_bytes));
  std::vector<std::string> held, was;
  for (std::size_t i = 0; i < constrained.size(); ++i) {
    if (!holds(fit.mask, i)) continue;
    r.held_at_zero.push_back(param_name[constrained[i]]);
    if (holds(always, i)) continue;
    held.push_back(param_name[constrained[i]]);
    if (fit.free_fit)
      was.push_back(fmt::format("{} = {:.4g} {}", param_name[constrained[i]], (*fit.free_fit)[constrained[i]],
                                param_unit[constrained[i]]));
  }
  if (!held.empty() && fit.free_fit)
    warnings.push_back(fmt::format("the range {} B .. {} B: {} held at 0 (o_s, o_r, g at {} B), the best fit without a "
                                   "negative overhead, gap or time per byte (fitted freely: {})",
                                   r.first_bytes, r.last_bytes, fmt::join(held, ", "), r.first_bytes,
                                   fmt::join(was, ", ")));
  else if (!held.empty())
    warnings.push_back(fmt::format("the range {} B .. {} B: its measurements do not determine every parameter (no "
                                   "o_s or o_r > 0 at 2 sizes?); held at 0: {}",
                                   r.first_bytes, r.last_bytes, fmt::join(held, ", ")));
  const params& x = fit.x;
  r.L_ns = x[p_L];
  r.o_s = {x[p_os] - x0 * x[p_Os], x[p_Os]};
  r.o_r = {x[p_or] - x0 * x[p_Or], x[p_Or]};
  r.g_all = {x[p_g] - x0 * x[p_G], x[p_G]};

  residual_sum e1, en, es, eo, eg;
  for (std::size_t i = first; i <= last; ++i) {
    const prtt_point& p = s.points[i];
    const derived_point& d = derived[i];
    e1.add(r.prtt1(p.bytes), p.prtt1_ns);
    en.add(r.prttn(p.bytes, s.n), p.prttn_ns);
    es.add(r.o_s(p.bytes), d.o_s_ns);
    eo.add(r.o_r(p.bytes), d.o_r_ns);
    eg.add(r.g_all(p.bytes), d.g_all_ns);
  }
  r.residuals = {e1.get(), en.get(), es.get(), eo.get(), eg.get()};
  return r;
}

namespace {

// LogGP charges a message's bytes once at G in the round trip (eq. 1: PRTT(1,0,s) grows at least 2G per
// byte) and again in the gap between back-to-back messages (eq. 5: G_all grows G per byte). Where the gap
// grows faster than half the round trip (a provider whose bounded queues stall a burst: shm's eager path),
// no LogGP parameters reproduce both PRTT series; the range's miss then says so, not "fit harder".
void warn_if_not_loggp(series_fit& f, const range_fit& r, const fit_options& o) {
  if (r.last - r.first < 2 || std::max(r.residuals.prtt1.max_rel, r.residuals.prttn.max_rel) <= o.tolerance) return;
  std::vector<std::uint64_t> size;
  std::vector<double> prtt1, gall;
  for (std::size_t i = r.first; i <= r.last; ++i) {
    if (f.derived[i].g_all_ns <= 0) continue;
    size.push_back(f.derived[i].bytes);
    prtt1.push_back(f.derived[i].prtt1_ns);
    gall.push_back(f.derived[i].g_all_ns);
  }
  if (size.size() < 3) return;
  const std::vector<double> w1 = relative_weights(prtt1), wg = relative_weights(gall);
  const double round_trip = fit_line(size, prtt1, w1, 0, size.size() - 1).slope / 2;
  const double gap = fit_line(size, gall, wg, 0, size.size() - 1).slope;
  if (gap > 0 && round_trip < (1 - o.tolerance) * gap)
    f.warnings.push_back(fmt::format(
        "the range {} B .. {} B: the gap between back-to-back messages grows {:.4f} ns/B, a message's one-way "
        "time only {:.4f} ns/B; LogGP charges both the same G (eqs. 1 and 5), so no parameters reproduce "
        "PRTT(1,0,s) and PRTT(n,0,s) together there (a provider whose bounded queues stall a burst)",
        r.first_bytes, r.last_bytes, gap, round_trip));
}

}  // namespace

series_fit fit(const prtt_series& s, const fit_options& o) {
  if (s.points.size() < 2)
    throw std::invalid_argument(fmt::format("{} measured size(s): a fit needs at least 2", s.points.size()));
  check_overhead_weight(o);
  check_tolerance(o);
  series_fit out;
  out.series = s;
  out.derived = derive(s);
  const std::size_t n = out.derived.size();
  std::vector<std::uint64_t> size(n);
  std::vector<double> gall(n), prtt1(n);
  for (std::size_t i = 0; i < n; ++i) {
    const derived_point& d = out.derived[i];
    size[i] = d.bytes;
    gall[i] = d.g_all_ns;
    prtt1[i] = d.prtt1_ns;
    if (d.d_too_small)
      out.warnings.push_back(fmt::format("{} B: d = PRTT(1,0,s) = {:.0f} ns is not above G_all = {:.0f} ns, so o_s "
                                         "there is wrong (Hoefler et al., LogGP in Theory and Practice, Section 3: "
                                         "measure with d = PRTT(2,0,s))",
                                         d.bytes, d.prtt1_ns, d.g_all_ns));
    if (d.g_all_ns <= 0)
      out.warnings.push_back(fmt::format("{} B: PRTT(n,0,s) = {:.0f} ns is not above PRTT(1,0,s) = {:.0f} ns, so "
                                         "G_all <= 0 (eq. 5): noise larger than the gap; the size's PRTT(n,0,s) is "
                                         "left out of the fit",
                                         d.bytes, s.points[i].prttn_ns, s.points[i].prtt1_ns));
    if (d.o_s_ns <= 0)
      out.warnings.push_back(fmt::format("{} B: o_s = {:.0f} ns (eq. 4) is not > 0: noise larger than the overhead; "
                                         "the size's o_s is left out of the fit",
                                         d.bytes, d.o_s_ns));
    if (d.o_r_ns <= 0)
      out.warnings.push_back(
          fmt::format("{} B: o_r = {:.0f} ns is not > 0; the size's o_r is left out of the fit", d.bytes, d.o_r_ns));
  }
  out.latency_ns = s.points.front().prtt1_ns / 2;
  out.changes = detect_changes(size, {{std::move(gall), false}, {std::move(prtt1), true}}, o);

  std::vector<std::size_t> ends;
  std::size_t first = 0;
  std::vector<std::size_t> protocol_ends = out.changes;
  protocol_ends.push_back(n - 1);
  for (std::size_t last : protocol_ends) {
    for (std::size_t k : split_to_tolerance(s, out.derived, first, last, o)) {
      out.splits.push_back(k);
      ends.push_back(k);
    }
    ends.push_back(last);
    first = last + 1;
  }
  first = 0;
  for (std::size_t last : ends) {
    out.ranges.push_back(fit_range(s, out.derived, first, last, o, out.warnings));
    warn_if_not_loggp(out, out.ranges.back(), o);
    first = last + 1;
  }
  return out;
}

}  // namespace sidecore::model::loggp
