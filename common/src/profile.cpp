// sidecore profile: JSON conversion and validation (docs/profile-schema.md).
#include "sidecore/common/profile.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <numeric>
#include <set>

#include <nlohmann/json.hpp>

#include "sidecore/common/input_error.hpp"
#include "sidecore/common/input_file.hpp"
#include "sidecore/common/input_limits.hpp"

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

// Finds where in the document a parse error happened: nlohmann's DOM parser reports only a byte offset, and for a
// number beyond a double's range (1e400) not even that. Run only after the DOM parse failed.
class json_path_tracker final : public nlohmann::json_sax<json> {
 public:
  bool null() override { return value(); }
  bool boolean(bool) override { return value(); }
  bool number_integer(number_integer_t) override { return value(); }
  bool number_unsigned(number_unsigned_t) override { return value(); }
  bool number_float(number_float_t, const string_t&) override { return value(); }
  bool string(string_t&) override { return value(); }
  bool binary(binary_t&) override { return value(); }
  bool start_object(std::size_t) override { return open(false); }
  bool key(string_t& k) override {
    stack_.back().key = k;
    return true;
  }
  bool end_object() override { return close(); }
  bool start_array(std::size_t) override { return open(true); }
  bool end_array() override { return close(); }
  bool parse_error(std::size_t, const std::string& token, const nlohmann::detail::exception& e) override {
    token_ = token;
    id_ = e.id;
    return false;
  }

  /// The JSON path of the value being read when the error came ("categories.wait.count", "ranks[1].rank"); the
  /// middle of a path deeper than any profile's is left out, so that the message stays short.
  [[nodiscard]] std::string path() const {
    constexpr std::size_t shown = 16;
    std::string p;
    for (std::size_t i = 0; i < stack_.size(); ++i) {
      if (stack_.size() > 2 * shown && i == shown) {
        p += "...(" + std::to_string(stack_.size() - 2 * shown) + " levels)...";
        i = stack_.size() - shown;
      }
      const frame& f = stack_[i];
      if (f.array) p += "[" + std::to_string(f.index) + "]";
      else if (!f.key.empty()) p += (p.empty() ? "" : ".") + f.key;
    }
    return p;
  }
  [[nodiscard]] const std::string& token() const noexcept { return token_; }
  [[nodiscard]] int id() const noexcept { return id_; }

 private:
  struct frame {
    bool array = false;
    std::size_t index = 0;  // arrays: elements completed, i.e. the index of the one being read
    std::string key;        // objects: the last key read
  };
  bool value() {
    if (!stack_.empty() && stack_.back().array) ++stack_.back().index;
    return true;
  }
  bool open(bool array) {
    stack_.push_back(frame{array, 0, {}});
    return true;
  }
  bool close() {
    stack_.pop_back();
    return value();
  }
  std::vector<frame> stack_;
  std::string token_;
  int id_ = 0;
};

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

 private:
  std::string source_;
};

json categories_json(const std::array<category_totals, category_count>& cats) {
  json out = json::object();
  for (int c = 0; c < category_count; ++c) {
    const auto& t = cats[static_cast<std::size_t>(c)];
    out[std::string(category_name(static_cast<category>(c)))] = {{"time_s", t.time_s}, {"count", t.count}, {"min_s", t.min_s}};
  }
  return out;
}

json bounds_json(const overlap_bounds& b) {
  return json{{"min_s", b.min_s}, {"max_s", b.max_s}, {"xfer_time_s", b.xfer_time_s}, {"count", b.count}};
}

void write(json& j, const profile& p, bool nested) {
  j = json::object();
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
  j["categories"] = categories_json(p.categories);
  if (p.calling_threads > 0) j["calling_threads"] = p.calling_threads;
  if (p.thread_categories) j["communicating_thread"] = {{"categories", categories_json(*p.thread_categories)}};
  if (p.overlap) {
    json o = {{"xfer_time_source", p.overlap->xfer_time_source}, {"total", bounds_json(p.overlap->total)}};
    json bs = json::array();
    for (const auto& b : p.overlap->by_size) {
      json e = bounds_json(b.bounds);
      e["lo_bytes"] = b.lo_bytes;
      e["hi_bytes"] = b.hi_bytes;
      bs.push_back(std::move(e));
    }
    o["by_size"] = std::move(bs);
    json br = json::array();
    for (const auto& r : p.overlap->by_region) {
      json e = bounds_json(r.bounds);
      e["name"] = r.name;
      br.push_back(std::move(e));
    }
    o["by_region"] = std::move(br);
    j["overlap"] = std::move(o);
  }
  if (p.progress_thread) {
    const auto& s = *p.progress_thread;
    j["progress_thread"] = {{"busy_s", s.busy_s}, {"idle_s", s.idle_s}, {"polls", s.polls}, {"completions", s.completions}};
  }
  if (p.auto_mode) to_json(j["auto"], *p.auto_mode);
  if (p.kind == profile_kind::job) {
    json rs = json::array();
    for (const auto& r : p.ranks) {
      json e;
      write(e, r, true);
      rs.push_back(std::move(e));
    }
    j["ranks"] = std::move(rs);
  }
}

