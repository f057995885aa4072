// sidecore instrument — named regions: REGION_ENTER/EXIT on the calling thread, and region paths ("solve/halo")
// interned to 16-bit ids. The first use of a name takes a short lock and allocates; later uses hit the thread's
// caches (by the name's pointer, then by a hash of its contents), with no lock.
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <new>

#include "regions.hpp"
#include "ring.hpp"
#include "threads.hpp"

namespace sidecore::instrument {
namespace internal {

std::mutex g_region_mu;
std::deque<region_path> g_region_info(1);
std::array<std::atomic<shared_region_counts*>, max_region_paths / region_chunk> g_shared_regions{};

namespace {

std::unordered_map<std::string, std::uint16_t> g_region_ids;  // key: 2 bytes of parent id + name (g_region_mu)
bool g_warned_regions = false;
std::uint64_t g_unpathed_entries = 0;  // entries refused a path because the table was full (g_region_mu)
// Set by the first entry past max_region_depth (any thread: the entry hooks take no lock, so an atomic).
std::atomic<bool> g_warned_depth{false};
std::atomic<std::uint64_t> g_too_deep_entries{0};  // every entry past max_region_depth, of any thread

// Equal names, compared inline for short ones (region names are; memcmp through the PLT was 7 % of a region event).
inline bool same_name(const std::string& a, std::string_view b) noexcept {
  if (a.size() != b.size()) return false;
  if (b.size() > 16) return std::memcmp(a.data(), b.data(), b.size()) == 0;
  for (std::size_t i = 0; i < b.size(); ++i) {
    if (a[i] != b[i]) return false;
  }
  return true;
}

/// Interns the path `parent`/`name`; 0 when the table is full or memory is short (the caller uses the parent).
std::uint16_t intern_region(std::uint16_t parent, std::string_view name, const region_path** info) noexcept {
  try {
    std::string key(2, '\0');
    key[0] = static_cast<char>(parent & 0xff);
    key[1] = static_cast<char>(parent >> 8);
    key += name;
    std::lock_guard lk(g_region_mu);
    if (auto it = g_region_ids.find(key); it != g_region_ids.end()) {
      *info = &g_region_info[it->second];
      return it->second;
    }
    if (g_region_info.size() >= max_region_paths) {
      ++g_unpathed_entries;  // such a path is never cached, so each of its entries comes here
      if (!g_warned_regions) {
        g_warned_regions = true;
        std::fprintf(stderr, "sidecore: instrument: more than %zu distinct region paths; further ones are "
                     "attributed to their parent\n", max_region_paths - 1);
      }
      return 0;
    }
    const auto id = static_cast<std::uint16_t>(g_region_info.size());
    region_path p;
    p.leaf = std::string(name);
    p.path = parent == 0 ? p.leaf : g_region_info[parent].path + "/" + p.leaf;
    p.parent = parent;
    g_region_info.push_back(std::move(p));
    g_region_ids.emplace(std::move(key), id);
    *info = &g_region_info[id];
    return id;
  } catch (...) {
    return 0;
  }
}

/// An entry past max_region_depth is counted (the profile's "limits"); the first of the collection says so on stderr:
/// the region is not tracked, and where its time, calls and transfers go (the innermost tracked path, `enclosing`).
/// Out of line: entries that deep are rare.
[[gnu::cold, gnu::noinline]] void too_deep(std::string_view name, std::uint16_t enclosing) noexcept {
  g_too_deep_entries.fetch_add(1, relaxed);
  if (g_warned_depth.load(std::memory_order_relaxed) || g_warned_depth.exchange(true)) return;
  std::string path;
  try {
    std::lock_guard lk(g_region_mu);
    path = enclosing != 0 && enclosing < g_region_info.size() ? g_region_info[enclosing].path : std::string();
  } catch (...) {  // out of memory: the warning without the path
  }
  std::fprintf(stderr, "sidecore: instrument: region '%.*s' is entered inside %u nested regions, the most that are "
               "tracked: it and the regions inside it get no path of their own; their time, calls and transfers "
               "count for the enclosing region '%s'\n",
               static_cast<int>(name.size()), name.empty() ? "" : name.data(), max_region_depth,
               path.empty() ? "(none)" : path.c_str());
}

// The calling thread has no state because the table was full (not because collection is off), and a region stack
// (none when memory was short at its registration). Checked here, not in the hooks: their hot path keeps no more
// registers live across self().
bool has_region_stack() noexcept {
  return t_slot.table_full && t_slot.gen == detail::g_hot.generation.load(relaxed) && t_slot.regions != nullptr;
}

}  // namespace

shared_region_counts* shared_counts_of(std::uint16_t id) noexcept {
  std::atomic<shared_region_counts*>& slot = g_shared_regions[id / region_chunk];
  shared_region_counts* chunk = slot.load(std::memory_order_acquire);
  if (chunk == nullptr) {
    // Kept for the process's life (a later collection zeroes it): a late thread of the previous collection may
    // still add to it.
    auto* made = new (std::nothrow) shared_region_counts[region_chunk]();
    if (made == nullptr) return nullptr;
    if (slot.compare_exchange_strong(chunk, made, std::memory_order_acq_rel)) {
      chunk = made;
    } else {
      delete[] made;  // another thread's came first
    }
  }
  return &chunk[id % region_chunk];
}

// Both out of line and cold: region_enter_at/region_exit_at keep their hot path as it was.
[[gnu::cold, gnu::noinline]] void overflow_region_enter(std::string_view name, std::uint64_t t) noexcept {
  if (!has_region_stack()) return;
  overflow_regions& o = *t_slot.regions;
  const std::uint16_t parent = o.depth == 0 ? 0 : o.path[std::min(o.depth, max_region_depth) - 1];
  if (o.depth >= max_region_depth) {
    too_deep(name, parent);
    ++o.depth;
    return;
  }
  thread_state::cached_ptr& c =
      o.cache[((reinterpret_cast<std::uintptr_t>(name.data()) >> 3) ^ (parent * 0x9E3779B1u)) % o.cache.size()];
  std::uint16_t id = 0;
  if (c.info != nullptr && c.ptr == name.data() && c.info->parent == parent && same_name(c.info->leaf, name)) {
    id = c.id;
  } else {
    const region_path* info = nullptr;
    id = intern_region(parent, name, &info);
    if (id != 0) c = {name.data(), info, id};
  }
  shared_region_counts* sc = id != 0 ? shared_counts_of(id) : nullptr;
  if (sc == nullptr) {  // no path of its own: counts for the parent, which is not entered again
    o.untracked |= std::uint64_t{1} << o.depth;
    o.path[o.depth++] = parent;
    return;
  }
  sc->entries.fetch_add(1, relaxed);
  sc->open.fetch_add(1, relaxed);
  sc->open_t.fetch_add(t, relaxed);
  o.t[o.depth] = t;
  o.path[o.depth++] = id;
}

[[gnu::cold, gnu::noinline]] void overflow_region_exit(std::uint64_t t) noexcept {
  if (!has_region_stack() || t_slot.regions->depth == 0) return;
  overflow_regions& o = *t_slot.regions;
  const bool tracked = o.depth <= max_region_depth;
  --o.depth;
  if (!tracked) return;
  if (const std::uint64_t bit = std::uint64_t{1} << o.depth; (o.untracked & bit) != 0) {
    o.untracked &= ~bit;
    return;
  }
  shared_region_counts* sc = shared_counts_of(o.path[o.depth]);  // made at the entry
  const std::uint64_t t0 = o.t[o.depth];
  sc->time.fetch_add(t > t0 ? t - t0 : 0, relaxed);
  sc->open.fetch_sub(1, relaxed);
  sc->open_t.fetch_sub(t0, relaxed);
}

std::uint16_t overflow_region() noexcept {
  if (!has_region_stack()) return 0;
  const overflow_regions& o = *t_slot.regions;
  return o.depth == 0 ? 0 : o.path[std::min(o.depth, max_region_depth) - 1];
}

void reset_regions() {
  std::lock_guard lr(g_region_mu);
  g_region_info.clear();
  g_region_info.emplace_back();
  g_region_ids.clear();
  g_warned_regions = false;
  g_warned_depth.store(false, std::memory_order_relaxed);
  g_unpathed_entries = 0;
  g_too_deep_entries.store(0, relaxed);
  for (auto& slot : g_shared_regions) {
    shared_region_counts* chunk = slot.load(std::memory_order_acquire);
    if (chunk == nullptr) continue;
    for (std::size_t i = 0; i < region_chunk; ++i) {
      shared_region_counts& c = chunk[i];
      for (auto* a : {&c.entries, &c.time, &c.open, &c.open_t}) a->store(0, relaxed);
      for (auto& a : c.call_time) a.store(0, relaxed);
      for (auto& a : c.call_count) a.store(0, relaxed);
    }
  }
}

region_limit_counts region_limits_reached() noexcept {
  std::lock_guard lk(g_region_mu);
  return {g_unpathed_entries, g_too_deep_entries.load(relaxed)};
}

std::string region_leaf(std::uint16_t id) {
  std::lock_guard lk(g_region_mu);
  return id < g_region_info.size() ? g_region_info[id].leaf : std::string("?");
}

}  // namespace internal

namespace detail {

using namespace internal;

void region_enter_at(std::string_view name, std::uint64_t t) noexcept {
  thread_state* st = self();
  if (st == nullptr) [[unlikely]] {
    overflow_region_enter(name, t);
    return;
  }
  if (st->region_depth >= max_region_depth) {
    too_deep(name, st->region);
    ++st->region_depth;  // too deep: tracked as depth only, attributed to the enclosing region
    return;
  }
  const std::uint16_t parent = st->region;
  // Two per-thread caches in front of the global path table, both checked against the name's contents (callers may
  // reuse one buffer for different names). First by the name's pointer (a literal, or a buffer reused for the same
  // name: no pass over the contents but the compare); then by a hash of the contents (FNV-1a, inline: std::hash, an
  // out-of-line call, was 5 % of a region event; but its multiply chain is ~20 cycles for a 5-letter name).
  thread_state::cached_ptr& pc =
      st->ptr_cache[((reinterpret_cast<std::uintptr_t>(name.data()) >> 3) ^ (parent * 0x9E3779B1u)) % ptr_cache_size];
  std::uint16_t id = 0;
  if (pc.info != nullptr && pc.ptr == name.data() && pc.info->parent == parent && same_name(pc.info->leaf, name)) {
    id = pc.id;
  } else {
    std::uint32_t hv = 2166136261u ^ (parent * 0x9E3779B1u);
    for (const char ch : name) hv = (hv ^ static_cast<unsigned char>(ch)) * 16777619u;
    thread_state::cached_name& cached = st->name_cache[hv % name_cache_size];
    const region_path* info = nullptr;
    if (cached.info != nullptr && cached.info->parent == parent && same_name(cached.info->leaf, name)) {
      id = cached.id;
      info = cached.info;
    } else {
      id = intern_region(parent, name, &info);
      if (id != 0) cached = {info, id};
    }
    if (id != 0) pc = {name.data(), info, id};
  }
  if (id == 0) {
    // No path of its own (the path table is full, or memory is short): the time and calls stay with the parent,
    // which is not entered again (no record: its entries and time would count twice).
    st->region_untracked |= std::uint64_t{1} << st->region_depth;
    st->region_stack[st->region_depth++] = parent;
    return;
  }
  if (st->region_chunks[id / region_chunk].load(relaxed) == nullptr) {
    // First use of this block of 256 paths on this thread: its call counters (released to the profile reader).
    if (auto* chunk = new (std::nothrow) region_calls[region_chunk]()) {
      st->region_chunks[id / region_chunk].store(chunk, std::memory_order_release);
    }
  }
  st->region_stack[st->region_depth++] = id;
  st->region = id;
  publish(st, st->pub_in_call.load(relaxed), st->pub_last_t.load(relaxed), st->pub_seq.load(relaxed),
          flags_of(st->depth != 0, id));
  push(st, t, id, kind::region_enter, 0);
}

void region_exit_at(std::uint64_t t) noexcept {
  thread_state* st = self();
  if (st == nullptr || st->region_depth == 0) {
    if (st == nullptr) overflow_region_exit(t);
    return;
  }
  const bool tracked = st->region_depth <= max_region_depth;
  const std::uint16_t id = st->region;
  --st->region_depth;
  if (!tracked) return;
  if (const std::uint64_t bit = std::uint64_t{1} << st->region_depth; (st->region_untracked & bit) != 0) {
    st->region_untracked &= ~bit;  // an entry without a path of its own: nothing was recorded, the region is unchanged
    return;
  }
  st->region = st->region_depth == 0 ? 0 : st->region_stack[st->region_depth - 1];
  publish(st, st->pub_in_call.load(relaxed), st->pub_last_t.load(relaxed), st->pub_seq.load(relaxed),
          flags_of(st->depth != 0, st->region));
  push(st, t, id, kind::region_exit, 0);
}

}  // namespace detail
}  // namespace sidecore::instrument
