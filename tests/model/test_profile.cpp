// Profile schema: round trip and every rejected input, with the message checked.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <limits>

#include <nlohmann/json.hpp>

#include "sidecore/common/input_error.hpp"
#include "sidecore/model/input.hpp"
#include "sidecore/common/profile.hpp"
#include "model_test_util.hpp"

namespace sm = sidecore::model;
using sidecore::category;

namespace {

using sctest::model_data;

sidecore::profile full_rank(int rank) {
  sidecore::profile p;
  p.rank = rank;
  p.nranks = 3;
  p.mode = sidecore::progress_mode::core;
  p.provider = "tcp;ofi_rxm";
  p.n_core = 16;
  p.host = sidecore::host_info{"00000000000000aa", 64};
  p.t_total_s = 12.5 + rank;
  p.t_comp_s = 9.25;
  p.command = "app --size 42";
  p[category::blocking] = {1.5, 300, 1e-4};
  p[category::init] = {0.125, 4000, 2.5e-6};
  p[category::test] = {0.0, 0, 0.0};
  p[category::wait] = {0.75, 4000, 3e-6};
  p[category::other] = {0.01, 7, 1e-5};
  sidecore::overlap_section o;
  o.xfer_time_source = "microbenchmark";
  o.total = {0.25, 0.5, 1.0, 4000};
  o.by_size = {{0, 1023, {0.05, 0.1, 0.2, 3000}},
               {1024, std::numeric_limits<std::uint64_t>::max(), {0.2, 0.4, 0.8, 1000}}};
  o.by_region = {{"halo", {0.25, 0.5, 1.0, 4000}}};
  p.overlap = o;
  p.progress_thread = sidecore::progress_thread_stats{2.0, 10.5, 123456789, 8000};
  p.calling_threads = 4;
  std::array<sidecore::category_totals, sidecore::category_count> own{};
  own[static_cast<std::size_t>(category::blocking)] = {0.5, 100, 1e-4};
  own[static_cast<std::size_t>(category::wait)] = {0.25, 1000, 3e-6};
  p.thread_categories = own;
  return p;
}

std::string tmp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("sidecore_model_test_" + name)).string();
}

// Expects parse_profile(text) to throw an input_error whose message contains every fragment.
void expect_rejected(const nlohmann::json& j, std::initializer_list<const char*> fragments) {
  try {
    (void)sidecore::parse_profile(j.dump(), "case.json");
    ADD_FAILURE() << "accepted: " << j.dump();
  } catch (const sidecore::input_error& e) {
    const std::string what = e.what();
    EXPECT_EQ(e.source(), "case.json");
    for (const char* f : fragments)
      EXPECT_NE(what.find(f), std::string::npos) << "missing \"" << f << "\" in: " << what;
  }
}

nlohmann::json valid_json() {
  nlohmann::json j;
  sidecore::to_json(j, full_rank(1));
  return j;
}

}  // namespace

TEST(Profile, RankRoundTrip) {
  const sidecore::profile p = full_rank(1);
  const std::string path = tmp_path("rank.json");
  sidecore::write_profile_file(path, p);
  const sidecore::profile q = sidecore::read_profile_file(path);
  EXPECT_EQ(p, q);
  std::filesystem::remove(path);
}

TEST(Profile, CommunicatingThreadMergedOnlyWhenEveryRankHasIt) {
  sidecore::profile a = full_rank(0), b = full_rank(1);
  b.calling_threads = 8;
  sidecore::profile job = sidecore::make_job_profile({a, b});
  EXPECT_EQ(job.calling_threads, 8);
  ASSERT_TRUE(job.thread_categories.has_value());
  EXPECT_EQ((*job.thread_categories)[static_cast<std::size_t>(category::wait)].count, 2000U);
  EXPECT_DOUBLE_EQ((*job.thread_categories)[static_cast<std::size_t>(category::blocking)].time_s, 1.0);
  b.thread_categories.reset();
  job = sidecore::make_job_profile({a, b});
  EXPECT_FALSE(job.thread_categories.has_value());
}

