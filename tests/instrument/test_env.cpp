// The instrumentation's own settings parsers (env.hpp, used by libsidecore-pmpi.so): the values the runtime's
// settings table accepts and rejects (tests/runtime/test_settings.cpp, same cases), with a message naming the
// variable, the value and what is accepted.
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "sidecore/instrument/env.hpp"

namespace env = sidecore::instrument::env;

namespace {

const std::map<std::string, std::function<void(const std::string&)>> parsers = {
    {"SIDECORE_TRACE_MAX_EVENTS", [](const std::string& v) { (void)env::parse_trace_max_events(v); }},
    {"SIDECORE_RING_EVENTS", [](const std::string& v) { (void)env::parse_ring_events(v); }},
    {"SIDECORE_SIZE_BINS", [](const std::string& v) { (void)env::parse_size_bins(v); }},
    {"SIDECORE_NCORE", [](const std::string& v) { (void)env::parse_ncore(v); }},
    {"SIDECORE_COLL_SAMPLES", [](const std::string& v) { (void)env::parse_coll_samples(v); }},
};

}  // namespace

TEST(Env, ValidValues) {
  const std::map<std::string, std::vector<std::string>> valid = {
      {"SIDECORE_TRACE_MAX_EVENTS", {"1", "1000000000", " 5 "}},
      {"SIDECORE_RING_EVENTS", {"16", "4096", "16777216"}},
      {"SIDECORE_SIZE_BINS", {"0", "0,1024,65536,1048576", "5,6", " 1 , 2 "}},
      {"SIDECORE_NCORE", {"1", "2", "64", "1048576"}},
      {"SIDECORE_COLL_SAMPLES", {"16", "1024", "65536"}},
  };
  for (const auto& [name, values] : valid) {
    for (const auto& v : values) EXPECT_NO_THROW(parsers.at(name)(v)) << name << "='" << v << "'";
  }
  EXPECT_EQ(env::parse_trace_max_events("5"), 5u);
  EXPECT_EQ(env::parse_ring_events("64"), 64u);
  EXPECT_EQ(env::parse_size_bins("0,1024,65536"), (std::vector<std::size_t>{0, 1024, 65536}));
  EXPECT_EQ(env::parse_ncore("16"), 16);
}

TEST(Env, JunkIsRejectedNamingTheVariableTheValueAndWhatIsAccepted) {
  const std::map<std::string, std::vector<std::string>> junk = {
      {"SIDECORE_TRACE_MAX_EVENTS", {"0", "1000000001", "many", "", "-1", "+5", "1e3"}},
      {"SIDECORE_RING_EVENTS", {"8", "100", "33554432", "x", ""}},
      {"SIDECORE_SIZE_BINS", {"", "4,2", "1,1", "1,,2", "1,", ",1", "a,b", "-1,2", "1;2", "99999999999999999999999"}},
      {"SIDECORE_NCORE", {"0", "-2", "1048577", "4cores", "", "99999999999999999999999"}},
      {"SIDECORE_COLL_SAMPLES", {"8", "1000", "131072", "x", ""}},
  };
  for (const auto& [name, values] : junk) {
    for (const auto& v : values) {
      try {
        parsers.at(name)(v);
        ADD_FAILURE() << name << "='" << v << "' was accepted";
      } catch (const env::bad_value& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find(name), std::string::npos) << m;
        EXPECT_NE(m.find("'" + v + "'"), std::string::npos) << m;
        EXPECT_NE(m.find("accepted: "), std::string::npos) << m;
      }
    }
  }
  // At most 4096 size-bin edges (the memory budget, docs/instrument.md).
  std::string edges = "0";
  for (int i = 1; i < 4096; ++i) edges += "," + std::to_string(i);
  EXPECT_EQ(env::parse_size_bins(edges).size(), 4096u);
  try {
    (void)env::parse_size_bins(edges + ",4096");
    ADD_FAILURE() << "4097 edges accepted";
  } catch (const env::bad_value& e) {
    EXPECT_NE(std::string(e.what()).find("(at most 4096 of them)"), std::string::npos) << e.what();
  }
  // A power-of-two setting says so for every refused value, not only for one inside the range.
  for (const std::string v : {"100", "x", "33554432", "8"}) {
    try {
      (void)env::parse_ring_events(v);
      ADD_FAILURE() << v << " accepted";
    } catch (const env::bad_value& e) {
      EXPECT_EQ(std::string(e.what()),
                "SIDECORE_RING_EVENTS='" + v + "' is not accepted; accepted: a power of two 16..16777216");
    }
  }
  try {
    (void)env::parse_coll_samples("131072");
    ADD_FAILURE() << "131072 accepted";
  } catch (const env::bad_value& e) {
    EXPECT_NE(std::string(e.what()).find("accepted: a power of two 16..65536"), std::string::npos) << e.what();
  }
}
