// The settings table (runtime/src/settings.cpp, compiled into this test): every SIDECORE_* variable has a
// default that its printer reproduces, accepts its documented values, and rejects junk with a message naming
// the variable, the bad value and what is accepted.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <sidecore/sidecore.hpp>

#include "settings.hpp"

namespace {

namespace d = sidecore::detail;
using sidecore::errc;
using ::testing::HasSubstr;

const d::setting_def* find(const std::string& name) {
  for (const auto& s : d::setting_table())
    if (name == s.name) return &s;
  return nullptr;
}

// Parses into a fresh settings value and returns it; fails the test on a throw.
d::settings parsed(const std::string& name, const std::string& value) {
  d::settings s;
  try {
    d::parse_setting(s, name, value);
  } catch (const sidecore::error& e) {
    ADD_FAILURE() << name << "='" << value << "' rejected: " << e.what();
  }
  return s;
}

// Expects a rejection; returns the message.
std::string rejected(const std::string& name, const std::string& value) {
  d::settings s;
  try {
    d::parse_setting(s, name, value);
  } catch (const sidecore::error& e) {
    EXPECT_EQ(e.code(), errc::bad_setting) << name << "='" << value << "'";
    return e.what();
  }
  ADD_FAILURE() << name << "='" << value << "' was accepted";
  return {};
}

// The message names the variable, quotes the value, and says what is accepted.
void expect_clear_rejection(const std::string& name, const std::string& value,
                            std::initializer_list<const char*> accepted_parts) {
  const std::string m = rejected(name, value);
  EXPECT_THAT(m, HasSubstr(name)) << "the message must name the variable";
  EXPECT_THAT(m, HasSubstr("'" + value + "'")) << "the message must quote the bad value";
  EXPECT_THAT(m, HasSubstr("accepted")) << "the message must say what is accepted";
  for (const char* p : accepted_parts) EXPECT_THAT(m, HasSubstr(p)) << name << "='" << value << "'";
}

const std::vector<std::string> all_names = {"SIDECORE_PROGRESS",
                                            "SIDECORE_PROGRESS_CORE",
                                            "SIDECORE_IDLE",
                                            "SIDECORE_SPIN_US",
                                            "SIDECORE_YIELD_US",
                                            "SIDECORE_BLOCK_US",
                                            "SIDECORE_PEER_TIMEOUT",
                                            "SIDECORE_CALLER_PROGRESS",
                                            "SIDECORE_SELF_PATH",
                                            "SIDECORE_SHM_FASTPATH",
                                            "SIDECORE_PROVIDER",
                                            "SIDECORE_SUBMIT_QUEUE",
                                            "SIDECORE_CQ_BATCH",
                                            "SIDECORE_EAGER_MAX",
                                            "SIDECORE_RECV_BUFFERS",
                                            "SIDECORE_SEND_CREDITS",
                                            "SIDECORE_EAGER_CREDITS",
                                            "SIDECORE_MAX_REQUESTS",
                                            "SIDECORE_MEMORY_BUDGET",
                                            "SIDECORE_VERBOSE",
                                            "SIDECORE_PROFILE",
                                            "SIDECORE_TRACE",
                                            "SIDECORE_TRACE_MAX_EVENTS",
                                            "SIDECORE_SIZE_BINS",
                                            "SIDECORE_XFER_TABLE",
                                            "SIDECORE_RING_EVENTS",
                                            "SIDECORE_COLL_SAMPLES",
                                            "SIDECORE_NCORE",
                                            "SIDECORE_AUTO_STEPS",
                                            "SIDECORE_AUTO_WINDOW",
                                            "SIDECORE_AUTO_RECHECK",
                                            "SIDECORE_AUTO_FORCE",
                                            "SIDECORE_COLL_BARRIER",
                                            "SIDECORE_COLL_BCAST",
                                            "SIDECORE_COLL_REDUCE",
                                            "SIDECORE_COLL_ALLREDUCE",
                                            "SIDECORE_COLL_GATHER",
                                            "SIDECORE_COLL_SCATTER",
                                            "SIDECORE_COLL_ALLGATHER",
                                            "SIDECORE_COLL_ALLTOALL",
                                            "SIDECORE_COLL_REDUCE_SCATTER_BLOCK",
                                            "SIDECORE_COLL_ALLGATHERV",
                                            "SIDECORE_COLL_ALLTOALLV",
                                            "SIDECORE_COLL_SEGMENT",
                                            "SIDECORE_COLL_CACHE"};

TEST(SettingsTable, EveryVariableIsDeclaredOnceWithHelpAndAccepted) {
  std::set<std::string> seen;
  for (const auto& s : d::setting_table()) {
    EXPECT_TRUE(seen.insert(s.name).second) << s.name << " declared twice";
    EXPECT_EQ(std::string(s.name).rfind("SIDECORE_", 0), 0u) << s.name;
    EXPECT_GT(std::string(s.help).size(), 10u) << s.name << " has no help text";
    EXPECT_GT(std::string(s.accepted).size(), 0u) << s.name;
    EXPECT_GT(std::string(s.default_text).size(), 0u) << s.name;
    EXPECT_TRUE(s.parse) << s.name;
    EXPECT_TRUE(s.print) << s.name;
  }
  for (const auto& n : all_names) EXPECT_EQ(seen.count(n), 1u) << n << " missing from the table";
  EXPECT_EQ(seen.size(), all_names.size()) << "a variable this test does not know: add its cases";
}

// The default text printed by `sidecore info` is what the printer gives for a default settings value.
TEST(SettingsTable, DefaultTextMatchesThePrintedDefault) {
  const d::settings def;
  for (const auto& s : d::setting_table()) EXPECT_EQ(s.print(def), s.default_text) << s.name;
}

TEST(SettingsTable, DefaultValues) {
  const d::settings def;
  EXPECT_EQ(def.mode, d::progress_mode::off);
  EXPECT_EQ(def.progress_core.which, d::core_choice::kind::last);
  EXPECT_EQ(def.idle, sidecore::progress::idle_policy::hybrid);
  EXPECT_EQ(def.spin_us, 5000u);
  EXPECT_EQ(def.yield_us, 2u);
  EXPECT_EQ(def.block_us, 1000u);
  EXPECT_EQ(def.peer_timeout_s, 0.0);
  EXPECT_TRUE(def.provider.empty());
  EXPECT_EQ(def.submit_queue, 4096u);
  EXPECT_EQ(def.cq_batch, 16u);
  EXPECT_EQ(def.verbose, 0);
  EXPECT_TRUE(def.profile_path.empty());
  EXPECT_TRUE(def.trace_path.empty());
  EXPECT_EQ(def.trace_max_events, 1000000u);
  EXPECT_TRUE(def.size_bins.empty());
  EXPECT_TRUE(def.xfer_table.empty());
  EXPECT_EQ(def.ring_events, 1024u);
  EXPECT_EQ(def.n_core, 0);  // the cpuset's cores
}

// Valid values parse, and print back to a value that parses to the same thing (round trip).
TEST(SettingsTable, ValidValuesParseAndRoundTrip) {
  const std::map<std::string, std::vector<std::string>> valid = {
      {"SIDECORE_PROGRESS", {"off", "core", " core "}},
      {"SIDECORE_PROGRESS_CORE", {"last", "first", "0", "1", "15"}},
      {"SIDECORE_IDLE", {"spin", "block", "hybrid"}},
      {"SIDECORE_SPIN_US", {"0", "20", "10000000"}},
      {"SIDECORE_YIELD_US", {"0", "2", "10000000"}},
      {"SIDECORE_BLOCK_US", {"10", "100", "1000000"}},
      {"SIDECORE_PEER_TIMEOUT", {"0", "0.1", "0.5", "30", "1000000"}},
      {"SIDECORE_PROVIDER", {"shm", "tcp;ofi_rxm", "verbs;ofi_rxm", "efa"}},
      {"SIDECORE_SUBMIT_QUEUE", {"2", "1024", "4096", "1048576"}},
      {"SIDECORE_CQ_BATCH", {"1", "16", "64"}},
      {"SIDECORE_EAGER_MAX", {"0", "8192", "65536"}},
      {"SIDECORE_RECV_BUFFERS", {"2", "64", "4096"}},
      {"SIDECORE_SEND_CREDITS", {"2", "64", "65536"}},
      {"SIDECORE_EAGER_CREDITS", {"0", "16", "65536"}},
      {"SIDECORE_MAX_REQUESTS", {"1024", "65536", "4194304"}},
      {"SIDECORE_MEMORY_BUDGET", {"1", "1024", "1048576"}},
      {"SIDECORE_CALLER_PROGRESS", {"on", "off", " off "}},
      {"SIDECORE_SELF_PATH", {"on", "off"}},
      {"SIDECORE_SHM_FASTPATH", {"on", "off"}},
      {"SIDECORE_VERBOSE", {"0", "1", "2"}},
      {"SIDECORE_PROFILE", {"/tmp/p-%r.json", "prof.json"}},
      {"SIDECORE_TRACE", {"/tmp/t-%r.json"}},
      {"SIDECORE_TRACE_MAX_EVENTS", {"1", "1000000000"}},
      {"SIDECORE_SIZE_BINS", {"0", "0,1024,65536,1048576", "5,6"}},
      {"SIDECORE_XFER_TABLE", {"/tmp/xfer.json"}},
      {"SIDECORE_RING_EVENTS", {"16", "4096", "16777216"}},
      {"SIDECORE_COLL_SAMPLES", {"16", "1024", "65536"}},
      {"SIDECORE_NCORE", {"1", "2", "64", "1048576"}},
      {"SIDECORE_AUTO_STEPS", {"1", "10", "1000000"}},
      {"SIDECORE_AUTO_WINDOW", {"0.001", "2.5", "10", "1e6"}},
      {"SIDECORE_AUTO_RECHECK", {"off", "30s", "0.5s", "100steps", "1step", " 20 steps "}},
      {"SIDECORE_AUTO_FORCE", {"core", "off"}},
      {"SIDECORE_COLL_BARRIER", {"auto", "dissemination"}},
      {"SIDECORE_COLL_BCAST", {"auto"}},
      {"SIDECORE_COLL_REDUCE", {"auto"}},
      {"SIDECORE_COLL_ALLREDUCE", {"auto", "ring", "rabenseifner", "recursive_doubling"}},
      {"SIDECORE_COLL_GATHER", {"auto"}},
      {"SIDECORE_COLL_SCATTER", {"auto"}},
      {"SIDECORE_COLL_ALLGATHER", {"auto"}},
      {"SIDECORE_COLL_ALLTOALL", {"auto", "bruck"}},
      {"SIDECORE_COLL_REDUCE_SCATTER_BLOCK", {"auto"}},
      {"SIDECORE_COLL_ALLGATHERV", {"auto"}},
      {"SIDECORE_COLL_ALLTOALLV", {"auto"}},
      {"SIDECORE_COLL_SEGMENT", {"1024", "131072", "67108864"}},
      {"SIDECORE_COLL_CACHE", {"0", "16", "4096"}},
  };
  EXPECT_EQ(valid.size(), all_names.size());
  for (const auto& [name, values] : valid) {
    const d::setting_def* def = find(name);
    ASSERT_NE(def, nullptr) << name;
    for (const auto& v : values) {
      const d::settings s = parsed(name, v);
      const std::string printed = def->print(s);
      const d::settings again = parsed(name, printed);
      EXPECT_EQ(def->print(again), printed) << name << "='" << v << "' does not round-trip";
    }
  }
}

TEST(SettingsTable, ValidValuesGiveTheRightFields) {
  EXPECT_EQ(parsed("SIDECORE_PROGRESS", "core").mode, d::progress_mode::core);
  EXPECT_EQ(parsed("SIDECORE_PROGRESS", "auto").mode, d::progress_mode::automatic);
  EXPECT_EQ(parsed("SIDECORE_AUTO_STEPS", "7").auto_steps, 7u);
  EXPECT_DOUBLE_EQ(parsed("SIDECORE_AUTO_WINDOW", "2.5").auto_window_s, 2.5);
  EXPECT_EQ(parsed("SIDECORE_AUTO_RECHECK", "30s").auto_recheck_every.per, d::auto_recheck::unit::seconds);
  EXPECT_DOUBLE_EQ(parsed("SIDECORE_AUTO_RECHECK", "30s").auto_recheck_every.every, 30.0);
  EXPECT_EQ(parsed("SIDECORE_AUTO_RECHECK", "100steps").auto_recheck_every.per, d::auto_recheck::unit::steps);
  EXPECT_DOUBLE_EQ(parsed("SIDECORE_AUTO_RECHECK", "100steps").auto_recheck_every.every, 100.0);
  EXPECT_EQ(parsed("SIDECORE_AUTO_RECHECK", "off").auto_recheck_every.per, d::auto_recheck::unit::none);
  EXPECT_EQ(parsed("SIDECORE_AUTO_FORCE", "core").auto_forced, d::auto_force::core);
  EXPECT_EQ(parsed("SIDECORE_PROGRESS", "off").mode, d::progress_mode::off);
  EXPECT_EQ(parsed("SIDECORE_PROGRESS_CORE", "first").progress_core.which, d::core_choice::kind::first);
  const d::settings idx = parsed("SIDECORE_PROGRESS_CORE", "3");
  EXPECT_EQ(idx.progress_core.which, d::core_choice::kind::index);
  EXPECT_EQ(idx.progress_core.index, 3);
  EXPECT_EQ(parsed("SIDECORE_IDLE", "spin").idle, sidecore::progress::idle_policy::spin);
  EXPECT_EQ(parsed("SIDECORE_IDLE", "block").idle, sidecore::progress::idle_policy::block);
  EXPECT_FALSE(parsed("SIDECORE_CALLER_PROGRESS", "off").caller_progress);
  EXPECT_TRUE(parsed("SIDECORE_CALLER_PROGRESS", "on").caller_progress);
  EXPECT_EQ(parsed("SIDECORE_SPIN_US", "20").spin_us, 20u);
  EXPECT_EQ(parsed("SIDECORE_BLOCK_US", "100").block_us, 100u);
  EXPECT_EQ(parsed("SIDECORE_PEER_TIMEOUT", "30").peer_timeout_s, 30.0);
  EXPECT_EQ(parsed("SIDECORE_PEER_TIMEOUT", "0").peer_timeout_s, 0.0);
  EXPECT_EQ(parsed("SIDECORE_PROVIDER", "tcp;ofi_rxm").provider, "tcp;ofi_rxm");
  // "off" is no output, as in libsidecore-pmpi.so (a file of that name: ./off).
  EXPECT_EQ(parsed("SIDECORE_PROFILE", "off").profile_path, "");
  EXPECT_EQ(parsed("SIDECORE_TRACE", " off ").trace_path, "");
  EXPECT_EQ(parsed("SIDECORE_TRACE", "./off").trace_path, "./off");
  EXPECT_EQ(parsed("SIDECORE_SUBMIT_QUEUE", "1024").submit_queue, 1024u);
  EXPECT_EQ(parsed("SIDECORE_CQ_BATCH", "64").cq_batch, 64u);
  EXPECT_EQ(parsed("SIDECORE_EAGER_MAX", "0").eager_max, 0u);
  EXPECT_EQ(parsed("SIDECORE_RECV_BUFFERS", "128").recv_buffers, 128u);
  EXPECT_EQ(parsed("SIDECORE_SEND_CREDITS", "256").send_credits, 256u);
  EXPECT_EQ(parsed("SIDECORE_EAGER_CREDITS", "0").eager_credits, 0u);
  EXPECT_EQ(parsed("SIDECORE_MEMORY_BUDGET", "4096").memory_budget_mib, 4096u);
  EXPECT_EQ(parsed("SIDECORE_VERBOSE", "2").verbose, 2);
  EXPECT_EQ(parsed("SIDECORE_PROFILE", "p.json").profile_path, "p.json");
  EXPECT_EQ(parsed("SIDECORE_TRACE", "t.json").trace_path, "t.json");
  EXPECT_EQ(parsed("SIDECORE_TRACE_MAX_EVENTS", "5").trace_max_events, 5u);
  EXPECT_EQ(parsed("SIDECORE_SIZE_BINS", "0,1024,65536").size_bins, (std::vector<std::size_t>{0, 1024, 65536}));
  EXPECT_EQ(parsed("SIDECORE_XFER_TABLE", "x.json").xfer_table, "x.json");
  EXPECT_EQ(parsed("SIDECORE_RING_EVENTS", "64").ring_events, 64u);
  EXPECT_EQ(parsed("SIDECORE_NCORE", "16").n_core, 16);
  EXPECT_EQ(parsed("SIDECORE_COLL_ALLREDUCE", "ring")
                .coll_algorithm[static_cast<std::size_t>(sidecore::coll::kind::allreduce)],
            sidecore::coll::algorithm::ring);
  EXPECT_EQ(parsed("SIDECORE_COLL_SEGMENT", "4096").coll_segment, 4096u);
  EXPECT_EQ(parsed("SIDECORE_COLL_CACHE", "0").coll_cache, 0u);
}

// SIDECORE_COLL_<KIND> names the algorithms of that kind only.
TEST(SettingsTable, CollectiveAlgorithmSettingsListTheirKindsAlgorithms) {
  expect_clear_rejection("SIDECORE_COLL_ALLREDUCE", "bruck", {"auto", "recursive_doubling", "ring", "rabenseifner"});
  expect_clear_rejection("SIDECORE_COLL_ALLTOALL", "ring", {"auto", "bruck"});
}

// The cases of the issue, with the accepted values each message must give.
TEST(SettingsTable, RejectsTheIssuesExamples) {
  expect_clear_rejection("SIDECORE_PROGRESS", "fast", {"off, core"});
  expect_clear_rejection("SIDECORE_SPIN_US", "12abc", {"0..10000000"});
  expect_clear_rejection("SIDECORE_SPIN_US", "-1", {"0..10000000"});
  expect_clear_rejection("SIDECORE_SUBMIT_QUEUE", "1000", {"power of two", "1048576"});
  expect_clear_rejection("SIDECORE_SIZE_BINS", "4,2", {"strictly increasing"});
}

// SIDECORE_PROGRESS_CORE=x: the message must list what the variable accepts (last, first, or an index), not
// only the integer range of the index part.
// A step window decides at the same step() on every rank; a time window or a re-check in seconds does not: the
// combinations that would let one rank block at a step() while another decided by time are refused.
TEST(SettingsTable, AutoWindowCombinationsThatCannotAgreeAreRefused) {
  d::settings both;
  d::parse_setting(both, "SIDECORE_AUTO_STEPS", "5");
  d::parse_setting(both, "SIDECORE_AUTO_RECHECK", "30s");
  try {
    d::check_auto_settings(both);
    ADD_FAILURE() << "a re-check in seconds with a step window was accepted";
  } catch (const sidecore::error& e) {
    EXPECT_EQ(e.code(), errc::bad_setting);
    EXPECT_THAT(e.what(), HasSubstr("SIDECORE_AUTO_RECHECK='30s'"));
    EXPECT_THAT(e.what(), HasSubstr("accepted: a period in steps"));
  }
  d::settings steps;
  d::parse_setting(steps, "SIDECORE_AUTO_STEPS", "5");
  d::parse_setting(steps, "SIDECORE_AUTO_RECHECK", "10steps");
  EXPECT_NO_THROW(d::check_auto_settings(steps));
  expect_clear_rejection("SIDECORE_AUTO_RECHECK", "30m", {"30s", "100steps"});
  expect_clear_rejection("SIDECORE_PROGRESS", "automatic", {"off, core, auto"});
}

TEST(SettingsTable, RejectsJunkProgressCoreListingLastAndFirst) {
  expect_clear_rejection("SIDECORE_PROGRESS_CORE", "x", {"last", "first"});
  expect_clear_rejection("SIDECORE_PROGRESS_CORE", "-1", {"last", "first"});
  expect_clear_rejection("SIDECORE_PROGRESS_CORE", "", {"last", "first"});
}

// Every refusal of SIDECORE_PEER_TIMEOUT says the one range it accepts: 0, or 0.1 s and more. Values out of the
// generic number's range said "0..1e+06", which suggests that 0.05 passes (it does not).
TEST(SettingsTable, PeerTimeoutRefusalsSayItsRange) {
  for (const char* v : {"-1", "1000001", "ten", "0.05", "nan"})
    expect_clear_rejection("SIDECORE_PEER_TIMEOUT", v, {"0 (off), or a number of seconds 0.1..1000000"});
}

TEST(SettingsTable, RejectsJunkForEveryVariable) {
  const std::map<std::string, std::vector<std::string>> junk = {
      {"SIDECORE_PROGRESS", {"fast", "", "Core", "off,core", "1"}},
      {"SIDECORE_PROGRESS_CORE", {"lastt", "1.5", "0x1", "99999999999"}},
      {"SIDECORE_IDLE", {"sleep", "", "Spin"}},
      {"SIDECORE_SPIN_US", {"", "abc", "1e3", "+5", "10000001", "99999999999999999999999", "0x10", "5 5"}},
      {"SIDECORE_YIELD_US", {"", "-1", "10000001", "2us"}},
      {"SIDECORE_BLOCK_US", {"9", "0", "1000001", "ten"}},
      {"SIDECORE_PEER_TIMEOUT", {"-1", "1000001", "ten", "5s", "nan", "1e-9", "0.09", "-0"}},
      {"SIDECORE_PROVIDER", {"", "   ", "shm,tcp", "shm tcp"}},
      {"SIDECORE_SUBMIT_QUEUE", {"0", "1", "3", "4097", "2097152", "big"}},
      {"SIDECORE_CQ_BATCH", {"0", "65", "-3"}},
      {"SIDECORE_EAGER_MAX", {"65537", "-1", "8k", ""}},
      {"SIDECORE_RECV_BUFFERS", {"0", "1", "4097", "many"}},
      {"SIDECORE_SEND_CREDITS", {"0", "1", "65537", "-2", "lots"}},
      {"SIDECORE_EAGER_CREDITS", {"-1", "65537", "16k", ""}},
      {"SIDECORE_MAX_REQUESTS", {"0", "1023", "1025", "4195328", "1k", ""}},
      {"SIDECORE_MEMORY_BUDGET", {"0", "1048577", "1G", ""}},
      {"SIDECORE_CALLER_PROGRESS", {"", "yes", "1", "ON"}},
      {"SIDECORE_SELF_PATH", {"", "provider", "0"}},
      {"SIDECORE_SHM_FASTPATH", {"", "rings", "1"}},
      {"SIDECORE_VERBOSE", {"3", "yes", "-1"}},
      {"SIDECORE_PROFILE", {"", "  "}},
      {"SIDECORE_TRACE", {""}},
      {"SIDECORE_TRACE_MAX_EVENTS", {"0", "1000000001", "many"}},
      {"SIDECORE_SIZE_BINS", {"", "4,2", "1,1", "1,,2", "1,", ",1", "a,b", "-1,2", "1;2"}},
      {"SIDECORE_XFER_TABLE", {""}},
      {"SIDECORE_RING_EVENTS", {"8", "100", "33554432", "x"}},
      {"SIDECORE_COLL_SAMPLES", {"8", "1000", "131072", "x", ""}},
      {"SIDECORE_NCORE", {"0", "-2", "1048577", "4cores", "", "99999999999999999999999"}},
      {"SIDECORE_AUTO_STEPS", {"0", "", "-1", "1000001", "10steps"}},
      {"SIDECORE_AUTO_WINDOW", {"", "0", "-1", "1e7", "nan", "inf", "10s", "0x10"}},
      {"SIDECORE_AUTO_RECHECK", {"", "30", "30m", "0s", "0steps", "1.5steps", "s", "steps", "-1s", "on"}},
      {"SIDECORE_AUTO_FORCE", {"", "pays", "Core", "auto"}},
      {"SIDECORE_COLL_BARRIER", {"", "fast", "AUTO", "bruck"}},
      {"SIDECORE_COLL_BCAST", {"", "fast", "AUTO", "bruck"}},
      {"SIDECORE_COLL_REDUCE", {"", "fast", "AUTO", "bruck"}},
      {"SIDECORE_COLL_ALLREDUCE", {"", "fast", "AUTO"}},
      {"SIDECORE_COLL_GATHER", {"", "fast", "AUTO"}},
      {"SIDECORE_COLL_SCATTER", {"", "fast", "AUTO"}},
      {"SIDECORE_COLL_ALLGATHER", {"", "fast", "AUTO"}},
      {"SIDECORE_COLL_ALLTOALL", {"", "fast", "AUTO"}},
      {"SIDECORE_COLL_REDUCE_SCATTER_BLOCK", {"", "fast", "AUTO"}},
      {"SIDECORE_COLL_ALLGATHERV", {"", "fast", "AUTO"}},
      {"SIDECORE_COLL_ALLTOALLV", {"", "fast", "AUTO"}},
      {"SIDECORE_COLL_SEGMENT", {"1023", "67108865", "", "128k"}},
      {"SIDECORE_COLL_CACHE", {"-1", "4097", "lots"}},
  };
  EXPECT_EQ(junk.size(), all_names.size());
  for (const auto& [name, values] : junk) {
    const d::setting_def* def = find(name);
    ASSERT_NE(def, nullptr) << name;
    // A setting that takes powers of two or multiples says so for every refused value, as `sidecore info` does:
    // told "an integer lo..hi" for a word, a user would next try a value the setting refuses too.
    const std::string accepted = def->accepted;
    const bool stepped = accepted.rfind("a power of two", 0) == 0 || accepted.rfind("a multiple of", 0) == 0;
    for (const auto& v : values) {
      SCOPED_TRACE(name + "='" + v + "'");
      if (stepped)
        expect_clear_rejection(name, v, {accepted.c_str()});
      else
        expect_clear_rejection(name, v, {});
    }
  }
}

TEST(SettingsTable, UnknownNameIsRejected) {
  d::settings s;
  try {
    d::parse_setting(s, "SIDECORE_NOPE", "1");
    ADD_FAILURE() << "accepted an unknown setting";
  } catch (const sidecore::error& e) {
    EXPECT_EQ(e.code(), errc::bad_setting);
    EXPECT_THAT(std::string(e.what()), HasSubstr("SIDECORE_NOPE"));
  }
}

// read_settings() takes the environment: values set there win, the first rejected one throws, and an unknown
// SIDECORE_* variable (a typo) is reported on stderr.
class ReadSettings : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const auto& n : all_names) unsetenv(n.c_str());
  }
  void TearDown() override {
    for (const auto& n : all_names) unsetenv(n.c_str());
    unsetenv("SIDECORE_PROGRES");
  }
};

