// Overlap bounds of seed 000, Section 2.2, on synthetic event sequences; size bins; the transfer-time table.
// Times are synthetic (nanoseconds, passed to the detail::*_at recording functions, with the monotonic event clock
// so that ticks are nanoseconds), so every expected value is computed by hand below.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "sidecore/instrument/instrument.hpp"
#include "synthetic_time.hpp"

namespace si = sidecore::instrument;
namespace sd = sidecore::instrument::detail;
using sidecore::category;
using json = nlohmann::json;

namespace {

using sctest::T0;
constexpr std::uint64_t us = 1000;           // one microsecond in ns

si::config profile_config() {
  si::config c;
  c.profile = true;
  c.clock = si::event_clock::monotonic;  // synthetic times are nanoseconds
  return c;
}

// xfer_time(bytes) = 100 us for every size: a one-point table.
void flat_table_100us() { si::set_xfer_time_table({{1024, 100e-6}}, "test: flat 100 us"); }

json profile() { return json::parse(si::rank_profile_json()); }

const json& total(const json& p) { return p["overlap"]["total"]; }

}  // namespace

// ---- the pure arithmetic --------------------------------------------------------------------------------------------
TEST(Bounds, Case1SameCallGivesZero) {
  // Begin and end inside call #3 of the owner (in_call both times, same call_seq).
  si::owner_point b{T0 + 5 * us, 50 * us, 3, true}, e{T0 + 400 * us, 445 * us, 3, true};
  const auto r = si::bound_paired(b, e, 100 * us);
  EXPECT_EQ(r.which, si::bound_case::same_call);
  EXPECT_EQ(r.min_ns, 0u);
  EXPECT_EQ(r.max_ns, 0u);
  EXPECT_EQ(r.xfer_ns, 100 * us);  // min(xfer_time 100, window 395)
}

TEST(Bounds, Case2EnoughComputation) {
  // window = 250 - 5 = 245 us; in-call time in the window = 45 us (C: 10 -> 55); computation = 200 us.
  // x = min(100, 245) = 100; max = min(200, 100) = 100; min = max(0, 100 - 45) = 55.
  si::owner_point b{T0 + 5 * us, 10 * us, 1, true}, e{T0 + 250 * us, 55 * us, 2, true};
  const auto r = si::bound_paired(b, e, 100 * us);
  EXPECT_EQ(r.which, si::bound_case::split);
  EXPECT_EQ(r.max_ns, 100 * us);
  EXPECT_EQ(r.min_ns, 55 * us);
}

TEST(Bounds, Case2LittleComputation) {
  // window = 290 - 5 = 285; in-call 255; computation 30. max = min(30, 100) = 30; min = max(0, 100 - 255) = 0.
  si::owner_point b{T0 + 5 * us, 5 * us, 1, true}, e{T0 + 290 * us, 260 * us, 2, true};
  const auto r = si::bound_paired(b, e, 100 * us);
  EXPECT_EQ(r.max_ns, 30 * us);
  EXPECT_EQ(r.min_ns, 0u);
}

TEST(Bounds, Case2WindowShorterThanTableTime) {
  // The table says 100 us but the events are 60 us apart with 20 us in calls: x = 60, max = min(40, 60) = 40,
  // min = 60 - 20 = 40: both bounds agree and never exceed the window.
  si::owner_point b{T0, 0, 1, false}, e{T0 + 60 * us, 20 * us, 2, true};
  const auto r = si::bound_paired(b, e, 100 * us);
  EXPECT_EQ(r.xfer_ns, 60 * us);
  EXPECT_EQ(r.max_ns, 40 * us);
  EXPECT_EQ(r.min_ns, 40 * us);
}

TEST(Bounds, Case2WithoutTableUsesTheWindow) {
  // No table: xfer = window = 245, max = computation = 200, min = 0.
  si::owner_point b{T0 + 5 * us, 10 * us, 1, true}, e{T0 + 250 * us, 55 * us, 2, true};
  const auto r = si::bound_paired(b, e, -1);
  EXPECT_EQ(r.xfer_ns, 245 * us);
  EXPECT_EQ(r.max_ns, 200 * us);
  EXPECT_EQ(r.min_ns, 0u);
}

TEST(Bounds, Case3OneEventKnown) {
  const auto r = si::bound_one_known(100 * us);
  EXPECT_EQ(r.which, si::bound_case::one_known);
  EXPECT_EQ(r.min_ns, 0u);
  EXPECT_EQ(r.max_ns, 100 * us);
  const auto none = si::bound_one_known(-1);
  EXPECT_EQ(none.max_ns, 0u);
}

