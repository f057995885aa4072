// LogGP fitting (seed 001, Section 2) on synthetic PRTT data made from known parameters with a
// planted protocol change: the change is found at the right size and the parameters come back.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "sidecore/common/input_error.hpp"
#include "sidecore/model/loggp/files.hpp"
#include "sidecore/model/loggp/fit.hpp"
#include "sidecore/model/sim/goal.hpp"
#include "sidecore/model/sim/loggops.hpp"

namespace lg = sidecore::model::loggp;

namespace {

struct truth {
  double L, os, Os, orr, Or, g, G;
};

// seed 001 eqs. (1)-(3) with size-dependent overheads o(s) = o + O (s-1).
lg::prtt_point synth(std::uint64_t s, const truth& t, int n, double noise) {
  const double x = static_cast<double>(s) - 1;
  const double os = t.os + t.Os * x, orr = t.orr + t.Or * x, gall = t.g + t.G * x;
  lg::prtt_point p;
  p.bytes = s;
  p.prtt1_ns = 2 * (t.L + os + orr + x * t.G);
  const double d = p.prtt1_ns;
  p.prttn_ns = p.prtt1_ns + (n - 1) * gall;
  p.prttd_ns = p.prtt1_ns + (n - 1) * std::max(os + d, gall);
  p.o_r_ns = orr;
  // Deterministic multiplicative noise in [-noise, noise].
  auto jitter = [&](double v, int k) { return v * (1 + noise * std::sin(1.7 * static_cast<double>(s % 1013) + k)); };
  p.prtt1_ns = jitter(p.prtt1_ns, 0);
  p.prttn_ns = jitter(p.prttn_ns, 1);
  p.prttd_ns = jitter(p.prttd_ns, 2);
  p.o_r_ns = jitter(p.o_r_ns, 3);
  return p;
}

// Two sizes per octave from 1 B to 16 MiB; the eager protocol up to `change` bytes.
lg::prtt_series make(std::uint64_t change, const truth& eager, const truth& rndv, double noise) {
  lg::prtt_series s;
  s.transport = "synthetic";
  s.n = 10;
  for (std::uint64_t b = 1; b <= (std::uint64_t{16} << 20); b *= 2) {
    for (std::uint64_t v : {b, b + b / 2}) {
      if (v == 1 && b != 1) continue;
      if (v > (std::uint64_t{16} << 20) || (!s.points.empty() && v <= s.points.back().bytes)) continue;
      s.points.push_back(synth(v, v <= change ? eager : rndv, s.n, noise));
    }
  }
  return s;
}

const truth eager{900, 250, 0.02, 300, 0.03, 400, 0.08};
const truth rndv{1400, 1500, 0.001, 1200, 0.002, 5000, 0.07};

void expect_near_rel(double got, double want, double rel, const char* what) {
  EXPECT_LE(std::abs(got - want), rel * std::abs(want)) << what << ": got " << got << ", want " << want;
}

// The largest |fitted - measured| / measured of PRTT(1,0,s) and of PRTT(n,0,s) over a range, from the
// fitted parameters (eqs. 1 and 2), independent of the residuals the fit reports.
std::pair<double, double> prtt_errors(const lg::series_fit& f, const lg::range_fit& r) {
  double e1 = 0, en = 0;
  for (std::size_t i = r.first; i <= r.last; ++i) {
    const lg::prtt_point& p = f.series.points[i];
    e1 = std::max(e1, std::abs(r.prtt1(p.bytes) - p.prtt1_ns) / p.prtt1_ns);
    en = std::max(en, std::abs(r.prttn(p.bytes, f.series.n) - p.prttn_ns) / p.prttn_ns);
  }
  return {e1, en};
}

// Where the CPU moves the bytes (shm), the measured overheads grow with the copy that G counts
// as well: o_s and o_r measured with extra per-byte terms copy_s, copy_r that PRTT does not have.
void add_copy_to_overheads(lg::prtt_series& s, std::uint64_t change, double eager_s, double eager_r, double rndv_s,
                           double rndv_r) {
  for (lg::prtt_point& p : s.points) {
    const double x = static_cast<double>(p.bytes) - 1;
    const bool eager_range = p.bytes <= change;
    p.prttd_ns += (s.n - 1) * (eager_range ? eager_s : rndv_s) * x;  // eq. (4): o_s grows by copy_s (s-1)
    p.o_r_ns += (eager_range ? eager_r : rndv_r) * x;
  }
}

void expect_recovered(const lg::range_fit& r, const truth& t, double rel) {
  expect_near_rel(r.L_ns, t.L, rel, "L");
  expect_near_rel(r.o_s.at_one, t.os, rel, "o_s");
  expect_near_rel(r.o_s.slope, t.Os, rel, "O_s");
  expect_near_rel(r.o_r.at_one, t.orr, rel, "o_r");
  expect_near_rel(r.o_r.slope, t.Or, rel, "O_r");
  expect_near_rel(r.g_all.at_one, t.g, rel, "g");
  expect_near_rel(r.g_all.slope, t.G, rel, "G");
}

}  // namespace