TEST(Profile, JobRoundTripAndMerge) {
  sidecore::profile job = sidecore::make_job_profile({full_rank(2), full_rank(0), full_rank(1)});
  ASSERT_EQ(job.kind, sidecore::profile_kind::job);
  ASSERT_EQ(job.ranks.size(), 3u);
  EXPECT_EQ(job.ranks[0].rank, 0);  // sorted
  EXPECT_DOUBLE_EQ(job.t_total_s, 14.5);  // max over ranks
  EXPECT_EQ(job[category::init].count, 12000u);  // summed
  EXPECT_DOUBLE_EQ(job[category::wait].min_s, 3e-6);
  EXPECT_EQ(job[category::test].count, 0u);
  ASSERT_TRUE(job.overlap);
  EXPECT_EQ(job.overlap->total.count, 12000u);
  EXPECT_EQ(job.overlap->by_size.size(), 2u);
  EXPECT_EQ(job.overlap->by_region.size(), 1u);
  EXPECT_DOUBLE_EQ(job.progress_thread->busy_s, 6.0);
  const std::string path = tmp_path("job.json");
  sidecore::write_profile_file(path, job);
  EXPECT_EQ(sidecore::read_profile_file(path), job);
  std::filesystem::remove(path);
  // Through nlohmann's ADL hooks too.
  nlohmann::json j = job;
  EXPECT_EQ(j.get<sidecore::profile>(), job);
  // The job has the host its ranks shared; ranks of two hosts keep theirs, the job has none.
  ASSERT_TRUE(job.host.has_value());
  EXPECT_EQ(job.host->cores, 64);
  sidecore::profile elsewhere = full_rank(1);
  elsewhere.host->id = "00000000000000bb";
  const sidecore::profile two = sidecore::make_job_profile({full_rank(0), elsewhere});
  EXPECT_FALSE(two.host.has_value());
  EXPECT_EQ(two.ranks[1].host->id, "00000000000000bb");
}

TEST(ProfileErrors, HostNamesItsIdAndCores) {
  auto j = valid_json();
  j["host"]["cores"] = 0;
  expect_rejected(j, {"host.cores", ">= 1 cores"});
  j = valid_json();
  j["host"]["id"] = "";
  expect_rejected(j, {"host.id", "''", "accepted: 16 hex digits"});
  j = valid_json();
  j["host"]["id"] = "zz";
  expect_rejected(j, {"host.id", "'zz'", "accepted: 16 hex digits"});
  j = valid_json();
  j["host"]["id"] = "00000000000000AA";
  expect_rejected(j, {"host.id", "'00000000000000AA'"});
  j = valid_json();
  j["host"] = 4;
  expect_rejected(j, {"host"});
  j = valid_json();
  j.erase("host");
  EXPECT_FALSE(sidecore::parse_profile(j.dump()).host.has_value());
}

TEST(Profile, OptionalSectionsMayBeAbsent) {
  auto j = valid_json();
  j.erase("overlap");
  j.erase("progress_thread");
  j.erase("command");
  const auto p = sidecore::parse_profile(j.dump());
  EXPECT_FALSE(p.overlap);
  EXPECT_FALSE(p.progress_thread);
}

TEST(Profile, SampleFilesRead) {
  for (const char* f : {"kripke_case1_off.json", "kripke_case2_off.json", "minimd_case3_off.json",
                        "minimd_case3_core.json", "btmz_off.json", "job_off.json", "job_core.json"})
    EXPECT_NO_THROW((void)sidecore::read_profile_file(model_data + "/" + f)) << f;
}

TEST(ProfileErrors, UnreadableFile) {
  try {
    (void)sidecore::read_profile_file("/nonexistent/dir/p.json");
    FAIL();
  } catch (const sidecore::input_error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/dir/p.json: cannot open profile"), std::string::npos)
        << e.what();
  }
}

TEST(ProfileErrors, MalformedJson) {
  try {
    (void)sidecore::read_profile_file(model_data + "/bad_malformed.json");
    FAIL();
  } catch (const sidecore::input_error& e) {
    const std::string w = e.what();
    EXPECT_NE(w.find("bad_malformed.json: malformed JSON"), std::string::npos) << w;
    EXPECT_NE(w.find("line 2"), std::string::npos) << w;  // nlohmann names the position
  }
}

TEST(ProfileErrors, SchemaAndVersion) {
  auto j = valid_json();
  j["schema_version"] = 2;
  expect_rejected(j, {"schema_version", "unknown schema version 2", "reads version 1"});
  j = valid_json();
  j["schema"] = "other";
  expect_rejected(j, {"schema", "unknown schema \"other\"", "\"sidecore-profile\""});
  j = valid_json();
  j.erase("schema_version");
  expect_rejected(j, {"schema_version", "missing"});
  expect_rejected(nlohmann::json::array(), {"expected an object"});
}

