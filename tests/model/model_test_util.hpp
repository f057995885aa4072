// What several model tests share: the sample data folder and its profiles, catching an input_error's message, and
// the inputs of seed 004's MiniMD case #1 (Table II), whose alpha break-even lies inside [0, 1].
#pragma once

#include <string>

#include "sidecore/common/input_error.hpp"
#include "sidecore/common/profile.hpp"
#include "sidecore/model/model.hpp"

namespace sctest {

/// tests/model/data, where the sample profiles, mpiP reports and tables are.
inline const std::string model_data = SIDECORE_MODEL_TEST_DATA;

/// The sample profile `name` of tests/model/data.
inline sidecore::profile sample_profile(const std::string& name) {
  return sidecore::read_profile_file(model_data + "/" + name);
}

/// The message of the input_error that f() throws, or "(no error)".
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const sidecore::input_error& e) {
    return e.what();
  }
  return "(no error)";
}

/// MiniMD case #1 of Table II: the dedicated core pays off from alpha = 0.547 on.
inline sidecore::model::rank_inputs minimd_case1() {
  using sidecore::category;
  sidecore::model::rank_inputs r;
  r.t_noprogress_s = 112;
  r.t_comp_s = 94.55;
  r.n_core = 16;
  r[category::blocking] = {19.16, 5863, 1e-4};
  r[category::init] = {0.2, 5862, 2.5e-5};
  r[category::wait] = {0.1, 5862, 5.33e-6};
  r[category::other] = {2.2, 10, 1e-3};
  return r;
}

}  // namespace sctest
