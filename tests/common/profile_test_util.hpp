// Helpers of the profile library's tests (test_profile_auto.cpp, test_profile_limits.cpp): a profile as JSON, and a
// JSON that the reader must refuse with a message holding every fragment (file, JSON path, what is accepted).
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <initializer_list>

#include <nlohmann/json.hpp>

#include <sidecore/common/input_error.hpp>
#include <sidecore/common/profile.hpp>

namespace profile_test {

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