void add_bounds(overlap_bounds& into, const overlap_bounds& b) {
  into.min_s += b.min_s;
  into.max_s += b.max_s;
  into.xfer_time_s += b.xfer_time_s;
  into.count += b.count;
}

}  // namespace

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

void from_json(const nlohmann::json& j, profile& p) { p = reader("").read(j, "", false); }

profile parse_profile(std::string_view text, const std::string& source) {
  json j;
  try {
    j = json::parse(text.begin(), text.end());
  } catch (const json::exception& e) {
    json_path_tracker where;
    (void)json::sax_parse(text.begin(), text.end(), &where);
    // nlohmann's out_of_range 406: a number beyond a double (1e400, -1e999).
    if (where.id() == 406)
      throw input_error(source, where.path(),
                        "number " + where.token() + " is not a finite number (beyond the range of a double); "
                        "accepted: finite numbers, times at most " + g(max_input_seconds) + " s");
    // e.what() carries nlohmann's description with the byte offset.
    const std::string at = where.path().empty() ? std::string() : " (in " + where.path() + ")";
    throw input_error(source, "", "malformed JSON" + at + ": " + e.what());
  }
  return reader(source).read(j, "", false);
}

profile read_profile_file(const std::string& path) {
  return parse_profile(read_input_file(path, max_profile_bytes, "profile"), path);
}

void write_profile_file(const std::string& path, const profile& p) {
  json j;
  to_json(j, p);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw input_error(path, "", std::string("cannot write profile: ") + std::strerror(errno));
  out << j.dump(2) << '\n';
  out.flush();
  if (!out) throw input_error(path, "", "write error (disk full?)");
}

profile make_job_profile(std::vector<profile> ranks) {
  if (ranks.empty()) throw input_error("make_job_profile", "ranks", "no rank profiles given");
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
    const std::string where = "ranks[" + std::to_string(i) + "]";
    if (r.kind != profile_kind::rank) throw input_error("make_job_profile", where + ".kind", "expected a rank profile");
    if (r.mode != job.mode) throw input_error("make_job_profile", where + ".mode", "ranks mix modes off and core");
    if (i > 0 && r.rank == ranks[i - 1].rank)
      throw input_error("make_job_profile", where + ".rank", "rank " + std::to_string(r.rank) + " appears twice");
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
      }
      add_bounds(job.overlap->total, r.overlap->total);
      for (const auto& b : r.overlap->by_size) {
        auto it = std::find_if(job.overlap->by_size.begin(), job.overlap->by_size.end(), [&](const overlap_size_bin& x) {
          return x.lo_bytes == b.lo_bytes && x.hi_bytes == b.hi_bytes;
        });
        if (it == job.overlap->by_size.end()) job.overlap->by_size.push_back(b);
        else add_bounds(it->bounds, b.bounds);
      }
      for (const auto& g : r.overlap->by_region) {
        auto it = std::find_if(job.overlap->by_region.begin(), job.overlap->by_region.end(),
                               [&](const overlap_region& x) { return x.name == g.name; });
        if (it == job.overlap->by_region.end()) job.overlap->by_region.push_back(g);
        else add_bounds(it->bounds, g.bounds);
      }
    }
    if (r.progress_thread) {
      if (!job.progress_thread) job.progress_thread = progress_thread_stats{};
      job.progress_thread->busy_s += r.progress_thread->busy_s;
      job.progress_thread->idle_s += r.progress_thread->idle_s;
      job.progress_thread->polls += r.progress_thread->polls;
      job.progress_thread->completions += r.progress_thread->completions;
    }
  }
  if (job.overlap)
    std::sort(job.overlap->by_size.begin(), job.overlap->by_size.end(),
              [](const overlap_size_bin& a, const overlap_size_bin& b) { return a.lo_bytes < b.lo_bytes; });
  for (auto& r : ranks) r.nranks = job.nranks;
  job.ranks = std::move(ranks);
  return job;
}

}  // namespace sidecore
