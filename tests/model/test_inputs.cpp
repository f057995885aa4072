// Inputs of the `sidecore` command that no reader may trust (issue 17): special files, sizes, overflowing,
// non-finite, negative and mutually impossible values. Every case is an input_error naming the file and the field.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include <nlohmann/json.hpp>

#include "sidecore/common/input_error.hpp"
#include "sidecore/common/input_file.hpp"
#include "sidecore/common/json_input.hpp"
#include "sidecore/common/profile.hpp"
#include "sidecore/model/mpip.hpp"
#include "sidecore/model/scaling.hpp"
#include "model_test_util.hpp"

namespace sm = sidecore::model;

namespace {

using sctest::model_data;

using sctest::error_of;

// A scratch directory with a FIFO in it, removed at the end.
class SpecialFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("sidecore_inputs_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    fifo_ = (dir_ / "fifo").string();
    ASSERT_EQ(::mkfifo(fifo_.c_str(), 0600), 0);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path dir_;
  std::string fifo_;
};

// Each reader on each special file: refused at once (a FIFO without a writer would block forever, /dev/zero
// would be read forever), naming the path, what it is and what is accepted.
TEST_F(SpecialFiles, EveryReaderRefusesThem) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {fifo_, "a FIFO (named pipe)"}, {"/dev/zero", "a character device"}, {dir_.string(), "a directory"}};
  for (const auto& [path, kind] : cases) {
    for (const std::string& m :
         {error_of([&] { (void)sidecore::read_profile_file(path); }),
          error_of([&] { (void)sm::read_mpip_file(path); }),
          error_of([&] { (void)sm::scaling_model::read_table_file(path); })}) {
      EXPECT_NE(m.find(path + ": cannot read"), std::string::npos) << m;
      EXPECT_NE(m.find(kind), std::string::npos) << m;
      EXPECT_NE(m.find("accepted: a regular file of at most"), std::string::npos) << m;
    }
  }
}

TEST_F(SpecialFiles, SizeLimit) {
  const std::string path = (dir_ / "big.txt").string();
  std::ofstream(path) << std::string(5000, 'x');
  EXPECT_EQ(sidecore::read_input_file(path, 5000, "test file").size(), 5000u);
  const std::string m = error_of([&] { (void)sidecore::read_input_file(path, 4999, "test file"); });
  EXPECT_NE(m.find(path + ": test file too large (5000 bytes); accepted: a regular file of at most 4999 bytes"),
            std::string::npos)
      << m;
  EXPECT_NE(error_of([&] { (void)sidecore::read_input_file((dir_ / "none").string(), 10, "test file"); })
                .find("cannot open test file: No such file"),
            std::string::npos);
}

nlohmann::json kripke() {
  std::ifstream in(model_data + "/kripke_case1_off.json");
  return nlohmann::json::parse(in);
}

// parse_profile on the text of j, expecting an error naming case.json, the field, and each fragment.
void expect_rejected(const std::string& text, const std::string& field, std::initializer_list<const char*> fragments) {
  const std::string m = error_of([&] { (void)sidecore::parse_profile(text, "case.json"); });
  EXPECT_NE(m.find("case.json: " + field + ":"), std::string::npos) << m;
  for (const char* f : fragments) EXPECT_NE(m.find(f), std::string::npos) << "missing \"" << f << "\" in: " << m;
}
void expect_rejected(const nlohmann::json& j, const std::string& field, std::initializer_list<const char*> fragments) {
  expect_rejected(j.dump(), field, fragments);
}

}  // namespace

TEST(ProfileValues, OverflowingNumberNamesFileAndField) {
  // nlohmann refuses 1e400 while parsing (out_of_range 406); the reader still names the file and the JSON path.
  std::string text = kripke().dump();
  const std::string key = "\"t_total_s\":147.0";
  ASSERT_NE(text.find(key), std::string::npos);
  text.replace(text.find(key), key.size(), "\"t_total_s\":1e400");
  expect_rejected(text, "t_total_s", {"1e400", "not a finite number"});
  text = kripke().dump();
  const std::string wait = "\"wait\":{\"count\":10000";
  ASSERT_NE(text.find(wait), std::string::npos) << text;
  text.replace(text.find(wait), wait.size(), "\"wait\":{\"count\":-1e999");
  expect_rejected(text, "categories.wait.count", {"-1e999"});
}

TEST(ProfileValues, HugeTimesAndCounts) {
  auto j = kripke();
  j["t_total_s"] = 1e308;
  expect_rejected(j, "t_total_s", {"1e+308 s", "at most 1e+09 s"});
  j = kripke();
  j["categories"]["test"]["count"] = std::numeric_limits<std::uint64_t>::max();
  expect_rejected(j, "categories.test.count", {"18446744073709551615", "at most 9007199254740992"});
  j = kripke();
  j["categories"]["test"]["count"] = 18446744073709551616.0;  // 2^64: read as a float
  expect_rejected(j, "categories.test.count", {"expected a non-negative integer"});
  // The unbounded last size bin's 2^64-1 stays accepted (hi_bytes is a size, not a count).
  j = kripke();
  j["overlap"] = {{"xfer_time_source", "measured"},
                  {"total", {{"min_s", 1.0}, {"max_s", 2.0}, {"xfer_time_s", 3.0}, {"count", 10}}},
                  {"by_size",
                   {{{"lo_bytes", 0}, {"hi_bytes", std::numeric_limits<std::uint64_t>::max()}, {"min_s", 1.0},
                     {"max_s", 2.0}, {"xfer_time_s", 3.0}, {"count", 10}}}}};
  EXPECT_NO_THROW((void)sidecore::parse_profile(j.dump(), "case.json"));
}

