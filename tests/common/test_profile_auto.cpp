// The profile's "auto" section (SIDECORE_PROGRESS=auto; docs/profile-schema.md): round trip, the job merge, and
// every rejected field with its message.
#include <gtest/gtest.h>
#include <gmock/gmock.h>

#include <nlohmann/json.hpp>

#include <sidecore/common/input_error.hpp>
#include <sidecore/common/profile.hpp>

#include "profile_test_util.hpp"

namespace {

using profile_test::as_json;
using profile_test::expect_rejected;

sidecore::auto_decision decision(const std::string& verdict) {
  sidecore::auto_decision d;
  d.trigger = "steps";
  d.steps = 10;
  d.start_s = 0.5;
  d.window_s = 2.0;
  d.t_comp_s = 1.5;
  d.t_mpi_s = 0.5;
  d.t_dedicated_s = 1.7;
  d.n_core = 16;
  d.job_t_noprogress_s = 2.1;
  d.job_t_dedicated_s = 1.8;
  d.slowest_rank_off = 1;
  d.slowest_rank_core = 0;
  d.speedup = 2.1 / 1.8;
  d.verdict = verdict;
  d.reason = "pays off";
  if (verdict == "core") d.switch_s = 2.5;
  return d;
}

sidecore::profile rank_with_auto(int rank) {
  sidecore::profile p;
  p.rank = rank;
  p.nranks = 2;
  p.mode = sidecore::progress_mode::core;
  p.provider = "shm";
  p.n_core = 16;
  p.t_total_s = 10.0;
  p.t_comp_s = 8.0;
  p.auto_mode = sidecore::auto_section{{decision("core"), decision("off")}};
  return p;
}

TEST(ProfileAuto, RoundTripsEveryField) {
  const sidecore::profile p = rank_with_auto(1);
  const sidecore::profile back = sidecore::parse_profile(as_json(p).dump(), "p.json");
  EXPECT_EQ(back, p);
  EXPECT_FALSE(back.auto_mode->decisions[1].switch_s.has_value());
  EXPECT_FALSE(as_json(p)["auto"]["decisions"][1].contains("switch_s"));
}

TEST(ProfileAuto, AbsentStaysAbsent) {
  sidecore::profile p = rank_with_auto(0);
  p.auto_mode.reset();
  EXPECT_FALSE(as_json(p).contains("auto"));
  EXPECT_FALSE(sidecore::parse_profile(as_json(p).dump()).auto_mode.has_value());
}

TEST(ProfileAuto, TheJobKeepsTheFirstRanksDecisions) {
  const sidecore::profile job = sidecore::make_job_profile({rank_with_auto(1), rank_with_auto(0)});
  ASSERT_TRUE(job.auto_mode.has_value());
  EXPECT_EQ(job.auto_mode->decisions.size(), 2u);
  EXPECT_EQ(sidecore::parse_profile(as_json(job).dump()), job);
}

TEST(ProfileAuto, RejectsWhatNoRunWrites) {
  const nlohmann::json good = as_json(rank_with_auto(0));
  nlohmann::json j = good;
  j["auto"]["decisions"][0]["verdict"] = "maybe";
  expect_rejected(j, {"auto.decisions[0].verdict", "unknown verdict \"maybe\"", "\"core\", \"off\""});
  j = good;
  j["auto"]["decisions"][0]["trigger"] = "rank";
  expect_rejected(j, {"auto.decisions[0].trigger", "\"steps\", \"time\", \"finalize\""});
  j = good;
  j["auto"]["decisions"][1]["window_s"] = -1.0;
  expect_rejected(j, {"auto.decisions[1].window_s", "negative time"});
  j = good;
  j["auto"]["decisions"][0]["t_mpi_s"] = 5.0;
  expect_rejected(j, {"auto.decisions[0].t_mpi_s", "above window_s"});
  j = good;
  j["auto"]["decisions"][0]["speedup"] = "fast";
  expect_rejected(j, {"auto.decisions[0].speedup", "finite number >= 0"});
  j = good;
  j["auto"]["decisions"][0]["forced"] = 1;
  expect_rejected(j, {"auto.decisions[0].forced", "true or false"});
  j = good;
  j["auto"]["decisions"][0].erase("reason");
  expect_rejected(j, {"auto.decisions[0].reason", "missing"});
  j = good;
  j["auto"]["decisions"] = "none";
  expect_rejected(j, {"auto.decisions", "expected an array"});
}

}  // namespace