TEST(LogGPFit, PlantedProtocolChangeFoundAndParametersRecovered) {
  const lg::series_fit f = lg::fit(make(8192, eager, rndv, 0.0));
  ASSERT_EQ(f.changes.size(), 1u);
  EXPECT_EQ(f.derived[f.changes[0]].bytes, 8192u);
  ASSERT_EQ(f.ranges.size(), 2u);
  EXPECT_EQ(f.ranges[0].last_bytes, 8192u);
  EXPECT_EQ(f.ranges[1].first_bytes, 12288u);
  expect_recovered(f.ranges[0], eager, 0.01);
  expect_recovered(f.ranges[1], rndv, 0.01);
  for (const lg::range_fit& r : f.ranges) {
    for (const lg::residual& e : {r.residuals.prtt1, r.residuals.prttn, r.residuals.o_s, r.residuals.o_r,
                                  r.residuals.g_all}) {
      EXPECT_LT(e.max_rel, 1e-9);
      EXPECT_LT(e.rms_rel, 1e-9);
      EXPECT_EQ(e.points, r.last - r.first + 1);
    }
    EXPECT_TRUE(r.held_at_zero.empty());
  }
  EXPECT_DOUBLE_EQ(f.latency_ns, f.series.points[0].prtt1_ns / 2);
  EXPECT_TRUE(f.warnings.empty());
}

TEST(LogGPFit, ChangeFoundUnderNoise) {
  // 0.3 % noise on every measured value: the change is still found where it is, the reproduced
  // PRTT stays within 5 % (the issue's check), and g and G within a few percent.
  for (std::uint64_t change : {std::uint64_t{4096}, std::uint64_t{65536}}) {
    const lg::series_fit f = lg::fit(make(change, eager, rndv, 0.003));
    std::string found;
    for (std::size_t c : f.changes) found += std::to_string(f.derived[c].bytes) + " ";
    ASSERT_EQ(f.changes.size(), 1u) << change << ": changes after " << found;
    EXPECT_EQ(f.derived[f.changes[0]].bytes, change);
    for (const lg::range_fit& r : f.ranges) {
      EXPECT_LT(r.residuals.prtt1.max_rel, 0.05);
      EXPECT_LT(r.residuals.prttn.max_rel, 0.05);
    }
    expect_near_rel(f.ranges[0].g_all.at_one, eager.g, 0.03, "g (eager)");
    expect_near_rel(f.ranges[1].g_all.slope, rndv.G, 0.03, "G (rendezvous)");
  }
}

// shm's case: the measured o_r grows about as fast as PRTT(1,0,s)/2, so O_s + O_r + G taken each from
// its own series counts the copy two or three times. PRTT must still be reproduced within 5 % (the
// issue's check); the misfit goes to the overheads, which the residuals show.
TEST(LogGPFit, OverheadsThatCountTheCopyAgain) {
  for (double noise : {0.0, 0.003}) {
    lg::prtt_series s = make(8192, eager, rndv, noise);
    // eager: PRTT(1,0,s)/2 grows by O_s + O_r + G = 0.13 ns/B, the measured o_r by 0.13, o_s by 0.10;
    // rendezvous: 0.073 ns/B, o_r 0.072, o_s 0.051.
    add_copy_to_overheads(s, 8192, 0.08, 0.10, 0.05, 0.07);
    const lg::series_fit f = lg::fit(s);
    ASSERT_EQ(f.changes.size(), 1u) << noise;
    EXPECT_EQ(f.derived[f.changes[0]].bytes, 8192u);
    for (const lg::range_fit& r : f.ranges) {
      const auto [e1, en] = prtt_errors(f, r);
      EXPECT_LE(e1, 0.05) << noise << ", range from " << r.first_bytes;
      EXPECT_LE(en, 0.05) << noise << ", range from " << r.first_bytes;
    }
    // The network's g and G come from the PRTT series, as without the extra copy.
    expect_near_rel(f.ranges[0].g_all.at_one, eager.g, 0.02, "g (eager)");
    expect_near_rel(f.ranges[0].g_all.slope, eager.G, 0.02, "G (eager)");
    expect_near_rel(f.ranges[1].g_all.at_one, rndv.g, 0.02, "g (rendezvous)");
    expect_near_rel(f.ranges[1].g_all.slope, rndv.G, 0.02, "G (rendezvous)");
  }
}

TEST(LogGPFit, OverheadsThatCountTheCopyAgainResiduals) {
  lg::prtt_series s = make(8192, eager, rndv, 0.0);
  add_copy_to_overheads(s, 8192, 0.08, 0.10, 0.05, 0.07);
  const lg::series_fit f = lg::fit(s);
  ASSERT_EQ(f.ranges.size(), 2u);
  for (const lg::range_fit& r : f.ranges) {
    const auto [e1, en] = prtt_errors(f, r);
    EXPECT_NEAR(r.residuals.prtt1.max_rel, e1, 1e-12);
    EXPECT_NEAR(r.residuals.prttn.max_rel, en, 1e-12);
    EXPECT_LE(r.residuals.prtt1.rms_rel, r.residuals.prtt1.max_rel);
    EXPECT_GT(r.residuals.o_r.max_rel, 0.2) << "the double-counted copy shows in the overheads' residuals";
    for (double v : {r.o_s.at_one, r.o_s.slope, r.o_r.at_one, r.o_r.slope, r.g_all.at_one, r.g_all.slope})
      EXPECT_GE(v, 0);
  }
  // Weighted as much as the round trip, the overheads pull PRTT away from the measured one.
  lg::fit_options loose;
  loose.overhead_weight = 1;
  const lg::series_fit g = lg::fit(s, loose);
  EXPECT_GT(g.ranges[1].residuals.prtt1.max_rel, f.ranges[1].residuals.prtt1.max_rel);
  lg::fit_options none;
  none.overhead_weight = 0;
  EXPECT_THROW((void)lg::fit(s, none), std::invalid_argument);
}

