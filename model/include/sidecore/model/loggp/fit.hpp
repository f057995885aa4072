// sidecore LogGP — parameters from parametrized round-trip times, PRTT(n, d, s) (seed 001,
// Hoefler, Schneider, Lumsdaine, "LogGP in Theory and Practice", Section 2), with automatic
// protocol-change detection (Section 2.6). docs/loggp.md explains each step.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace sidecore::model::loggp {

/// The measurements at one message size s, in nanoseconds (medians of repetitions).
struct prtt_point {
  std::uint64_t bytes = 0;
  double prtt1_ns = 0;  ///< PRTT(1, 0, s): one ping-pong
  double prttn_ns = 0;  ///< PRTT(n, 0, s): n pings back to back, then the pong
  double prttd_ns = 0;  ///< PRTT(n, d, s) with d = PRTT(1, 0, s): n pings each after a delay d
  double o_r_ns = 0;    ///< receive overhead (Kielmann: a receive of a message that already arrived)
};

/// A series of measurements of one transport (sidecore in one mode and provider, or the system MPI).
struct prtt_series {
  std::string transport;  ///< "sidecore" or "mpi"
  std::string provider;   ///< libfabric provider, or the MPI library's name
  std::string mode;       ///< sidecore's progress mode ("off", "core"); empty for MPI
  int n = 10;             ///< n of PRTT(n, ., s)
  std::vector<prtt_point> points;  ///< ascending sizes
};

/// What seed 001's equations give at one size.
struct derived_point {
  std::uint64_t bytes = 0;
  double o_s_ns = 0;    ///< eq. (4): (PRTT(n,d,s) - PRTT(1,0,s)) / (n-1) - d
  double g_all_ns = 0;  ///< eq. (5): g + (s-1)G = (PRTT(n,0,s) - PRTT(1,0,s)) / (n-1)
  double o_r_ns = 0;
  double prtt1_ns = 0;
  bool d_too_small = false;  ///< d <= G_all: eq. (4) does not hold (seed 001: "a warning is printed")
};

/// Derives o_s and G_all per size; throws std::invalid_argument naming the size when a value is
/// not finite or negative, sizes are not strictly ascending, or n < 2.
[[nodiscard]] std::vector<derived_point> derive(const prtt_series& s);

/// Options of the fit and the protocol-change detection.
struct fit_options {
  double pfact = 2.0;   ///< seed 001: a change when every look-ahead deviation exceeds pfact x the current one
  int lookahead = 3;    ///< seed 001's x ("typically 3-5")
  /// Points a protocol needs before a change after it is tested for. The paper's lsq needs 4
  /// (denominator l - k - 2 >= 1); with noisy data a 4-point deviation is too often small by chance,
  /// and any later one then looks like a change.
  int min_points = 5;
  /// lsq(lastchange, current) counts as at least relative_floor^2: a protocol whose line fits
  /// better than 1 % RMS needs a rise past pfact x 1e-4 to end. Without a floor, noise-free data (a
  /// perfect line, deviation ~1e-30) turns rounding into changes, and a few noisy points that
  /// happen to fit well make the next ordinary point look like one; a change that small would not
  /// matter to a fit that must reproduce PRTT within 5 %.
  double relative_floor = 0.01;
  /// A protocol's first sizes count as a protocol of their own (change_series::looks_back) only when
  /// each is off the line of the sizes after them by more than this (relative): closer, they would not
  /// keep the fit from reproducing PRTT within 5 %.
  double max_bend = 0.05;
  /// Weight of the overhead series o_s(s) and o_r(s) in the joint fit of a range, against the PRTT
  /// series (docs/loggp.md, "Fitting a range"). Their residuals count relative to PRTT(1,0,s), times
  /// this factor: at 0.01 an overhead off by 10 % of the round trip costs what the round trip off by
  /// 1 % costs. The PRTT series are what the model must reproduce; the overheads only split the
  /// round trip, and where the CPU moves the bytes (shm) they count the copy that G counts too. Must
  /// be > 0 (at 0 o_s, o_r and L would not be determined separately).
  double overhead_weight = 0.01;
  /// A range whose fit misses PRTT(1,0,s) or PRTT(n,0,s) by more than this (relative, at any of its
  /// sizes) is split where that pays (split_to_tolerance()). 0 turns splitting off; must be >= 0.
  double tolerance = 0.05;
};