TEST(ProfileErrors, KindModeAndTypes) {
  auto j = valid_json();
  j["kind"] = "node";
  expect_rejected(j, {"kind", "\"node\"", "\"rank\", \"job\""});
  j = valid_json();
  j["mode"] = "thread";
  expect_rejected(j, {"mode", "\"thread\"", "\"off\", \"core\""});
  j = valid_json();
  j["t_comp_s"] = "fast";
  expect_rejected(j, {"t_comp_s", "expected a number of seconds", "string"});
  j = valid_json();
  j["rank"] = 3;
  expect_rejected(j, {"rank", "not below nranks 3"});
  j = valid_json();
  j["categories"]["persistent"] = {{"time_s", 0}, {"count", 0}, {"min_s", 0}};
  expect_rejected(j, {"categories.persistent", "blocking, init, test, wait, other"});
  j = valid_json();
  j["categories"].erase("wait");
  expect_rejected(j, {"categories.wait", "missing"});
}

TEST(ProfileErrors, NegativeAndInconsistentValues) {
  auto j = valid_json();
  j["categories"]["wait"]["time_s"] = -1.5;
  expect_rejected(j, {"categories.wait.time_s", "negative time", ">= 0"});
  j = valid_json();
  j["categories"]["init"]["count"] = -4;
  expect_rejected(j, {"categories.init.count", "negative count"});
  j = valid_json();
  j["categories"]["blocking"]["min_s"] = 2.0;
  expect_rejected(j, {"categories.blocking.min_s", "min_s <= time_s"});
  j = valid_json();
  j["categories"]["blocking"]["count"] = 0;  // its time was dropped from t_dedicated, silently
  expect_rejected(j, {"categories.blocking.time_s", "no calls (count 0)", "need 0 time without calls"});
  j = valid_json();
  j["overlap"]["total"]["max_s"] = 5.0;
  expect_rejected(j, {"overlap.total.max_s", "max_s <= xfer_time_s"});
  j = valid_json();
  j["overlap"]["by_size"][0]["lo_bytes"] = 4096;
  expect_rejected(j, {"overlap.by_size[0].hi_bytes", "lo_bytes <= hi_bytes"});
  j = valid_json();
  j["n_core"] = 0;
  expect_rejected(j, {"n_core", ">= 1"});
  // Above an int: the message says the upper end too (it said only ">= 1" of a value that is >= 1).
  j = valid_json();
  j["n_core"] = std::uint64_t{1099511627776};
  expect_rejected(j, {"n_core", "1099511627776", "at most 2147483647"});
  j["n_core"] = std::uint64_t{18446744073709551615U};  // beyond an int64 too: named as given, not wrapped to -1
  expect_rejected(j, {"n_core", "value 18446744073709551615 out of range"});
  // A number where an integer is expected: its value is named, not only its type.
  j = valid_json();
  j["categories"]["wait"]["count"] = 1e300;
  expect_rejected(j, {"categories.wait.count", "got number 1e+300"});
  j = valid_json();
  j["nranks"] = 2.5;
  expect_rejected(j, {"nranks", "got number 2.5"});
}

TEST(ProfileErrors, JobConsistency) {
  nlohmann::json j = sidecore::make_job_profile({full_rank(0), full_rank(1)});
  j["ranks"][1]["rank"] = 0;
  expect_rejected(j, {"ranks[1].rank", "appears twice"});
  j = sidecore::make_job_profile({full_rank(0), full_rank(1)});
  j["ranks"][1]["mode"] = "off";
  expect_rejected(j, {"ranks[1].mode", "differs from the job"});
  j = sidecore::make_job_profile({full_rank(0)});
  j["ranks"][0]["kind"] = "job";
  expect_rejected(j, {"ranks[0].kind", "cannot contain job profiles"});
  j = valid_json();
  j["ranks"] = nlohmann::json::array();
  expect_rejected(j, {"ranks", "only a profile of kind \"job\""});
  EXPECT_THROW((void)sidecore::make_job_profile({}), sidecore::input_error);
}

