// sidecore profile: reading and validating the JSON (docs/profile-schema.md).
#include "sidecore/common/profile.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numeric>
#include <set>

#include <nlohmann/json.hpp>

#include "sidecore/common/input_error.hpp"
#include "sidecore/common/input_file.hpp"
#include "sidecore/common/input_limits.hpp"
#include "sidecore/common/json_input.hpp"

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
  return std::accumulate(cats.begin(), cats.end(), 0.0,
                         [](double s, const category_totals& t) { return s + t.time_s; });
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

  // The JSON type, and the value where it is short enough to show (a number, a boolean, a string of up to 40
  // characters): "number 1e+300", "string \"fast\"".
  static std::string type_of(const json& v) {
    if (v.is_number() || v.is_boolean() || (v.is_string() && v.get_ref<const std::string&>().size() <= 40))
      return std::string(v.type_name()) + " " + v.dump();
    return v.type_name();
  }

  const json& member(const json& obj, const std::string& path, std::string_view key) const {
    auto it = obj.find(std::string(key));
    if (it == obj.end()) fail(join(path, key), "missing (required field)");
    return *it;
  }

  void require_object(const json& v, const std::string& path) const {
    if (!v.is_object()) fail(path.empty() ? "(top level)" : path, "expected an object, got " + type_of(v));
  }

  // Calls f(element, its path) for each element of the array v at `path`, each of which must be an object; `of`
  // says in the error what the array holds (" of decisions"), or nothing.
  template <class F>
  void each_object(const json& v, const std::string& path, std::string_view of, F&& f) const {
    if (!v.is_array()) fail(path, "expected an array" + std::string(of) + ", got " + type_of(v));
    for (std::size_t i = 0; i < v.size(); ++i) {
      const std::string ep = path + "[" + std::to_string(i) + "]";
      require_object(v[i], ep);
      f(v[i], ep);
    }
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
    if (v.is_number_integer())
      fail(p, "negative size " + std::to_string(v.get<std::int64_t>()) + "; sizes must be >= 0");
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
    if (v.is_number_integer())
      fail(p, "negative count " + std::to_string(v.get<std::int64_t>()) + "; counts must be >= 0");
    fail(p, "expected a non-negative integer, got " + type_of(v));
  }

  int integer(const json& obj, const std::string& path, std::string_view key, int lo, const char* accepted) const {
    const json& v = member(obj, path, key);
    const std::string p = join(path, key);
    if (!v.is_number_integer()) fail(p, std::string("expected an integer (") + accepted + "), got " + type_of(v));
    const std::string most = ", at most " + std::to_string(std::numeric_limits<int>::max());
    if (v.is_number_unsigned() && v.get<std::uint64_t>() > std::uint64_t{std::numeric_limits<int>::max()})
      fail(p, "value " + std::to_string(v.get<std::uint64_t>()) + " out of range; accepted: " + accepted + most);
    const auto x = v.get<std::int64_t>();
    if (x < lo || x > std::numeric_limits<int>::max())
      fail(p, "value " + std::to_string(x) + " out of range; accepted: " + accepted + most);
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
      if (t.count == 0 && (t.time_s > 0 || t.min_s > 0))
        fail(join(p2, "time_s"), "no calls (count 0) but time_s " + g(t.time_s) + " s and min_s " + g(t.min_s) +
                                      " s; need 0 time without calls");
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
        fail(join(path, "schema"),
             "unknown schema \"" + schema + "\"; accepted: \"" + std::string(profile_schema_name) + "\"");
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
    if (j.contains("run")) {
      p.run = text(j, path, "run");
      if (p.run.empty())
        fail(join(path, "run"), "an empty run id; accepted: the id the writer gave the run, or no field");
    }
    p.n_core = integer(j, path, "n_core", 1, ">= 1 cores per node");
    if (auto it = j.find("host"); it != j.end() && !it->is_null()) {
      const std::string hp = join(path, "host");
      require_object(*it, hp);
      host_info h;
      h.id = text(*it, hp, "id");
      // The writer's fingerprint as docs/profile-schema.md gives it: anything else is an edited or foreign file.
      const bool hex16 = h.id.size() == 16 && std::all_of(h.id.begin(), h.id.end(), [](char c) {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
      });
      if (!hex16)
        fail(join(hp, "id"), "'" + (h.id.size() <= 40 ? h.id : h.id.substr(0, 40) + "...") +
                                 "' is not a host id; accepted: 16 hex digits (0-9, a-f), the fingerprint the writer "
                                 "gave the host");
      h.cores = integer(*it, hp, "cores", 1, ">= 1 cores");
      p.host = std::move(h);
    }
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
        each_object(*bs, join(op, "by_size"), "", [&](const json& e, const std::string& bp) {
          overlap_size_bin bin;
          bin.lo_bytes = bytes(e, bp, "lo_bytes");
          bin.hi_bytes = bytes(e, bp, "hi_bytes");
          if (bin.lo_bytes > bin.hi_bytes)
            fail(join(bp, "hi_bytes"), "upper size below lo_bytes; need lo_bytes <= hi_bytes");
          bin.bounds = bounds(e, bp);
          o.by_size.push_back(bin);
        });
      }
      read_by_op(*it, op, o);
      if (auto br = it->find("by_region"); br != it->end()) {
        each_object(*br, join(op, "by_region"), "", [&](const json& e, const std::string& rp) {
          overlap_region reg;
          reg.name = text(e, rp, "name");
          reg.bounds = bounds(e, rp);
          o.by_region.push_back(std::move(reg));
        });
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
      std::string job_run = p.run;
      for (std::size_t i = 0; i < rs.size(); ++i) {
        const std::string ep = rp + "[" + std::to_string(i) + "]";
        profile r = read(rs[i], ep, true);
        if (r.mode != p.mode)
          fail(join(ep, "mode"), "mode \"" + std::string(progress_mode_name(r.mode)) + "\" differs from the job's \"" +
                                     std::string(progress_mode_name(p.mode)) + "\"");
        if (r.nranks != p.nranks)
          fail(join(ep, "nranks"),
               std::to_string(r.nranks) + " differs from the job's nranks " + std::to_string(p.nranks));
        if (job_run.empty()) job_run = r.run;  // the job's own, else its first rank's that has one
        if (!r.run.empty() && r.run != job_run)
          fail(join(ep, "run"), "run id \"" + r.run + "\" differs from the job's \"" + job_run +
                                    "\": a job profile holds the ranks of one run");
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
    each_object(ds, dp, " of decisions", [&](const json& e, const std::string& ep) {
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
      if (auto sw = e.find("switch_s"); sw != e.end() && !sw->is_null())
        d.switch_s = seconds_value(*sw, join(ep, "switch_s"));
      if (!within(d.t_comp_s + d.t_mpi_s, d.window_s))
        fail(join(ep, "t_mpi_s"), "t_comp_s + t_mpi_s = " + g(d.t_comp_s + d.t_mpi_s) + " s is above window_s " +
                                      g(d.window_s) + " s; both are measured inside the window");
      a.decisions.push_back(std::move(d));
    });
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

  // The sections only sidecore's instrumentation writes: regions, event_clock, collectives and limits.
  void read_instrumentation_sections(const json& j, const std::string& path, profile& p) const {
    if (auto it = j.find("regions"); it != j.end() && !it->is_null()) {
      const std::string rp = join(path, "regions");
      if (!it->is_array()) fail(rp, "expected an array of regions, got " + type_of(*it));
      for (std::size_t i = 0; i < it->size(); ++i)
        p.regions.push_back(region((*it)[i], rp + "[" + std::to_string(i) + "]"));
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
    if (auto it = j.find("limits"); it != j.end() && !it->is_null()) p.limits = limits(*it, join(path, "limits"), p);
  }

  // The limits reached. Kinds are not checked against this build's list: a later writer's kind is still shown (its
  // detail); what no writer produces is refused (a count of 0, a kind listed twice, ranks in a rank profile).
  std::vector<limit_hit> limits(const json& v, const std::string& lp, const profile& p) const {
    std::vector<limit_hit> out;
    each_object(v, lp, " of the limits reached", [&](const json& e, const std::string& ep) {
      limit_hit l;
      l.limit = text(e, ep, "limit");
      if (l.limit.empty())
        fail(join(ep, "limit"), "an empty kind; accepted: \"thread_table\", \"region_paths\", \"region_depth\", "
                                "\"trace_events\", or a later writer's kind");
      l.capacity = counter(e, ep, "capacity");
      if (l.capacity == 0) fail(join(ep, "capacity"), "a limit of 0; accepted: the limit's size, >= 1");
      l.count = counter(e, ep, "count");
      if (l.count == 0)
        fail(join(ep, "count"), "0; accepted: >= 1 (a writer lists only the limits that were reached)");
      l.detail = text(e, ep, "detail");
      if (l.detail.empty()) fail(join(ep, "detail"), "an empty sentence; accepted: what went past the limit");
      if (auto rs = e.find("ranks"); rs != e.end()) {
        const std::string rp = join(ep, "ranks");
        if (p.kind != profile_kind::job)
          fail(rp, "only a job profile names the ranks that reached a limit; a rank profile's limits are its own");
        if (!rs->is_array()) fail(rp, "expected an array of ranks, got " + type_of(*rs));
        for (std::size_t k = 0; k < rs->size(); ++k) {
          const json& r = (*rs)[k];
          const std::string kp = rp + "[" + std::to_string(k) + "]";
          if (!r.is_number_integer() || r.get<std::int64_t>() < 0 || r.get<std::int64_t>() >= p.nranks)
            fail(kp, "expected a rank, 0 <= rank < nranks " + std::to_string(p.nranks) + ", got " + type_of(r));
          const int rank = r.get<int>();
          if (!l.ranks.empty() && rank <= l.ranks.back())
            fail(kp, "rank " + std::to_string(rank) + " after rank " + std::to_string(l.ranks.back()) +
                         "; accepted: ascending ranks, each once");
          l.ranks.push_back(rank);
        }
      }
      for (std::size_t k = 0; k < out.size(); ++k)
        if (out[k].limit == l.limit && out[k].capacity == l.capacity)
          fail(join(ep, "limit"), "\"" + l.limit + "\" of capacity " + std::to_string(l.capacity) +
                                      " is listed twice (also " + lp + "[" + std::to_string(k) +
                                      "]); a writer lists each limit once, with its count");
      out.push_back(std::move(l));
    });
    return out;
  }

  void read_by_op(const json& o, const std::string& op, overlap_section& out) const {
    auto bo = o.find("by_op");
    if (bo == o.end()) return;
    each_object(*bo, join(op, "by_op"), "", [&](const json& e, const std::string& ep) {
      out.by_op.push_back({text(e, ep, "op"), bounds(e, ep)});
    });
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
    each_object(kinds, bp, "", [&](const json& e, const std::string& ep) {
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
      each_object(ranks, rp, "", [&](const json& o, const std::string& op) {
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
      });
      c.by_kind.push_back(std::move(s));
    });
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
      if (c == category_count)
        fail(join(cpath, it.key()), "unknown category; accepted: blocking, init, test, wait, other");
      const std::string p2 = join(cpath, it.key());
      require_object(it.value(), p2);
      r.categories[static_cast<std::size_t>(c)] = {seconds(it.value(), p2, "time_s"), counter(it.value(), p2, "count")};
    }
    return r;
  }

 private:
  std::string source_;
};

}  // namespace

void from_json(const nlohmann::json& j, profile& p) { p = reader("").read(j, "", false); }

profile parse_profile(std::string_view text, const std::string& source) {
  const json j = parse_json_input(text, source, "finite numbers, times at most " + g(max_input_seconds) + " s");
  return reader(source).read(j, "", false);
}

profile read_profile_file(const std::string& path) {
  return parse_profile(read_input_file(path, max_profile_bytes, "profile"), path);
}

}  // namespace sidecore