TEST_F(ReadSettings, EmptyEnvironmentGivesDefaults) {
  const d::settings s = d::read_settings();
  EXPECT_EQ(s.mode, d::progress_mode::off);
  EXPECT_TRUE(s.set_by_user.empty());
}

TEST_F(ReadSettings, ValuesFromTheEnvironment) {
  setenv("SIDECORE_PROGRESS", "core", 1);
  setenv("SIDECORE_SPIN_US", "20", 1);
  setenv("SIDECORE_PROVIDER", "tcp;ofi_rxm", 1);
  const d::settings s = d::read_settings();
  EXPECT_EQ(s.mode, d::progress_mode::core);
  EXPECT_EQ(s.spin_us, 20u);
  EXPECT_EQ(s.provider, "tcp;ofi_rxm");
  EXPECT_EQ(s.set_by_user.size(), 3u);
}

TEST_F(ReadSettings, StepAndTimeWindowsTogetherAreRefused) {
  setenv("SIDECORE_AUTO_STEPS", "5", 1);
  setenv("SIDECORE_AUTO_WINDOW", "2", 1);
  try {
    (void)d::read_settings();
    ADD_FAILURE() << "SIDECORE_AUTO_STEPS and SIDECORE_AUTO_WINDOW together were accepted";
  } catch (const sidecore::error& e) {
    EXPECT_EQ(e.code(), errc::bad_setting);
    EXPECT_THAT(std::string(e.what()), HasSubstr("accepted: one of them"));
  }
}