// ---- the same cases through the recording path (rings, folding, pairing) ---------------------------------------
TEST(Recording, Case1BothEventsInsideOneWait) {
  si::start(profile_config(), 0, 1);
  flat_table_100us();
  sd::set_window_start(T0);
  const auto me = si::current_thread_id();
  sd::call_enter_at(category::wait, T0 + 0 * us);
  sd::xfer_begin_at(7, 1000, 1, me, T0 + 5 * us);
  sd::xfer_end_at(7, me, T0 + 400 * us);
  sd::call_exit_at(category::wait, T0 + 410 * us);
  sd::set_window_end(T0 + 1000 * us);
  const json p = profile();
  EXPECT_EQ(total(p)["count"], 1);
  EXPECT_DOUBLE_EQ(total(p)["min_s"].get<double>(), 0.0);
  EXPECT_DOUBLE_EQ(total(p)["max_s"].get<double>(), 0.0);
  EXPECT_NEAR(total(p)["xfer_time_s"].get<double>(), 100e-6, 1e-12);
  // One wait call of 410 us; t_comp = window 1000 - 410 = 590 us.
  EXPECT_EQ(p["categories"]["wait"]["count"], 1);
  EXPECT_NEAR(p["categories"]["wait"]["time_s"].get<double>(), 410e-6, 1e-12);
  EXPECT_NEAR(p["t_comp_s"].get<double>(), 590e-6, 1e-12);
  EXPECT_NEAR(p["t_total_s"].get<double>(), 1000e-6, 1e-12);
  si::stop();
}

TEST(Recording, Case2OffModeIsendComputeWait) {
  // Owner: isend call [0, 10], computes [10, 210], wait call [210, 260]. XFER_BEGIN at 5 (inside isend),
  // XFER_END at 250 (inside wait). In-call time inside [5, 250] = (10 - 5) + (250 - 210) = 45 us,
  // computation = 245 - 45 = 200 us. xfer = 100: max = min(200, 100) = 100, min = 100 - 45 = 55.
  si::start(profile_config(), 0, 1);
  flat_table_100us();
  const auto me = si::current_thread_id();
  sd::call_enter_at(category::init, T0);
  sd::xfer_begin_at(1, 4096, 1, me, T0 + 5 * us);
  sd::call_exit_at(category::init, T0 + 10 * us);
  sd::call_enter_at(category::wait, T0 + 210 * us);
  sd::xfer_end_at(1, me, T0 + 250 * us);
  sd::call_exit_at(category::wait, T0 + 260 * us);
  const json p = profile();
  EXPECT_EQ(total(p)["count"], 1);
  EXPECT_NEAR(total(p)["max_s"].get<double>(), 100e-6, 1e-12);
  EXPECT_NEAR(total(p)["min_s"].get<double>(), 55e-6, 1e-12);
  EXPECT_EQ(p["categories"]["init"]["count"], 1);
  EXPECT_NEAR(p["categories"]["init"]["min_s"].get<double>(), 10e-6, 1e-12);
  EXPECT_NEAR(p["categories"]["wait"]["min_s"].get<double>(), 50e-6, 1e-12);
  EXPECT_EQ(p["overlap"]["xfer_time_source"], "test: flat 100 us");
  si::stop();
}

TEST(Recording, Case2CoreModeEventsFromAnotherThread) {
  // The progress thread records both events while the owner is outside any call at the begin (computing) and in a
  // wait at the end. Owner: isend [0, 10], compute [10, 40], wait [40, 300]. Begin at 20 (owner computing, in-call
  // so far 10), end at 290 (owner in wait since 40: in-call 10 + 250 = 260). Window 270, in-call 250,
  // computation 20: max = min(20, 100) = 20, min = max(0, 100 - 250) = 0.
  si::start(profile_config(), 0, 1);
  flat_table_100us();
  const auto me = si::current_thread_id();
  auto on_progress = [](auto fn) {
    std::thread t([&] {
      si::mark_progress_thread();
      fn();
    });
    t.join();
  };
  sd::call_enter_at(category::init, T0);
  sd::call_exit_at(category::init, T0 + 10 * us);
  on_progress([&] { sd::xfer_begin_at(9, 64, 1, me, T0 + 20 * us); });
  sd::call_enter_at(category::wait, T0 + 40 * us);
  on_progress([&] { sd::xfer_end_at(9, me, T0 + 290 * us); });
  sd::call_exit_at(category::wait, T0 + 300 * us);
  const json p = profile();
  EXPECT_EQ(total(p)["count"], 1);
  EXPECT_NEAR(total(p)["max_s"].get<double>(), 20e-6, 1e-12);
  EXPECT_NEAR(total(p)["min_s"].get<double>(), 0.0, 1e-12);
  si::stop();
}

