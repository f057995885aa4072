// Checking the study's settings (config.hpp).
#include "config.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "sidecore/common/input_error.hpp"

namespace sidecore::tools::study {

void validate(const config& c) {
  if (c.app.empty())
    throw input_error("APP", "", "no application given: put it after --, e.g. sidecore study -n 2 -- ./app ARGS");
  if (c.ranks < 1) throw input_error("-n", std::to_string(c.ranks), "the rank count must be at least 1");
  if (c.reps < 1 || c.reps > 99)
    throw input_error("--reps", std::to_string(c.reps), "repetitions must be between 1 and 99");
  for (std::size_t i = 0; i < c.alphas.size(); ++i) {
    const double a = c.alphas[i];
    if (!std::isfinite(a) || a < 0 || a > 1)
      throw input_error("--alpha", fmt::format("{}", a), "each alpha must be a number in [0, 1]");
    if (std::find(c.alphas.begin(), c.alphas.begin() + static_cast<std::ptrdiff_t>(i), a) !=
        c.alphas.begin() + static_cast<std::ptrdiff_t>(i))
      throw input_error("--alpha", fmt::format("{}", a), "given twice; each alpha point once");
  }
  if (!c.alphas.empty() && c.alpha_option.empty())
    throw input_error("--alpha", fmt::format("{}", fmt::join(c.alphas, ",")),
                      "needs --alpha-option=OPTION, the app's own option that converts that fraction of its blocking "
                      "calls (apps/md: --alpha-option=--alpha)");
  if (c.alphas.empty() && !c.alpha_option.empty())
    throw input_error("--alpha-option", c.alpha_option, "needs --alpha A1,A2,...: the points to run");
  if (!c.alpha_option.empty() && c.alpha_option.front() != '-')
    throw input_error("--alpha-option", c.alpha_option, "must be an option name starting with '-', e.g. --alpha");
  if (c.cores_per_rank && *c.cores_per_rank < 2)
    throw input_error("--cores-per-rank", std::to_string(*c.cores_per_rank),
                      "not accepted; accepted: 2 or more (a dedicated core needs one core for progress and one to "
                      "compute)");
  if (c.host_cores && *c.host_cores < 1)
    throw input_error("--host-cores", std::to_string(*c.host_cores), "not accepted; accepted: 1 or more");
  if (!c.preload_library.empty() && !c.preload)
    throw input_error("--pmpi-library", c.preload_library,
                      "given without --preload, which puts it in LD_PRELOAD; accepted: --pmpi-library together with "
                      "--preload, or neither");
  if (split_words(c.mpiexec).empty())
    throw input_error("--mpiexec", c.mpiexec, "must name a launcher, e.g. mpiexec or \"mpiexec -bind-to core:4\"");
  if (c.out_dir.empty()) throw input_error("--out", "", "must name a folder");
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
      throw input_error("--alpha", item, "each alpha must be a number in [0, 1] (a list: 0.25,0.5,1)");
    v.push_back(a);
    pos = end + 1;
  }
  return v;
}

}  // namespace sidecore::tools::study
