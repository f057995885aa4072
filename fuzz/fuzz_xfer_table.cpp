// Fuzzes the transfer-time table reader (instrument/src/bounds.cpp, read by SIDECORE_XFER_TABLE). It takes a path,
// so each input is handed to it as an in-memory file (fuzz_check.hpp's memory_file).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <stdexcept>

#include "fuzz_check.hpp"
#include "sidecore/instrument/bounds.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const sidecore::fuzz::memory_file file(data, size);
  try {
    const auto t = sidecore::instrument::read_xfer_time_table(file.path());
    for (std::size_t bytes : {std::size_t{0}, std::size_t{8}, std::size_t{1} << 20, ~std::size_t{0}})
      sidecore::fuzz::require(std::isfinite(t.seconds(bytes)) && t.seconds(bytes) >= 0, "xfer time");
  } catch (const std::runtime_error&) {
    // The reader's documented answer to bad input (input_error is one).
  }
  return 0;
}
