// The sections of the profile schema that the instrumentation writes through the profile library (common/): regions
// and the event clock (and, below, what later sections add) are written, read back equal, and merged into a job.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "sidecore/common/input_error.hpp"
#include "sidecore/common/profile.hpp"

#include "profile_test_util.hpp"

using sidecore::category;

namespace {

sidecore::profile rank_with_sections(int rank) {
  sidecore::profile p = profile_test::minimal_rank(rank, 2, 4, 2.0, 1.5);
  p[category::wait] = {0.25, 10, 0.001};
  p.calling_threads = 1;
  p.thread_categories = p.categories;
  sidecore::overlap_section o;
  o.xfer_time_source = rank == 0 ? "calibration: test" : "table.json";
  o.total = {0.1, 0.2, 0.3, 10};
  o.by_region = {{"solve", {0.1, 0.2, 0.3, 10}}};
  p.overlap = o;
  sidecore::region_profile solve;
  solve.name = "solve";
  solve.entries = 3;
  solve.time_s = 1.25;
  solve.categories[static_cast<std::size_t>(category::wait)] = {0.25, 10};
  sidecore::region_profile halo = solve;
  halo.name = "solve/halo";
  halo.entries = 1 + static_cast<std::uint64_t>(rank);
  p.regions = {solve, halo};
  p.event_clock = sidecore::event_clock_info{"tsc", 2.6e9, ""};
  return p;
}

}  // namespace

TEST(ProfileSchema, RegionsAndEventClockRoundTrip) {
  const sidecore::profile p = rank_with_sections(1);
  const std::string text = sidecore::format_profile(p);
  EXPECT_EQ(sidecore::parse_profile(text, "p.json"), p);
  // Through nlohmann's hooks as well, both JSON types.
  nlohmann::json j = p;
  EXPECT_EQ(j.get<sidecore::profile>(), p);
  nlohmann::ordered_json oj;
  sidecore::to_json(oj, p);
  EXPECT_EQ(oj.dump(2) + "\n", text);
  // A note without a rate (the monotonic fallback) too.
  sidecore::profile m = p;
  m.event_clock = sidecore::event_clock_info{"monotonic", 0.0, "the kernel's clocksource is not tsc"};
  EXPECT_EQ(sidecore::parse_profile(sidecore::format_profile(m)), m);
}

TEST(ProfileSchema, RegionErrorsNameTheField) {
  nlohmann::json j = rank_with_sections(0);
  j["regions"][1]["entries"] = -1;
  try {
    (void)sidecore::parse_profile(j.dump(), "p.json");
    FAIL() << "accepted";
  } catch (const sidecore::input_error& e) {
    EXPECT_NE(std::string(e.what()).find("p.json: regions[1].entries: negative count"), std::string::npos) << e.what();
  }
  j = rank_with_sections(0);
  j["regions"][0]["categories"]["persistent"] = {{"time_s", 0.0}, {"count", 0}};
  EXPECT_THROW((void)sidecore::parse_profile(j.dump(), "p.json"), sidecore::input_error);
  j = rank_with_sections(0);
  j["event_clock"].erase("source");
  EXPECT_THROW((void)sidecore::parse_profile(j.dump(), "p.json"), sidecore::input_error);
}

TEST(ProfileSchema, JobMergeSumsRegionsJoinsSourcesAndRoundTrips) {
  const sidecore::profile job = sidecore::make_job_profile({rank_with_sections(1), rank_with_sections(0)});
  ASSERT_EQ(job.regions.size(), 2u);
  EXPECT_EQ(job.regions[0].name, "solve");
  EXPECT_EQ(job.regions[0].entries, 6u);
  EXPECT_DOUBLE_EQ(job.regions[0].time_s, 2.5);
  EXPECT_EQ(job.regions[1].entries, 3u);  // 1 + 2
  EXPECT_EQ(job.regions[0].categories[static_cast<std::size_t>(category::wait)].count, 20u);
  ASSERT_TRUE(job.overlap);
  EXPECT_EQ(job.overlap->xfer_time_source, "calibration: test; table.json");
  EXPECT_FALSE(job.event_clock) << "per rank information: in the ranks only";
  EXPECT_EQ(sidecore::parse_profile(sidecore::format_profile(job)), job);
  // A source already named is not repeated.
  sidecore::profile other = rank_with_sections(0);
  other.rank = 1;
  const sidecore::profile same = sidecore::make_job_profile({rank_with_sections(0), other});
  EXPECT_EQ(same.overlap->xfer_time_source, "calibration: test");
}