// The SIDECORE_AUTO_* settings are read and checked in every mode, and said to be ignored outside mode auto.
TEST_F(ReadSettings, AutoSettingsOutsideModeAutoAreCheckedAndSaidToBeIgnored) {
  setenv("SIDECORE_AUTO_FORCE", "core", 1);
  EXPECT_EQ(d::ignored_auto_settings_warning(d::read_settings()),
            "sidecore: warning: SIDECORE_AUTO_FORCE='core' only applies with SIDECORE_PROGRESS=auto, and "
            "SIDECORE_PROGRESS is not set (mode off): it is ignored; accepted: SIDECORE_PROGRESS=auto to use it, or "
            "leave it unset\n");
  setenv("SIDECORE_PROGRESS", "off", 1);
  setenv("SIDECORE_AUTO_WINDOW", " 2.5", 1);
  const std::string w = d::ignored_auto_settings_warning(d::read_settings());
  EXPECT_THAT(w, HasSubstr("SIDECORE_AUTO_WINDOW=' 2.5' and SIDECORE_AUTO_FORCE='core' only apply with "
                           "SIDECORE_PROGRESS=auto, and SIDECORE_PROGRESS='off': they are ignored"));
  setenv("SIDECORE_PROGRESS", "core", 1);
  EXPECT_THAT(d::ignored_auto_settings_warning(d::read_settings()), HasSubstr("SIDECORE_PROGRESS='core'"));
  setenv("SIDECORE_PROGRESS", "auto", 1);
  EXPECT_EQ(d::ignored_auto_settings_warning(d::read_settings()), "");
  // Malformed or contradictory, they are refused whatever the mode (as in mode auto).
  setenv("SIDECORE_PROGRESS", "off", 1);
  setenv("SIDECORE_AUTO_FORCE", "maybe", 1);
  EXPECT_THROW((void)d::read_settings(), sidecore::error);
  setenv("SIDECORE_AUTO_FORCE", "core", 1);
  setenv("SIDECORE_AUTO_STEPS", "5", 1);
  EXPECT_THROW((void)d::read_settings(), sidecore::error);
  unsetenv("SIDECORE_PROGRESS");
  unsetenv("SIDECORE_AUTO_WINDOW");
  EXPECT_THAT(d::ignored_auto_settings_warning(d::read_settings()),
              HasSubstr("warning: SIDECORE_AUTO_STEPS='5' and SIDECORE_AUTO_FORCE='core' only apply"));
  EXPECT_EQ(d::ignored_auto_settings_warning(d::settings{}), "");
}

