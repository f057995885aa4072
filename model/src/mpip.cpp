// mpiP report reader (mpiP 3.4 and 3.5 text layouts).
#include "sidecore/model/mpip.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "sidecore/common/input_error.hpp"
#include "sidecore/common/input_file.hpp"
#include "sidecore/common/input_limits.hpp"

namespace sidecore::model {
namespace {

std::vector<std::string> split_ws(const std::string& line) {
  std::istringstream ss(line);
  std::vector<std::string> out;
  std::string tok;
  while (ss >> tok) out.push_back(tok);
  return out;
}

bool is_dash_line(const std::string& line) {
  const auto first = line.find_first_not_of(" \t\r");
  if (first == std::string::npos) return false;
  return line.find_first_not_of("-\r", first) == std::string::npos && line.size() - first >= 3;
}

std::string trim(std::string s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return {};
  const auto e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

// One table section: its title, header columns and data rows (line numbers kept for errors).
struct section {
  std::string title;
  std::vector<std::string> header;
  std::vector<std::pair<int, std::vector<std::string>>> rows;
};

class table_reader {
 public:
  table_reader(const std::string& source, const section& s) : source_(source), s_(s) {}

  [[nodiscard]] std::optional<std::size_t> column(std::string_view name) const {
    for (std::size_t i = 0; i < s_.header.size(); ++i)
      if (s_.header[i] == name) return i;
    return std::nullopt;
  }
  [[nodiscard]] std::size_t required(std::string_view name) const {
    if (auto c = column(name)) return *c;
    throw input_error(source_, fmt::format("section \"{}\"", s_.title),
                      fmt::format("header has no column \"{}\" (columns: {})", name, fmt::join(s_.header, " ")));
  }
  // A non-negative number of at most `max` (in the column's unit: seconds, milliseconds or percent).
  [[nodiscard]] double number(int line, const std::vector<std::string>& row, std::size_t col, std::string_view what,
                              double max = max_input_seconds * 1e3, std::string_view unit = "ms") const {
    const std::string& tok = field(line, row, col, what);
    char* end = nullptr;
    const double v = std::strtod(tok.c_str(), &end);
    if (*end != '\0' || !std::isfinite(v))
      throw input_error(source_, fmt::format("line {}", line), fmt::format("{} \"{}\" is not a number", what, tok));
    if (v < 0) throw input_error(source_, fmt::format("line {}", line), fmt::format("negative {} {}", what, tok));
    if (v > max)
      throw input_error(source_, fmt::format("line {}", line),
                        fmt::format("{} {} is beyond any run; accepted: at most {:g} {}", what, tok, max, unit));
    return v;
  }
  [[nodiscard]] double seconds(int line, const std::vector<std::string>& row, std::size_t col,
                               std::string_view what) const {
    return number(line, row, col, what, max_input_seconds, "s");
  }
  [[nodiscard]] std::uint64_t count(int line, const std::vector<std::string>& row, std::size_t col) const {
    const double v = number(line, row, col, "Count", static_cast<double>(max_input_count), "calls (2^53)");
    if (v != std::floor(v))
      throw input_error(source_, fmt::format("line {}", line), fmt::format("Count \"{}\" is not an integer", row[col]));
    return static_cast<std::uint64_t>(v);
  }
  [[nodiscard]] const std::string& field(int line, const std::vector<std::string>& row, std::size_t col,
                                         std::string_view what) const {
    if (col >= row.size())
      throw input_error(
          source_, fmt::format("line {}", line),
          fmt::format("row has {} columns, the header {}; {} is missing", row.size(), s_.header.size(), what));
    return row[col];
  }
  [[nodiscard]] int integer(int line, const std::vector<std::string>& row, std::size_t col,
                            std::string_view what) const {
    const std::string& tok = field(line, row, col, what);
    char* end = nullptr;
    const long v = std::strtol(tok.c_str(), &end, 10);
    if (*end != '\0' || v < 0 || v > 1 << 30)
      throw input_error(source_, fmt::format("line {}", line),
                        fmt::format("{} \"{}\" is not a non-negative integer", what, tok));
    return static_cast<int>(v);
  }

 private:
  const std::string& source_;
  const section& s_;
};

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

}  // namespace

category classify_mpi_call(std::string_view name) noexcept {
  std::string n = lower(name);
  if (starts_with(n, "pmpi_")) n.erase(0, 5);
  else if (starts_with(n, "mpi_")) n.erase(0, 4);
  // Completion.
  if (n == "wait" || n == "waitall" || n == "waitany" || n == "waitsome") return category::wait;
  if (n == "test" || n == "testall" || n == "testany" || n == "testsome" || n == "iprobe" || n == "improbe" ||
      n == "request_get_status")
    return category::test;
  // Persistent starts and RMA communication calls initiate transfers completed later.
  if (n == "start" || n == "startall" || n == "put" || n == "get" || n == "accumulate" || n == "get_accumulate" ||
      n == "fetch_and_op" || n == "compare_and_swap" || n == "rput" || n == "rget" || n == "raccumulate" ||
      n == "rget_accumulate")
    return category::init;
  // RMA synchronisation waits for other processes, like a barrier.
  if (starts_with(n, "win_fence") || starts_with(n, "win_flush") || n == "win_sync" || n == "win_wait" ||
      n == "win_complete" || n == "win_start" || n == "win_post" || starts_with(n, "win_lock") ||
      starts_with(n, "win_unlock"))
    return category::blocking;
  if (starts_with(n, "file_")) return category::other;  // MPI-IO is not communication progress
  // Blocking point-to-point and collectives; their MPI_I* forms are initiations.
  static constexpr std::string_view comm[] = {
      "send", "recv", "ssend", "bsend", "rsend", "sendrecv", "sendrecv_replace", "isendrecv", "isendrecv_replace",
      "mrecv", "probe", "mprobe", "barrier", "bcast", "gather", "gatherv", "scatter", "scatterv", "allgather",
      "allgatherv", "alltoall", "alltoallv", "alltoallw", "reduce", "allreduce", "reduce_scatter",
      "reduce_scatter_block", "scan", "exscan", "neighbor_allgather", "neighbor_allgatherv", "neighbor_alltoall",
      "neighbor_alltoallv", "neighbor_alltoallw"};
  for (std::string_view c : comm)
    if (n == c) return starts_with(c, "isendrecv") ? category::init : category::blocking;
  if (n.size() > 1 && n[0] == 'i') {
    const std::string_view rest = std::string_view(n).substr(1);
    for (std::string_view c : comm)
      if (rest == c && c != "probe" && c != "mprobe") return category::init;
  }
  return category::other;
}

mpip_report parse_mpip(std::istream& in, const std::string& source) {
  mpip_report rep;
  rep.source = source;
  std::vector<section> sections;
  std::string line;
  int lineno = 0;
  // State: 0 outside, 1 after "@--- title" waiting for the dash line, 2 expecting the header, 3 rows.
  int state = 0;
  bool any_mpip_marker = false;
  while (std::getline(in, line)) {
    ++lineno;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (starts_with(line, "@ mpiP")) any_mpip_marker = true;
    if (starts_with(line, "@--- ")) {
      any_mpip_marker = true;
      std::string title = line.substr(5);
      const auto dashes = title.find(" ---");
      if (dashes != std::string::npos) title = title.substr(0, dashes);
      sections.push_back(section{trim(title), {}, {}});
      state = 1;
      continue;
    }
    if (starts_with(line, "@ ")) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) {
        const std::string key = trim(line.substr(2, colon - 2));
        const std::string value = trim(line.substr(colon + 1));
        if (key == "Version") rep.version = value;
        if (key == "Command") rep.command = value;
      }
      continue;
    }
    if (state == 0) continue;
    if (is_dash_line(line)) {
      if (state == 1) state = 2;
      else if (state == 3 || state == 2) state = 0;
      continue;
    }
    const auto toks = split_ws(line);
    if (toks.empty()) continue;
    if (state == 2) {
      sections.back().header = toks;
      state = 3;
    } else if (state == 3) {
      sections.back().rows.emplace_back(lineno, toks);
    }
  }
  if (!any_mpip_marker)
    throw input_error(source, "", "not an mpiP report (no \"@ mpiP\" header and no \"@--- \" section)");