/// A straight line y = a + b (s - 1) fitted by least squares.
struct line_fit {
  double at_one = 0;  ///< a: the value at s = 1
  double slope = 0;   ///< b: per byte
  [[nodiscard]] double operator()(std::uint64_t bytes) const {
    return at_one + slope * (static_cast<double>(bytes) - 1);
  }
};

/// How far one fitted series is from the measured one over a range: relative residuals
/// (fitted - measured) / measured at the sizes whose measured value is > 0.
struct residual {
  double max_rel = 0;      ///< largest |relative residual|
  double rms_rel = 0;      ///< root mean square of the relative residuals
  std::size_t points = 0;  ///< sizes compared
};

/// The residuals of every series the model describes, over one range.
struct range_residuals {
  residual prtt1;  ///< PRTT(1,0,s) against eq. (1)
  residual prttn;  ///< PRTT(n,0,s) against eq. (2)
  residual o_s;    ///< o_s(s) of eq. (4) against o_s + O_s (s-1)
  residual o_r;    ///< measured o_r(s) against o_r + O_r (s-1)
  residual g_all;  ///< G_all(s) of eq. (5) against g + G (s-1)
};

/// LogGP parameters of one protocol range, from one weighted least-squares fit of all its
/// measurements (docs/loggp.md, "Fitting a range"), with the residuals of that fit.
struct range_fit {
  std::size_t first = 0, last = 0;  ///< indices into the points (inclusive)
  std::uint64_t first_bytes = 0, last_bytes = 0;
  double L_ns = 0;  ///< L of eq. (1); may be negative (seed 001 Section 2.5: L and o overlap)
  /// o_s(s) = o_s + O_s (s-1); at_one is the value at s = 1, as the paper reports it, which a range far
  /// from 1 B whose per-byte cost grows may have negative (its sign holds at its first size).
  line_fit o_s;
  line_fit o_r;    ///< o_r(s) = o_r + O_r (s-1), at_one as o_s's
  line_fit g_all;  ///< g + G (s-1): at_one = g, slope = G (eq. 5); g as o_s's at_one
  range_residuals residuals;
  /// Parameters the fit held at 0 ("o_s", "O_s", "o_r", "O_r", "g", "G"; o_s, o_r and g at the range's
  /// first size, the per-byte terms everywhere): a negative value where they were free, or not
  /// determined by the range's measurements (one size: the per-byte terms).
  std::vector<std::string> held_at_zero;

  /// PRTT(1,0,s) and PRTT(n,0,s) from the fitted parameters (eqs. 1 and 2).
  [[nodiscard]] double prtt1(std::uint64_t bytes) const;
  [[nodiscard]] double prttn(std::uint64_t bytes, int n) const;
};

/// The result of fitting one series.
struct series_fit {
  prtt_series series;
  std::vector<derived_point> derived;
  std::vector<range_fit> ranges;
  std::vector<std::size_t> changes;  ///< index of the last point of each protocol but the last
  /// Index of the last point of each range that split_to_tolerance() cut off inside a protocol
  /// (not a protocol change: a per-byte cost that curves, e.g. past the last-level cache).
  std::vector<std::size_t> splits;
  double latency_ns = 0;             ///< seed 001 Section 2.5: PRTT(1,0,smallest)/2
  std::vector<std::string> warnings;  ///< d <= G_all at a size, a range too short to fit, ...

  /// The range holding `bytes` (the nearest one outside the measured sizes).
  [[nodiscard]] const range_fit& range_for(std::uint64_t bytes) const;
};

/// A series detect_changes() walks, with its values at the sizes.
struct change_series {
  std::vector<double> val;
  /// Also end a new protocol after its first w <= lookahead sizes (the smallest such w) when they do not
  /// belong to the sizes after them: the paper's test run backwards (adding them to the next
  /// min_points sizes raises their lsq past pfact x) and each of them off those sizes' line by more
  /// than pfact x their RMS relative residual and by more than fit_options::max_bend. The paper's test
  /// needs min_points sizes before a change; a protocol one or two sizes wide (on shm, 8192 B, the
  /// largest eager size, costs about 1 us more than the eager line gives) has fewer.
  bool looks_back = false;
};