TEST_F(ReadSettings, BadValueInTheEnvironmentThrows) {
  setenv("SIDECORE_PROGRESS", "fast", 1);
  try {
    (void)d::read_settings();
    ADD_FAILURE() << "SIDECORE_PROGRESS=fast accepted";
  } catch (const sidecore::error& e) {
    EXPECT_EQ(e.code(), errc::bad_setting);
    EXPECT_THAT(std::string(e.what()), HasSubstr("SIDECORE_PROGRESS='fast'"));
    EXPECT_THAT(std::string(e.what()), HasSubstr("off, core"));
  }
}

// SIDECORE_NCORE (read by libsidecore-pmpi.so as well) is a setting of the runtime too: no "unknown variable".
TEST_F(ReadSettings, NcoreIsKnown) {
  setenv("SIDECORE_NCORE", "4", 1);
  ::testing::internal::CaptureStderr();
  const d::settings s = d::read_settings();
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_THAT(err, ::testing::Not(HasSubstr("SIDECORE_NCORE")));
  EXPECT_EQ(s.n_core, 4);
  expect_clear_rejection("SIDECORE_NCORE", "0", {"1..1048576"});
}

TEST_F(ReadSettings, UnknownVariableIsReported) {
  setenv("SIDECORE_PROGRES", "core", 1);  // typo
  ::testing::internal::CaptureStderr();
  const d::settings s = d::read_settings();
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_THAT(err, HasSubstr("SIDECORE_PROGRES"));
  EXPECT_EQ(s.mode, d::progress_mode::off);
}

}  // namespace