// A per-byte term that comes out negative is held at 0 and the rest fitted again (non-negative least
// squares), with a warning that names it and its free value.
TEST(LogGPFit, NegativeSlopeHeldAtZero) {
  const truth shrinking{900, 250, -0.01, 300, 0.03, 400, 0.08};  // o_s falls with size: 168 ns at 8192 B
  lg::prtt_series s = make(std::uint64_t{1} << 40, shrinking, shrinking, 0.0);
  s.points.erase(
      std::remove_if(s.points.begin(), s.points.end(), [](const lg::prtt_point& p) { return p.bytes > 8192; }),
      s.points.end());
  const lg::series_fit f = lg::fit(s);
  ASSERT_EQ(f.ranges.size(), 1u);
  const lg::range_fit& r = f.ranges[0];
  EXPECT_EQ(r.o_s.slope, 0.0);
  ASSERT_EQ(r.held_at_zero.size(), 1u);
  EXPECT_EQ(r.held_at_zero[0], "O_s");
  ASSERT_EQ(f.warnings.size(), 1u);
  EXPECT_NE(f.warnings[0].find("O_s held at 0"), std::string::npos) << f.warnings[0];
  EXPECT_NE(f.warnings[0].find("O_s = -0.01 ns/B"), std::string::npos) << f.warnings[0];
  // The PRTT series still fit: O_r takes what O_s cannot give, G stays the network's.
  EXPECT_LT(r.residuals.prtt1.max_rel, 0.01);
  EXPECT_LT(r.residuals.prttn.max_rel, 0.01);
  expect_near_rel(r.g_all.slope, shrinking.G, 0.01, "G");
  expect_near_rel(r.g_all.at_one, shrinking.g, 0.01, "g");
  EXPECT_GT(r.o_r.slope, shrinking.Or * 0.5);
}

// One size in a range: the per-byte terms are not determined; they are held at 0 and the constants
// reproduce that size exactly.
TEST(LogGPFit, OneSizeRange) {
  const lg::prtt_series s = make(8192, eager, rndv, 0.0);
  const std::vector<lg::derived_point> d = lg::derive(s);
  std::vector<std::string> warnings;
  const lg::range_fit r = lg::fit_range(s, d, 20, 20, {}, warnings);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("has 1 size"), std::string::npos) << warnings[0];
  EXPECT_EQ(r.held_at_zero, (std::vector<std::string>{"O_s", "O_r", "G"}));
  EXPECT_EQ(r.g_all.slope, 0.0);
  EXPECT_NEAR(r.o_s.at_one, d[20].o_s_ns, 1e-9 * d[20].o_s_ns);
  EXPECT_NEAR(r.o_r.at_one, d[20].o_r_ns, 1e-9 * d[20].o_r_ns);
  EXPECT_NEAR(r.g_all.at_one, d[20].g_all_ns, 1e-9 * d[20].g_all_ns);
  EXPECT_LT(r.residuals.prtt1.max_rel, 1e-9);
  EXPECT_LT(r.residuals.prttn.max_rel, 1e-9);
  EXPECT_THROW((void)lg::fit_range(s, d, 5, 4, {}, warnings), std::invalid_argument);
  EXPECT_THROW((void)lg::fit_range(s, d, 0, s.points.size(), {}, warnings), std::invalid_argument);
}

TEST(LogGPFit, NoChangeInOneProtocol) {
  const lg::series_fit f = lg::fit(make(std::uint64_t{1} << 40, eager, rndv, 0.002));
  EXPECT_TRUE(f.changes.empty());
  ASSERT_EQ(f.ranges.size(), 1u);
}

TEST(LogGPFit, TwoChanges) {
  // A third protocol above 1 MiB (e.g. a pipelined one with a smaller G).
  lg::prtt_series s = make(8192, eager, rndv, 0.0);
  const truth pipelined{1400, 1500, 0.001, 1200, 0.002, 30000, 0.03};
  for (lg::prtt_point& p : s.points)
    if (p.bytes > (std::uint64_t{1} << 20)) p = synth(p.bytes, pipelined, s.n, 0.0);
  const lg::series_fit f = lg::fit(s);
  ASSERT_EQ(f.changes.size(), 2u);
  EXPECT_EQ(f.derived[f.changes[0]].bytes, 8192u);
  EXPECT_EQ(f.derived[f.changes[1]].bytes, std::uint64_t{1} << 20);
  expect_recovered(f.ranges[2], pipelined, 0.01);
}

// A per-byte cost that grows from one size on while the gap stays (a message that no longer fits the
// last-level cache, where the CPU copies the bytes: both overheads grow, G_all does not). G_all shows no
// change; PRTT(1,0,s) bends, and a range that crossed the bend would miss it by far more than 5 %.
TEST(LogGPFit, BendOfPrttWithoutAChangeOfTheGap) {
  for (const double noise : {0.0, 0.003}) {
    lg::prtt_series s = make(8192, eager, rndv, noise);
    // Above the bend o_s(s) and o_r(s) grow 0.049 and 0.048 ns/B faster, G the same; L makes PRTT continuous
    // there, so PRTT(1,0,s) bends (its per-byte cost 2.3x) without a step.
    const std::uint64_t bend = std::uint64_t{1} << 20;
    const truth cold{rndv.L - 0.097 * static_cast<double>(bend - 1), 1500, 0.05, 1200, 0.05, 5000, 0.07};
    for (lg::prtt_point& p : s.points)
      if (p.bytes > bend) p = synth(p.bytes, cold, s.n, noise);
    const lg::series_fit f = lg::fit(s);
    std::string found;
    for (std::size_t c : f.changes) found += std::to_string(f.derived[c].bytes) + " ";
    ASSERT_EQ(f.changes.size(), 2u) << noise << ": changes after " << found;
    EXPECT_EQ(f.derived[f.changes[0]].bytes, 8192u) << noise;
    EXPECT_EQ(f.derived[f.changes[1]].bytes, bend) << noise;
    for (const lg::range_fit& r : f.ranges) {
      const auto [e1, en] = prtt_errors(f, r);
      EXPECT_LT(e1, 0.05) << noise << ": PRTT(1,0,s) in " << r.first_bytes << ".." << r.last_bytes;
      EXPECT_LT(en, 0.05) << noise << ": PRTT(n,0,s) in " << r.first_bytes << ".." << r.last_bytes;
    }
  }
}