// Rank profiles carry their run's id (instrument::agree_run_id): profiles of different runs are never combined, by
// make_job_profile (study, report), by a job profile's reader, or by the model's inputs (predict: per mode).
TEST(ProfileErrors, ProfilesOfDifferentRunsAreNotCombined) {
  sidecore::profile a = full_rank(0), b = full_rank(1), c = full_rank(2);
  a.run = b.run = "00000000000000aa";
  c.run = "00000000000000bb";
  sidecore::profile job = sidecore::make_job_profile({a, b});
  EXPECT_EQ(job.run, "00000000000000aa");
  const std::string m = sctest::error_of([&] { (void)sidecore::make_job_profile({a, b, c}); });
  EXPECT_NE(m.find("ranks[2].run: run id \"00000000000000bb\" differs from ranks[0]'s \"00000000000000aa\": the "
                   "profiles come from different runs"), std::string::npos) << m;
  sidecore::profile none = full_rank(0);  // no id (mpiP, older writers): cannot be told apart, accepted
  EXPECT_NO_THROW((void)sidecore::make_job_profile({none, b}));
  EXPECT_NE(sctest::error_of([&] { (void)sidecore::make_job_profile({none, b, c}); }).find("differs from ranks[1]'s"),
            std::string::npos);
  sidecore::profile other_size = full_rank(1);
  other_size.nranks = 5;
  EXPECT_NE(sctest::error_of([&] { (void)sidecore::make_job_profile({a, other_size}); })
                .find("ranks[1].nranks: 5 differs from ranks[0]'s nranks"), std::string::npos);
  // Round trip, and a job profile whose rank says another run.
  const std::string path = tmp_path("run.json");
  sidecore::write_profile_file(path, job);
  EXPECT_EQ(sidecore::read_profile_file(path), job);
  std::filesystem::remove(path);
  nlohmann::json j = job;
  j["ranks"][1]["run"] = "00000000000000bb";
  expect_rejected(j, {"ranks[1].run", "differs from the job's"});
  j = valid_json();
  j["run"] = "";
  expect_rejected(j, {"run", "an empty run id"});
  // The model's inputs: the calibration profiles of two runs (same nranks) are refused.
  const std::string m2 = sctest::error_of([&] { (void)sm::make_job_input({a, b, c}, {"a.json", "b.json", "c.json"}); });
  EXPECT_NE(m2.find("c.json: rank 2: run: run id \"00000000000000bb\" differs from \"00000000000000aa\" of rank 0 in "
                    "a.json"), std::string::npos) << m2;
}

TEST(ProfileErrors, ModelInputChecks) {
  // N_core <= 1 is valid in a profile but not for the model: the error names file, rank and field.
  try {
    (void)sm::load_profiles({model_data + "/bad_ncore.json"});
    FAIL();
  } catch (const sidecore::input_error& e) {
    const std::string w = e.what();
    EXPECT_NE(w.find("bad_ncore.json"), std::string::npos) << w;
    EXPECT_NE(w.find("N_core (n_core)"), std::string::npos) << w;
    EXPECT_NE(w.find("N_core >= 2"), std::string::npos) << w;
  }
  // Only core-mode profiles: no calibration.
  try {
    (void)sm::load_profiles({model_data + "/minimd_case3_core.json"});
    FAIL();
  } catch (const sidecore::input_error& e) {
    EXPECT_NE(std::string(e.what()).find("SIDECORE_PROGRESS=off"), std::string::npos) << e.what();
  }
  // The same rank twice in one mode.
  try {
    (void)sm::load_profiles({model_data + "/kripke_case1_off.json", model_data + "/kripke_case2_off.json"});
    FAIL();
  } catch (const sidecore::input_error& e) {
    EXPECT_NE(std::string(e.what()).find("give each rank once per mode"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)sm::load_profiles({model_data + "/kripke_case1_off.json"}, 1), sidecore::input_error);
  // A run of SIDECORE_PROGRESS=auto that switched to core measured neither mode: refused, in whichever mode it ended.
  // One that never switched is a run in mode off throughout: a calibration run like any other.
  sidecore::profile p = sidecore::read_profile_file(model_data + "/kripke_case1_off.json");
  sidecore::auto_decision d;
  d.trigger = "steps";
  d.verdict = "off";
  p.auto_mode = sidecore::auto_section{{d}};
  EXPECT_NO_THROW((void)sm::make_job_input({p}, {"auto.json"}));
  d.verdict = "core";
  d.switch_s = 1.5;
  p.auto_mode = sidecore::auto_section{{d}};
  const std::string m = sctest::error_of([&] { (void)sm::make_job_input({p}, {"auto.json"}); });
  EXPECT_NE(m.find("auto.json: rank 0: auto: the run switched to mode core at 1.5 s (SIDECORE_PROGRESS=auto)"),
            std::string::npos) << m;
  EXPECT_NE(m.find("SIDECORE_PROGRESS=off"), std::string::npos) << m;
}
