// The profile's "limits" (the instrumentation's limits a run reached; docs/profile-schema.md): round trip, absent when
// none, the job merge (summed by kind, the ranks named), and every rejected field with its message.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <sidecore/common/profile.hpp>

#include "profile_test_util.hpp"

namespace {

using profile_test::as_json;
using profile_test::expect_rejected;

sidecore::profile rank(int r, std::vector<sidecore::limit_hit> limits) {
  sidecore::profile p = profile_test::minimal_rank(r, 4, 16, 10.0, 8.0);
  p.limits = std::move(limits);
  return p;
}

TEST(ProfileLimits, RoundTripsEveryField) {
  const sidecore::profile p = rank(1, {sidecore::make_limit_hit("thread_table", 1024, 76),
                                       sidecore::make_limit_hit("trace_events", 1000000, 3)});
  EXPECT_EQ(p.limits[0].detail, "76 threads found the 1024-slot thread table full: their calls and regions are "
                                "counted, their transfers (the overlap bounds) and trace events are not recorded");
  const nlohmann::json j = as_json(p);
  EXPECT_EQ(j["limits"][0]["limit"], "thread_table");
  EXPECT_EQ(j["limits"][0]["capacity"], 1024);
  EXPECT_EQ(j["limits"][0]["count"], 76);
  EXPECT_FALSE(j["limits"][0].contains("ranks"));  // a rank profile's limits are its own
  EXPECT_EQ(sidecore::parse_profile(sidecore::format_profile(p), "p.json"), p);
}

TEST(ProfileLimits, AbsentWhenNoneWasReached) {
  const sidecore::profile p = rank(0, {});
  EXPECT_FALSE(as_json(p).contains("limits"));
  EXPECT_TRUE(sidecore::parse_profile(as_json(p).dump()).limits.empty());
}

TEST(ProfileLimits, AKindFromALaterWriterIsKeptWithItsSentence) {
  const sidecore::profile p = rank(0, {{"open_files", 64, 2, "2 files were not opened", {}}});
  EXPECT_EQ(sidecore::parse_profile(as_json(p).dump()), p);
}

TEST(ProfileLimits, TheJobSumsEachKindAndNamesTheRanks) {
  const sidecore::profile job = sidecore::make_job_profile(
      {rank(3, {sidecore::make_limit_hit("thread_table", 1024, 6)}), rank(1, {}),
       rank(0, {sidecore::make_limit_hit("region_depth", 64, 1), sidecore::make_limit_hit("thread_table", 1024, 70)}),
       rank(2, {{"open_files", 64, 2, "2 files were not opened", {}}})});
  ASSERT_EQ(job.limits.size(), 3u);
  EXPECT_EQ(job.limits[0].limit, "region_depth");
  EXPECT_EQ(job.limits[0].ranks, std::vector<int>{0});
  EXPECT_EQ(job.limits[0].detail, "1 region entry went deeper than 64 nested regions: their time, calls and "
                                  "transfers count for the enclosing region");
  EXPECT_EQ(job.limits[1].limit, "thread_table");
  EXPECT_EQ(job.limits[1].count, 76u);
  EXPECT_EQ(job.limits[1].ranks, (std::vector<int>{0, 3}));
  EXPECT_EQ(job.limits[1].detail.rfind("76 threads found the 1024-slot thread table full", 0), 0u);
  EXPECT_EQ(job.limits[2].detail, "2 files were not opened");
  EXPECT_EQ(job.limits[2].ranks, std::vector<int>{2});
  EXPECT_TRUE(job.ranks[1].limits.empty());  // each rank keeps its own list
  EXPECT_EQ(job.ranks[3].limits[0].count, 6u);
  const nlohmann::json j = as_json(job);
  EXPECT_EQ(j["limits"][1]["ranks"], nlohmann::json::array({0, 3}));
  EXPECT_FALSE(j["ranks"][3]["limits"][0].contains("ranks"));
  EXPECT_EQ(sidecore::parse_profile(j.dump()), job);
}

TEST(ProfileLimits, RejectsWhatNoWriterWrites) {
  const nlohmann::json good = as_json(rank(0, {sidecore::make_limit_hit("region_paths", 65535, 12)}));
  nlohmann::json j = good;
  j["limits"] = "thread_table";
  expect_rejected(j, {"case.json", "limits:", "expected an array of the limits reached"});
  j = good;
  j["limits"][0]["count"] = 0;
  expect_rejected(j, {"limits[0].count", "accepted: >= 1"});
  j = good;
  j["limits"][0]["count"] = -3;
  expect_rejected(j, {"limits[0].count", "negative count"});
  j = good;
  j["limits"][0]["capacity"] = 0;
  expect_rejected(j, {"limits[0].capacity", "the limit's size, >= 1"});
  j = good;
  j["limits"][0]["limit"] = "";
  expect_rejected(j, {"limits[0].limit", "\"thread_table\", \"region_paths\", \"region_depth\", \"trace_events\""});
  j = good;
  j["limits"][0].erase("detail");
  expect_rejected(j, {"limits[0].detail", "missing"});
  j = good;
  j["limits"][0]["ranks"] = {0};
  expect_rejected(j, {"limits[0].ranks", "only a job profile names the ranks"});
  j = good;
  j["limits"].push_back(j["limits"][0]);
  expect_rejected(j, {"limits[1].limit", "listed twice (also limits[0])"});
  const sidecore::limit_hit one = sidecore::make_limit_hit("region_paths", 65535, 1);
  const nlohmann::json job = as_json(sidecore::make_job_profile({rank(0, {one}), rank(2, {one})}));
  j = job;
  j["limits"][0]["ranks"] = {2, 0};
  expect_rejected(j, {"limits[0].ranks[1]", "ascending ranks, each once"});
  j = job;
  j["limits"][0]["ranks"] = {0, 4};
  expect_rejected(j, {"limits[0].ranks[1]", "0 <= rank < nranks 4"});
}

}  // namespace