  auto find = [&](std::string_view prefix) -> const section* {
    for (const auto& s : sections)
      if (starts_with(s.title, prefix)) return &s;
    return nullptr;
  };

  const section* mpi_time = find("MPI Time");
  if (!mpi_time) throw input_error(source, "", "mpiP report has no \"@--- MPI Time (seconds)\" section");
  {
    table_reader t(source, *mpi_time);
    const auto c_task = t.required("Task");
    const auto c_app = t.required("AppTime");
    const auto c_mpi = t.required("MPITime");
    for (const auto& [ln, row] : mpi_time->rows) {
      if (t.field(ln, row, c_task, "Task") == "*") continue;
      rep.tasks.push_back({t.integer(ln, row, c_task, "Task"), t.seconds(ln, row, c_app, "AppTime"),
                           t.seconds(ln, row, c_mpi, "MPITime")});
    }
  }

  if (const section* agg = find("Aggregate Time")) {
    table_reader t(source, *agg);
    const auto c_call = t.required("Call");
    const auto c_site = t.required("Site");
    const auto c_time = t.required("Time");
    const auto c_app = t.required("App%");
    const auto c_mpi = t.required("MPI%");
    const auto c_count = t.column("Count");
    const auto c_cov = t.column("COV");
    rep.aggregate_has_count = c_count.has_value();
    for (const auto& [ln, row] : agg->rows) {
      mpip_aggregate_row r;
      r.call = t.field(ln, row, c_call, "Call");
      r.site = t.integer(ln, row, c_site, "Site");
      r.time_ms = t.number(ln, row, c_time, "Time");
      r.app_pct = t.number(ln, row, c_app, "App%", 100.0 * (1 + 1e-3) + 0.01, "%");
      r.mpi_pct = t.number(ln, row, c_mpi, "MPI%", 100.0 * (1 + 1e-3) + 0.01, "%");
      if (c_count) r.count = t.count(ln, row, *c_count);
      if (c_cov) r.cov = t.number(ln, row, *c_cov, "COV");
      rep.aggregate.push_back(std::move(r));
    }
  }

