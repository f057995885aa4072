// Fuzzes the transfer-time table reader (instrument/src/bounds.cpp, read by SIDECORE_XFER_TABLE). It takes a path,
// so each input is written to an anonymous in-memory file (memfd) and read back through /proc/self/fd.
#include <sys/mman.h>
#include <unistd.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "fuzz_check.hpp"
#include "sidecore/instrument/bounds.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const int fd = ::memfd_create("xfer_table", MFD_CLOEXEC);
  sidecore::fuzz::require(fd >= 0, "memfd_create");
  std::size_t done = 0;
  while (done < size) {
    const ssize_t n = ::write(fd, data + done, size - done);
    sidecore::fuzz::require(n > 0, "write to the memfd");
    done += static_cast<std::size_t>(n);
  }
  try {
    const auto t = sidecore::instrument::read_xfer_time_table("/proc/self/fd/" + std::to_string(fd));
    for (std::size_t bytes : {std::size_t{0}, std::size_t{8}, std::size_t{1} << 20, ~std::size_t{0}})
      sidecore::fuzz::require(std::isfinite(t.seconds(bytes)) && t.seconds(bytes) >= 0, "xfer time");
  } catch (const std::runtime_error&) {
    // The reader's documented answer to bad input (input_error is one).
  }
  ::close(fd);
  return 0;
}
