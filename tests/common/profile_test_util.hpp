// Helpers of the profile's tests (tests/common and tests/instrument): the smallest valid rank profile, a profile as
// JSON, and a JSON that the reader must refuse with a message holding every fragment (file, JSON path, what is
// accepted).
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <initializer_list>

#include <nlohmann/json.hpp>

#include <sidecore/common/input_error.hpp>
#include <sidecore/common/profile.hpp>

namespace profile_test {

// A rank profile with only the fields every profile has, shm, no section: each test adds what it checks.
inline sidecore::profile minimal_rank(int rank, int nranks, int n_core, double t_total_s, double t_comp_s) {
  sidecore::profile p;
  p.rank = rank;
  p.nranks = nranks;
  p.provider = "shm";
  p.n_core = n_core;
  p.t_total_s = t_total_s;
  p.t_comp_s = t_comp_s;
  return p;
}

inline nlohmann::json as_json(const sidecore::profile& p) {
  nlohmann::json j;
  to_json(j, p);
  return j;
}

inline void expect_rejected(const nlohmann::json& j, std::initializer_list<const char*> fragments) {
  try {
    (void)sidecore::parse_profile(j.dump(), "case.json");
    ADD_FAILURE() << "accepted: " << j.dump();
  } catch (const sidecore::input_error& e) {
    for (const char* f : fragments) EXPECT_THAT(e.what(), ::testing::HasSubstr(f));
  }
}

}  // namespace profile_test