TEST(Recording, Case3EndOnlyAndUnfinishedBegin) {
  // An eager receive (end only) and a send whose completion never came: both case 3, min 0, max 100 each.
  si::start(profile_config(), 0, 1);
  flat_table_100us();
  const auto me = si::current_thread_id();
  sd::call_enter_at(category::wait, T0);
  sd::xfer_end_only_at(3, 8, 1, me, T0 + 5 * us);
  sd::xfer_begin_at(4, 8, 1, me, T0 + 6 * us);
  sd::call_exit_at(category::wait, T0 + 10 * us);
  const json p = profile();
  EXPECT_EQ(total(p)["count"], 2);
  EXPECT_NEAR(total(p)["max_s"].get<double>(), 200e-6, 1e-12);
  EXPECT_NEAR(total(p)["min_s"].get<double>(), 0.0, 1e-12);
  si::stop();
}

TEST(Recording, NestedCallsCountOnce) {
  // A blocking send built on isend + wait: one blocking call of 30 us, nothing else.
  si::start(profile_config(), 0, 1);
  sd::call_enter_at(category::blocking, T0);
  sd::call_enter_at(category::init, T0 + 1 * us);
  sd::call_exit_at(category::init, T0 + 2 * us);
  sd::call_enter_at(category::wait, T0 + 3 * us);
  sd::call_exit_at(category::wait, T0 + 29 * us);
  sd::call_exit_at(category::blocking, T0 + 30 * us);
  const json p = profile();
  EXPECT_EQ(p["categories"]["blocking"]["count"], 1);
  EXPECT_NEAR(p["categories"]["blocking"]["time_s"].get<double>(), 30e-6, 1e-12);
  EXPECT_EQ(p["categories"]["init"]["count"], 0);
  EXPECT_EQ(p["categories"]["wait"]["count"], 0);
  si::stop();
}

TEST(Recording, SizeBinsAndRegions) {
  // Three paired transfers, each with begin/end in different calls and 200 us of computation between them
  // (so max = xfer = 100, min = 100 - in-call time (5 + 5 = 10) = 90), in bins and regions:
  //   3 B in no region, 100 B in "solve", 5000 B in "solve/halo".
  si::start(profile_config(), 0, 1);
  flat_table_100us();
  const auto me = si::current_thread_id();
  std::uint64_t t = T0;
  auto one = [&](std::uint64_t id, std::size_t bytes) {
    sd::call_enter_at(category::init, t);
    sd::xfer_begin_at(id, bytes, 1, me, t + 5 * us);
    sd::call_exit_at(category::init, t + 10 * us);
    sd::call_enter_at(category::wait, t + 210 * us);
    sd::xfer_end_at(id, me, t + 215 * us);
    sd::call_exit_at(category::wait, t + 220 * us);
    t += 1000 * us;
  };
  one(1, 3);
  sd::region_enter_at("solve", t);
  one(2, 100);
  sd::region_enter_at("halo", t);
  one(3, 5000);
  sd::region_exit_at(t);
  sd::region_exit_at(t);
  const json p = profile();
  EXPECT_EQ(total(p)["count"], 3);
  EXPECT_NEAR(total(p)["max_s"].get<double>(), 300e-6, 1e-12);
  EXPECT_NEAR(total(p)["min_s"].get<double>(), 270e-6, 1e-12);
  const json& bins = p["overlap"]["by_size"];
  ASSERT_EQ(bins.size(), 3u);  // only non-empty bins: [0,3], [64,255], [4096,16383]
  EXPECT_EQ(bins[0]["lo_bytes"], 0);
  EXPECT_EQ(bins[0]["hi_bytes"], 3);
  EXPECT_EQ(bins[1]["lo_bytes"], 64);
  EXPECT_EQ(bins[1]["hi_bytes"], 255);
  EXPECT_EQ(bins[2]["lo_bytes"], 4096);
  EXPECT_EQ(bins[2]["hi_bytes"], 16383);
  for (const auto& b : bins) {
    EXPECT_EQ(b["count"], 1);
    EXPECT_NEAR(b["min_s"].get<double>(), 90e-6, 1e-12);
  }
  const json& regions = p["overlap"]["by_region"];
  ASSERT_EQ(regions.size(), 2u);
  EXPECT_EQ(regions[0]["name"], "solve");
  EXPECT_EQ(regions[0]["count"], 2);  // sub-regions included: the transfer of "solve/halo" counts for "solve" too
  EXPECT_NEAR(regions[0]["min_s"].get<double>(), 180e-6, 1e-12);
  EXPECT_EQ(regions[1]["name"], "solve/halo");
  EXPECT_EQ(regions[1]["count"], 1);
  si::stop();
}