// Four sizes per octave from 1 B to 16 MiB (the probe's default density): eager up to 8192 B, rendezvous
// after; past 2 MiB the rendezvous protocol's per-byte cost grows with every octave (G from 0.07 to
// 0.28 ns/B at 16 MiB), as it did on this VM once messages left the last-level cache: no protocol
// change, a curve. One line over 2-16 MiB misses PRTT(n,0,s) by far more than 5 %.
lg::prtt_series curved_past(std::uint64_t from, double noise) {
  lg::prtt_series s;
  s.transport = "synthetic";
  s.n = 10;
  for (int j = 0; j <= 24 * 4; ++j) {
    const auto b = static_cast<std::uint64_t>(std::llround(std::pow(2.0, j / 4.0)));
    if (!s.points.empty() && b <= s.points.back().bytes) continue;
    truth t = b <= 8192 ? eager : rndv;
    if (b > from) t.G *= 1 + std::log2(static_cast<double>(b) / static_cast<double>(from));
    s.points.push_back(synth(b, t, s.n, noise));
  }
  return s;
}

// The largest PRTT error of fit_range() over points first..last.
double range_miss(const lg::series_fit& f, std::size_t first, std::size_t last) {
  std::vector<std::string> warnings;
  const auto [e1, en] = prtt_errors(f, lg::fit_range(f.series, f.derived, first, last, {}, warnings));
  return std::max(e1, en);
}

TEST(LogGPFit, CurvedRangeSplitUntilPrttWithinTolerance) {
  const std::uint64_t from = std::uint64_t{2} << 20;
  for (const double noise : {0.0, 0.003}) {
    const lg::series_fit f = lg::fit(curved_past(from, noise));
    ASSERT_FALSE(f.changes.empty()) << noise;
    EXPECT_EQ(f.derived[f.changes[0]].bytes, 8192u) << noise;
    for (std::size_t c : f.splits) EXPECT_GE(f.derived[c].bytes, from / 2) << noise << ": a split below the curve";
    // The curved part in one range misses by far more than 5 %; split, each part holds.
    std::size_t first = 0;
    while (f.derived[first].bytes < from) ++first;
    const std::size_t last = f.derived.size() - 1;
    EXPECT_GT(range_miss(f, first, last), 0.10) << noise;
    std::vector<std::size_t> ends = lg::split_to_tolerance(f.series, f.derived, first, last, {});
    ASSERT_FALSE(ends.empty()) << noise;
    ends.push_back(last);
    for (std::size_t e : ends) {
      EXPECT_LE(range_miss(f, first, e), 0.05) << noise << ": " << f.derived[first].bytes << ".." << f.derived[e].bytes;
      first = e + 1;
    }
    for (const lg::range_fit& r : f.ranges) {
      const auto [e1, en] = prtt_errors(f, r);
      EXPECT_LE(e1, 0.05) << noise << ": PRTT(1,0,s) in " << r.first_bytes << ".." << r.last_bytes;
      EXPECT_LE(en, 0.05) << noise << ": PRTT(n,0,s) in " << r.first_bytes << ".." << r.last_bytes;
    }
  }
  lg::fit_options off;
  off.tolerance = 0;
  const lg::series_fit f = lg::fit(curved_past(from, 0.0));
  EXPECT_TRUE(lg::split_to_tolerance(f.series, f.derived, 0, f.derived.size() - 1, off).empty());
  off.tolerance = -0.1;
  EXPECT_THROW((void)lg::fit(f.series, off), std::invalid_argument);
}

// A protocol one or two sizes wide: measured on shm, 8192 B, the largest eager size, costs about 1 us more
// than the eager line gives (2.5 us against 1.4 us at 6889 B), a step one size wide before the rendezvous
// range. The paper's test cannot end a protocol at its first size; looking back from the sizes after it,
// the same test finds it.
TEST(LogGPFit, ProtocolOneOrTwoSizesWide) {
  for (const double noise : {0.0, 0.003})
    for (const std::uint64_t from : {8192u, 6889u}) {  // one size wide, two
    lg::prtt_series s = curved_past(std::uint64_t{1} << 40, noise);
    const truth provider_large{eager.L + 2500, eager.os, eager.Os, eager.orr, eager.Or, eager.g + 1500, eager.G};
    std::uint64_t before = 0;
    for (std::size_t i = 0; i + 1 < s.points.size(); ++i) {
      if (s.points[i + 1].bytes == from) before = s.points[i].bytes;
      if (s.points[i].bytes >= from && s.points[i].bytes <= 8192)
        s.points[i] = synth(s.points[i].bytes, provider_large, s.n, noise);
    }
    const lg::series_fit f = lg::fit(s);
    std::string found;
    for (std::size_t c : f.changes) found += std::to_string(f.derived[c].bytes) + " ";
    ASSERT_EQ(f.changes.size(), 2u) << noise << " from " << from << ": changes after " << found;
    EXPECT_EQ(f.derived[f.changes[0]].bytes, before) << noise << " from " << from;
    EXPECT_EQ(f.derived[f.changes[1]].bytes, 8192u) << noise << " from " << from;
    for (const lg::range_fit& r : f.ranges) {
      const auto [e1, en] = prtt_errors(f, r);
      EXPECT_LE(std::max(e1, en), 0.05) << noise << ": PRTT in " << r.first_bytes << ".." << r.last_bytes;
    }
    }
}