// The memory budget (docs/runtime.md, "Memory budget"): what the size settings let the engine hold, and the warning
// init prints when that exceeds SIDECORE_MEMORY_BUDGET, naming every term's settings.
TEST(Settings, MemoryBudgetCountsEverySizeSettingAndWarnsBeyondIt) {
  d::settings s = parsed("SIDECORE_RECV_BUFFERS", "64");
  const d::memory_estimate m = d::estimate_memory(s, 3, 16384);
  EXPECT_EQ(m.recv_buffers, 64u * (8192 + 40));
  EXPECT_EQ(m.submit_queue, 4096u * 64);
  EXPECT_EQ(m.unexpected_eager, 3u * 16 * 8192);
  EXPECT_EQ(m.provider, 3u * 64 * 16384);
  EXPECT_EQ(d::provider_buffer_bytes("shm", s), 8192u + 40);
  EXPECT_TRUE(d::memory_budget_warning(s, 3, "tcp;ofi_rxm").empty()) << "the defaults fit the default budget";
  s.memory_budget_mib = 1;
  const std::string w = d::memory_budget_warning(s, 3, "tcp;ofi_rxm");
  for (const char* part : {"SIDECORE_MEMORY_BUDGET=1", "SIDECORE_RECV_BUFFERS=64", "SIDECORE_SUBMIT_QUEUE=4096",
                           "SIDECORE_EAGER_CREDITS=16", "SIDECORE_SEND_CREDITS=64", "3 peers"})
    EXPECT_THAT(w, HasSubstr(part));
}
