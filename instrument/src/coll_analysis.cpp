// sidecore instrument — the cross-rank side of collective monitoring (collectives.hpp): keeping each rank's clock
// offsets to rank 0 (clock_sync.cpp measures them), and, at the end of the run, bringing every rank's sampled
// instances to rank 0, matching them across the members of each communicator, and sending every rank its arrival and
// departure waits and its place in the arrival and departure orders. All of it through the caller's exchange:
// instrument/ has no MPI.
#include "coll_analysis.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "coll_monitor.hpp"
#include "collection.hpp"
#include "event_clock.hpp"
#include "exchange_framing.hpp"
#include "fold.hpp"

namespace sidecore::instrument {

namespace internal {

namespace {

std::mutex g_results_mu;
coll_results g_results;

// ---- the exchange's framing (exchange_framing.hpp) for the samples and results ----
void send_blob(const exchange& ex, int to, const std::vector<char>& blob) {
  send_framed(ex, to, blob.data(), blob.size());
}

std::vector<char> recv_blob(const exchange& ex, int from) {
  std::vector<char> blob;
  recv_framed(ex, from, blob);
  return blob;
}

template <class T>
void put(std::vector<char>& out, T v) {
  const auto* p = reinterpret_cast<const char*>(&v);
  out.insert(out.end(), p, p + sizeof v);
}

// Reads fixed-size values from a received blob; a short blob (a peer's bug) is an error, never an overrun.
class reader {
 public:
  explicit reader(const std::vector<char>& b) : b_(b) {}
  template <class T>
  T get() {
    if (pos_ + sizeof(T) > b_.size()) throw std::runtime_error("collective samples: truncated message");
    T v;
    std::memcpy(&v, b_.data() + pos_, sizeof v);
    pos_ += sizeof v;
    return v;
  }