// The check counts the sizes within the tolerance and, of those that miss, the ones that differ from their own
// neighbours by more than it: a single noisy size is named as such.
TEST(LogGPFit, CheckNamesSizesThatDifferFromTheirNeighbours) {
  // One protocol, fitted as one range (fit() would give the slow size a range of its own).
  auto one_range = [](const lg::prtt_series& s) {
    lg::series_fit f;
    f.series = s;
    f.derived = lg::derive(s);
    f.ranges.push_back(lg::fit_range(s, f.derived, 0, s.points.size() - 1, {}, f.warnings));
    return f;
  };
  lg::prtt_series s = make(std::uint64_t{1} << 40, eager, rndv, 0.0);
  const lg::fit_check clean = lg::check_fit(one_range(s), 0.05);
  EXPECT_EQ(clean.sizes_within, clean.sizes);
  EXPECT_EQ(clean.ranges_within, clean.ranges);
  EXPECT_LT(clean.largest_miss, 1e-9);
  s.points[20].prtt1_ns *= 1.25;  // one size 25 % slow
  s.points[20].prttn_ns *= 1.25;
  s.points[20].prttd_ns *= 1.25;
  const lg::series_fit f = one_range(s);
  const lg::fit_check c = lg::check_fit(f, 0.05);
  EXPECT_EQ(c.sizes, s.points.size());
  EXPECT_EQ(c.sizes_within + 1, c.sizes);
  EXPECT_EQ(c.misses_off_neighbours, 1u);
  EXPECT_GT(c.largest_miss, 0.15);
  EXPECT_THROW((void)lg::check_fit(f, 0), std::invalid_argument);
  EXPECT_THROW((void)lg::check_fit(f, std::nan("")), std::invalid_argument);
}

// Past the curve the fitted gap is negative at s = 1 (its sign holds at the range's own sizes): the
// simulator's parameters, all >= 0, keep the fitted one-way time at the size they stand for, and the fitted
// gap there as far as the simulator's per-byte G (the whole one-way per-byte cost) leaves room for it.
TEST(LogGPFit, SimulatorParametersOfARangeFarFromOneByte) {
  const lg::series_fit f = lg::fit(curved_past(std::uint64_t{2} << 20, 0.0));
  const std::uint64_t bytes = std::uint64_t{12} << 20;
  const lg::range_fit& r = f.range_for(bytes);
  ASSERT_LT(r.g_all.at_one, 0) << "the case this test is about: a gap negative at s = 1";
  const auto p = lg::to_loggops(f, bytes);
  const double x = static_cast<double>(bytes) - 1;
  EXPECT_GE(p.g, 0);
  EXPECT_GE(p.G, 0);
  EXPECT_GE(p.o, 0);
  EXPECT_GE(p.O, 0);
  EXPECT_LE(p.O, p.G);
  expect_near_rel(2 * p.o + p.G * x, r.o_s(bytes) + r.o_r(bytes) + r.g_all.slope * x, 1e-9, "one-way less L");
  expect_near_rel(p.g + p.G * x, std::max(r.g_all(bytes), p.G * x), 1e-9, "gap at the size");
}

// The ping-pong PRTT(1,0,s) measures, simulated with the parameters a fit maps to (to_loggops(), and through the
// parameter file, read_loggops_params()), takes the fitted PRTT(1,0,s): the simulator reproduces the round trip, in
// the eager range and past the protocol change (rendezvous), at the size the parameters stand for.
TEST(LogGPFit, SimulatedPingPongReproducesTheFittedRoundTrip) {
  lg::measurement m;
  m.series.push_back(make(8192, eager, rndv, 0.0));
  const std::vector<lg::series_fit> fits{lg::fit(m.series[0])};
  const auto path = std::filesystem::temp_directory_path() / "sidecore_loggp_pingpong.json";
  std::ofstream(path) << lg::params_json(m, fits, {}).dump();
  for (const std::uint64_t bytes : std::vector<std::uint64_t>{1, 4096, 65536, 4 << 20}) {
    const std::string goal = fmt::format("num_ranks 2\nrank 0 {{\ns: send {0}b to 1\nr: recv {0}b from 1\n"
                                         "r requires s\n}}\nrank 1 {{\nr: recv {0}b from 0\ns: send {0}b to 0\n"
                                         "s requires r\n}}\n", bytes);
    const auto s = sidecore::model::sim::parse_goal(goal, "pingpong.goal");
    const double want = fits[0].range_for(bytes).prtt1(bytes);
    for (const auto& p : {lg::to_loggops(fits[0], bytes), lg::read_loggops_params(path.string(), "synthetic", bytes)}) {
      const sidecore::model::sim::sim_result r = sidecore::model::sim::simulate(s, p);
      ASSERT_TRUE(r.complete) << bytes;
      expect_near_rel(r.finish_ns[0], want, 1e-9, fmt::format("PRTT(1,0,{}) simulated", bytes).c_str());
    }
  }
  std::filesystem::remove(path);
}

// Noise alone (+-8 % between neighbouring sizes, one protocol) misses 5 % too, but no cut pays for its seven
// parameters: the tolerance does not cut a range to chase noise.
TEST(LogGPFit, NoisyRangeNotSplit) {
  const lg::series_fit f = lg::fit(make(std::uint64_t{1} << 40, eager, rndv, 0.08));
  EXPECT_TRUE(f.splits.empty()) << f.splits.size() << " splits, first after " << f.derived[f.splits.front()].bytes;
}

