// libsidecore-pmpi.so — monitoring of MPI collectives (collectives.hpp).
#include "collectives.hpp"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <new>
#include <unordered_map>
#include <utility>
#include <vector>

namespace sidecore::instrument::pmpi {

/// A communicator's monitoring state, kept as an MPI attribute (not copied to duplicates: a duplicate gets its own).
struct comm_state {
  std::uint64_t key = 0;
  std::uint64_t next_seq = 0;  // the next collective instance's sequence number
  std::uint64_t children = 0;  // communicators made from this one so far
  std::uint64_t persistent = 0;  // persistent collectives initialized on it so far (monitored kinds)
  std::uint32_t size = 0;
  bool inter = false;  // collectives on intercommunicators are not monitored
};

namespace {

int g_keyval = MPI_KEYVAL_INVALID;
int g_world_rank = 0;
std::atomic<std::uint64_t> g_local_keys{0};

std::mutex g_requests_mu;
std::unordered_map<MPI_Request, coll_instance> g_requests;
std::atomic<std::size_t> g_watched{0};

// A registered persistent collective: what each of its starts arrives with.
struct persistent_req {
  op_kind kind = op_kind::barrier;
  std::uint32_t size = 0;
  std::uint64_t key = 0;
  std::uint64_t seq_base = 0;  // persistent_seq_bit and the request's place among its communicator's persistent ones
  std::uint64_t starts = 0;
  std::uint64_t bytes = 0;
};
// Its instances' sequence numbers: this bit, the request's place in bits 32 to 62 and its start count in bits 0 to
// 31, apart from the communicator's count of its other collectives (which never reaches 2^63).
constexpr std::uint64_t persistent_seq_bit = std::uint64_t{1} << 63;
std::unordered_map<MPI_Request, persistent_req> g_persistent;  // under g_requests_mu
std::atomic<std::size_t> g_persistent_n{0};

int delete_state(MPI_Comm, int, void* value, void*) {
  delete static_cast<comm_state*>(value);
  return MPI_SUCCESS;
}

// splitmix64's finaliser: a bijection that spreads every input bit.
std::uint64_t mix(std::uint64_t x) noexcept {
  x ^= x >> 30;
  x *= 0xBF58476D1CE4E5B9ULL;
  x ^= x >> 27;
  x *= 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

comm_state* attach(MPI_Comm comm, std::uint64_t key) {
  auto* st = new (std::nothrow) comm_state;
  if (st == nullptr) return nullptr;
  st->key = key;
  int size = 0, inter = 0;
  PMPI_Comm_size(comm, &size);
  PMPI_Comm_test_inter(comm, &inter);
  st->size = static_cast<std::uint32_t>(size);
  st->inter = inter != 0;
  if (PMPI_Comm_set_attr(comm, g_keyval, st) != MPI_SUCCESS) {
    delete st;
    return nullptr;
  }
  return st;
}

// The state of `comm`, made on first use: MPI_COMM_WORLD's key is the same everywhere; a communicator not made
// through communicator_created() (MPI_Comm_idup, MPI_Comm_create_group, ...) gets a key of this rank alone, so its
// instances count in the latency figures and never match across ranks.
comm_state* state_of(MPI_Comm comm) {
  if (comm == MPI_COMM_NULL || g_keyval == MPI_KEYVAL_INVALID) return nullptr;
  void* value = nullptr;
  int found = 0;
  if (PMPI_Comm_get_attr(comm, g_keyval, &value, &found) != MPI_SUCCESS) return nullptr;
  if (found != 0) return static_cast<comm_state*>(value);
  if (comm == MPI_COMM_WORLD) return attach(comm, 1);
  const std::uint64_t key = mix((static_cast<std::uint64_t>(g_world_rank) << 32) ^ ++g_local_keys) | local_comm_key_bit;
  return attach(comm, key);
}

void watch(const MPI_Request& r, coll_instance instance) {
  std::lock_guard lk(g_requests_mu);
  try {
    if (g_requests.insert_or_assign(r, instance).second) g_watched.fetch_add(1, std::memory_order_relaxed);
  } catch (...) {
    // Out of memory: this instance never departs, and is left out.
  }
}

// Request r is done (completed, or freed when `depart` is false): its instance departs now.
void done(MPI_Request r, bool depart) {
  if (r == MPI_REQUEST_NULL) return;
  std::lock_guard lk(g_requests_mu);
  auto it = g_requests.find(r);
  if (it == g_requests.end()) return;
  if (depart) coll_depart(it->second);
  g_requests.erase(it);
  g_watched.fetch_sub(1, std::memory_order_relaxed);
}

}  // namespace

void collectives_begin(int world_rank) {
  g_world_rank = world_rank;
  if (g_keyval == MPI_KEYVAL_INVALID) PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_state, &g_keyval, nullptr);
}

void collectives_end() {
  std::lock_guard lk(g_requests_mu);
  g_requests.clear();
  g_watched.store(0, std::memory_order_relaxed);
  g_persistent.clear();
  g_persistent_n.store(0, std::memory_order_relaxed);
}

void communicator_created(MPI_Comm parent, MPI_Comm child) {
  if (!enabled()) return;
  comm_state* p = state_of(parent);
  if (p == nullptr) return;
  const std::uint64_t nth = p->children++;
  if (child == MPI_COMM_NULL || p->inter) return;
  // The world rank of the child's rank 0 tells apart the children of one call (split: one per color).
  MPI_Group g = MPI_GROUP_NULL, world = MPI_GROUP_NULL;
  int zero = 0, root = 0;
  PMPI_Comm_group(child, &g);
  PMPI_Comm_group(MPI_COMM_WORLD, &world);
  if (PMPI_Group_translate_ranks(g, 1, &zero, world, &root) != MPI_SUCCESS || root == MPI_UNDEFINED) root = -1;
  PMPI_Group_free(&g);
  PMPI_Group_free(&world);
  const std::uint64_t key =
      mix(mix(p->key ^ mix(nth)) ^ static_cast<std::uint64_t>(static_cast<std::uint32_t>(root))) & ~local_comm_key_bit;
  void* value = nullptr;
  int found = 0;
  if (PMPI_Comm_get_attr(child, g_keyval, &value, &found) == MPI_SUCCESS && found != 0) {
    static_cast<comm_state*>(value)->key = key;  // a state made by a collective inside the creation call
  } else {
    attach(child, key);
  }
}

int monitored_size(MPI_Comm comm) noexcept {
  int inter = 0, n = 0;
  if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter != 0) return 0;
  return PMPI_Comm_size(comm, &n) == MPI_SUCCESS && n > 0 ? n : 0;
}

