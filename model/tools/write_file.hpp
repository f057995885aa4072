// Writing an output file of the `sidecore` command: through a temporary file renamed over the path, never through a
// symbolic link (common/output_file.hpp); replacing an existing file is said on stderr. Every failure is an
// input_error naming the option and path.
#pragma once

#include <iostream>
#include <string>

#include "sidecore/common/input_error.hpp"
#include "sidecore/common/output_file.hpp"

namespace sidecore::tools {

/// Writes `content` to `path` (replacing it, with a message). Throws input_error(option, path, reason) when the
/// file cannot be written (its directory missing or read-only, a link, a directory, ...).
inline void write_file(const std::string& path, const std::string& content, const char* option) {
  try {
    if (write_output_file(path, content) == output_outcome::replaced)
      std::cerr << "sidecore: replaced the existing file '" << path << "'\n";
  } catch (const output_error& e) {
    throw input_error(option, path, "cannot write: " + e.reason());
  }
}

}  // namespace sidecore::tools
