// What every harness checks beyond the sanitizers: a reader either returns or throws input_error, and whatever
// the model makes of an accepted input is finite (issue 17: "PAYS OFF, speedup 808049650..." with 306 digits).
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "sidecore/model/analysis.hpp"
#include "sidecore/model/render.hpp"

namespace sidecore::fuzz {

/// Stops the run (libFuzzer saves the input as a crash) when `ok` is false.
inline void require(bool ok, const char* what) {
  if (ok) return;
  std::fprintf(stderr, "fuzz invariant broken: %s\n", what);
  std::abort();
}

/// The input as a file, for readers that take only a path: an anonymous in-memory file (memfd) holding the bytes,
/// read through /proc/self/fd. Closed when it goes out of scope.
class memory_file {
 public:
  memory_file(const std::uint8_t* data, std::size_t size) : fd_(::memfd_create("fuzz_input", MFD_CLOEXEC)) {
    require(fd_ >= 0, "memfd_create");
    std::size_t done = 0;
    while (done < size) {
      const ssize_t n = ::write(fd_, data + done, size - done);
      require(n > 0, "write to the memfd");
      done += static_cast<std::size_t>(n);
    }
  }
  memory_file(const memory_file&) = delete;
  memory_file& operator=(const memory_file&) = delete;
  ~memory_file() { ::close(fd_); }

  [[nodiscard]] std::string path() const { return "/proc/self/fd/" + std::to_string(fd_); }

 private:
  int fd_;
};

/// Analyses a job as `sidecore predict` does (a short what-if search keeps the harness fast) and checks that the
/// answer is finite and renders. Input errors are an accepted outcome.
inline void analyse(const model::job_input& in) {
  model::analysis_options opt;
  opt.max_cores = 64;
  const model::analysis a = model::analyze(in, opt);
  require(std::isfinite(a.job.speedup) && std::isfinite(a.job.t_dedicated_s), "job speedup or t_dedicated not finite");
  for (const auto& s : a.sweep) require(std::isfinite(s.speedup), "sweep speedup not finite");
  require(std::isfinite(a.slope.speedup_per_alpha) && std::isfinite(a.slope.time_slope_s), "slope not finite");
  require(!model::render_text(a).empty() && !model::render_json(a).empty(), "empty rendering");
  (void)model::render_html(a);
}

}  // namespace sidecore::fuzz