TEST(LogGPFit, BadSeries) {
  lg::prtt_series s = make(8192, eager, rndv, 0.0);
  s.points[3].bytes = s.points[2].bytes;
  EXPECT_THROW((void)lg::fit(s), std::invalid_argument);
  s = make(8192, eager, rndv, 0.0);
  s.points[5].prttn_ns = s.points[5].prtt1_ns;  // G_all = 0: noise larger than the gap, left out with a warning
  const lg::series_fit f = lg::fit(s);
  ASSERT_EQ(f.warnings.size(), 1u);
  EXPECT_NE(f.warnings[0].find("G_all <= 0"), std::string::npos);
  EXPECT_NEAR(f.ranges[0].g_all.at_one, eager.g, 1e-6 * eager.g);
  s.points.resize(1);
  EXPECT_THROW((void)lg::fit(s), std::invalid_argument);
}

TEST(LogGPFit, FilesRoundTripAndOutputs) {
  lg::measurement m;
  m.machine = {{"host", "test"}};
  m.series.push_back(make(8192, eager, rndv, 0.0));
  const nlohmann::json mj = lg::measurement_json(m);
  const lg::measurement back = lg::parse_measurement(mj, "m.json");
  ASSERT_EQ(back.series.size(), 1u);
  EXPECT_EQ(back.series[0].points.size(), m.series[0].points.size());
  EXPECT_EQ(back.series[0].points[7].prttd_ns, m.series[0].points[7].prttd_ns);

  const std::vector<lg::series_fit> fits{lg::fit(back.series[0])};
  const nlohmann::json pj = lg::params_json(back, fits, {});
  EXPECT_EQ(pj["schema"], "sidecore-loggp");
  EXPECT_EQ(pj["version"], 3);
  EXPECT_EQ(pj["series"][0]["ranges"].size(), 2u);
  for (const char* k : {"prtt1", "prttn", "o_s", "o_r", "g_all"})
    for (const char* stat : {"_max_rel", "_rms_rel"})
      EXPECT_LT(pj["series"][0]["ranges"][1]["residuals"][std::string(k) + stat].get<double>(), 1e-9) << k << stat;
  EXPECT_TRUE(pj["series"][0]["ranges"][0]["held_at_zero"].empty());
  EXPECT_EQ(pj["method"]["overhead_weight"], 0.01);
  EXPECT_EQ(pj["series"][0]["protocol_changes_after_bytes"][0], 8192);
  EXPECT_EQ(pj["series"][0]["check"]["ranges_within"], 2);
  EXPECT_EQ(pj["series"][0]["check"]["sizes_within"], pj["series"][0]["check"]["sizes"]);
  EXPECT_NEAR(pj["series"][0]["ranges"][1]["g_ns"].get<double>(), 5000, 50);

  const std::string table = lg::params_table(fits);
  EXPECT_NE(table.find("1..8192"), std::string::npos) << table;
  EXPECT_NE(table.find("residuals max, rms     PRTT(1,0,s)    PRTT(10,0,s)"), std::string::npos) << table;
  EXPECT_NE(table.find("0.0%    0.0%"), std::string::npos) << table;
  EXPECT_NE(table.find("12288..16777216"), std::string::npos) << table;
  EXPECT_NE(table.find("check: PRTT within 5 % in 2 of 2 ranges"), std::string::npos) << table;
  lg::fit_options strict;
  strict.tolerance = 1e-12;
  EXPECT_NE(lg::params_table(fits, strict).find("check: PRTT within 1e-10 % in "), std::string::npos)
      << lg::params_table(fits, strict);
  const std::string svg = lg::params_svg(fits);
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_NE(svg.find("protocol change after 8192 B"), std::string::npos);

  const nlohmann::json xt = lg::xfer_table_json(fits[0]);
  EXPECT_EQ(xt["schema"], "sidecore-xfer-table");
  EXPECT_EQ(xt["points"].size(), m.series[0].points.size());
  EXPECT_NEAR(xt["points"][0][1].get<double>() * 1e9, m.series[0].points[0].prtt1_ns / 2, 1e-6);

  // G: the one-way per-byte cost O_s + O_r + G.
  const auto p = lg::to_loggops(fits[0], 100);
  EXPECT_NEAR(p.G, eager.Os + eager.Or + eager.G, 1e-3);
  EXPECT_NEAR(p.g, eager.g, 4);
  EXPECT_EQ(p.S, 8192u);

  // The file as written is read back (version 3), and ones of versions 1 and 2 still are: the fields read are the
  // same (version 3 only lets o_s, o_r and g be negative at s = 1, which the reader maps as to_loggops() does).
  const auto path = std::filesystem::temp_directory_path() / "sidecore_loggp_roundtrip.json";
  for (int version : {3, 2, 1}) {
    nlohmann::json v = pj;
    v["version"] = version;
    std::ofstream(path) << v.dump();
    const auto q = lg::read_loggops_params(path.string(), "synthetic", 100000);
    const double per_byte = rndv.Os + rndv.Or + rndv.G;
    EXPECT_NEAR(q.G, per_byte, 1e-6 * per_byte) << version;
    EXPECT_NEAR(q.g, rndv.g, 1e-6 * rndv.g) << version;
    EXPECT_NEAR(q.O, rndv.Os, 1e-6) << version;
  }
  nlohmann::json v4 = pj;
  v4["version"] = 4;
  std::ofstream(path) << v4.dump();
  try {
    (void)lg::read_loggops_params(path.string(), "synthetic", 100);
    ADD_FAILURE() << "version 4 accepted";
  } catch (const sidecore::input_error& e) {
    EXPECT_EQ(std::string(e.what()), path.string() + ": version: 4 is not accepted; accepted: 1, 2, 3");
  }
  std::filesystem::remove(path);
}

