// Fuzzes the mpiP report reader (model/src/mpip.cpp) and the model on what it accepts.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "fuzz_check.hpp"
#include "sidecore/common/input_error.hpp"
#include "sidecore/model/input.hpp"
#include "sidecore/model/mpip.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  try {
    const sidecore::model::mpip_report rep = sidecore::model::parse_mpip(in, "fuzz.mpiP");
    sidecore::model::job_input job;
    job.source = "fuzz.mpiP";
    job.provider = "mpip";
    job.from_mpip = true;
    job.ranks = sidecore::model::mpip_to_inputs(rep, 16);
    if (job.ranks.empty()) return 0;
    for (const auto& r : job.ranks) sidecore::model::validate(r, "fuzz.mpiP");
    job.nranks = static_cast<int>(job.ranks.size());
    sidecore::fuzz::analyse(job);
  } catch (const sidecore::input_error&) {
  }
  return 0;
}
