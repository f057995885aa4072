// sidecore instrument — the fold side of collective monitoring (coll_monitor.hpp): an arrival and a departure may be
// recorded by different threads (the application thread, the progress thread) and folded in either order; the
// instance is complete when both are, and then counts once: in its kind's statistics and, when its sequence number is
// kept, in its communicator's sample.
#include "coll_monitor.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <new>
#include <unordered_map>
#include <utility>

#include "open_table.hpp"
#include "sidecore/instrument/collectives.hpp"

namespace sidecore::instrument::internal {

namespace {

struct instance_key {
  std::uint64_t comm = 0;
  std::uint64_t seq = 0;
  bool operator==(const instance_key&) const = default;
};

/// An instance of which the arrival or the departure has been folded, waiting for the other.
struct pending_instance {
  instance_key key;
  bool used = false;
  bool arrived = false;  // else: departed
  std::uint8_t kind = 0;
  std::uint32_t comm_size = 0;
  std::uint64_t bytes = 0;
  std::uint64_t t = 0;  // the folded event's time
  static std::uint64_t hash(const instance_key& k) noexcept { return k.comm * 0xC2B2AE3D27D4EB4FULL ^ k.seq; }
};

// Samples of all communicators stay within this many bytes, 32 a kept instance (docs/instrument.md, "Memory bounds"):
// past it the fullest communicator keeps every other instance, so that a program making communicators over and over
// (a library's duplicate per call, freed after) has all of them sampled, however many, within one bound.
constexpr std::size_t sample_budget_bytes = 8u << 20;
constexpr std::size_t sample_budget = sample_budget_bytes / sizeof(coll_sample);
// Communicators sampled at most (about 100 B each while they keep nothing): beyond, not sampled.
constexpr std::size_t max_sampled_comms = 65536;

open_table<pending_instance> g_open;
std::array<coll_kind_acc, op_kind_count> g_kinds;
std::vector<comm_sample> g_comms;                            // each holding at most g_capacity samples
std::unordered_map<std::uint64_t, std::size_t> g_comm_index;  // key -> index in g_comms
std::size_t g_kept = 0;                                       // instances kept by every communicator together
std::size_t g_capacity = 1024;
std::size_t g_last = SIZE_MAX;  // index of the last communicator looked up (programs reuse one or two)
std::uint64_t g_duplicates = 0;  // an arrival or departure recorded twice for one instance (reported at the profile)
bool g_warned_comms = false;

// The sample of communicator `key`, created on first use; nullptr past max_sampled_comms (or out of memory).
comm_sample* sample_of(std::uint64_t key, std::uint32_t comm_size) {
  if (g_last < g_comms.size() && g_comms[g_last].key == key) return &g_comms[g_last];
  if (const auto it = g_comm_index.find(key); it != g_comm_index.end()) {
    g_last = it->second;
    return &g_comms[g_last];
  }
  if (g_comms.size() >= max_sampled_comms) {
    if (!g_warned_comms) {
      g_warned_comms = true;
      std::fprintf(stderr,
                   "sidecore: instrument: collectives on more than %zu communicators: the further ones count in the "
                   "latency figures but are not sampled for the cross-rank ones\n",
                   max_sampled_comms);
    }
    return nullptr;
  }
  try {
    g_comm_index.emplace(key, g_comms.size());
    comm_sample c;
    c.key = key;
    c.comm_size = comm_size;
    g_comms.push_back(std::move(c));
  } catch (const std::bad_alloc&) {
    g_comm_index.erase(key);
    return nullptr;
  }
  g_last = g_comms.size() - 1;
  return &g_comms.back();
}

// The communicator keeping the most instances (the first of equals); comms.end() when there is none.
std::vector<comm_sample>::iterator fullest(std::vector<comm_sample>& comms) {
  return std::max_element(comms.begin(), comms.end(),
                          [](const comm_sample& a, const comm_sample& b) { return a.kept.size() < b.kept.size(); });
}

// Keeps about every other instance. Which instances stay depends on their sequence numbers only.
void double_stride(comm_sample& c) {
  c.stride *= 2;
  const std::uint64_t stride = c.stride;
  c.kept.erase(std::remove_if(c.kept.begin(), c.kept.end(),
                              [stride](const coll_sample& k) { return !sampled_at(k.seq, stride); }),
               c.kept.end());
}

// Doubles c's stride, keeping g_kept the count of every communicator's kept instances.
void thin(comm_sample& c) {
  const std::size_t had = c.kept.size();
  double_stride(c);
  g_kept -= had - c.kept.size();
}

void keep(comm_sample& c, const coll_sample& s) {
  while (sampled_at(s.seq, c.stride)) {
    if (c.kept.size() < g_capacity) {
      c.kept.push_back(s);
      ++g_kept;
      if (g_kept > sample_budget) {  // over the bound of all: the fullest communicator gives way (c itself, maybe)
        thin(*fullest(g_comms));
      }
      return;
    }
    thin(c);  // full
  }
}

void complete(const pending_instance& arrival, std::uint64_t depart, const clock_fit& f) {
  const std::size_t kind = arrival.kind < op_kind_count ? arrival.kind : 0;
  coll_kind_acc& k = g_kinds[kind];
  ++k.count;
  k.bytes += arrival.bytes;
  k.latency.add(f.dur_ns(depart > arrival.t ? depart - arrival.t : 0));
  if (arrival.comm_size < 2 || (arrival.key.comm & local_comm_key_bit) != 0) return;  // nobody to compare with
  if (comm_sample* c = sample_of(arrival.key.comm, arrival.comm_size)) {
    keep(*c, {arrival.key.seq, arrival.t, depart, arrival.kind});
  }
}

}  // namespace

duration_stats duration_acc::stats() const {
  duration_stats s;
  s.count = count;
  if (count == 0) return s;
  s.min_s = static_cast<double>(min) * 1e-9;
  s.max_s = static_cast<double>(max) * 1e-9;
  const long double n = static_cast<long double>(count), mean = static_cast<long double>(sum) / n;
  const long double var = static_cast<long double>(sumsq) / n - mean * mean;  // relative error ~1e-19 of E[x^2]
  s.mean_s = std::clamp(static_cast<double>(mean) * 1e-9, s.min_s, s.max_s);
  s.stddev_s = std::sqrt(static_cast<double>(std::max(0.0L, var))) * 1e-9;
  for (std::size_t b = 0; b < hist.size(); ++b) {
    if (hist[b] != 0) s.histogram.emplace_back(static_cast<int>(b), hist[b]);
  }
  s.median_s = histogram_median_s(s);
  return s;
}

std::uint64_t sample_wire_bytes(const std::vector<comm_sample>& comms) {
  std::uint64_t n = 8;
  for (const comm_sample& c : comms) n += 32 + 32 * static_cast<std::uint64_t>(c.kept.size());
  return n;
}

void thin_samples(std::vector<comm_sample>& comms, std::uint64_t max_bytes) {
  std::uint64_t bytes = sample_wire_bytes(comms);
  while (bytes > max_bytes) {
    const auto largest = fullest(comms);
    if (largest == comms.end() || largest->kept.size() <= 1) return;  // one instance a communicator is the floor
    const std::size_t had = largest->kept.size();
    double_stride(*largest);
    bytes -= 32 * static_cast<std::uint64_t>(had - largest->kept.size());
  }
}

void reset_collectives(std::size_t capacity) {
  g_open.reset(16);
  g_kinds = {};
  g_comms.clear();
  g_comm_index.clear();
  g_kept = 0;
  g_capacity = capacity;
  g_last = SIZE_MAX;
  g_duplicates = 0;
  g_warned_comms = false;
}

bool pair_adjacent_coll_locked(const record& arrival, const record& departure, const clock_fit& f) {
  if (departure.k != kind::coll_depart || departure.id != arrival.id ||
      departure.owner_in_call != arrival.owner_in_call ||
      (!g_open.empty() && g_open.find({arrival.id, arrival.owner_in_call}) != nullptr)) {
    return false;
  }
  pending_instance a;
  a.key = {arrival.id, arrival.owner_in_call};
  a.arrived = true;
  a.t = arrival.t;
  a.kind = arrival.bits & low_bits;
  a.comm_size = arrival.owner;
  a.bytes = arrival.bytes;
  complete(a, departure.t, f);
  return true;
}

void on_coll_locked(const record& r, const clock_fit& f) {
  const bool arrival = r.k == kind::coll_arrive;
  const instance_key key{r.id, r.owner_in_call};
  pending_instance* p = g_open.find(key);
  if (p != nullptr && p->arrived == arrival) {
    // The same event twice for one instance: the earlier one's other half never came. It is left out.
    ++g_duplicates;
    g_open.erase(*p);
    p = nullptr;
  }
  if (p == nullptr) {
    pending_instance& n = g_open.insert(key);
    n.arrived = arrival;
    n.t = r.t;
    if (arrival) {
      n.kind = r.bits & low_bits;
      n.comm_size = r.owner;
      n.bytes = r.bytes;
    }
    return;
  }
  if (arrival) {
    pending_instance a = *p;
    const std::uint64_t depart = a.t;
    a.arrived = true;
    a.t = r.t;
    a.kind = r.bits & low_bits;
    a.comm_size = r.owner;
    a.bytes = r.bytes;
    g_open.erase(*p);
    complete(a, depart, f);
  } else {
    const pending_instance a = *p;
    g_open.erase(*p);
    complete(a, r.t, f);
  }
}

const std::array<coll_kind_acc, op_kind_count>& collective_kinds_locked() noexcept { return g_kinds; }
const std::vector<comm_sample>& collective_samples_locked() noexcept { return g_comms; }
std::size_t collective_sample_capacity_locked() noexcept { return g_capacity; }
std::uint64_t take_collective_duplicates_locked() noexcept { return std::exchange(g_duplicates, 0); }

}  // namespace sidecore::instrument::internal
