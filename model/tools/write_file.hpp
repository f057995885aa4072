// Writing an output file of the `sidecore` command: every failure is an input_error naming the option and path.
#pragma once

#include <cerrno>
#include <cstring>
#include <fstream>
#include <string>

#include "sidecore/common/input_error.hpp"

namespace sidecore::tools {

/// Writes `content` to `path` (replacing it). Throws input_error(option, path, reason) when the file cannot be
/// opened or written.
inline void write_file(const std::string& path, const std::string& content, const char* option) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw input_error(option, path, std::string("cannot write: ") + std::strerror(errno));
  out << content;
  out.flush();
  if (!out) throw input_error(option, path, "write error");
}

}  // namespace sidecore::tools