TEST(ProfileValues, MutuallyImpossible) {
  auto j = kripke();
  j["categories"]["blocking"]["min_s"] = 0.001;  // 20000 calls of at least 1 ms: 20 s, above the 11.7 s measured
  expect_rejected(j, "categories.blocking", {"20000 calls", "min_s", "time_s 11.7 s"});
  j = kripke();
  j["t_comp_s"] = 150.0;
  expect_rejected(j, "t_comp_s", {"150 s", "above t_total_s 147 s"});
  j = kripke();
  j["categories"]["test"]["time_s"] = 450.0;  // single thread: 11.7 + 12 + 450 + 4.7 > 147
  expect_rejected(j, "categories", {"478.4 s", "t_total_s 147 s", "1 calling thread"});
  j["calling_threads"] = 4;  // 4 threads: up to 588 s
  EXPECT_NO_THROW((void)sidecore::parse_profile(j.dump(), "case.json"));
  j["calling_threads"] = 3;
  expect_rejected(j, "categories", {"3 calling threads", "441 s"});
  // The communicating thread's own calls never exceed the run time.
  j = kripke();
  j["calling_threads"] = 8;
  j["communicating_thread"]["categories"] = j["categories"];
  j["communicating_thread"]["categories"]["wait"]["time_s"] = 100.0;
  expect_rejected(j, "communicating_thread.categories", {"168.7 s", "t_total_s 147 s"});
}

TEST(ProfileValues, JobTotalsBoundedByTheirRanks) {
  // A job's categories are summed over ranks: 2 ranks may hold twice the run time between them.
  std::ifstream in(model_data + "/job_off.json");
  auto j = nlohmann::json::parse(in);
  EXPECT_NO_THROW((void)sidecore::parse_profile(j.dump(), "job.json"));
  j["ranks"][1]["t_comp_s"] = 1e6;
  expect_rejected(j, "ranks[1].t_comp_s", {"above t_total_s"});
}

TEST(MpipValues, HugeAndImpossible) {
  std::ifstream in(model_data + "/kripke_mpip35.mpiP");
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string good = ss.str();
  auto replaced = [&](const std::string& from, const std::string& to) {
    std::string t = good;
    const auto at = t.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos) t.replace(at, from.size(), to);
    return t;
  };
  auto error_in = [](const std::string& text) {
    std::istringstream s(text);
    return error_of([&] { (void)sm::parse_mpip(s, "r.mpiP"); });
  };
  EXPECT_NE(error_in(replaced("150       36.2", "1e400       36.2")).find("is not a number"), std::string::npos);
  EXPECT_NE(error_in(replaced("150       36.2", "1e308       36.2")).find("at most 1e+09 s"), std::string::npos);
  // Count near 2^64.
  const std::string m = error_in(replaced("0 240000     0.31", "0 18446744073709551615     0.31"));
  EXPECT_NE(m.find("Count"), std::string::npos) << m;
}

// A key named twice in one object: nlohmann keeps the second value silently, so one of the two would be dropped
// without a word. Every JSON input (profile, trace, LogGP parameters, study record) reads through parse_json_input.
TEST(ProfileValues, AKeyNamedTwiceIsRefusedWithItsPath) {
  std::string m = error_of([] {
    (void)sidecore::parse_json_input(R"({"a": 1, "ranks": [{"x": 1}, {"cat": {"count": 3, "count": 4}}]})", "k.json");
  });
  EXPECT_NE(
      m.find("k.json: ranks[1].cat.count: the key \"count\" appears twice in its object; accepted: each key once"),
      std::string::npos)
      << m;
  m = error_of([] { (void)sidecore::parse_json_input(R"({"schema": "a", "schema": "b"})", "top.json"); });
  EXPECT_NE(m.find("top.json: schema: the key \"schema\" appears twice"), std::string::npos) << m;
  // The same key in two objects is no duplicate.
  EXPECT_NO_THROW((void)sidecore::parse_json_input(R"([{"count": 1}, {"count": 2, "n": {"count": 3}}])", "ok.json"));
  // Through a reader: a profile with a category's count twice.
  std::ifstream in(sctest::model_data + "/kripke_case1_off.json");
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string profile = ss.str();
  const auto at = profile.find("\"count\"");
  ASSERT_NE(at, std::string::npos);
  std::string twice = profile;
  twice.insert(at, "\"count\": 1, ");
  m = error_of([&] { (void)sidecore::parse_profile(twice, "p.json"); });
  EXPECT_NE(m.find("appears twice in its object"), std::string::npos) << m.substr(0, 300);
}

// Found by fuzz/fuzz_profile: a deeply nested value where a number was expected overflowed the stack while the
// error message quoted it (nlohmann's dump() recurses), and the path of a deep parse error grew without bound.
TEST(ProfileValues, DeepNestingIsAnErrorNotACrash) {
  const std::string deep = std::string(400000, '[') + std::string(400000, ']');
  std::string m = error_of([&] {
    (void)sidecore::parse_profile("{\"schema\": \"sidecore-profile\", \"schema_version\": " + deep + "}", "d.json");
  });
  EXPECT_NE(m.find("d.json: schema_version: unknown schema version (array)"), std::string::npos) << m.substr(0, 200);
  m = error_of([&] { (void)sidecore::parse_profile("{\"ranks\": " + std::string(400000, '['), "d.json"); });
  EXPECT_NE(m.find("d.json: malformed JSON (in ranks[0][0]"), std::string::npos) << m.substr(0, 200);
  EXPECT_NE(m.find("levels)"), std::string::npos) << m.substr(0, 200);
  EXPECT_LT(m.size(), 1000u);
}