TEST(LogGPFit, MeasurementErrorsNameTheField) {
  lg::measurement m;
  m.series.push_back(make(8192, eager, rndv, 0.0));
  auto error_of = [](const nlohmann::json& j) {
    try {
      (void)lg::parse_measurement(j, "m.json");
    } catch (const sidecore::input_error& e) {
      return std::string(e.what());
    }
    return std::string("(accepted)");
  };
  nlohmann::json j = lg::measurement_json(m);
  j["series"][0]["points"][3]["prttn_ns"] = -5;
  EXPECT_EQ(error_of(j), "m.json: series[0].points[3].prttn_ns: -5 is not accepted; accepted: a time in ns, 0 .. "
                         "1e+18 (1e9 s)");
  // Beyond the readers' 1e9 s: the fit's parameters and transfer times would be as absurd.
  j["series"][0]["points"][3]["prttn_ns"] = 1e300;
  EXPECT_EQ(error_of(j), "m.json: series[0].points[3].prttn_ns: 1e+300 is not accepted; accepted: a time in ns, 0 .. "
                         "1e+18 (1e9 s)");
  // Two series of one transport: the commands would each pick one of them, not the same one.
  j = lg::measurement_json(m);
  j["series"].push_back(j["series"][0]);
  EXPECT_EQ(error_of(j), "m.json: series[1].transport: \"synthetic\" is given twice (series[0] too); accepted: one "
                         "series per transport");
  j = lg::measurement_json(m);
  j["version"] = 2;
  EXPECT_EQ(error_of(j), "m.json: version: unknown version 2; accepted: 1");
  // Found by fuzz_loggp_measurement: a schema, provider or mode that is not a string escaped as nlohmann's
  // type_error (the command's "internal error").
  j = lg::measurement_json(m);
  j["schema"] = nlohmann::json::array();
  EXPECT_EQ(error_of(j), "m.json: schema: not a sidecore PRTT measurement (\"schema\" must be \"sidecore-prtt\")");
  j = lg::measurement_json(m);
  j["series"][0]["mode"] = 3;
  EXPECT_EQ(error_of(j), "m.json: series[0].mode: 3 is not accepted; accepted: a string");
  // Integers beyond an int were wrapped (4294967297 read as version 1, 4294967301 as n = 5).
  j = lg::measurement_json(m);
  j["version"] = std::uint64_t{4294967297};
  EXPECT_EQ(error_of(j), "m.json: version: unknown version 4294967297; accepted: 1");
  j = lg::measurement_json(m);
  j["series"][0]["n"] = std::uint64_t{4294967301};
  EXPECT_EQ(error_of(j), "m.json: series[0].n: 4294967301 is not accepted; accepted: an integer, 2 .. 2147483647");
  j = lg::measurement_json(m);
  j["series"][0].erase("n");
  EXPECT_EQ(error_of(j), "m.json: series[0].n: missing");
}

// Found by fuzz_loggp_params: a last_bytes of -1 was converted to the eager limit S (undefined).
TEST(LogGPFit, ParameterFileLastBytesMustBeASize) {
  const auto path = std::filesystem::temp_directory_path() / "sidecore_loggp_last_bytes.json";
  for (const char* bad : {"-1", "0.5", "1e30"}) {
    std::ofstream(path) << R"({"schema": "sidecore-loggp", "version": 1, "series": [{"transport": "shm", "ranges": [)"
                        << R"({"first_bytes": 1, "last_bytes": )" << bad
                        << R"(, "L_ns": 1, "o_s_ns": 1, "O_s_ns_per_byte": 0, "o_r_ns": 1, "O_r_ns_per_byte": 0, )"
                        << R"("g_ns": 1, "G_ns_per_byte": 0}]}]})";
    try {
      (void)lg::read_loggops_params(path.string(), "shm", 8);
      ADD_FAILURE() << bad << " accepted";
    } catch (const sidecore::input_error& e) {
      EXPECT_EQ(std::string(e.what()),
                path.string() + ": series[0].ranges[0].last_bytes: " + nlohmann::json::parse(bad).dump() +
                    " is not accepted; accepted: a size in bytes, 1 .. 2^64 - 1");
    }
  }
  std::filesystem::remove(path);
}

// Found by fuzz_loggp_params: a schema that is not a string escaped as nlohmann's type_error.
TEST(LogGPFit, ParameterFileSchemaNotAString) {
  const auto path = std::filesystem::temp_directory_path() / "sidecore_loggp_schema.json";
  std::ofstream(path) << R"({"schema": ["sidecore-loggp"], "version": 1})";
  try {
    (void)lg::read_loggops_params(path.string(), "shm", 8);
    FAIL();
  } catch (const sidecore::input_error& e) {
    EXPECT_EQ(std::string(e.what()), path.string() + ": schema: not a sidecore-loggp parameter file (sidecore loggp "
                                                     "-o writes one)");
  }
  std::filesystem::remove(path);
}

