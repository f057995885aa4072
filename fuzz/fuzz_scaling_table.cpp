// Fuzzes the scaling-table reader (model/src/scaling.cpp) and the ratios the model takes from a table.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_check.hpp"
#include "sidecore/common/input_error.hpp"
#include "sidecore/model/scaling.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const auto m = sidecore::model::scaling_model::parse_table(text, "fuzz.csv");
    const auto& t = m.table();
    const int lo = t.front().threads, hi = t.back().threads;
    for (int n : {lo, hi, lo + (hi - lo) / 2, hi - 1}) {
      if (!m.covers(n) || !m.covers(hi)) continue;
      sidecore::fuzz::require(std::isfinite(m.time_ratio(hi, n)) && m.time_ratio(hi, n) > 0, "table ratio");
    }
  } catch (const sidecore::input_error&) {
  }
  return 0;
}