 private:
  const std::vector<char>& b_;
  std::size_t pos_ = 0;
};

// One sampled instance as rank 0 analyses it: this member's times in rank 0's time base.
struct member_sample {
  std::uint64_t seq = 0;
  std::int64_t arrive = 0, depart = 0;
  std::uint8_t kind = 0;
};

struct member {
  int rank = 0;
  std::uint64_t stride = 1;
  std::vector<member_sample> samples;  // ascending seq
};

struct comm_members {
  std::uint32_t comm_size = 0;
  std::vector<member> members;
};

// Per (rank, kind), what rank 0 accumulates: the waits themselves (as many as the matched instances the rank took
// part in, the order of the samples' own memory), turned into statistics one (rank, kind) at a time.
struct rank_kind_acc {
  std::vector<std::uint64_t> arrival_waits, departure_waits;  // ns
  collective_rank_order order;
  double arrival_position_sum = 0, departure_position_sum = 0;
};

// This rank's sampled instances, at most `max_bytes` of them (thin_samples), its times brought to rank 0's clock.
std::vector<char> local_samples(double offset_start, std::uint64_t at_start, double offset_end, std::uint64_t at_end,
                                std::uint64_t max_bytes) {
  std::vector<comm_sample> comms;
  {
    std::lock_guard la(g_analysis_mu);
    comms = collective_samples_locked();
  }
  thin_samples(comms, max_bytes);
  const clock_fit f = fit_for_fold();
  // The offset at a time t of this rank: the line through the two estimates (or the one there is).
  const auto to_rank0 = [&](std::uint64_t ticks) {
    const std::uint64_t ns = f.to_ns(ticks);
    double off = offset_end;
    if (at_end > at_start) {
      const double w =
          (static_cast<double>(ns) - static_cast<double>(at_start)) / static_cast<double>(at_end - at_start);
      off = offset_start + (offset_end - offset_start) * w;
    }
    return static_cast<std::int64_t>(std::llround(static_cast<double>(ns) + off));
  };
  std::vector<char> out;
  put<std::uint64_t>(out, comms.size());
  for (const comm_sample& c : comms) {
    put<std::uint64_t>(out, c.key);
    put<std::uint64_t>(out, c.comm_size);
    put<std::uint64_t>(out, c.stride);
    put<std::uint64_t>(out, c.kept.size());
    for (const coll_sample& s : c.kept) {
      put<std::uint64_t>(out, s.seq);
      put<std::int64_t>(out, to_rank0(s.arrive));
      put<std::int64_t>(out, to_rank0(s.depart));
      put<std::uint64_t>(out, s.kind);
    }
  }
  return out;
}

void parse_samples(const std::vector<char>& blob, int rank, std::map<std::uint64_t, comm_members>& comms) {
  reader in(blob);
  const auto n = in.get<std::uint64_t>();
  for (std::uint64_t i = 0; i < n; ++i) {
    const auto key = in.get<std::uint64_t>();
    const auto size = in.get<std::uint64_t>();
    member m;
    m.rank = rank;
    m.stride = in.get<std::uint64_t>();
    const auto count = in.get<std::uint64_t>();
    if (count > blob.size()) throw std::runtime_error("collective samples: bad count");
    m.samples.resize(count);
    for (member_sample& s : m.samples) {
      s.seq = in.get<std::uint64_t>();
      s.arrive = in.get<std::int64_t>();
      s.depart = in.get<std::int64_t>();
      s.kind = static_cast<std::uint8_t>(in.get<std::uint64_t>());
    }
    std::sort(m.samples.begin(), m.samples.end(),
              [](const member_sample& a, const member_sample& b) { return a.seq < b.seq; });
    comm_members& c = comms[key];
    c.comm_size = static_cast<std::uint32_t>(size);
    c.members.push_back(std::move(m));
  }
}

const member_sample* find_seq(const member& m, std::uint64_t seq) {
  auto it = std::lower_bound(m.samples.begin(), m.samples.end(), seq,
                             [](const member_sample& s, std::uint64_t q) { return s.seq < q; });
  return it != m.samples.end() && it->seq == seq ? &*it : nullptr;
}

std::uint64_t nonnegative_ns(std::int64_t v) { return v > 0 ? static_cast<std::uint64_t>(v) : 0; }

// Rank 0: matches every communicator's instances across its members and accumulates per (rank, kind).
void analyse(const std::map<std::uint64_t, comm_members>& comms,
             std::vector<std::array<rank_kind_acc, op_kind_count>>& acc, std::vector<std::uint64_t>& unmatched) {
  std::vector<const member_sample*> row;
  std::vector<std::size_t> order;
  for (const auto& [key, c] : comms) {
    // An instance is matched when every member's record of it is there. Members keep what their own stride keeps
    // (equal when they completed the same instances); what the coarsest stride keeps is compared.
    std::uint64_t stride = 1;
    for (const member& m : c.members) stride = std::max(stride, m.stride);
    std::uint64_t matched = 0;
    const std::size_t n = c.members.size();
    for (const member_sample& s : c.members.front().samples) {
      if (n != c.comm_size || !sampled_at(s.seq, stride)) continue;
      row.clear();
      for (const member& m : c.members) {
        const member_sample* x = find_seq(m, s.seq);
        if (x == nullptr || x->kind != s.kind) break;
        row.push_back(x);
      }
      if (row.size() != n) continue;
      ++matched;
      order.resize(n);
      std::iota(order.begin(), order.end(), std::size_t{0});
      std::stable_sort(order.begin(), order.end(),
                       [&](std::size_t a, std::size_t b) { return row[a]->arrive < row[b]->arrive; });
      const std::int64_t last_arrival = row[order.back()]->arrive;
      std::int64_t first_departure = row[0]->depart;
      for (const member_sample* x : row) first_departure = std::min(first_departure, x->depart);
      const std::size_t kind = s.kind < op_kind_count ? s.kind : 0;
      for (std::size_t pos = 0; pos < n; ++pos) {
        const std::size_t i = order[pos];
        rank_kind_acc& a = acc[static_cast<std::size_t>(c.members[i].rank)][kind];
        const std::uint64_t wait = nonnegative_ns(last_arrival - row[i]->arrive);
        a.arrival_waits.push_back(wait);
        a.departure_waits.push_back(nonnegative_ns(row[i]->depart - first_departure));
        a.arrival_position_sum += static_cast<double>(pos) / static_cast<double>(n - 1);
        a.order.arrival_wait_s += static_cast<double>(wait) * 1e-9;
        if (pos == 0) ++a.order.first_arrivals;
        if (pos == n - 1) ++a.order.last_arrivals;
      }
      std::stable_sort(order.begin(), order.end(),
                       [&](std::size_t a, std::size_t b) { return row[a]->depart < row[b]->depart; });
      for (std::size_t pos = 0; pos < n; ++pos) {
        rank_kind_acc& a = acc[static_cast<std::size_t>(c.members[order[pos]].rank)][kind];
        a.departure_position_sum += static_cast<double>(pos) / static_cast<double>(n - 1);
        if (pos == 0) ++a.order.first_departures;
        if (pos == n - 1) ++a.order.last_departures;
      }
    }
    // What a member kept (of the coarsest stride) beyond the matched instances had no record on some other member.
    for (const member& m : c.members) {
      const auto kept = static_cast<std::uint64_t>(std::count_if(
          m.samples.begin(), m.samples.end(), [stride](const member_sample& x) { return sampled_at(x.seq, stride); }));
      unmatched[static_cast<std::size_t>(m.rank)] += kept > matched ? kept - matched : 0;
    }
  }
}

// ---- results as JSON between rank 0 and the others (small: per kind a few numbers and two histograms) ----
nlohmann::json stats_to_json(const duration_stats& s) {
  nlohmann::json h = nlohmann::json::array();
  for (const auto& [b, n] : s.histogram) h.push_back({b, n});
  return {{"count", s.count}, {"min", s.min_s}, {"max", s.max_s}, {"mean", s.mean_s},
          {"stddev", s.stddev_s}, {"median", s.median_s}, {"hist", std::move(h)}};
}

duration_stats stats_from_json(const nlohmann::json& j) {
  duration_stats s;
  s.count = j.at("count").get<std::uint64_t>();
  s.min_s = j.at("min").get<double>();
  s.max_s = j.at("max").get<double>();
  s.mean_s = j.at("mean").get<double>();
  s.stddev_s = j.at("stddev").get<double>();
  s.median_s = j.at("median").get<double>();
  for (const auto& e : j.at("hist")) s.histogram.emplace_back(e.at(0).get<int>(), e.at(1).get<std::uint64_t>());
  return s;
}

duration_stats stats_of(const std::vector<std::uint64_t>& ns, duration_acc& scratch) {
  scratch = duration_acc{};
  for (const std::uint64_t x : ns) scratch.add(x);
  return scratch.stats();
}

std::vector<char> results_blob(int rank, const std::array<rank_kind_acc, op_kind_count>& kinds,
                               std::uint64_t unmatched) {
  nlohmann::json j = {{"unmatched", unmatched}, {"kinds", nlohmann::json::array()}};
  duration_acc scratch;
  for (std::size_t k = 0; k < op_kind_count; ++k) {
    const rank_kind_acc& a = kinds[k];
    const std::uint64_t n = a.arrival_waits.size();
    if (n == 0) continue;
    const collective_rank_order& o = a.order;
    j["kinds"].push_back({{"kind", k},
                          {"sampled", n},
                          {"arrival_wait", stats_to_json(stats_of(a.arrival_waits, scratch))},
                          {"departure_wait", stats_to_json(stats_of(a.departure_waits, scratch))},
                          {"order",
                           {rank, o.last_arrivals, o.first_arrivals, o.last_departures, o.first_departures,
                            a.arrival_position_sum / static_cast<double>(n),
                            a.departure_position_sum / static_cast<double>(n), o.arrival_wait_s}}});
  }
  const std::string text = j.dump();
  return std::vector<char>(text.begin(), text.end());
}

void store_results(const std::vector<char>& blob) {
  const nlohmann::json j = nlohmann::json::parse(blob.begin(), blob.end());
  std::lock_guard lk(g_results_mu);
  g_results.analyzed = true;
  g_results.unmatched = j.at("unmatched").get<std::uint64_t>();
  for (const auto& e : j.at("kinds")) {
    const auto k = e.at("kind").get<std::size_t>();
    if (k >= op_kind_count) continue;
    coll_kind_result& r = g_results.kinds[k];
    r.sampled = e.at("sampled").get<std::uint64_t>();
    r.arrival_wait = stats_from_json(e.at("arrival_wait"));
    r.departure_wait = stats_from_json(e.at("departure_wait"));
    const auto& o = e.at("order");
    r.order = {o.at(0).get<int>(),    o.at(1).get<std::uint64_t>(), o.at(2).get<std::uint64_t>(),
               o.at(3).get<std::uint64_t>(), o.at(4).get<std::uint64_t>(), o.at(5).get<double>(),
               o.at(6).get<double>(), o.at(7).get<double>()};
  }
}

}  // namespace

void reset_collective_results() {
  std::lock_guard lk(g_results_mu);
  g_results = coll_results{};
}

coll_results collective_results() {
  std::lock_guard lk(g_results_mu);
  return g_results;
}

}  // namespace internal

using namespace internal;

void synchronize_clock(const exchange& ex) {
  if (!enabled()) return;
  clock_offset o = estimate_clock_offset(ex);
  std::lock_guard lk(g_results_mu);
  g_results.start = std::move(o);
  g_results.start_ns = now_ns();
}

void analyze_collectives(const exchange& ex) {
  if (!enabled()) return;
  fold_all();
  const clock_offset end = estimate_clock_offset(ex);
  const std::uint64_t end_ns = now_ns();
  double offset_start = end.offset_ns;
  std::uint64_t at_start = end_ns;
  {
    std::lock_guard lk(g_results_mu);
    g_results.end = end;
    g_results.end_ns = end_ns;
    if (g_results.start) {
      offset_start = g_results.start->offset_ns;
      at_start = g_results.start_ns;
    }
  }
  const std::uint64_t share = collective_samples_budget / static_cast<std::uint64_t>(ex.nranks);
  const std::vector<char> mine = local_samples(offset_start, at_start, end.offset_ns, end_ns, share);
  if (ex.rank != 0) {
    send_blob(ex, 0, mine);
    store_results(recv_blob(ex, 0));
    return;
  }
  std::map<std::uint64_t, comm_members> comms;
  std::vector<std::array<rank_kind_acc, op_kind_count>> acc(static_cast<std::size_t>(ex.nranks));
  std::vector<std::uint64_t> unmatched(static_cast<std::size_t>(ex.nranks), 0);
  bool ok = true;
  for (int r = 0; r < ex.nranks; ++r) {
    const std::vector<char> blob = r == 0 ? mine : recv_blob(ex, r);
    try {
      parse_samples(blob, r, comms);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "sidecore: instrument: rank %d's collective samples: %s; no cross-rank figures\n", r,
                   e.what());
      ok = false;
    }
  }
  if (ok) analyse(comms, acc, unmatched);  // else every rank gets no cross-rank figure
  comms.clear();  // the samples are no longer needed: only the per-rank figures go back
  for (int r = ex.nranks - 1; r >= 0; --r) {
    auto& mine_acc = acc[static_cast<std::size_t>(r)];
    const std::vector<char> blob = results_blob(r, mine_acc, unmatched[static_cast<std::size_t>(r)]);
    mine_acc = {};  // rank r's waits are sent: free them
    if (r == 0) store_results(blob);
    else send_blob(ex, r, blob);
  }
}

}  // namespace sidecore::instrument
