// sidecore profile: JSON conversion and validation (docs/profile-schema.md).
#include "sidecore/common/profile.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <numeric>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "sidecore/common/input_error.hpp"
#include "sidecore/common/input_file.hpp"
#include "sidecore/common/input_limits.hpp"
#include "sidecore/common/json_input.hpp"
#include "sidecore/common/output_file.hpp"

namespace sidecore {
namespace {

using json = nlohmann::json;

// A double as %g prints it ("1e+308", "147", "0.001"): messages quote values as the user wrote them.
std::string g(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

// a <= b up to the rounding of summed measurements.
bool within(double a, double b) { return a <= b * (1 + input_rounding) + 1e-9; }

double sum_of_times(const std::array<category_totals, category_count>& cats) {
  return std::accumulate(cats.begin(), cats.end(), 0.0, [](double s, const category_totals& t) { return s + t.time_s; });
}

// Validates while reading; every error names the source, the JSON path and what is accepted.
class reader {
 public:
  explicit reader(std::string source) : source_(std::move(source)) {}

  [[noreturn]] void fail(const std::string& path, const std::string& message) const {
    throw input_error(source_, path, message);
  }

  static std::string join(const std::string& path, std::string_view key) {
    return path.empty() ? std::string(key) : path + "." + std::string(key);
  }

  static std::string type_of(const json& v) { return v.type_name(); }

  const json& member(const json& obj, const std::string& path, std::string_view key) const {
    auto it = obj.find(std::string(key));
    if (it == obj.end()) fail(join(path, key), "missing (required field)");
    return *it;
  }

  void require_object(const json& v, const std::string& path) const {
    if (!v.is_object()) fail(path.empty() ? "(top level)" : path, "expected an object, got " + type_of(v));
  }

  double seconds(const json& obj, const std::string& path, std::string_view key) const {
    const json& v = member(obj, path, key);
    return seconds_value(v, join(path, key));
  }

  double seconds_value(const json& v, const std::string& p) const {
    if (!v.is_number()) fail(p, "expected a number of seconds, got " + type_of(v));
    const double d = v.get<double>();
    if (!std::isfinite(d)) fail(p, "must be a finite number of seconds");
    if (d < 0) fail(p, "negative time " + std::to_string(d) + " s; times must be >= 0");
    if (d > max_input_seconds)
      fail(p, "time " + g(d) + " s is beyond any run; accepted: at most " + g(max_input_seconds) + " s");
    return d;
  }

  // A rate (per second): finite, >= 0, with no bound of a run's length (a TSC counts billions a second).
  double rate(const json& obj, const std::string& path, std::string_view key) const {
    const json& v = member(obj, path, key);
    const std::string p = join(path, key);
    if (!v.is_number()) fail(p, "expected a number per second, got " + type_of(v));
    const double d = v.get<double>();
    if (!std::isfinite(d) || d < 0) fail(p, "must be a finite rate >= 0, got " + g(d));
    return d;
  }

  // A byte size: any unsigned 64-bit value (the unbounded last size bin ends at 2^64 - 1).
  std::uint64_t bytes(const json& obj, const std::string& path, std::string_view key) const {
    const json& v = member(obj, path, key);
    const std::string p = join(path, key);
    if (v.is_number_unsigned()) return v.get<std::uint64_t>();
    if (v.is_number_integer()) fail(p, "negative size " + std::to_string(v.get<std::int64_t>()) + "; sizes must be >= 0");
    fail(p, "expected a non-negative integer number of bytes, got " + type_of(v));
  }

  // A count of calls, transfers or polls: at most max_input_count, so that it is exact in the model's doubles.
  std::uint64_t counter(const json& obj, const std::string& path, std::string_view key) const {
    const json& v = member(obj, path, key);
    const std::string p = join(path, key);
    if (v.is_number_unsigned()) {
      const auto n = v.get<std::uint64_t>();
      if (n > max_input_count)
        fail(p, "count " + std::to_string(n) + " is beyond any run; accepted: at most " +
                    std::to_string(max_input_count) + " (2^53, exact in the model's arithmetic)");
      return n;
    }
    if (v.is_number_integer()) fail(p, "negative count " + std::to_string(v.get<std::int64_t>()) + "; counts must be >= 0");
    fail(p, "expected a non-negative integer, got " + type_of(v));
  }

  int integer(const json& obj, const std::string& path, std::string_view key, int lo, const char* accepted) const {
    const json& v = member(obj, path, key);
    const std::string p = join(path, key);
    if (!v.is_number_integer()) fail(p, std::string("expected an integer (") + accepted + "), got " + type_of(v));
    const auto x = v.get<std::int64_t>();
    if (x < lo || x > std::numeric_limits<int>::max())
      fail(p, "value " + std::to_string(x) + " out of range; accepted: " + accepted);
    return static_cast<int>(x);
  }

  std::string text(const json& obj, const std::string& path, std::string_view key) const {
    const json& v = member(obj, path, key);
    if (!v.is_string()) fail(join(path, key), "expected a string, got " + type_of(v));
    return v.get<std::string>();
  }

  overlap_bounds bounds(const json& v, const std::string& path) const {
    require_object(v, path);
    overlap_bounds b;
    b.min_s = seconds(v, path, "min_s");
    b.max_s = seconds(v, path, "max_s");
    b.xfer_time_s = seconds(v, path, "xfer_time_s");
    b.count = counter(v, path, "count");
    // Seed 000, Section 2.2: 0 <= min <= max <= xfer_time for every transfer, hence for sums.
    const double tol = 1e-9 * std::max(1.0, b.xfer_time_s);
    if (b.min_s > b.max_s + tol) fail(join(path, "min_s"), "lower bound exceeds max_s; need min_s <= max_s");
    if (b.max_s > b.xfer_time_s + tol)
      fail(join(path, "max_s"), "upper bound exceeds xfer_time_s; need max_s <= xfer_time_s");
    return b;
  }

  // The five categories, each {time_s, count, min_s}; unknown category names are refused.
  std::array<category_totals, category_count> categories(const json& cats, const std::string& cpath) const {
    require_object(cats, cpath);
    std::array<category_totals, category_count> out{};
    for (int c = 0; c < category_count; ++c) {
      const auto cat = static_cast<category>(c);
      const std::string name(category_name(cat));
      const std::string p2 = join(cpath, name);
      const json& v = member(cats, cpath, name);
      require_object(v, p2);
      category_totals& t = out[static_cast<std::size_t>(c)];
      t.time_s = seconds(v, p2, "time_s");
      t.count = counter(v, p2, "count");
      t.min_s = seconds(v, p2, "min_s");
      if (t.count > 0 && t.min_s > t.time_s * (1 + 1e-9))
        fail(join(p2, "min_s"), "shortest call exceeds the category's total time_s; need min_s <= time_s");
      if (!within(static_cast<double>(t.count) * t.min_s, t.time_s))
        fail(p2, std::to_string(t.count) + " calls of at least min_s " + g(t.min_s) + " s take at least " +
                     g(static_cast<double>(t.count) * t.min_s) + " s, above time_s " + g(t.time_s) +
                     " s; need count * min_s <= time_s");
    }
    for (auto it = cats.begin(); it != cats.end(); ++it) {
      bool known = false;
      for (int c = 0; c < category_count; ++c) known = known || it.key() == category_name(static_cast<category>(c));
      if (!known)
        fail(join(cpath, it.key()), "unknown category; accepted: blocking, init, test, wait, other");
    }
    return out;
  }

  profile read(const json& j, const std::string& path, bool nested) const {
    require_object(j, path);
    profile p;
    // Nested rank records inherit schema and version from the enclosing job; if present they must match.
    if (!nested || j.contains("schema")) {
      const std::string schema = text(j, path, "schema");
      if (schema != profile_schema_name)
        fail(join(path, "schema"), "unknown schema \"" + schema + "\"; accepted: \"" + std::string(profile_schema_name) + "\"");
    }
    if (!nested || j.contains("schema_version")) {
      const json& v = member(j, path, "schema_version");
      if (!v.is_number_integer() || v.get<std::int64_t>() != profile_schema_version)
        fail(join(path, "schema_version"),
             "unknown schema version " + (v.is_primitive() ? v.dump() : "(" + type_of(v) + ")") +
                 "; this build reads version " + std::to_string(profile_schema_version));
    }
    const std::string kind = text(j, path, "kind");
    if (kind == "rank") {
      p.kind = profile_kind::rank;
    } else if (kind == "job") {
      p.kind = profile_kind::job;
      if (nested) fail(join(path, "kind"), "a job profile cannot contain job profiles; accepted here: \"rank\"");
    } else {
      fail(join(path, "kind"), "unknown kind \"" + kind + "\"; accepted: \"rank\", \"job\"");
    }
    p.nranks = integer(j, path, "nranks", 1, ">= 1");
    if (p.kind == profile_kind::rank) {
      p.rank = integer(j, path, "rank", 0, ">= 0");
      if (p.rank >= p.nranks)
        fail(join(path, "rank"), "rank " + std::to_string(p.rank) + " is not below nranks " + std::to_string(p.nranks));
    }  // a job profile's own "rank" carries no meaning and is ignored
    const std::string mode = text(j, path, "mode");
    if (mode == "off") {
      p.mode = progress_mode::off;
    } else if (mode == "core") {
      p.mode = progress_mode::core;
    } else {
      fail(join(path, "mode"), "unknown mode \"" + mode + "\"; accepted: \"off\", \"core\"");
    }
    p.provider = text(j, path, "provider");
    p.n_core = integer(j, path, "n_core", 1, ">= 1 cores per node");
    p.t_total_s = seconds(j, path, "t_total_s");
    p.t_comp_s = seconds(j, path, "t_comp_s");
    if (j.contains("command")) p.command = text(j, path, "command");

    p.categories = categories(member(j, path, "categories"), join(path, "categories"));
    if (j.contains("calling_threads"))
      p.calling_threads = integer(j, path, "calling_threads", 0, ">= 0 threads (0: not recorded)");
    if (auto it = j.find("communicating_thread"); it != j.end() && !it->is_null()) {
      const std::string tp = join(path, "communicating_thread");
      require_object(*it, tp);
      p.thread_categories = categories(member(*it, tp, "categories"), join(tp, "categories"));
    }

    if (auto it = j.find("overlap"); it != j.end() && !it->is_null()) {
      const std::string op = join(path, "overlap");
      require_object(*it, op);
      overlap_section o;
      o.xfer_time_source = text(*it, op, "xfer_time_source");
      o.total = bounds(member(*it, op, "total"), join(op, "total"));
      if (auto bs = it->find("by_size"); bs != it->end()) {
        if (!bs->is_array()) fail(join(op, "by_size"), "expected an array, got " + type_of(*bs));
        for (std::size_t i = 0; i < bs->size(); ++i) {
          const std::string bp = join(op, "by_size") + "[" + std::to_string(i) + "]";
          const json& e = (*bs)[i];
          require_object(e, bp);
          overlap_size_bin bin;
          bin.lo_bytes = bytes(e, bp, "lo_bytes");
          bin.hi_bytes = bytes(e, bp, "hi_bytes");
          if (bin.lo_bytes > bin.hi_bytes) fail(join(bp, "hi_bytes"), "upper size below lo_bytes; need lo_bytes <= hi_bytes");
          bin.bounds = bounds(e, bp);
          o.by_size.push_back(bin);
        }
      }
      read_by_op(*it, op, o);
      if (auto br = it->find("by_region"); br != it->end()) {
        if (!br->is_array()) fail(join(op, "by_region"), "expected an array, got " + type_of(*br));
        for (std::size_t i = 0; i < br->size(); ++i) {
          const std::string rp = join(op, "by_region") + "[" + std::to_string(i) + "]";
          const json& e = (*br)[i];
          require_object(e, rp);
          overlap_region reg;
          reg.name = text(e, rp, "name");
          reg.bounds = bounds(e, rp);
          o.by_region.push_back(std::move(reg));
        }
      }
      p.overlap = std::move(o);
    }
    if (auto it = j.find("progress_thread"); it != j.end() && !it->is_null()) {
      const std::string pp = join(path, "progress_thread");
      require_object(*it, pp);
      progress_thread_stats s;
      s.busy_s = seconds(*it, pp, "busy_s");
      s.idle_s = seconds(*it, pp, "idle_s");
      s.polls = counter(*it, pp, "polls");
      s.completions = counter(*it, pp, "completions");
      p.progress_thread = s;
    }
    read_instrumentation_sections(j, path, p);

    if (auto it = j.find("auto"); it != j.end() && !it->is_null()) p.auto_mode = auto_mode(*it, join(path, "auto"));

    if (p.kind == profile_kind::job) {
      const std::string rp = join(path, "ranks");
      const json& rs = member(j, path, "ranks");
      if (!rs.is_array()) fail(rp, "expected an array of rank profiles, got " + type_of(rs));
      if (rs.empty()) fail(rp, "a job profile needs at least one rank profile");
      std::set<int> seen;
      for (std::size_t i = 0; i < rs.size(); ++i) {
        const std::string ep = rp + "[" + std::to_string(i) + "]";
        profile r = read(rs[i], ep, true);
        if (r.mode != p.mode)
          fail(join(ep, "mode"), "mode \"" + std::string(progress_mode_name(r.mode)) + "\" differs from the job's \"" +
                                     std::string(progress_mode_name(p.mode)) + "\"");
        if (r.nranks != p.nranks)
          fail(join(ep, "nranks"), std::to_string(r.nranks) + " differs from the job's nranks " + std::to_string(p.nranks));
        if (!seen.insert(r.rank).second) fail(join(ep, "rank"), "rank " + std::to_string(r.rank) + " appears twice");
        p.ranks.push_back(std::move(r));
      }
    } else if (j.contains("ranks")) {
      fail(join(path, "ranks"), "only a profile of kind \"job\" may hold ranks");
    }
    check_times(p, path);
    return p;
  }

  auto_section auto_mode(const json& v, const std::string& path) const {
    require_object(v, path);
    auto_section a;
    const std::string dp = join(path, "decisions");
    const json& ds = member(v, path, "decisions");
    if (!ds.is_array()) fail(dp, "expected an array of decisions, got " + type_of(ds));
    for (std::size_t i = 0; i < ds.size(); ++i) {
      const std::string ep = dp + "[" + std::to_string(i) + "]";
      const json& e = ds[i];
      require_object(e, ep);
      auto_decision d;
      d.trigger = text(e, ep, "trigger");
      if (d.trigger != "steps" && d.trigger != "time" && d.trigger != "finalize")
        fail(join(ep, "trigger"), "unknown trigger \"" + d.trigger + "\"; accepted: \"steps\", \"time\", \"finalize\"");
      d.steps = counter(e, ep, "steps");
      d.start_s = seconds(e, ep, "start_s");
      d.window_s = seconds(e, ep, "window_s");
      d.t_comp_s = seconds(e, ep, "t_comp_s");
      d.t_mpi_s = seconds(e, ep, "t_mpi_s");
      d.t_dedicated_s = seconds(e, ep, "t_dedicated_s");
      d.n_core = integer(e, ep, "n_core", 1, ">= 1 cores");
      d.job_t_noprogress_s = seconds(e, ep, "job_t_noprogress_s");
      d.job_t_dedicated_s = seconds(e, ep, "job_t_dedicated_s");
      d.slowest_rank_off = integer(e, ep, "slowest_rank_off", 0, "a rank, >= 0");
      d.slowest_rank_core = integer(e, ep, "slowest_rank_core", 0, "a rank, >= 0");
      const json& sp = member(e, ep, "speedup");
      if (!sp.is_number() || !std::isfinite(sp.get<double>()) || sp.get<double>() < 0)
        fail(join(ep, "speedup"), "expected a finite number >= 0, got " + sp.dump());
      d.speedup = sp.get<double>();
      d.verdict = text(e, ep, "verdict");
      if (d.verdict != "core" && d.verdict != "off")
        fail(join(ep, "verdict"), "unknown verdict \"" + d.verdict + "\"; accepted: \"core\", \"off\"");
      d.reason = text(e, ep, "reason");
      const json& f = member(e, ep, "forced");
      if (!f.is_boolean()) fail(join(ep, "forced"), "expected true or false, got " + type_of(f));
      d.forced = f.get<bool>();
      if (auto sw = e.find("switch_s"); sw != e.end() && !sw->is_null()) d.switch_s = seconds_value(*sw, join(ep, "switch_s"));
      if (!within(d.t_comp_s + d.t_mpi_s, d.window_s))
        fail(join(ep, "t_mpi_s"), "t_comp_s + t_mpi_s = " + g(d.t_comp_s + d.t_mpi_s) + " s is above window_s " +
                                      g(d.window_s) + " s; both are measured inside the window");
      a.decisions.push_back(std::move(d));
    }
    return a;
  }

  // What no run can produce: computation longer than the run, or more time in calls than the calling threads had.
  // A job's categories are summed over its ranks, so each rank adds its own run time to the bound.
  void check_times(const profile& p, const std::string& path) const {
    if (!within(p.t_comp_s, p.t_total_s))
      fail(join(path, "t_comp_s"), "t_comp_s " + g(p.t_comp_s) + " s is above t_total_s " + g(p.t_total_s) +
                                       " s; the computation time is measured inside the run");
    const double runs = p.kind == profile_kind::job ? static_cast<double>(p.ranks.size()) : 1.0;
    const int threads = std::max(1, p.calling_threads);
    const double sum = sum_of_times(p.categories);
    if (!within(sum, p.t_total_s * threads * runs))
      fail(join(path, "categories"),
           "the five categories sum to " + g(sum) + " s, above t_total_s " + g(p.t_total_s) + " s x " +
               std::to_string(threads) + (threads == 1 ? " calling thread" : " calling threads") +
               (runs > 1 ? " x " + g(runs) + " ranks" : std::string()) + " = " + g(p.t_total_s * threads * runs) +
               " s; a thread cannot spend more time in calls than the run lasted (calling_threads records how many "
               "threads made calls)");
    if (p.thread_categories) {
      const double own = sum_of_times(*p.thread_categories);
      if (!within(own, p.t_total_s * runs))
        fail(join(path, "communicating_thread.categories"),
             "the communicating thread's categories sum to " + g(own) + " s, above t_total_s " + g(p.t_total_s) +
                 (runs > 1 ? " s x " + g(runs) + " ranks" : std::string(" s")) +
                 "; one thread cannot spend more time in calls than the run lasted");
    }
  }

  // The sections only sidecore's instrumentation writes: regions, event_clock and collectives.
  void read_instrumentation_sections(const json& j, const std::string& path, profile& p) const {
    if (auto it = j.find("regions"); it != j.end() && !it->is_null()) {
      const std::string rp = join(path, "regions");
      if (!it->is_array()) fail(rp, "expected an array of regions, got " + type_of(*it));
      for (std::size_t i = 0; i < it->size(); ++i) p.regions.push_back(region((*it)[i], rp + "[" + std::to_string(i) + "]"));
    }
    if (auto it = j.find("event_clock"); it != j.end() && !it->is_null()) {
      const std::string cp = join(path, "event_clock");
      require_object(*it, cp);
      event_clock_info c;
      c.source = text(*it, cp, "source");
      if (it->contains("tsc_hz")) c.tsc_hz = rate(*it, cp, "tsc_hz");
      if (it->contains("note")) c.note = text(*it, cp, "note");
      p.event_clock = std::move(c);
    }
    if (auto it = j.find("collectives"); it != j.end() && !it->is_null())
      p.collectives = collectives(*it, join(path, "collectives"));
  }

  void read_by_op(const json& o, const std::string& op, overlap_section& out) const {
    auto bo = o.find("by_op");
    if (bo == o.end()) return;
    if (!bo->is_array()) fail(join(op, "by_op"), "expected an array, got " + type_of(*bo));
    for (std::size_t i = 0; i < bo->size(); ++i) {
      const std::string ep = join(op, "by_op") + "[" + std::to_string(i) + "]";
      const json& e = (*bo)[i];
      require_object(e, ep);
      out.by_op.push_back({text(e, ep, "op"), bounds(e, ep)});
    }
  }

  duration_stats stats(const json& obj, const std::string& path, std::string_view key) const {
    const std::string sp = join(path, key);
    const json& v = member(obj, path, key);
    require_object(v, sp);
    duration_stats d;
    d.count = counter(v, sp, "count");
    d.min_s = seconds(v, sp, "min_s");
    d.max_s = seconds(v, sp, "max_s");
    d.mean_s = seconds(v, sp, "mean_s");
    d.stddev_s = seconds(v, sp, "stddev_s");
    d.median_s = seconds(v, sp, "median_s");
    const double tol = 1e-9 * std::max(1.0, d.max_s);
    if (d.count > 0 && (d.min_s > d.max_s + tol || d.mean_s < d.min_s - tol || d.mean_s > d.max_s + tol ||
                        d.median_s < d.min_s - tol || d.median_s > d.max_s + tol))
      fail(sp, "need min_s <= mean_s, median_s <= max_s");
    const std::string hp = join(sp, "histogram");
    const json& h = member(v, sp, "histogram");
    if (!h.is_array()) fail(hp, "expected an array of [bin, count] pairs, got " + type_of(h));
    std::uint64_t total = 0;
    for (std::size_t i = 0; i < h.size(); ++i) {
      const std::string ep = hp + "[" + std::to_string(i) + "]";
      const json& e = h[i];
      if (!e.is_array() || e.size() != 2 || !e[0].is_number_unsigned() || !e[1].is_number_unsigned())
        fail(ep, "expected [bin, count] with two non-negative integers");
      const std::uint64_t bin = e[0].get<std::uint64_t>(), n = e[1].get<std::uint64_t>();
      if (bin > 8 * 64 || (!d.histogram.empty() && static_cast<int>(bin) <= d.histogram.back().first))
        fail(ep, "bins must be ascending integers 0..512");
      if (n > std::numeric_limits<std::uint64_t>::max() - total) fail(ep, "counts overflow");
      total += n;
      d.histogram.emplace_back(static_cast<int>(bin), n);
    }
    if (total != d.count)
      fail(hp, "the bins' counts sum to " + std::to_string(total) + ", not count " + std::to_string(d.count));
    return d;
  }

  collectives_section collectives(const json& v, const std::string& cp) const {
    require_object(v, cp);
    collectives_section c;
    const std::string kp = join(cp, "clock");
    const json& k = member(v, cp, "clock");
    require_object(k, kp);
    if (!k.contains("offset_s") || !k["offset_s"].is_number() || !std::isfinite(k["offset_s"].get<double>()))
      fail(join(kp, "offset_s"), "expected a finite number of seconds (may be negative)");
    c.clock.offset_s = k["offset_s"].get<double>();
    c.clock.bound_s = seconds(k, kp, "bound_s");
    c.clock.rtt_s = seconds(k, kp, "rtt_s");
    c.clock.method = text(k, kp, "method");
    c.sample_capacity = counter(v, cp, "sample_capacity");
    c.unmatched = counter(v, cp, "unmatched");
    const std::string bp = join(cp, "by_kind");
    const json& kinds = member(v, cp, "by_kind");
    if (!kinds.is_array()) fail(bp, "expected an array, got " + type_of(kinds));
    for (std::size_t i = 0; i < kinds.size(); ++i) {
      const std::string ep = bp + "[" + std::to_string(i) + "]";
      const json& e = kinds[i];
      require_object(e, ep);
      collective_kind_stats s;
      s.kind = text(e, ep, "kind");
      s.count = counter(e, ep, "count");
      s.bytes = counter(e, ep, "bytes");
      s.latency = stats(e, ep, "latency");
      s.sampled = counter(e, ep, "sampled");
      s.arrival_wait = stats(e, ep, "arrival_wait");
      s.departure_wait = stats(e, ep, "departure_wait");
      if (s.latency.count != s.count) fail(join(ep, "latency.count"), "differs from count");
      if (s.sampled > s.count) fail(join(ep, "sampled"), "more sampled instances than completed ones (count)");
      const std::string rp = join(ep, "ranks");
      const json& ranks = member(e, ep, "ranks");
      if (!ranks.is_array()) fail(rp, "expected an array, got " + type_of(ranks));
      for (std::size_t r = 0; r < ranks.size(); ++r) {
        const std::string op = rp + "[" + std::to_string(r) + "]";
        const json& o = ranks[r];
        require_object(o, op);
        collective_rank_order x;
        x.rank = integer(o, op, "rank", 0, ">= 0");
        x.last_arrivals = counter(o, op, "last_arrivals");
        x.first_arrivals = counter(o, op, "first_arrivals");
        x.last_departures = counter(o, op, "last_departures");
        x.first_departures = counter(o, op, "first_departures");
        x.mean_arrival_position = seconds(o, op, "mean_arrival_position");  // a finite number >= 0, as seconds are
        x.mean_departure_position = seconds(o, op, "mean_departure_position");
        x.arrival_wait_s = seconds(o, op, "arrival_wait_s");
        if (x.mean_arrival_position > 1 || x.mean_departure_position > 1)
          fail(op, "mean positions lie in [0, 1] (0: always first, 1: always last)");
        s.ranks.push_back(x);
      }
      c.by_kind.push_back(std::move(s));
    }
    return c;
  }

  region_profile region(const json& v, const std::string& path) const {
    require_object(v, path);
    region_profile r;
    r.name = text(v, path, "name");
    r.entries = counter(v, path, "entries");
    r.time_s = seconds(v, path, "time_s");
    const std::string cpath = join(path, "categories");
    const json& cats = member(v, path, "categories");
    require_object(cats, cpath);
    for (auto it = cats.begin(); it != cats.end(); ++it) {
      int c = 0;
      while (c < category_count && it.key() != category_name(static_cast<category>(c))) ++c;
      if (c == category_count) fail(join(cpath, it.key()), "unknown category; accepted: blocking, init, test, wait, other");
      const std::string p2 = join(cpath, it.key());
      require_object(it.value(), p2);
      r.categories[static_cast<std::size_t>(c)] = {seconds(it.value(), p2, "time_s"), counter(it.value(), p2, "count")};
    }
    return r;
  }

 private:
  std::string source_;
};

// The writer, for nlohmann::json (keys sorted) and ordered_json (the schema's field order, as written to files).
template <class J>
J categories_json(const std::array<category_totals, category_count>& cats) {
  J out = J::object();
  for (int c = 0; c < category_count; ++c) {
    const auto& t = cats[static_cast<std::size_t>(c)];
    out[std::string(category_name(static_cast<category>(c)))] = {{"time_s", t.time_s}, {"count", t.count}, {"min_s", t.min_s}};
  }
  return out;
}

template <class J>
J bounds_json(const overlap_bounds& b) {
  return J{{"min_s", b.min_s}, {"max_s", b.max_s}, {"xfer_time_s", b.xfer_time_s}, {"count", b.count}};
}

template <class J>
J stats_json(const duration_stats& d) {
  J h = J::array();
  for (const auto& [bin, n] : d.histogram) h.push_back(J::array({bin, n}));
  return J{{"count", d.count},   {"min_s", d.min_s},       {"max_s", d.max_s},       {"mean_s", d.mean_s},
           {"stddev_s", d.stddev_s}, {"median_s", d.median_s}, {"histogram", std::move(h)}};
}

template <class J>
J collectives_json(const collectives_section& c) {
  J kinds = J::array();
  for (const auto& k : c.by_kind) {
    J ranks = J::array();
    for (const auto& r : k.ranks) {
      ranks.push_back({{"rank", r.rank},
                       {"last_arrivals", r.last_arrivals},
                       {"first_arrivals", r.first_arrivals},
                       {"last_departures", r.last_departures},
                       {"first_departures", r.first_departures},
                       {"mean_arrival_position", r.mean_arrival_position},
                       {"mean_departure_position", r.mean_departure_position},
                       {"arrival_wait_s", r.arrival_wait_s}});
    }
    kinds.push_back({{"kind", k.kind},
                     {"count", k.count},
                     {"bytes", k.bytes},
                     {"latency", stats_json<J>(k.latency)},
                     {"sampled", k.sampled},
                     {"arrival_wait", stats_json<J>(k.arrival_wait)},
                     {"departure_wait", stats_json<J>(k.departure_wait)},
                     {"ranks", std::move(ranks)}});
  }
  return J{{"clock",
            {{"offset_s", c.clock.offset_s}, {"bound_s", c.clock.bound_s}, {"rtt_s", c.clock.rtt_s}, {"method", c.clock.method}}},
           {"sample_capacity", c.sample_capacity},
           {"unmatched", c.unmatched},
           {"by_kind", std::move(kinds)}};
}

template <class J>
J regions_json(const std::vector<region_profile>& regions) {
  J out = J::array();
  for (const auto& r : regions) {
    J cats = J::object();
    for (int c = 0; c < category_count; ++c) {
      const auto& t = r.categories[static_cast<std::size_t>(c)];
      cats[std::string(category_name(static_cast<category>(c)))] = {{"time_s", t.time_s}, {"count", t.count}};
    }
    out.push_back({{"name", r.name}, {"entries", r.entries}, {"time_s", r.time_s}, {"categories", std::move(cats)}});
  }
  return out;
}

template <class J>
void write(J& j, const profile& p, bool nested) {
  j = J::object();
  if (!nested) {
    j["schema"] = profile_schema_name;
    j["schema_version"] = profile_schema_version;
  }
  j["kind"] = profile_kind_name(p.kind);
  if (p.kind == profile_kind::rank) j["rank"] = p.rank;
  j["nranks"] = p.nranks;
  j["mode"] = progress_mode_name(p.mode);
  j["provider"] = p.provider;
  j["n_core"] = p.n_core;
  j["t_total_s"] = p.t_total_s;
  j["t_comp_s"] = p.t_comp_s;
  if (!p.command.empty()) j["command"] = p.command;
  j["categories"] = categories_json<J>(p.categories);
  if (p.calling_threads > 0) j["calling_threads"] = p.calling_threads;
  if (p.thread_categories) j["communicating_thread"] = {{"categories", categories_json<J>(*p.thread_categories)}};
  if (p.overlap) {
    J o = {{"xfer_time_source", p.overlap->xfer_time_source}, {"total", bounds_json<J>(p.overlap->total)}};
    J bs = J::array();
    for (const auto& b : p.overlap->by_size) {
      J e = bounds_json<J>(b.bounds);
      e["lo_bytes"] = b.lo_bytes;
      e["hi_bytes"] = b.hi_bytes;
      bs.push_back(std::move(e));
    }
    o["by_size"] = std::move(bs);
    J br = J::array();
    for (const auto& r : p.overlap->by_region) {
      J e = bounds_json<J>(r.bounds);
      e["name"] = r.name;
      br.push_back(std::move(e));
    }
    o["by_region"] = std::move(br);
    J bo = J::array();
    for (const auto& x : p.overlap->by_op) {
      J e = bounds_json<J>(x.bounds);
      e["op"] = x.op;
      bo.push_back(std::move(e));
    }
    o["by_op"] = std::move(bo);
    j["overlap"] = std::move(o);
  }
  j["regions"] = regions_json<J>(p.regions);
  if (p.event_clock) {
    J c = {{"source", p.event_clock->source}};
    if (p.event_clock->tsc_hz > 0) c["tsc_hz"] = p.event_clock->tsc_hz;
    if (!p.event_clock->note.empty()) c["note"] = p.event_clock->note;
    j["event_clock"] = std::move(c);
  }
  if (p.progress_thread) {
    const auto& s = *p.progress_thread;
    j["progress_thread"] = {{"busy_s", s.busy_s}, {"idle_s", s.idle_s}, {"polls", s.polls}, {"completions", s.completions}};
  }
  if (p.collectives) j["collectives"] = collectives_json<J>(*p.collectives);
  if (p.auto_mode) {
    json section;  // one writer of the section, for both JSON flavours
    to_json(section, *p.auto_mode);
    j["auto"] = J::parse(section.dump());
  }
  if (p.kind == profile_kind::job) {
    J rs = J::array();
    for (const auto& r : p.ranks) {
      J e;
      write(e, r, true);
      rs.push_back(std::move(e));
    }
    j["ranks"] = std::move(rs);
  }
}

// Operation kinds in the order the instrumentation writes them (instrument/include/sidecore/instrument/op_kind.hpp);
// others (written by a later version) after them.
std::size_t op_order(const std::string& op) {
  static constexpr std::string_view order[] = {"p2p",        "barrier",  "bcast",    "reduce",
                                               "allreduce",  "gather",   "scatter",  "allgather",
                                               "alltoall",   "reduce_scatter_block", "allgatherv", "alltoallv"};
  for (std::size_t i = 0; i < std::size(order); ++i)
    if (order[i] == op) return i;
  return std::size(order);
}

void merge_collectives(std::optional<collectives_section>& into, const collectives_section& from) {
  if (!into) {
    into = from;
    return;
  }
  if (from.clock.bound_s > into->clock.bound_s) into->clock = from.clock;
  into->sample_capacity = std::max(into->sample_capacity, from.sample_capacity);
  into->unmatched += from.unmatched;
  for (const auto& k : from.by_kind) {
    auto it = std::find_if(into->by_kind.begin(), into->by_kind.end(),
                           [&](const collective_kind_stats& x) { return x.kind == k.kind; });
    if (it == into->by_kind.end()) {
      into->by_kind.push_back(k);
      continue;
    }
    it->count += k.count;
    it->bytes += k.bytes;
    it->sampled += k.sampled;
    merge_duration_stats(it->latency, k.latency);
    merge_duration_stats(it->arrival_wait, k.arrival_wait);
    merge_duration_stats(it->departure_wait, k.departure_wait);
    it->ranks.insert(it->ranks.end(), k.ranks.begin(), k.ranks.end());
  }
}

// Whether `sources` ("a; b; c", as the merge joins them) already names `one`.
bool contains_source(const std::string& sources, const std::string& one) {
  for (std::size_t pos = 0;;) {
    const std::size_t end = sources.find("; ", pos);
    if (sources.compare(pos, end == std::string::npos ? std::string::npos : end - pos, one) == 0) return true;
    if (end == std::string::npos) return false;
    pos = end + 2;
  }
}

void add_bounds(overlap_bounds& into, const overlap_bounds& b) {
  into.min_s += b.min_s;
  into.max_s += b.max_s;
  into.xfer_time_s += b.xfer_time_s;
  into.count += b.count;
}

// Whether text[i] opens an array of exactly two unsigned integers as dump(2) writes it ("[\n  183,\n  2\n]"): their
// offsets and the end. The raw newline after '[' is what tells such an array from text inside a string, where a
// newline is always escaped.
bool pair_at(const std::string& text, std::size_t i, std::size_t& a, std::size_t& b, std::size_t& end) {
  if (i + 1 >= text.size() || text[i + 1] != '\n') return false;
  const auto skip = [&](std::size_t k) { return text.find_first_not_of(" \n", k); };
  const auto digit = [&](std::size_t k) { return k < text.size() && std::isdigit(static_cast<unsigned char>(text[k])); };
  a = skip(i + 1);
  if (!digit(a)) return false;
  std::size_t k = text.find_first_not_of("0123456789", a);
  if (k == std::string::npos || text[k] != ',') return false;
  b = skip(k + 1);
  if (!digit(b)) return false;
  k = skip(text.find_first_not_of("0123456789", b));
  if (k == std::string::npos || text[k] != ']') return false;
  end = k + 1;
  return true;
}

}  // namespace

double duration_bin_lower_ns(int b) noexcept {
  if (b <= 0) return 0.0;
  return std::ldexp(1.0 + static_cast<double>((b - 1) % 8) / 8.0, (b - 1) / 8);
}

double histogram_median_s(const duration_stats& s) noexcept {
  if (s.count == 0) return 0.0;
  const std::uint64_t target = (s.count - 1) / 2;  // the lower median's index
  std::uint64_t seen = 0;
  for (const auto& [bin, n] : s.histogram) {
    if (seen + n > target) {
      const double lo = duration_bin_lower_ns(bin), hi = bin == 0 ? 1.0 : duration_bin_lower_ns(bin + 1);
      return std::clamp((lo + hi) * 0.5e-9, s.min_s, s.max_s);
    }
    seen += n;
  }
  return s.max_s;
}

void merge_duration_stats(duration_stats& into, const duration_stats& from) {
  if (from.count == 0) return;
  if (into.count == 0) {
    into = from;
    return;
  }
  // Chan et al.'s pairwise update of the mean and the sum of squared deviations.
  const double na = static_cast<double>(into.count), nb = static_cast<double>(from.count), n = na + nb;
  const double delta = from.mean_s - into.mean_s;
  const double m2 = into.stddev_s * into.stddev_s * na + from.stddev_s * from.stddev_s * nb + delta * delta * na * nb / n;
  into.mean_s += delta * nb / n;
  into.stddev_s = std::sqrt(std::max(0.0, m2 / n));
  into.count += from.count;
  into.min_s = std::min(into.min_s, from.min_s);
  into.max_s = std::max(into.max_s, from.max_s);
  std::vector<std::pair<int, std::uint64_t>> h;
  h.reserve(into.histogram.size() + from.histogram.size());
  auto a = into.histogram.cbegin();
  auto b = from.histogram.cbegin();
  const auto a_end = into.histogram.cend(), b_end = from.histogram.cend();
  while (a != a_end || b != b_end) {
    if (b == b_end || (a != a_end && a->first < b->first)) {
      h.push_back(*a++);
    } else if (a == a_end || b->first < a->first) {
      h.push_back(*b++);
    } else {
      h.emplace_back(a->first, a->second + b->second);
      ++a;
      ++b;
    }
  }
  into.histogram = std::move(h);
  into.median_s = histogram_median_s(into);
}

void to_json(json& j, const auto_section& a) {
  json ds = json::array();
  for (const auto_decision& d : a.decisions) {
    json e = {{"trigger", d.trigger},
              {"steps", d.steps},
              {"start_s", d.start_s},
              {"window_s", d.window_s},
              {"t_comp_s", d.t_comp_s},
              {"t_mpi_s", d.t_mpi_s},
              {"t_dedicated_s", d.t_dedicated_s},
              {"n_core", d.n_core},
              {"job_t_noprogress_s", d.job_t_noprogress_s},
              {"job_t_dedicated_s", d.job_t_dedicated_s},
              {"slowest_rank_off", d.slowest_rank_off},
              {"slowest_rank_core", d.slowest_rank_core},
              {"speedup", d.speedup},
              {"verdict", d.verdict},
              {"reason", d.reason},
              {"forced", d.forced}};
    if (d.switch_s) e["switch_s"] = *d.switch_s;
    ds.push_back(std::move(e));
  }
  j = json{{"decisions", std::move(ds)}};
}

std::string_view profile_kind_name(profile_kind k) noexcept { return k == profile_kind::job ? "job" : "rank"; }
std::string_view progress_mode_name(progress_mode m) noexcept { return m == progress_mode::core ? "core" : "off"; }

void to_json(nlohmann::json& j, const profile& p) { write(j, p, false); }
void to_json(nlohmann::ordered_json& j, const profile& p) { write(j, p, false); }

std::string format_profile(const profile& p) {
  nlohmann::ordered_json j;
  write(j, p, false);
  const std::string text = j.dump(2);
  // Histogram pairs on one line each ("[183, 2]"), not four: dump() gives every array element a line of its own.
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    std::size_t a = 0, b = 0, end = 0;
    if (text[i] == '[' && pair_at(text, i, a, b, end)) {
      out += "[" + text.substr(a, text.find_first_not_of("0123456789", a) - a) + ", " +
             text.substr(b, text.find_first_not_of("0123456789", b) - b) + "]";
      i = end;
    } else {
      out += text[i++];
    }
  }
  return out + "\n";
}

void from_json(const nlohmann::json& j, profile& p) { p = reader("").read(j, "", false); }

profile parse_profile(std::string_view text, const std::string& source) {
  const json j = parse_json_input(text, source, "finite numbers, times at most " + g(max_input_seconds) + " s");
  return reader(source).read(j, "", false);
}

profile read_profile_file(const std::string& path) {
  return parse_profile(read_input_file(path, max_profile_bytes, "profile"), path);
}

void write_profile_file(const std::string& path, const profile& p) {
  try {
    (void)write_output_file(path, format_profile(p));
  } catch (const output_error& e) {
    throw input_error(path, "", "cannot write profile: " + e.reason());
  }
}

profile make_job_profile(std::vector<profile> ranks) {
  if (ranks.empty()) throw input_error("make_job_profile", "ranks", "no rank profiles given");
  // Checked in the caller's order, so that an error names the input by its position.
  std::map<int, std::size_t> seen;  // rank -> input position
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    const profile& r = ranks[i];
    const std::string where = "ranks[" + std::to_string(i) + "]";
    if (r.kind != profile_kind::rank) throw input_error("make_job_profile", where + ".kind", "expected a rank profile");
    if (r.mode != ranks.front().mode)
      throw input_error("make_job_profile", where + ".mode",
                        "mode \"" + std::string(progress_mode_name(r.mode)) + "\" differs from ranks[0]'s \"" +
                            std::string(progress_mode_name(ranks.front().mode)) + "\": a job profile does not mix modes");
    if (auto [it, fresh] = seen.emplace(r.rank, i); !fresh)
      throw input_error("make_job_profile", where + ".rank",
                        "rank " + std::to_string(r.rank) + " appears twice (also ranks[" + std::to_string(it->second) + "])");
  }
  std::sort(ranks.begin(), ranks.end(), [](const profile& a, const profile& b) { return a.rank < b.rank; });
  profile job;
  job.kind = profile_kind::job;
  job.rank = 0;
  job.mode = ranks.front().mode;
  job.provider = ranks.front().provider;
  job.command = ranks.front().command;
  job.nranks = ranks.front().nranks;
  job.n_core = ranks.front().n_core;
  job.auto_mode = ranks.front().auto_mode;  // the verdicts are collective: every rank has the same ones
  bool first_min[category_count];
  std::fill(std::begin(first_min), std::end(first_min), true);
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    const profile& r = ranks[i];
    job.nranks = std::max(job.nranks, r.nranks);
    job.n_core = std::max(job.n_core, r.n_core);
    job.t_total_s = std::max(job.t_total_s, r.t_total_s);
    job.t_comp_s = std::max(job.t_comp_s, r.t_comp_s);
    for (int c = 0; c < category_count; ++c) {
      auto& into = job.categories[static_cast<std::size_t>(c)];
      const auto& from = r.categories[static_cast<std::size_t>(c)];
      into.time_s += from.time_s;
      into.count += from.count;
      if (from.count > 0) {
        into.min_s = first_min[c] ? from.min_s : std::min(into.min_s, from.min_s);
        first_min[c] = false;
      }
    }
    job.calling_threads = std::max(job.calling_threads, r.calling_threads);
    // The communicating threads' totals are summed as the categories are, and kept only when every rank has them.
    if (i == 0) job.thread_categories = r.thread_categories;
    else if (!r.thread_categories) job.thread_categories.reset();
    else if (job.thread_categories)
      for (std::size_t c = 0; c < category_count; ++c) {
        auto& into = (*job.thread_categories)[c];
        const auto& from = (*r.thread_categories)[c];
        into.min_s = into.count == 0 ? from.min_s : from.count == 0 ? into.min_s : std::min(into.min_s, from.min_s);
        into.time_s += from.time_s;
        into.count += from.count;
      }
    if (r.overlap) {
      if (!job.overlap) {
        job.overlap = overlap_section{};
        job.overlap->xfer_time_source = r.overlap->xfer_time_source;
      } else if (!contains_source(job.overlap->xfer_time_source, r.overlap->xfer_time_source)) {
        job.overlap->xfer_time_source += "; " + r.overlap->xfer_time_source;
      }
      add_bounds(job.overlap->total, r.overlap->total);
      for (const auto& b : r.overlap->by_size) {
        auto it = std::find_if(job.overlap->by_size.begin(), job.overlap->by_size.end(), [&](const overlap_size_bin& x) {
          return x.lo_bytes == b.lo_bytes && x.hi_bytes == b.hi_bytes;
        });
        if (it == job.overlap->by_size.end()) job.overlap->by_size.push_back(b);
        else add_bounds(it->bounds, b.bounds);
      }
      for (const auto& x : r.overlap->by_op) {
        auto it = std::find_if(job.overlap->by_op.begin(), job.overlap->by_op.end(),
                               [&](const overlap_op& y) { return y.op == x.op; });
        if (it == job.overlap->by_op.end()) job.overlap->by_op.push_back(x);
        else add_bounds(it->bounds, x.bounds);
      }
      for (const auto& g : r.overlap->by_region) {
        auto it = std::find_if(job.overlap->by_region.begin(), job.overlap->by_region.end(),
                               [&](const overlap_region& x) { return x.name == g.name; });
        if (it == job.overlap->by_region.end()) job.overlap->by_region.push_back(g);
        else add_bounds(it->bounds, g.bounds);
      }
    }
    for (const auto& g : r.regions) {
      auto it = std::find_if(job.regions.begin(), job.regions.end(),
                             [&](const region_profile& x) { return x.name == g.name; });
      if (it == job.regions.end()) {
        job.regions.push_back(g);
        continue;
      }
      it->entries += g.entries;
      it->time_s += g.time_s;
      for (std::size_t c = 0; c < category_count; ++c) {
        it->categories[c].time_s += g.categories[c].time_s;
        it->categories[c].count += g.categories[c].count;
      }
    }
    if (r.collectives) merge_collectives(job.collectives, *r.collectives);
    if (r.progress_thread) {
      if (!job.progress_thread) job.progress_thread = progress_thread_stats{};
      job.progress_thread->busy_s += r.progress_thread->busy_s;
      job.progress_thread->idle_s += r.progress_thread->idle_s;
      job.progress_thread->polls += r.progress_thread->polls;
      job.progress_thread->completions += r.progress_thread->completions;
    }
  }
  if (job.overlap) {
    std::sort(job.overlap->by_size.begin(), job.overlap->by_size.end(),
              [](const overlap_size_bin& a, const overlap_size_bin& b) { return a.lo_bytes < b.lo_bytes; });
    std::sort(job.overlap->by_region.begin(), job.overlap->by_region.end(),
              [](const overlap_region& a, const overlap_region& b) { return a.name < b.name; });
    std::stable_sort(job.overlap->by_op.begin(), job.overlap->by_op.end(),
                     [](const overlap_op& a, const overlap_op& b) { return op_order(a.op) < op_order(b.op); });
  }
  if (job.collectives) {
    auto& kinds = job.collectives->by_kind;
    std::stable_sort(kinds.begin(), kinds.end(), [](const collective_kind_stats& a, const collective_kind_stats& b) {
      return op_order(a.kind) < op_order(b.kind);
    });
    for (auto& k : kinds)
      std::sort(k.ranks.begin(), k.ranks.end(),
                [](const collective_rank_order& a, const collective_rank_order& b) { return a.rank < b.rank; });
  }
  std::sort(job.regions.begin(), job.regions.end(),
            [](const region_profile& a, const region_profile& b) { return a.name < b.name; });
  for (auto& r : ranks) r.nranks = job.nranks;
  job.ranks = std::move(ranks);
  return job;
}

}  // namespace sidecore
