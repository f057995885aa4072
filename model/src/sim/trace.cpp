// Reading SIDECORE_TRACE files for the replay (trace.hpp).
#include "sidecore/model/sim/trace.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <map>
#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sidecore/common/input_error.hpp"
#include "sidecore/common/json_input.hpp"
#include "sidecore/common/input_file.hpp"

namespace sidecore::model::sim {

namespace {

using nlohmann::json;

bool is_call_category(std::string_view c) {
  return c == "blocking" || c == "init" || c == "test" || c == "wait" || c == "other";
}

// Field access that names the JSON path of what is missing or bad.
class reader {
 public:
  explicit reader(const std::string& source) : source_(source) {}

  [[noreturn]] void fail(const std::string& path, const std::string& what) const {
    throw input_error(source_, path, what);
  }
  const json& member(const json& o, const std::string& path, const char* key) const {
    auto it = o.find(key);
    if (it == o.end()) fail(path + "." + key, "missing");
    return *it;
  }
  std::string str(const json& o, const std::string& path, const char* key) const {
    const json& v = member(o, path, key);
    if (!v.is_string()) fail(path + "." + key, fmt::format("{} is not a string", v.dump()));
    return v.get<std::string>();
  }
  // Trace times: microseconds with ns precision, as numbers; returned in ns.
  // A time in µs, at most 1e9 s as every time of a profile: a larger one is an edited or broken trace, and would
  // carry infinities into the replay.
  double time_ns(const json& o, const std::string& path, const char* key) const {
    constexpr double max_us = 1e15;
    const json& v = member(o, path, key);
    if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0 || v.get<double>() > max_us)
      fail(path + "." + key, fmt::format("{} is not a time in µs in 0..1e15 (1e9 s)", v.dump()));
    return v.get<double>() * 1e3;
  }
  long long integer(const json& o, const std::string& path, const char* key, long long lo, long long hi) const {
    const json& v = member(o, path, key);
    if (!v.is_number_integer() || v.get<long long>() < lo || v.get<long long>() > hi)
      fail(path + "." + key, fmt::format("{} is not an integer in {}..{}", v.dump(), lo, hi));
    return v.get<long long>();
  }
  std::uint64_t hex_id(const json& o, const std::string& path, const char* key) const {
    const std::string s = str(o, path, key);
    std::uint64_t v = 0;
    if (s.size() < 3 || s.size() > 18 || s[0] != '0' || s[1] != 'x')
      fail(path + "." + key, "'" + s + "' is not a hex id 0x...");
    for (std::size_t i = 2; i < s.size(); ++i) {
      const char c = s[i];
      const int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
      if (d < 0) fail(path + "." + key, "'" + s + "' is not a hex id 0x...");
      v = v * 16 + static_cast<std::uint64_t>(d);
    }
    return v;
  }

 private:
  const std::string& source_;
};

constexpr long long max_int = 0x7fffffff;

}  // namespace