namespace {

// Keys `c` from its members' world ranks (in its rank order), `salt` (what made it) and the number of communicators
// with the same members and salt this process keyed before.
void key_by_members(MPI_Comm c, std::uint64_t salt) {
  static std::mutex mu;
  static std::unordered_map<std::uint64_t, std::uint64_t> made;  // members' hash and salt -> communicators so far
  try {
    MPI_Group group = MPI_GROUP_NULL, world = MPI_GROUP_NULL;
    int n = 0;
    PMPI_Comm_group(c, &group);
    PMPI_Group_size(group, &n);
    std::vector<int> ranks(static_cast<std::size_t>(std::max(n, 0))), in_world(ranks.size(), MPI_UNDEFINED);
    for (int i = 0; i < n; ++i) ranks[static_cast<std::size_t>(i)] = i;
    PMPI_Comm_group(MPI_COMM_WORLD, &world);
    PMPI_Group_translate_ranks(group, n, ranks.data(), world, in_world.data());
    PMPI_Group_free(&group);
    PMPI_Group_free(&world);
    std::uint64_t members = mix(static_cast<std::uint64_t>(n));
    for (const int r : in_world) members = mix(members ^ static_cast<std::uint64_t>(static_cast<std::uint32_t>(r)));
    std::uint64_t nth = 0;
    {
      std::lock_guard lk(mu);
      nth = made[members ^ salt]++;
    }
    const std::uint64_t key = mix(members ^ mix(nth ^ salt)) & ~local_comm_key_bit;
    void* value = nullptr;
    int found = 0;
    if (PMPI_Comm_get_attr(c, g_keyval, &value, &found) == MPI_SUCCESS && found != 0) {
      static_cast<comm_state*>(value)->key = key;
    } else {
      attach(c, key);
    }
  } catch (const std::bad_alloc&) {  // the communicator keeps a key of this rank alone, made on first use
  }
}

}  // namespace

void merged_communicator_created(MPI_Comm merged) {
  if (!enabled() || merged == MPI_COMM_NULL || g_keyval == MPI_KEYVAL_INVALID) return;
  key_by_members(merged, 0x6D657267ULL);  // "merg"
}

void group_communicator_created(MPI_Comm parent, int tag, MPI_Comm child) {
  if (!enabled() || child == MPI_COMM_NULL || g_keyval == MPI_KEYVAL_INVALID) return;
  const comm_state* p = state_of(parent);
  if (p == nullptr || p->inter) return;
  const auto tag_bits = static_cast<std::uint64_t>(static_cast<std::uint32_t>(tag));
  const std::uint64_t made_by = mix(tag_bits ^ 0x63677270ULL);  // "cgrp"
  key_by_members(child, mix(p->key ^ made_by));
}

std::uint64_t times_size(MPI_Comm comm, std::uint64_t bytes) noexcept {
  return bytes * static_cast<std::uint64_t>(monitored_size(comm));
}

comm_state* monitored(MPI_Comm comm) noexcept {
  if (!enabled()) return nullptr;
  comm_state* st = state_of(comm);
  return st == nullptr || st->inter ? nullptr : st;
}

coll_instance arrive_at(op_kind kind, comm_state& st, std::uint64_t bytes) noexcept {
  return coll_arrive(kind, st.key, st.next_seq++, bytes, st.size);  // numbered here
}

blocking_coll::~blocking_coll() {
  if (on_) coll_depart(instance_);
}

int nonblocking_coll::started(int rc, const MPI_Request* request) noexcept {
  if (on_ && rc == MPI_SUCCESS && request != nullptr && *request != MPI_REQUEST_NULL) watch(*request, instance_);
  return rc;
}

