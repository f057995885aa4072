// Checking the study's settings (config.hpp).
#include "config.hpp"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <filesystem>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "sidecore/common/input_error.hpp"
#include "sidecore/common/utf8.hpp"

namespace sidecore::tools::study {

namespace {
constexpr const char* alpha_list_accepted = "numbers in [0, 1] (a list: 0.25,0.5,1)";
}  // namespace

namespace {
// The record is JSON, which holds UTF-8 only: a setting it keeps as given must be UTF-8 (a Latin-1 file name is not).
void require_utf8(const char* option, const std::string& value, const std::string& which = {}) {
  if (is_utf8(value)) return;
  throw input_error::refused(option, escaped_utf8(value),
                             "UTF-8 text (the study record is JSON)" + (which.empty() ? "" : ": " + which) +
                                 (which.empty() ? "" : " has a byte that is not UTF-8"));
}
}  // namespace

void validate(const config& c) {
  if (c.app.empty())
    throw input_error("APP", "", "no application given: put it after --, e.g. sidecore study -n 2 -- ./app ARGS");
  for (std::size_t i = 0; i < c.app.size(); ++i)
    require_utf8("APP", c.app[i], i == 0 ? "the app's name" : fmt::format("argument {} of the app", i));
  for (const std::string& in : c.inputs) {
    if (in == missing_inputs_value)
      throw input_error::refused("--inputs", "", "one quoted string per case right after --inputs (\"\" for a case "
                                                 "without extra arguments)");
    require_utf8("--inputs", in);
    if (std::count(c.inputs.begin(), c.inputs.end(), in) > 1)
      throw input_error::refused("--inputs", in, fmt::format("each case once ('{}' is given twice)", in));
  }
  require_utf8("--out", c.out_dir);
  require_utf8("--mpiexec", c.mpiexec);
  require_utf8("--alpha-option", c.alpha_option);
  require_utf8("--pmpi-library", c.preload_library);
  if (c.ranks < 1 || c.ranks > max_study_ranks)
    throw input_error::refused("-n", std::to_string(c.ranks),
                               fmt::format("an integer in [1 - {}] (the rank count)", max_study_ranks));
  if (c.reps < 1 || c.reps > 99)
    throw input_error::refused("--reps", std::to_string(c.reps), "an integer in [1 - 99]");
  for (std::size_t i = 0; i < c.alphas.size(); ++i) {
    const double a = c.alphas[i];
    if (!std::isfinite(a) || a < 0 || a > 1)
      throw input_error::refused("--alpha", fmt::format("{}", a), alpha_list_accepted);
    if (std::find(c.alphas.begin(), c.alphas.begin() + static_cast<std::ptrdiff_t>(i), a) !=
        c.alphas.begin() + static_cast<std::ptrdiff_t>(i))
      throw input_error::refused("--alpha", fmt::format("{}", a),
                                 fmt::format("each alpha point once ({} is given twice)", a));
  }
  if (!c.alphas.empty() && c.alpha_option.empty())
    throw input_error::refused("--alpha", fmt::format("{}", fmt::join(c.alphas, ",")),
                               "--alpha together with --alpha-option=OPTION, the app's own option that converts that "
                               "fraction of its blocking calls (apps/md: --alpha-option=--alpha)");
  if (c.alphas.empty() && !c.alpha_option.empty())
    throw input_error::refused("--alpha-option", c.alpha_option,
                               "--alpha-option together with --alpha A1,A2,...: the points to run");
  if (!c.alpha_option.empty() && c.alpha_option.front() != '-')
    throw input_error::refused("--alpha-option", c.alpha_option, "an option name starting with '-', e.g. --alpha");
  if (c.cores_per_rank && *c.cores_per_rank < 2)
    throw input_error::refused("--cores-per-rank", std::to_string(*c.cores_per_rank),
                               "an integer >= 2 (a dedicated core needs one core for progress and one to compute)");
  if (c.host_cores && *c.host_cores < 1)
    throw input_error::refused("--host-cores", std::to_string(*c.host_cores), "an integer >= 1");
  if (c.run_timeout_s && !(*c.run_timeout_s > 0 && *c.run_timeout_s <= max_run_timeout_s))
    throw input_error::refused("--run-timeout", fmt::format("{}", *c.run_timeout_s),
                               fmt::format("seconds in (0, {:g}]", max_run_timeout_s));
  if (!c.preload_library.empty() && !c.preload)
    throw input_error::refused("--pmpi-library", c.preload_library,
                               "--pmpi-library together with --preload (which puts it in LD_PRELOAD), or neither");
  if (split_words(c.mpiexec).empty())
    throw input_error::refused("--mpiexec", c.mpiexec,
                               "a launcher command, e.g. mpiexec or \"mpiexec -bind-to core:4\"");
  if (c.out_dir.empty()) throw input_error::refused("--out", "", "a folder");
  if (c.out_dir.find('%') != std::string::npos)
    throw input_error::refused("--out", c.out_dir, "a folder whose path has no '%' (the runs' SIDECORE_PROFILE is a "
                                                   "pattern under it, where %r stands for the rank)");
}

void check_launcher(const std::string& mpiexec) {
  const std::vector<std::string> words = split_words(mpiexec);
  if (words.empty()) return;  // validate() refuses it
  const std::string& prog = words.front();
  const auto runnable = [](const std::string& p) {
    return ::access(p.c_str(), X_OK) == 0 && !std::filesystem::is_directory(p);
  };
  bool found = prog.find('/') != std::string::npos && runnable(prog);
  if (prog.find('/') == std::string::npos) {
    const char* path = std::getenv("PATH");
    std::string dirs = path != nullptr ? path : "/usr/bin:/bin";
    for (std::size_t from = 0; !found && from <= dirs.size();) {
      const std::size_t to = std::min(dirs.find(':', from), dirs.size());
      const std::string dir = to > from ? dirs.substr(from, to - from) : ".";
      found = runnable(dir + "/" + prog);
      from = to + 1;
    }
  }
  if (!found)
    throw input_error::refused("--mpiexec", mpiexec,
                               "a launcher command whose program is found in PATH (or is a path to one) and can be "
                               "run; '" + prog + "' is not");
}

std::vector<std::string> split_words(const std::string& s) {
  std::vector<std::string> w;
  std::string cur;
  for (char ch : s) {
    if (ch == ' ' || ch == '\t' || ch == '\n') {
      if (!cur.empty()) w.push_back(std::move(cur));
      cur.clear();
    } else {
      cur += ch;
    }
  }
  if (!cur.empty()) w.push_back(std::move(cur));
  return w;
}

std::vector<double> parse_alpha_list(const std::string& text) {
  std::vector<double> v;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const std::size_t end = std::min(text.find(',', pos), text.size());
    const std::string item = text.substr(pos, end - pos);
    double a = 0;
    const auto [p, ec] = std::from_chars(item.data(), item.data() + item.size(), a);
    if (item.empty() || ec != std::errc() || p != item.data() + item.size())
      throw input_error::refused("--alpha", item, alpha_list_accepted);
    v.push_back(a);
    pos = end + 1;
  }
  return v;
}

}  // namespace sidecore::tools::study