TEST(Recording, CustomBinEdges) {
  si::config c = profile_config();
  c.size_bin_edges = {10, 1000};  // bins [0,9], [10,999], [1000, max]
  si::start(c, 0, 1);
  const auto me = si::current_thread_id();
  sd::call_enter_at(category::wait, T0);
  for (std::uint64_t i = 0; i < 3; ++i) {
    const std::size_t bytes = i == 0 ? 5 : i == 1 ? 10 : 1u << 20;
    sd::xfer_begin_at(i, bytes, 0, me, T0 + 1 * us);
    sd::xfer_end_at(i, me, T0 + 2 * us);
  }
  sd::call_exit_at(category::wait, T0 + 3 * us);
  const json p = profile();
  const json& bins = p["overlap"]["by_size"];
  ASSERT_EQ(bins.size(), 3u);
  EXPECT_EQ(bins[0]["hi_bytes"], 9);
  EXPECT_EQ(bins[1]["lo_bytes"], 10);
  EXPECT_EQ(bins[2]["lo_bytes"], 1000);
  EXPECT_EQ(bins[2]["hi_bytes"].get<std::uint64_t>(), UINT64_MAX);
  EXPECT_EQ(p["overlap"]["xfer_time_source"], "measured");  // no table: window-based
  si::stop();
  c.size_bin_edges = {10, 10};
  EXPECT_THROW(si::start(c, 0, 1), std::invalid_argument);
}

// ---- tables and bins -----------------------------------------------------------------------------------------------
TEST(XferTable, InterpolatesAndExtrapolates) {
  si::xfer_time_table t({{1024, 2e-6}, {0, 1e-6}, {2048, 4e-6}}, "test");
  EXPECT_DOUBLE_EQ(t.seconds(0), 1e-6);
  EXPECT_DOUBLE_EQ(t.seconds(512), 1.5e-6);     // halfway between (0, 1) and (1024, 2)
  EXPECT_DOUBLE_EQ(t.seconds(1536), 3e-6);      // halfway between (1024, 2) and (2048, 4)
  EXPECT_DOUBLE_EQ(t.seconds(4096), 8e-6);      // last segment extended: 4 + 2048 * (2 / 1024)
  EXPECT_EQ(t.nanoseconds(512), 1500);
  EXPECT_THROW(si::xfer_time_table({{1, -1.0}}, "t"), std::invalid_argument);
  EXPECT_THROW(si::xfer_time_table({{1, 1.0}, {1, 2.0}}, "t"), std::invalid_argument);
  EXPECT_EQ(si::xfer_time_table().nanoseconds(5), -1);
}

TEST(XferTable, ReadsFileAndNamesItInErrors) {
  const std::string path = ::testing::TempDir() + "xfer_table.json";
  {
    std::ofstream f(path);
    f << R"({"schema": "sidecore-xfer-table", "version": 1, "points": [[8, 1e-6], [1048576, 1e-4]]})";
  }
  const auto t = si::read_xfer_time_table(path);
  EXPECT_EQ(t.source(), path);
  EXPECT_DOUBLE_EQ(t.seconds(8), 1e-6);
  {
    std::ofstream f(path);
    f << R"({"schema": "sidecore-xfer-table", "version": 2, "points": [[8, 1e-6]]})";
  }
  try {
    (void)si::read_xfer_time_table(path);
    FAIL() << "version 2 accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("version"), std::string::npos);
  }
  {
    std::ofstream f(path);
    f << R"({"schema": "sidecore-xfer-table", "version": 1, "points": [[-8, 1e-6]]})";
  }
  EXPECT_THROW((void)si::read_xfer_time_table(path), std::runtime_error);
  EXPECT_THROW((void)si::read_xfer_time_table(path + ".missing"), std::runtime_error);
  std::remove(path.c_str());
}