// A parameter the simulator refuses is named in the file, not as an option the user never gave (-L); a second series
// of the transport asked for is refused, not left unread.
TEST(LogGPFit, ParameterFileRangeAndSeriesChecked) {
  const auto path = std::filesystem::temp_directory_path() / "sidecore_loggp_absurd.json";
  const std::string series = R"({"transport": "shm", "ranges": [{"first_bytes": 1, "last_bytes": 100, "L_ns": 5e299, )"
                             R"("o_s_ns": 1, "O_s_ns_per_byte": 0, "o_r_ns": 1, "O_r_ns_per_byte": 0, "g_ns": 1, )"
                             R"("G_ns_per_byte": 0}]})";
  auto error_of = [&](const std::string& series_list) {
    std::ofstream(path) << R"({"schema": "sidecore-loggp", "version": 1, "series": [)" << series_list << "]}";
    try {
      (void)lg::read_loggops_params(path.string(), "shm", 8);
    } catch (const sidecore::input_error& e) {
      return std::string(e.what());
    }
    return std::string("(accepted)");
  };
  EXPECT_EQ(error_of(series), path.string() + ": series[0].ranges[0]: gives the simulator L = 5e+299 ns; accepted: "
                                              "0 .. 1e+15 ns for each of L, o, g, G and O");
  std::string fine = series;
  fine.replace(fine.find("5e299"), 5, "1000");
  EXPECT_EQ(error_of(fine), "(accepted)");
  EXPECT_EQ(error_of(fine + ", " + fine), path.string() + ": series[1].transport: \"shm\" is given twice (series[0] "
                                                         "too); accepted: one series per transport");
  std::filesystem::remove(path);
}

// A negative per-byte term, a gap or overhead negative at the range's first size, or a protocol change that is not a
// size was clamped to 0 or fell back to the last size, silently: the simulation then ran with parameters the file
// does not give.
TEST(LogGPFit, ParameterFileSignsAndProtocolChangeChecked) {
  const auto path = std::filesystem::temp_directory_path() / "sidecore_loggp_signs.json";
  auto error_of = [&](int version, const std::string& field, const std::string& value, std::uint64_t first = 1) {
    nlohmann::json r = {{"first_bytes", first}, {"last_bytes", 1 << 20}, {"L_ns", 1000}, {"o_s_ns", 300},
                        {"O_s_ns_per_byte", 0.2}, {"o_r_ns", 400}, {"O_r_ns_per_byte", 0.2}, {"g_ns", 500},
                        {"G_ns_per_byte", 0.1}};
    nlohmann::json s = {{"transport", "shm"}, {"protocol_changes_after_bytes", nlohmann::json::array()}};
    (field == "protocol_changes_after_bytes" ? s : r)[field] = nlohmann::json::parse(value);
    s["ranges"] = nlohmann::json::array({r});
    std::ofstream(path) << nlohmann::json{{"schema", "sidecore-loggp"}, {"version", version},
                                        {"series", nlohmann::json::array({s})}}.dump();
    try {
      (void)lg::read_loggops_params(path.string(), "shm", 8);
    } catch (const sidecore::input_error& e) {
      return std::string(e.what());
    }
    return std::string("(accepted)");
  };
  const std::string at = path.string() + ": series[0].ranges[0].";
  for (const char* k : {"G_ns_per_byte", "O_s_ns_per_byte", "O_r_ns_per_byte"})
    EXPECT_EQ(error_of(3, k, "-5"), at + k + ": -5 is not accepted; accepted: a time per byte in ns, 0 .. 1e+15 (the "
                                             "fit holds every per-byte term >= 0)");
  EXPECT_EQ(error_of(3, "g_ns", "-1000000000"),
            at + "g_ns: -1000000000 is not accepted; accepted: a time in ns whose value at the range's first size "
                 "(1 B), g_ns + G_ns_per_byte x (first_bytes - 1), is >= 0");
  EXPECT_EQ(error_of(3, "o_r_ns", "-1"),
            at + "o_r_ns: -1 is not accepted; accepted: a time in ns whose value at the range's first size (1 B), "
                 "o_r_ns + O_r_ns_per_byte x (first_bytes - 1), is >= 0");
  // Version 3: negative at s = 1 but not at the range's first size, where the fit holds the sign.
  EXPECT_EQ(error_of(3, "g_ns", "-100", 10000), "(accepted)");
  EXPECT_EQ(error_of(2, "g_ns", "-100", 10000), at + "g_ns: -100 is not accepted; accepted: a time in ns, >= 0 (in a "
                                                     "file of version 2 the signs hold at s = 1)");
  for (const char* bad : {"[-7]", "[0]", "[\"x\"]", "[2.5]", "\"x\"", "[4096, 1024]"})
    EXPECT_EQ(error_of(3, "protocol_changes_after_bytes", bad),
              path.string() + ": series[0].protocol_changes_after_bytes: " + nlohmann::json::parse(bad).dump() +
                  " is not accepted; accepted: an array of sizes in bytes, each 1 .. 2^64 - 1, ascending (the sizes "
                  "after which the protocol changes)")
        << bad;
  EXPECT_EQ(error_of(3, "protocol_changes_after_bytes", "[1024, 4096]"), "(accepted)");
  std::filesystem::remove(path);
}

TEST(LogGPFit, ParameterFileWithHugeNumberIsNamed) {
  const auto path = std::filesystem::temp_directory_path() / "sidecore_loggp_huge.json";
  std::ofstream(path) << R"({"schema": "sidecore-loggp", "version": 1, "series": [ {"g_ns": -1e999} ]})";
  try {
    (void)lg::read_loggops_params(path.string(), "shm", 8);
    FAIL();
  } catch (const sidecore::input_error& e) {
    EXPECT_NE(std::string(e.what()).find(path.string()), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("1e999"), std::string::npos) << e.what();
  }
  std::filesystem::remove(path);
}