  const section* cs = find("Callsite Time statistics");
  if (!cs)
    throw input_error(source, "",
                      "mpiP report has no \"@--- Callsite Time statistics\" section (was mpiP run with -d or -c? "
                      "the model needs per-rank callsite counts, means and minima)");
  {
    table_reader t(source, *cs);
    const auto c_name = t.required("Name");
    const auto c_site = t.required("Site");
    const auto c_rank = t.required("Rank");
    const auto c_count = t.required("Count");
    const auto c_max = t.required("Max");
    const auto c_mean = t.required("Mean");
    const auto c_min = t.required("Min");
    for (const auto& [ln, row] : cs->rows) {
      if (t.field(ln, row, c_rank, "Rank") == "*") continue;  // aggregate over ranks
      mpip_callsite_row r;
      r.call = t.field(ln, row, c_name, "Name");
      r.site = t.integer(ln, row, c_site, "Site");
      r.rank = t.integer(ln, row, c_rank, "Rank");
      r.count = t.count(ln, row, c_count);
      r.max_ms = t.number(ln, row, c_max, "Max");
      r.mean_ms = t.number(ln, row, c_mean, "Mean");
      r.min_ms = t.number(ln, row, c_min, "Min");
      if (r.count > 0 && (r.min_ms > r.mean_ms * (1 + 1e-6) + 1e-12 || r.mean_ms > r.max_ms * (1 + 1e-6) + 1e-12))
        throw input_error(source, fmt::format("line {}", ln), "need Min <= Mean <= Max");
      rep.callsites.push_back(std::move(r));
    }
  }
  if (rep.callsites.empty()) rep.warnings.push_back("the Callsite Time statistics section holds no per-rank rows");