// End to end: the table `sidecore loggp --xfer-table` writes is what SIDECORE_XFER_TABLE reads. The measurement is
// tests/model/data/loggp/synthetic_prtt.json, made from known LogGP parameters (its "machine" note): up to 8192 B
// o_s = 250 + 0.02 (s-1), o_r = 300 + 0.03 (s-1), L = 900, G = 0.08 ns/B; beyond, o_s = 1500 + 0.001 (s-1),
// o_r = 1200 + 0.002 (s-1), L = 1400, G = 0.07. The table holds PRTT(1,0,s)/2 = o_s + L + (s-1) G + o_r, which the
// fit gives back exactly from noiseless points.
TEST(XferTable, ReadsTheTableOfSidecoreLoggp) {
#if defined(SIDECORE_CLI) && defined(SIDECORE_MODEL_TEST_DATA)
  const std::string path = ::testing::TempDir() + "loggp_xfer_table.json";
  std::remove(path.c_str());
  const std::string cmd = std::string("'") + SIDECORE_CLI + "' loggp '" + SIDECORE_MODEL_TEST_DATA +
                          "/loggp/synthetic_prtt.json' --xfer-table '" + path + "' > /dev/null";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  const si::xfer_time_table t = si::read_xfer_time_table(path);
  EXPECT_EQ(t.source(), path);
  EXPECT_EQ(t.nanoseconds(1), 1450);  // 250 + 900 + 300
  // 1000 B lies between the measured 768 and 1024 B: interpolated on the fitted line,
  // 250 + 19.98 + 900 + 79.92 + 300 + 29.97 = 1579.87 ns.
  EXPECT_NEAR(t.seconds(1000) * 1e9, 1579.87, 0.01);
  // 65536 B, in the second protocol range: 1500 + 65.535 + 1400 + 4587.45 + 1200 + 131.07 = 8884.055 ns.
  EXPECT_NEAR(t.seconds(65536) * 1e9, 8884.055, 0.01);
  std::remove(path.c_str());
#else
  GTEST_SKIP() << "the sidecore command (target sidecore_cli) is not built";
#endif
}

// SIDECORE_XFER_TABLE naming a FIFO, /dev/zero or a directory: refused at once (issue 17: it read forever or blocked).
TEST(XferTable, RefusesWhatIsNotARegularFile) {
  const std::string fifo = ::testing::TempDir() + "xfer_table.fifo";
  std::remove(fifo.c_str());
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  for (const std::string& path : {fifo, std::string("/dev/zero"), ::testing::TempDir()}) {
    try {
      (void)si::read_xfer_time_table(path);
      ADD_FAILURE() << path << " accepted";
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find(path + ": cannot read transfer-time table: it is"), std::string::npos)
          << e.what();
      EXPECT_NE(std::string(e.what()).find("accepted: a regular file"), std::string::npos) << e.what();
    }
  }
  std::remove(fifo.c_str());
}

// Found by fuzz/fuzz_xfer_table: a deeply nested point overflowed the stack while the error message quoted it.
TEST(XferTable, DeeplyNestedPointIsAnError) {
  const std::string path = ::testing::TempDir() + "xfer_table_deep.json";
  {
    std::ofstream f(path);
    f << R"({"schema": "sidecore-xfer-table", "version": 1, "points": [)" << std::string(400000, '[')
      << std::string(400000, ']') << "]}";
  }
  try {
    (void)si::read_xfer_time_table(path);
    ADD_FAILURE() << "accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("points[0] = a nested array must be"), std::string::npos) << e.what();
  }
  std::remove(path.c_str());
}

TEST(SizeBins, DefaultPowersOfFour) {
  si::size_bins b;
  EXPECT_EQ(b.index(0), 0u);
  EXPECT_EQ(b.index(3), 0u);
  EXPECT_EQ(b.index(4), 1u);
  EXPECT_EQ(b.index(15), 1u);
  EXPECT_EQ(b.index(16), 2u);
  EXPECT_EQ(b.lo(2), 16u);
  EXPECT_EQ(b.hi(2), 64u);
  EXPECT_EQ(b.index(std::size_t{1} << 40), b.count() - 1);
  EXPECT_FALSE(b.bounded(b.count() - 1));
}

TEST(Paths, RankAndJob) {
  EXPECT_EQ(si::path_for_rank("p.%r.json", 3), "p.3.json");
  EXPECT_EQ(si::job_path("p.%r.json"), "p.job.json");
  EXPECT_EQ(si::path_for_rank("prof.json", 2), "prof.2.json");
  EXPECT_EQ(si::job_path("prof.json"), "prof.json");
  EXPECT_EQ(si::path_for_rank("prof", 0), "prof.0");
}
