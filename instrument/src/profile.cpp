// sidecore instrument — the job profile: the rank profiles' texts parsed and merged by the profile library (common/),
// the one definition of the schema that the model reads too.
#include <stdexcept>
#include <string>
#include <vector>

#include "sidecore/common/input_error.hpp"
#include "sidecore/common/profile.hpp"
#include "sidecore/instrument/instrument.hpp"

namespace sidecore::instrument {

std::string merge_job_profile(const std::vector<std::string>& rank_jsons) {
  if (rank_jsons.empty()) throw std::invalid_argument("merge_job_profile: no rank profiles");
  std::vector<profile> ranks;
  ranks.reserve(rank_jsons.size());
  for (std::size_t i = 0; i < rank_jsons.size(); ++i) {
    try {
      ranks.push_back(parse_profile(rank_jsons[i], "input " + std::to_string(i)));
    } catch (const input_error& e) {
      throw std::invalid_argument(std::string("merge_job_profile: ") + e.what());
    }
  }
  try {
    return format_profile(make_job_profile(std::move(ranks)));
  } catch (const input_error& e) {
    // make_job_profile names an input "ranks[i]" by its position in rank_jsons.
    throw std::invalid_argument(std::string("merge_job_profile: ") + e.what());
  }
}

}  // namespace sidecore::instrument