  // Cross-check: per-site totals of the callsite section against the Aggregate Time section
  // (printed with 3 significant digits, hence the loose tolerance).
  std::map<int, double> site_ms;
  for (const auto& r : rep.callsites) site_ms[r.site] += static_cast<double>(r.count) * r.mean_ms;
  for (const auto& a : rep.aggregate) {
    auto it = site_ms.find(a.site);
    if (it == site_ms.end()) continue;
    if (std::abs(it->second - a.time_ms) > 0.05 * std::max(a.time_ms, it->second) + 0.01)
      rep.warnings.push_back(
          fmt::format("site {} ({}): Aggregate Time says {:.4g} ms, callsite statistics sum to {:.4g} ms", a.site,
                      a.call, a.time_ms, it->second));
  }
  std::map<int, double> rank_ms;
  for (const auto& r : rep.callsites) rank_ms[r.rank] += static_cast<double>(r.count) * r.mean_ms;
  for (const auto& t : rep.tasks) {
    const double sum_s = rank_ms[t.rank] * 1e-3;
    if (std::abs(sum_s - t.mpi_time_s) > 0.05 * std::max(sum_s, t.mpi_time_s) + 0.01)
      rep.warnings.push_back(fmt::format("rank {}: MPI Time says {:.4g} s, callsite statistics sum to {:.4g} s", t.rank,
                                         t.mpi_time_s, sum_s));
  }
  return rep;
}

mpip_report read_mpip_file(const std::string& path) {
  std::istringstream in(read_input_file(path, max_mpip_report_bytes, "mpiP report"));
  return parse_mpip(in, path);
}

std::vector<rank_inputs> mpip_to_inputs(const mpip_report& report, int n_core) {
  if (n_core <= 1)
    throw input_error("--cores", "",
                      fmt::format("N_core = {}; a dedicated core needs N_core >= 2 cores per node", n_core));
  std::map<int, rank_inputs> by_rank;
  for (const auto& t : report.tasks) {
    rank_inputs& r = by_rank[t.rank];
    r.rank = t.rank;
    r.n_core = n_core;
    r.t_noprogress_s = t.app_time_s;
  }
  std::map<int, std::array<bool, category_count>> seen;
  for (const auto& c : report.callsites) {
    auto it = by_rank.find(c.rank);
    if (it == by_rank.end())
      throw input_error(report.source, fmt::format("rank {}", c.rank),
                        "has callsite statistics but no row in the MPI Time section");
    const category cat = classify_mpi_call(c.call);
    category_totals& t = it->second[cat];
    auto& first = seen[c.rank];
    t.time_s += static_cast<double>(c.count) * c.mean_ms * 1e-3;
    t.count += c.count;
    if (c.count > 0) {
      const double mn = c.min_ms * 1e-3;
      t.min_s = first[static_cast<std::size_t>(cat)] ? std::min(t.min_s, mn) : mn;
      first[static_cast<std::size_t>(cat)] = true;
    }
  }
  std::vector<rank_inputs> out;
  for (auto& [rank, r] : by_rank) {
    // t_comp = AppTime − t_MPI, the decomposition of Section III-A. mpiP prints Mean with 3
    // significant digits, so t_MPI can exceed AppTime slightly: clamp at 0.
    r.t_comp_s = std::max(0.0, r.t_noprogress_s - r.t_mpi_s());
    r.t_comp_derived = true;
    out.push_back(r);
  }
  return out;
}

}  // namespace sidecore::model
