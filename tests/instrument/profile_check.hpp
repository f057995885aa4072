// What the checkers of libsidecore-pmpi.so's profiles share (pmpi_check.cpp, pmpi_core_check.cpp): a CHECK that
// counts failures and goes on, so that one run reports every mismatch, and reading a whole file.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace profile_check {
inline int failures = 0;

/// The whole file; exits with status 2 when it cannot be read (the run under test wrote no such file).
inline std::string slurp(const std::string& path) {
  std::ifstream f(path);
  if (!f) {
    std::fprintf(stderr, "cannot open %s\n", path.c_str());
    std::exit(2);
  }
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}
}  // namespace profile_check

#define CHECK(cond, ...)                             \
  do {                                               \
    if (!(cond)) {                                   \
      ++profile_check::failures;                     \
      std::fprintf(stderr, "FAILED: %s: ", #cond);   \
      std::fprintf(stderr, __VA_ARGS__);             \
      std::fprintf(stderr, "\n");                    \
    }                                                \
  } while (0)
