// Fuzzes the reader of `sidecore study`'s record (parse_record, model/tools/study/record.cpp), which --resume reads
// back from OUT/study.json: a record is refused with an input_error, or reads to settings and runs that serialise
// and read back to the same runs, and the resume check compares it with itself without complaint.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_check.hpp"
#include "sidecore/common/input_error.hpp"
#include "study/record.hpp"

namespace st = sidecore::tools::study;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  st::study_record r;
  try {
    r = st::parse_record(text, "study.json");
  } catch (const sidecore::input_error&) {
    return 0;
  }
  try {
    const st::study_record back = st::parse_record(st::to_json_text(r, nullptr), "written.json");
    sidecore::fuzz::require(back.runs.size() == r.runs.size(), "the record written back reads to other runs");
    for (std::size_t i = 0; i < r.runs.size(); ++i)
      sidecore::fuzz::require(back.runs[i].spec.id == r.runs[i].spec.id, "a run's id changed on the way back");
    st::check_same_study(r.settings, back.settings, "study.json");
  } catch (const sidecore::input_error&) {
    sidecore::fuzz::require(false, "the record written back is refused, or differs from the one read");
  }
  return 0;
}