int persistent_coll::registered(int rc, const MPI_Request* request) noexcept {
  if (st_ == nullptr || rc != MPI_SUCCESS || request == nullptr || *request == MPI_REQUEST_NULL) return rc;
  persistent_req r;
  r.kind = kind_;
  r.size = st_->size;
  r.key = st_->key;
  r.seq_base = persistent_seq_bit | (st_->persistent++ & 0x7FFFFFFFULL) << 32;
  r.bytes = bytes_;
  std::lock_guard lk(g_requests_mu);
  try {
    if (g_persistent.insert_or_assign(*request, r).second) g_persistent_n.fetch_add(1, std::memory_order_relaxed);
  } catch (...) {
    // Out of memory: its starts are not monitored.
  }
  return rc;
}

persistent_start::persistent_start(int count, const MPI_Request* requests) noexcept {
  if (g_persistent_n.load(std::memory_order_relaxed) == 0 || count <= 0 || requests == nullptr) return;
  starts_ = count <= inline_count ? inline_ : new (std::nothrow) start[static_cast<std::size_t>(count)];
  if (starts_ == nullptr) return;
  requests_ = requests;
  {
    std::lock_guard lk(g_requests_mu);
    for (int i = 0; i < count; ++i) {
      const auto it = g_persistent.find(requests[i]);
      if (it == g_persistent.end()) continue;
      persistent_req& r = it->second;
      start& s = starts_[n_++];
      s.index = i;
      s.kind = r.kind;
      s.size = r.size;
      s.bytes = r.bytes;
      s.instance = {r.key, r.seq_base | (r.starts++ & 0xFFFFFFFFULL)};
    }
  }
  for (int k = 0; k < n_; ++k) {  // recorded outside the lock, as a nonblocking collective's arrival
    start& s = starts_[k];
    s.instance = coll_arrive(s.kind, s.instance.comm_key, s.instance.seq, s.bytes, s.size);
  }
}

persistent_start::~persistent_start() {
  if (starts_ != inline_) delete[] starts_;
}

int persistent_start::started(int rc) noexcept {
  if (rc != MPI_SUCCESS) return rc;  // an instance that arrived but never departs is left out of every figure
  for (int k = 0; k < n_; ++k) watch(requests_[starts_[k].index], starts_[k].instance);
  return rc;
}

void persistent_freed(MPI_Request request) noexcept {
  if (g_persistent_n.load(std::memory_order_relaxed) == 0 || request == MPI_REQUEST_NULL) return;
  std::lock_guard lk(g_requests_mu);
  if (g_persistent.erase(request) != 0) g_persistent_n.fetch_sub(1, std::memory_order_relaxed);
}

bool requests_watched() noexcept { return g_watched.load(std::memory_order_relaxed) != 0; }

void request_seen_complete(MPI_Request request) noexcept {
  if (requests_watched()) done(request, true);
}

request_watch::request_watch(int count, MPI_Request* requests) noexcept {
  if (!requests_watched() || count <= 0 || requests == nullptr) return;
  taken_ = count <= inline_count ? inline_ : new (std::nothrow) taken[static_cast<std::size_t>(count)];
  if (taken_ == nullptr) return;
  requests_ = requests;
  std::lock_guard lk(g_requests_mu);
  for (int i = 0; i < count; ++i) {
    if (requests[i] == MPI_REQUEST_NULL) continue;
    const auto it = g_requests.find(requests[i]);
    if (it == g_requests.end()) continue;
    taken_[n_].index = i;
    taken_[n_].node = g_requests.extract(it);  // no allocation to put it back
    ++n_;
    g_watched.fetch_sub(1, std::memory_order_relaxed);
  }
}

request_watch::~request_watch() {
  put_back();
  if (taken_ != inline_) delete[] taken_;
}

void request_watch::put_back() noexcept {
  if (n_ == 0) return;
  std::lock_guard lk(g_requests_mu);
  for (int k = 0; k < n_; ++k) {
    // The handle is still this caller's (not completed, so not reused): nothing else can have watched it meanwhile.
    if (g_requests.insert(std::move(taken_[k].node)).inserted) g_watched.fetch_add(1, std::memory_order_relaxed);
  }
  n_ = 0;
}

void request_watch::depart_completed() noexcept {
  int kept = 0;
  for (int k = 0; k < n_; ++k) {
    if (requests_[taken_[k].index] == MPI_REQUEST_NULL || taken_[k].reported) {
      coll_depart(taken_[k].node.mapped());
      taken_[k].node = {};
    } else if (kept != k) {
      taken_[kept++] = std::move(taken_[k]);
    } else {
      ++kept;
    }
  }
  n_ = kept;
  put_back();
}

void request_watch::freed(int i) noexcept {
  for (int k = 0; k < n_; ++k) {
    if (taken_[k].index != i) continue;
    if (k != n_ - 1) std::swap(taken_[k], taken_[n_ - 1]);
    taken_[n_ - 1].node = {};  // dropped: a freed collective's completion is never seen
    --n_;
    return;
  }
}

}  // namespace sidecore::instrument::pmpi