rank_trace parse_trace(std::string_view text, const std::string& source) {
  const json doc = parse_json_input(text, source);
  const reader rd(source);
  if (!doc.is_object()) rd.fail("", "not a Chrome trace object {\"traceEvents\": [...], \"otherData\": {...}}");
  const json& events = rd.member(doc, "", "traceEvents");
  if (!events.is_array()) rd.fail("traceEvents", "not an array");
  auto od = doc.find("otherData");
  if (od == doc.end() || !od->is_object() || !od->contains("producer") || (*od)["producer"] != "sidecore")
    rd.fail("otherData", "missing or not sidecore's: this is not a trace that SIDECORE_TRACE wrote");
  rank_trace t;
  t.source = source;
  if (!od->contains("ops"))
    rd.fail("otherData.ops",
            "missing: the trace has no operation records (written by a sidecore without them, or by the PMPI "
            "profiler); record it again with this sidecore's SIDECORE_TRACE");
  if (rd.str(*od, "otherData", "ops") != "sidecore-trace-ops/1")
    rd.fail("otherData.ops",
            "'" + rd.str(*od, "otherData", "ops") + "' is not a known version; accepted: sidecore-trace-ops/1");
  t.rank = static_cast<int>(rd.integer(*od, "otherData", "rank", 0, max_int - 1));
  t.nranks = static_cast<int>(rd.integer(*od, "otherData", "nranks", 1, max_int));
  if (t.rank >= t.nranks) rd.fail("otherData.rank", fmt::format("{} is not below nranks {}", t.rank, t.nranks));
  // The run's and the host's ids: optional (a sidecore without them), never empty.
  for (auto [key, id] : {std::pair{"run", &t.run}, std::pair{"host", &t.host}})
    if (od->contains(key)) {
      *id = rd.str(*od, "otherData", key);
      if (id->empty())
        rd.fail(std::string("otherData.") + key,
                fmt::format("an empty {} id; accepted: the id the writer gave the {}, or no field", key, key));
    }
  t.mode = rd.str(*od, "otherData", "mode");
  t.provider = rd.str(*od, "otherData", "provider");
  t.eager_max = static_cast<std::uint64_t>(rd.integer(*od, "otherData", "eager_max", 0, 1LL << 40));
  t.inject_size = static_cast<std::uint64_t>(rd.integer(*od, "otherData", "inject_size", 0, 1LL << 40));
  t.omp_threads = static_cast<int>(rd.integer(*od, "otherData", "omp_threads", 0, 1 << 20));
  t.origin_monotonic_ns = static_cast<std::uint64_t>(rd.integer(*od, "otherData", "origin_monotonic_ns", 0, LLONG_MAX));
  t.max_events = static_cast<std::uint64_t>(rd.integer(*od, "otherData", "max_events", 0, LLONG_MAX));
  const json& trunc = rd.member(*od, "otherData", "truncated");
  if (!trunc.is_boolean()) rd.fail("otherData.truncated", trunc.dump() + " is not true or false");
  t.truncated = trunc.get<bool>();

  // Calls per thread, and the operations with their thread.
  struct op_rec {
    long long tid;
    double ts;
    std::size_t index;  // in traceEvents, for messages
    std::optional<traced_post> post;
    std::optional<traced_done> done;
  };
  std::map<long long, std::vector<traced_call>> calls;
  std::vector<op_rec> ops;
  for (std::size_t i = 0; i < events.size(); ++i) {
    const json& e = events[i];
    const std::string path = fmt::format("traceEvents[{}]", i);
    if (!e.is_object()) rd.fail(path, "not an object");
    const std::string ph = rd.str(e, path, "ph");
    if (ph == "X") {
      auto cat = e.find("cat");
      if (cat == e.end() || !cat->is_string() || !is_call_category(cat->get<std::string>())) continue;
      traced_call c;
      c.name = rd.str(e, path, "name");
      c.category = cat->get<std::string>();
      c.t0_ns = rd.time_ns(e, path, "ts");
      c.t1_ns = c.t0_ns + rd.time_ns(e, path, "dur");
      calls[rd.integer(e, path, "tid", 0, max_int)].push_back(std::move(c));
    } else if (ph == "i" && e.contains("cat") && e["cat"] == "op") {
      op_rec r{rd.integer(e, path, "tid", 0, max_int), rd.time_ns(e, path, "ts"), i, {}, {}};
      const std::string name = rd.str(e, path, "name");
      const json& a = rd.member(e, path, "args");
      const std::string ap = path + ".args";
      if (!a.is_object()) rd.fail(ap, "not an object");
      if (name == "post_send" || name == "post_recv") {
        traced_post p;
        p.send = name == "post_send";
        p.req = rd.hex_id(a, ap, "req");
        p.world_peer = static_cast<int>(rd.integer(a, ap, "world_peer", p.send ? 0 : -1, t.nranks - 1));
        p.tag = static_cast<int>(rd.integer(a, ap, "tag", p.send ? 0 : -1, max_int));
        p.comm = static_cast<int>(rd.integer(a, ap, "comm", 0, max_int));
        p.bytes = static_cast<std::uint64_t>(rd.integer(a, ap, "bytes", 0, LLONG_MAX));
        p.proto = rd.str(a, ap, "proto");
        const bool known =
            p.send ? (p.proto == "inject" || p.proto == "eager" || p.proto == "rndv") : p.proto == "posted";
        if (!known)
          rd.fail(ap + ".proto", fmt::format("'{}' is not accepted; accepted: {}", p.proto,
                                             p.send ? "inject, eager, rndv" : "posted"));
        p.ts_ns = r.ts;
        r.post = std::move(p);
      } else if (name == "done") {
        traced_done d;
        d.req = rd.hex_id(a, ap, "req");
        d.world_source = static_cast<int>(rd.integer(a, ap, "world_source", -1, t.nranks - 1));
        d.tag = static_cast<int>(rd.integer(a, ap, "tag", -1, max_int));
        d.bytes = static_cast<std::uint64_t>(rd.integer(a, ap, "bytes", 0, LLONG_MAX));
        d.ts_ns = r.ts;
        r.done = d;
      } else {
        rd.fail(path + ".name", "'" + name + "' is not an operation record; accepted: post_send, post_recv, done");
      }
      ops.push_back(std::move(r));
    } else if (ph != "i" && ph != "b" && ph != "e" && ph != "M") {  // the other events SIDECORE_TRACE writes
      rd.fail(path + ".ph", "'" + ph + "' is not an event type SIDECORE_TRACE writes; accepted: X, i, b, e, M");
    }
  }
  if (ops.empty()) {
    // A rank that never communicated: its whole run is one computation; the calls, if any, are other calls.
    for (auto& [tid, cs] : calls)
      for (auto& c : cs) t.end_ns = std::max(t.end_ns, c.t1_ns);
    return t;
  }
  const long long tid = ops.front().tid;
  for (const op_rec& r : ops)
    if (r.tid != tid)
      rd.fail(fmt::format("traceEvents[{}].tid", r.index),
              fmt::format("operations on threads {} and {}: the replay knows one communicating thread per rank "
                          "(MPI_THREAD_FUNNELED or SERIALIZED use from one thread)",
                          tid, r.tid));
  std::vector<traced_call>& mine = calls[tid];
  std::stable_sort(mine.begin(), mine.end(),
                   [](const traced_call& a, const traced_call& b) { return a.t0_ns < b.t0_ns; });
  std::stable_sort(ops.begin(), ops.end(), [](const op_rec& a, const op_rec& b) { return a.ts < b.ts; });
  // Each operation belongs to the call whose span holds its time. The operation's time and the spans' come from
  // two readings of the clock (CLOCK_MONOTONIC, and the event clock converted to it), which can differ by tens of
  // ns: an operation just outside every span goes to the nearest within 2 µs.
  constexpr double slack_ns = 2000;
  auto distance = [](const traced_call& k, double ts) {
    return ts < k.t0_ns ? k.t0_ns - ts : ts > k.t1_ns ? ts - k.t1_ns : 0.0;
  };
  std::size_t c = 0;
  for (const op_rec& r : ops) {
    if (mine.empty())
      rd.fail(fmt::format("traceEvents[{}]", r.index),
              fmt::format("operation on thread {}, which has no call span", tid));
    while (c + 1 < mine.size() && mine[c + 1].t0_ns <= r.ts) ++c;
    const std::size_t pick = c + 1 < mine.size() && distance(mine[c + 1], r.ts) < distance(mine[c], r.ts) ? c + 1 : c;
    if (distance(mine[pick], r.ts) > slack_ns)
      rd.fail(fmt::format("traceEvents[{}]", r.index),
              fmt::format("operation at {:.3f} µs lies in no call span of thread {}", r.ts / 1e3, tid));
    if (r.post) mine[pick].posts.push_back(*r.post);
    else mine[pick].dones.push_back(*r.done);
  }
  t.calls = std::move(mine);
  for (std::size_t i = 1; i < t.calls.size(); ++i)
    if (t.calls[i].t0_ns < t.calls[i - 1].t1_ns) t.calls[i].t0_ns = t.calls[i - 1].t1_ns;  // rounding of µs
  t.end_ns = t.calls.back().t1_ns;
  return t;
}

rank_trace read_trace_file(const std::string& path) {
  return parse_trace(read_input_file(path, max_trace_bytes, "trace"), path);
}

}  // namespace sidecore::model::sim