/// seed 001 Section 2.6: the indices `current` after which a protocol change is detected, on
/// several series measured at the sizes `size`, with lsq(k, l) = sum of squared relative residuals
/// of the least squares line through points k..l, divided by (l - k - 2) (the paper's equation (6);
/// relative because the sizes span seven decades, where absolute residuals would see only the
/// largest). A change is declared after `current` when any one series meets its test there, and
/// every series starts its next protocol after it. fit() walks G_all(s), the paper's series, and
/// PRTT(1,0,s), the series the parameters must reproduce, which also looks back
/// (change_series::looks_back). A per-byte cost that curves within a protocol (a message that no
/// longer fits the last-level cache, where the CPU's copy is the transfer) is not a change: fit()
/// splits such a range to its tolerance (split_to_tolerance()). Throws std::invalid_argument when a
/// series has not one value per size.
[[nodiscard]] std::vector<std::size_t> detect_changes(const std::vector<std::uint64_t>& size,
                                                      const std::vector<change_series>& series,
                                                      const fit_options& o);

/// Weighted least squares line through (size, val) over [first, last]. With weight 1/val^2 it
/// minimises relative residuals (sizes span seven decades: unweighted, the largest sizes alone would
/// set the line); detect_changes() fits G_all so.
[[nodiscard]] line_fit fit_line(const std::vector<std::uint64_t>& size, const std::vector<double>& val,
                                const std::vector<double>& weight, std::size_t first, std::size_t last);

/// Fits the seven parameters L, o_s, O_s, o_r, O_r, g, G of the points first..last at once: a
/// weighted least squares over PRTT(1,0,s) and PRTT(n,0,s) (weights 1/value^2: relative residuals)
/// and o_s(s), o_r(s) (weights o.overhead_weight / PRTT(1,0,s)^2), each size's value left out where
/// it is <= 0 (for PRTT(n,0,s): where G_all <= 0). O_s, O_r and G, and o_s, o_r and g at the range's
/// first size, are constrained to be >= 0 (L is free; docs/loggp.md, "Signs"); the per-byte terms are
/// held at 0 when the range has one size. What it had to hold at 0, and why, goes to `warnings`. Throws
/// std::invalid_argument for first > last, an index beyond the points, an overhead_weight that is not > 0, or values
/// beyond the range of a double (no system solvable).
[[nodiscard]] range_fit fit_range(const prtt_series& s, const std::vector<derived_point>& derived, std::size_t first,
                                  std::size_t last, const fit_options& o, std::vector<std::string>& warnings);

/// The ends (index of the last point) of the parts that the points first..last are split into where
/// their fit_range() misses PRTT(1,0,s) or PRTT(n,0,s) by more than o.tolerance: binary segmentation
/// (each time the cut that lowers the squared relative PRTT error most, in a part that misses), of
/// which the first k cuts are kept for the k with the least Bayesian information criterion (a cut
/// must buy more than its seven parameters would fit of noise). Ascending, without `last`; empty when
/// the range holds, o.tolerance is 0, or no cut pays. A curve or a step is cut; noise is not
/// (docs/loggp.md, "Splitting to the tolerance"). Throws as fit_range().
[[nodiscard]] std::vector<std::size_t> split_to_tolerance(const prtt_series& s,
                                                          const std::vector<derived_point>& derived, std::size_t first,
                                                          std::size_t last, const fit_options& o);

/// Issue 16's check of a fit: where the fitted parameters reproduce both PRTT(1,0,s) and PRTT(n,0,s)
/// (eqs. 1 and 2) within `tolerance`, relative to the measured value, as range_residuals counts them.
struct fit_check {
  double tolerance = 0.05;
  std::size_t ranges = 0, ranges_within = 0;
  std::size_t sizes = 0, sizes_within = 0;
  /// Of the sizes that miss, those whose own PRTT(1,0,s) or PRTT(n,0,s) is off the log-log line through
  /// its two neighbouring sizes by more than `tolerance`: a size that differs from its neighbours that
  /// much is the measurement's own noise (or a step no line follows), not a fit's miss.
  std::size_t misses_off_neighbours = 0;
  double largest_miss = 0;  ///< relative; 0 when every size holds
  std::uint64_t largest_first_bytes = 0, largest_last_bytes = 0;  ///< the range it is in
};

/// The check of `f` at `tolerance` (> 0; 0.05 is issue 16's). Throws std::invalid_argument for a
/// tolerance that is not a finite number > 0.
[[nodiscard]] fit_check check_fit(const series_fit& f, double tolerance);

/// Derives, detects protocol changes on G_all and PRTT(1,0,s), splits ranges the fit does not
/// reproduce within o.tolerance (split_to_tolerance()) and fits every range (fit_range()). Throws
/// std::invalid_argument for invalid series (derive()), fewer than 2 points, an overhead_weight that
/// is not > 0, or a tolerance that is negative or not finite.
[[nodiscard]] series_fit fit(const prtt_series& s, const fit_options& o = {});

}  // namespace sidecore::model::loggp
