// Writing an output file of the `sidecore` command: through a temporary file renamed over the path, never through a
// symbolic link (common/output_file.hpp); replacing an existing file is said on stderr. Every failure is an
// input_error naming the option and path.
#pragma once

#include <sys/stat.h>

#include <iostream>
#include <string>
#include <vector>

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

/// A file named on the command line: the option (or argument) that named it, and its path. An empty path was not
/// given and is skipped.
struct named_path {
  std::string option;
  std::string path;
};

/// Whether two paths name one file: the same path once normalised (same_output_file), or, both existing, the same
/// device and inode (a hard link, a symbolic link to it).
inline bool same_file(const std::string& a, const std::string& b) {
  if (same_output_file(a, b)) return true;
  struct stat sa {}, sb {};
  return ::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/// Before any work, so that a failing command writes nothing: throws input_error naming the option and path when
/// an output cannot be written (output_path_problem), is one of the inputs (writing it would destroy that input),
/// or is also another output (one would be lost).
inline void check_outputs(const std::vector<named_path>& inputs, const std::vector<named_path>& outputs) {
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const named_path& o = outputs[i];
    if (o.path.empty()) continue;
    for (const named_path& in : inputs)
      if (!in.path.empty() && same_file(o.path, in.path))
        throw input_error(o.option.c_str(), o.path,
                          "is also the input " + in.option + " ('" + in.path + "'), which writing it would destroy; "
                          "accepted: a file that is not an input");
    for (std::size_t j = 0; j < i; ++j)
      if (!outputs[j].path.empty() && same_file(o.path, outputs[j].path))
        throw input_error(o.option.c_str(), o.path,
                          "is also the output of " + outputs[j].option + "; accepted: a file of its own per output");
    if (const std::string why = output_path_problem(o.path); !why.empty())
      throw input_error(o.option.c_str(), o.path, "cannot write: " + why);
  }
}

}  // namespace sidecore::tools
