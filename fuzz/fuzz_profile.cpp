// Fuzzes the profile reader (common/src/profile_read.cpp) and the model on what it accepts.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_check.hpp"
#include "sidecore/common/input_error.hpp"
#include "sidecore/common/profile.hpp"
#include "sidecore/model/input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const sidecore::profile p = sidecore::parse_profile(text, "fuzz.json");
    sidecore::fuzz::analyse(sidecore::model::make_job_input({p}, {"fuzz.json"}));
    // The same profile with a --cores what-if.
    sidecore::fuzz::analyse(sidecore::model::make_job_input({p}, {"fuzz.json"}, 32));
  } catch (const sidecore::input_error&) {
    // Refused with a message: the expected answer to bad input.
  }
  return 0;
}
