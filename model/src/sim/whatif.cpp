// The trace-driven what-if (whatif.hpp; docs/simulate.md "Trace-driven what-if").
#include "sidecore/model/sim/whatif.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <tuple>
#include <unordered_map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "sidecore/common/input_error.hpp"
#include "sidecore/common/schedule.hpp"

namespace sidecore::model::sim {

const char* scenario_name(scenario s) noexcept {
  switch (s) {
    case scenario::in_calls: return "progress in calls";
    case scenario::dedicated_core: return "dedicated core";
    case scenario::ideal_overlap: return "ideal overlap";
  }
  return "?";
}

namespace {

struct post_ref {
  std::uint32_t call, post;
};

std::string where(const rank_trace& t, std::uint32_t call) {
  const traced_call& c = t.calls[call];
  return fmt::format("rank {} call {} ({} at {:.3f} µs)", t.rank, call, c.name, c.t0_ns / 1e3);
}

// Completed posts of every rank: which done completed which post (requests are numbered by handle, and a handle is
// reused once its request is consumed, so a done belongs to the latest post of that handle still open).
// Whether a call is one of sidecore's collectives (blocking, nonblocking or persistent: "sidecore::allreduce",
// "sidecore::iallreduce", "sidecore::allreduce_init").
bool is_collective_call(const std::string& name) {
  constexpr std::string_view prefix = "sidecore::";
  if (name.rfind(prefix, 0) != 0) return false;
  std::string_view k = std::string_view(name).substr(prefix.size());
  if (k.size() > 5 && k.substr(k.size() - 5) == "_init") k.remove_suffix(5);
  for (int i = 0; i < coll::kind_count; ++i) {
    const std::string_view n = coll::kind_name(static_cast<coll::kind>(i));
    if (k == n || (k.size() == n.size() + 1 && k.front() == 'i' && k.substr(1) == n)) return true;
  }
  return false;
}

void link_dones(linked_traces& lt, std::vector<std::vector<std::vector<const traced_done*>>>& done_of_post) {
  for (rank_trace& t : lt.ranks) {
    const bool collectives = std::any_of(t.calls.begin(), t.calls.end(),
                                         [](const traced_call& c) { return is_collective_call(c.name); });
    std::size_t untraced = 0;
    auto& pod = lt.post_of_done.emplace_back(t.calls.size());
    auto& dop = done_of_post.emplace_back(t.calls.size());
    std::unordered_map<std::uint64_t, post_ref> open;
    for (std::uint32_t i = 0; i < t.calls.size(); ++i) {
      traced_call& c = t.calls[i];
      dop[i].assign(c.posts.size(), nullptr);
      for (std::uint32_t q = 0; q < c.posts.size(); ++q) open[c.posts[q].req] = {i, q};
      // A collective's completion (its start is not traced): out of the replay, the call keeps its measured time.
      if (collectives) {
        const auto before = c.dones.size();
        std::erase_if(c.dones, [&](const traced_done& d) { return !open.contains(d.req); });
        if (c.dones.size() != before) {
          c.untraced = true;
          untraced += before - c.dones.size();
        }
      }
      for (const traced_done& d : c.dones) {
        auto it = open.find(d.req);
        if (it == open.end())
          throw input_error(
              t.source, "",
              fmt::format("{} completed request 0x{:x}, which no call of this trace started", where(t, i), d.req));
        pod[i].emplace_back(it->second.call, it->second.post);
        dop[it->second.call][it->second.post] = &d;
        open.erase(it);
      }
    }
    if (untraced)
      lt.warnings.push_back(fmt::format("{}: {} completion(s) of sidecore collectives: their messages are not in the "
                                        "trace; each call that completed one replays as its measured time",
                                        t.source, untraced));
  }
}

}  // namespace

linked_traces link_traces(std::vector<rank_trace> traces) {
  if (traces.empty()) throw input_error("", "", "no trace given; pass one trace file per rank");
  const int n = traces.front().nranks;
  std::vector<int> seen(static_cast<std::size_t>(n), -1);
  for (std::size_t i = 0; i < traces.size(); ++i) {
    const rank_trace& t = traces[i];
    if (t.truncated)
      throw input_error(t.source, "otherData.truncated",
                        fmt::format("the trace was cut at SIDECORE_TRACE_MAX_EVENTS = {}: a replay would simulate a "
                                    "shorter run; record it again with a larger SIDECORE_TRACE_MAX_EVENTS",
                                    t.max_events));
    if (t.nranks != n)
      throw input_error(t.source, "otherData.nranks",
                        fmt::format("{} ranks, but {} has {}: the traces are not of one run", t.nranks,
                                    traces.front().source, n));
    if (seen[static_cast<std::size_t>(t.rank)] >= 0)
      throw input_error(t.source, "otherData.rank",
                        fmt::format("rank {} is also {}", t.rank,
                                    traces[static_cast<std::size_t>(seen[static_cast<std::size_t>(t.rank)])].source));
    seen[static_cast<std::size_t>(t.rank)] = static_cast<int>(i);
  }
  std::vector<std::string> missing;
  for (int r = 0; r < n; ++r)
    if (seen[static_cast<std::size_t>(r)] < 0) missing.push_back(std::to_string(r));
  if (!missing.empty())
    throw input_error(traces.front().source, "",
                      fmt::format("the run had {} ranks; no trace given for rank(s) {}", n, fmt::join(missing, ", ")));
  std::sort(traces.begin(), traces.end(), [](const rank_trace& a, const rank_trace& b) { return a.rank < b.rank; });

  linked_traces lt;
  lt.ranks = std::move(traces);
  lt.run = lt.ranks.front().run;
  for (const rank_trace& t : lt.ranks)
    if (t.run != lt.run)
      throw input_error(t.source, "otherData.run",
                        fmt::format("{}, but {} is {}: the traces are not of one run",
                                    t.run.empty() ? "no run id" : "run id \"" + t.run + "\"", lt.ranks.front().source,
                                    lt.run.empty() ? "of no run id" : "of run \"" + lt.run + "\""));
  // A common time origin: the ranks' CLOCK_MONOTONIC origins, when the traces name one host, or (traces without
  // host ids) when the origins are close enough to be of one host.
  std::uint64_t first = std::numeric_limits<std::uint64_t>::max(), last = 0;
  for (const rank_trace& t : lt.ranks) {
    first = std::min(first, t.origin_monotonic_ns);
    last = std::max(last, t.origin_monotonic_ns);
  }
  constexpr std::uint64_t same_host_ns = 60'000'000'000;
  const bool hosts_named =
      std::all_of(lt.ranks.begin(), lt.ranks.end(), [](const rank_trace& t) { return !t.host.empty(); });
  const bool one_host = hosts_named && std::all_of(lt.ranks.begin(), lt.ranks.end(), [&](const rank_trace& t) {
                          return t.host == lt.ranks.front().host;
                        });
  const bool one_clock = hosts_named ? one_host : last - first < same_host_ns;
  for (const rank_trace& t : lt.ranks)
    lt.origin_offset_ns.push_back(one_clock ? static_cast<double>(t.origin_monotonic_ns - first) : 0.0);
  if (!one_clock)
    lt.warnings.push_back(hosts_named ? std::string("the traces name several hosts, whose clocks differ: every rank "
                                                    "is started at time 0")
                                      : fmt::format("the ranks' trace origins lie {:.1f} s apart (several hosts?): "
                                                    "every rank is started at time 0",
                                                    static_cast<double>(last - first) / 1e9));
  std::vector<std::vector<std::vector<const traced_done*>>> done_of_post;
  link_dones(lt, done_of_post);

  // Non-overtaking: per (source, destination, communicator, tag), sends in the sender's program order and
  // receives in the receiver's posting order pair up one by one.
  using key = std::tuple<int, int, int, int>;
  std::map<key, std::vector<post_ref>> sends, recvs;
  for (const rank_trace& t : lt.ranks) {
    lt.message_of_post.emplace_back(t.calls.size());
    for (std::uint32_t i = 0; i < t.calls.size(); ++i) {
      lt.message_of_post.back()[i].assign(t.calls[i].posts.size(), -1);
      for (std::uint32_t q = 0; q < t.calls[i].posts.size(); ++q) {
        const traced_post& p = t.calls[i].posts[q];
        const traced_done* d = done_of_post[static_cast<std::size_t>(t.rank)][i][q];
        if (p.send) {
          sends[{t.rank, p.world_peer, p.comm, p.tag}].push_back({i, q});
        } else if (d == nullptr) {
          lt.warnings.push_back(
              fmt::format("{}: the receive posted by {} never completed: left out", t.source, where(t, i)));
        } else if (d->world_source < 0 || d->tag < 0) {
          throw input_error(
              t.source, "",
              fmt::format("the receive posted by {} completed without a matched source and tag", where(t, i)));
        } else {
          recvs[{d->world_source, t.rank, p.comm, d->tag}].push_back({i, q});
        }
      }
    }
  }
  std::vector<std::string> unmatched, impossible, truncated;
  auto name_post = [&](int rank, post_ref pr, const std::string& what, std::vector<std::string>* into = nullptr) {
    const rank_trace& t = lt.ranks[static_cast<std::size_t>(rank)];
    const traced_post& p = t.calls[pr.call].posts[pr.post];
    (into != nullptr ? *into : unmatched)
        .push_back(fmt::format("{}: the {} by {} (peer {}, communicator {}, tag {}, {} B): {}", t.source,
                               p.send ? "send" : "receive", where(t, pr.call), p.world_peer, p.comm, p.tag, p.bytes,
                               what));
  };
  for (auto& [k, rv] : recvs) {
    auto s = sends.find(k);
    const std::size_t ns = s == sends.end() ? 0 : s->second.size();
    for (std::size_t j = 0; j < rv.size(); ++j) {
      if (j >= ns) {
        name_post(std::get<1>(k), rv[j], fmt::format("no send from rank {} matches it", std::get<0>(k)));
        continue;
      }
      const post_ref sp = s->second[j];
      const auto& sender = lt.ranks[static_cast<std::size_t>(std::get<0>(k))];
      const traced_post& p = sender.calls[sp.call].posts[sp.post];
      // What no run makes: another size received than sent; on one clock, a receive done before its send's call.
      const traced_done& got = *done_of_post[static_cast<std::size_t>(std::get<1>(k))][rv[j].call][rv[j].post];
      const std::string send_at = fmt::format("{}: {}", sender.source, where(sender, sp.call));
      const std::uint64_t buffer =
          lt.ranks[static_cast<std::size_t>(std::get<1>(k))].calls[rv[j].call].posts[rv[j].post].bytes;
      if (got.bytes < p.bytes && got.bytes == buffer)  // sidecore keeps the first bytes, as MPI does
        name_post(std::get<1>(k), rv[j],
                  fmt::format("truncated: its send ({}) sent {} B to its {} B buffer, and it received the first {} B "
                              "(errc::truncated; MPI_ERR_TRUNCATE in MPI), an error of the run that no what-if "
                              "replays; give the receive a count that holds the message",
                              send_at, p.bytes, buffer, got.bytes),
                  &truncated);
      else if (got.bytes != p.bytes)
        name_post(std::get<1>(k), rv[j],
                  fmt::format("received {} B, but its send ({}) sent {} B", got.bytes, send_at, p.bytes), &impossible);
      constexpr double clocks_ns = 2000;  // two processes' readings of one CLOCK_MONOTONIC, and µs rounding
      const double early = lt.origin_offset_ns[static_cast<std::size_t>(std::get<0>(k))] + sender.calls[sp.call].t0_ns -
                           (lt.origin_offset_ns[static_cast<std::size_t>(std::get<1>(k))] + got.ts_ns);
      if (one_host && early > clocks_ns)  // the order of two clocks is known only on one host
        name_post(std::get<1>(k), rv[j],
                  fmt::format("completed at {:.3f} µs, {:.3f} µs before the call that sent its message began ({})",
                              got.ts_ns / 1e3, early / 1e3, send_at),
                  &impossible);
      lt.message_of_post[static_cast<std::size_t>(std::get<0>(k))][sp.call][sp.post] =
          static_cast<std::int64_t>(lt.messages.size());
      lt.message_of_post[static_cast<std::size_t>(std::get<1>(k))][rv[j].call][rv[j].post] =
          static_cast<std::int64_t>(lt.messages.size());
      lt.messages.push_back({static_cast<std::uint32_t>(std::get<0>(k)), static_cast<std::uint32_t>(std::get<1>(k)),
                             p.bytes, std::get<2>(k), std::get<3>(k)});
    }
  }
  for (auto& [k, sv] : sends) {
    auto r = recvs.find(k);
    for (std::size_t j = r == recvs.end() ? 0 : r->second.size(); j < sv.size(); ++j) {
      const rank_trace& t = lt.ranks[static_cast<std::size_t>(std::get<0>(k))];
      if (done_of_post[static_cast<std::size_t>(t.rank)][sv[j].call][sv[j].post] == nullptr) {
        lt.warnings.push_back(
            fmt::format("{}: the send posted by {} never completed and no receive matched it: left out", t.source,
                        where(t, sv[j].call)));
        continue;
      }
      name_post(std::get<0>(k), sv[j], "no receive at the destination matches it");
    }
  }
  // Up to 10 named under a heading.
  auto refuse = [](const std::vector<std::string>& named, const std::string& heading) {
    if (named.empty()) return;
    std::string msg = fmt::format("{} {}:", named.size(), heading);
    for (std::size_t i = 0; i < std::min<std::size_t>(10, named.size()); ++i) msg += "\n  " + named[i];
    if (named.size() > 10) msg += fmt::format("\n  ... and {} more", named.size() - 10);
    throw input_error("", "", msg);
  };
  refuse(unmatched, "send(s) or receive(s) have no partner in the traces (non-overtaking rule: the k-th send from A "
                    "to B on a communicator and tag matches the k-th receive at B that matched source A and that tag)");
  refuse(impossible, "matched send/receive pair(s) that no run could have made (the traces are not of one run, or "
                     "were edited)");
  refuse(truncated, "receive(s) truncated their message in the run");

  for (const rank_trace& t : lt.ranks)
    if (t.mode != "off")
      lt.warnings.push_back(fmt::format("{}: recorded in mode '{}': the replay reads the time between calls as the "
                                        "application's computation, which a progress core may have slowed",
                                        t.source, t.mode));
  return lt;
}

schedule build_scenario(const linked_traces& lt, scenario sc, const whatif_options& o) {
  const auto n = static_cast<std::uint32_t>(lt.ranks.size());
  schedule_builder b(n, fmt::format("replay of {} trace(s), {}", n, scenario_name(sc)));
  const unsigned comm_cpu = sc == scenario::in_calls ? 0 : 1;
  const double factor = sc == scenario::dedicated_core ? o.dedicated_comp_factor : 1.0;
  const bool chunked = sc == scenario::ideal_overlap;
  const unsigned K = chunked ? std::max(1U, o.chunks) : 1;
  if (static_cast<double>(lt.messages.size()) * K >= static_cast<double>(any_tag))
    throw input_error("", "", fmt::format("{} messages of {} chunk(s) exceed the simulator's 32-bit tags",
                                          lt.messages.size(), K));
  auto chunks_of = [&](std::uint64_t bytes) {
    return static_cast<unsigned>(std::max<std::uint64_t>(1, std::min<std::uint64_t>(K, bytes)));
  };
  auto chunk_bytes = [](std::uint64_t bytes, unsigned kk, unsigned j) {
    return j + 1 < kk ? bytes / kk : bytes - (kk - 1) * (bytes / kk);
  };
  auto ns = [](double x) { return x <= 0 ? std::uint64_t{0} : static_cast<std::uint64_t>(std::llround(x)); };

  for (std::uint32_t r = 0; r < n; ++r) {
    const rank_trace& t = lt.ranks[r];
    std::vector<std::vector<std::vector<op_id>>> post_ops(t.calls.size());
    std::vector<op_id> need_done, need_start;
    std::vector<std::vector<op_id>> consume;  // chunked receives completed by the last call, consumed next
    op_id chain = 0;
    bool has_chain = false;
    double pending = lt.origin_offset_ns[r];
    // The computation before a call (or the end), in `pieces` calcs: the first waits for what the program
    // waited for in the previous call; the consumed chunks gate their pieces.
    auto emit = [&](unsigned pieces, std::uint32_t call) {
      std::vector<op_id> p(pieces);
      for (unsigned k = 0; k < pieces; ++k) {
        p[k] = b.calc(r, ns(pending * (k + 1) / pieces) - ns(pending * k / pieces), 0);
        b.label(p[k], fmt::format("c{}_comp{}", call, k), 0);
        if (k > 0) b.depend(p[k], p[k - 1]);
      }
      if (has_chain) b.depend(p[0], chain);
      for (op_id d : need_done) b.depend(p[0], d);
      for (op_id d : need_start) b.depend_on_start(p[0], d);
      for (const auto& ops : consume) {
        const auto kk = static_cast<unsigned>(ops.size());
        for (unsigned j = 0; j < kk; ++j) b.depend(p[j * pieces / kk], ops[j]);
      }
      need_done.clear();
      need_start.clear();
      consume.clear();
      pending = 0;
      chain = p.back();
      has_chain = true;
      return p;
    };
    double last_t1 = 0;
    for (std::uint32_t i = 0; i < t.calls.size(); ++i) {
      const traced_call& c = t.calls[i];
      pending += std::max(0.0, c.t0_ns - last_t1) * factor;
      last_t1 = c.t1_ns;
      // A call without operations is waiting or bookkeeping: the replay recomputes waiting; calls of category
      // "other" (communicator creation, through MPI) keep their measured time as computation. So does a test
      // that found nothing after which the program computed at least as long before its next call: that is the
      // program polling between its phases (sweep's Testany, 2.6 us each in mode off), CPU time that LogGOPS
      // does not charge; one followed at once by another call is part of a loop that waits.
      if (c.posts.empty() && c.dones.empty()) {
        const double next = i + 1 < t.calls.size() ? t.calls[i + 1].t0_ns : t.end_ns;
        const bool polled = c.category == "test" && next - c.t1_ns >= c.t1_ns - c.t0_ns;
        if (c.category == "other" || c.untraced || polled) pending += (c.t1_ns - c.t0_ns) * factor;
        continue;
      }
      bool produces = false;
      for (std::uint32_t q = 0; q < c.posts.size(); ++q)
        produces |= c.posts[q].send && lt.message_of_post[r][i][q] >= 0;
      const std::vector<op_id> pieces = emit(chunked && (produces || !consume.empty()) ? K : 1, i);
      post_ops[i].resize(c.posts.size());
      double charged = 0;  // CPU time the simulator charges for this call's messages (in progress in calls)
      for (std::uint32_t q = 0; q < c.posts.size(); ++q) {
        const std::int64_t m = lt.message_of_post[r][i][q];
        if (m < 0) continue;
        const traced_message& msg = lt.messages[static_cast<std::size_t>(m)];
        if (c.posts[q].send) charged += send_cpu_ns(o.params, msg.bytes);
        const unsigned kk = chunks_of(msg.bytes);
        const auto pk = static_cast<unsigned>(pieces.size());
        for (unsigned j = 0; j < kk; ++j) {
          const auto tag = static_cast<std::uint32_t>(static_cast<std::uint64_t>(m) * K + j);
          const bool send = c.posts[q].send;
          const op_id id = send ? b.send(r, msg.to, chunk_bytes(msg.bytes, kk, j), tag, comm_cpu, 0)
                                : b.recv(r, msg.from, chunk_bytes(msg.bytes, kk, j), tag, comm_cpu, 0);
          b.label(id, fmt::format("c{}_{}{}_{}", i, send ? "send" : "recv", q, j), 0);
          // A chunk leaves once its share of the computation has run; the last one at the call.
          b.depend(id, send ? pieces[((j + 1) * pk + kk - 1) / kk - 1] : pieces.back());
          need_start.push_back(id);
          post_ops[i][q].push_back(id);
        }
      }
      for (std::uint32_t q = 0; q < c.dones.size(); ++q) {
        const auto [pc, pp] = lt.post_of_done[r][i][q];
        const std::int64_t m = lt.message_of_post[r][pc][pp];
        if (m < 0) continue;
        const std::vector<op_id>& ops = post_ops[pc][pp];
        if (!t.calls[pc].posts[pp].send)
          charged += recv_cpu_ns(o.params, lt.messages[static_cast<std::size_t>(m)].bytes);
        if (chunked && !t.calls[pc].posts[pp].send) consume.push_back(ops);
        else need_done.insert(need_done.end(), ops.begin(), ops.end());
      }
      // A call that never waits (an initiation, a test) spent all its measured time on the CPU. With progress in
      // calls, what of it exceeds what the simulator charges for its messages (a send's o + (s-1) O at its post, a
      // receive's o + (s-1) max(O, G) when it is taken in) is computation of the call: a ping-pong's o is a hot
      // loop's (0.2-0.25 us), where sweep's isends between compute phases took 1.8 us and its completing testanys
      // 4.9 us. With a progress core that work is the core's.
      if (sc == scenario::in_calls && (c.category == "init" || c.category == "test"))
        pending += std::max(0.0, (c.t1_ns - c.t0_ns) - charged);
    }
    // The end: what the last calls completed is waited for (and consumed) before the rank finishes.
    (void)emit(chunked && !consume.empty() ? K : 1, static_cast<std::uint32_t>(t.calls.size()));
  }
  return b.build();
}

double whatif_result::speedup(scenario s) const {
  const double t = makespan(s);
  return t > 0 ? makespan(scenario::in_calls) / t : 1.0;
}

namespace {
// The replay's computation and transfers run on two CPUs of a rank: dependencies must carry time across them.
loggops_params replay_params(const whatif_options& o) {
  loggops_params p = o.params;
  p.causal = true;
  return p;
}
}  // namespace

whatif_result run_whatif(const linked_traces& lt, const whatif_options& o,
                         const std::array<sim_observer*, 3>& observers) {
  whatif_result res;
  for (scenario sc : all_scenarios) {
    const auto i = static_cast<std::size_t>(sc);
    res.sims[i] = simulate(build_scenario(lt, sc, o), replay_params(o), observers[i]);
  }
  for (std::size_t r = 0; r < lt.ranks.size(); ++r)
    res.traced_ns.push_back(lt.origin_offset_ns[r] + lt.ranks[r].end_ns);
  return res;
}

namespace {
whatif_options at_bandwidth(whatif_options o, double factor) {
  o.params.G /= factor;
  return o;
}
}  // namespace

std::vector<sweep_point> bandwidth_sweep(const linked_traces& lt, const whatif_options& o,
                                         const std::vector<double>& factors) {
  std::array<schedule, 3> s;
  for (scenario sc : all_scenarios) s[static_cast<std::size_t>(sc)] = build_scenario(lt, sc, o);
  std::vector<sweep_point> out;
  for (double f : factors) {
    sweep_point p{f, {}};
    const whatif_options of = at_bandwidth(o, f);
    for (std::size_t i = 0; i < 3; ++i) p.makespan_ns[i] = simulate(s[i], replay_params(of)).makespan_ns();
    out.push_back(p);
  }
  return out;
}

double bandwidth_to_reach(const linked_traces& lt, const whatif_options& o, scenario sc, double target_ns, double lo,
                          double hi) {
  const schedule s = build_scenario(lt, sc, o);
  auto time_at = [&](double f) { return simulate(s, replay_params(at_bandwidth(o, f))).makespan_ns(); };
  if (time_at(hi) > target_ns) return -1;
  if (time_at(lo) <= target_ns) return 0;
  for (int it = 0; it < 40 && hi / lo > 1.001; ++it) {
    const double mid = std::sqrt(lo * hi);
    (time_at(mid) <= target_ns ? hi : lo) = mid;
  }
  return hi;
}

overlap_room measure_overlap_room(const linked_traces& lt) {
  overlap_room o;
  for (std::size_t r = 0; r < lt.ranks.size(); ++r) {
    const rank_trace& t = lt.ranks[r];
    // comp_before[i]: computation before call i since the start (the gaps between calls), to subtract.
    std::vector<double> comp_before(t.calls.size() + 1, 0.0);
    double last = 0;
    for (std::size_t i = 0; i < t.calls.size(); ++i) {
      comp_before[i + 1] = comp_before[i] + std::max(0.0, t.calls[i].t0_ns - last);
      last = t.calls[i].t1_ns;
    }
    // The gaps (by the index of the call they precede) between an operation's initiation and its wait: [pc+1, i].
    std::vector<std::pair<std::uint32_t, std::uint32_t>> windows;
    for (std::uint32_t i = 0; i < t.calls.size(); ++i)
      for (std::uint32_t q = 0; q < t.calls[i].dones.size(); ++q) {
        const auto [pc, pp] = lt.post_of_done[r][i][q];
        if (lt.message_of_post[r][pc][pp] < 0) continue;
        const std::uint64_t bytes = lt.messages[static_cast<std::size_t>(lt.message_of_post[r][pc][pp])].bytes;
        if (pc == i) {
          o.blocking_bytes += bytes;
          continue;
        }
        const double between = comp_before[i + 1] - comp_before[pc + 1];
        o.nonblocking_bytes += bytes;
        if (between < 1000) o.bytes_without_room += bytes;
        if (pc < i) windows.emplace_back(pc + 1, i);
      }
    // Their union: a stretch of computation under several operations in flight counts once.
    std::sort(windows.begin(), windows.end());
    std::uint32_t covered_to = 0;  // gaps below it are counted
    for (const auto& [lo, hi] : windows) {
      const std::uint32_t from = std::max(lo, covered_to);
      if (hi + 1 > from) o.comp_overlappable_ns += comp_before[hi + 1] - comp_before[from];
      covered_to = std::max(covered_to, hi + 1);
    }
  }
  return o;
}

}  // namespace sidecore::model::sim
