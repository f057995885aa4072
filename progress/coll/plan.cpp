// Plans (plan.hpp) and the communicator's cache of them (coll_comm, collective.hpp).
#include "plan.hpp"

#include <stdexcept>
#include <string>

#include <sidecore/progress/tag.hpp>

#include "signature.hpp"

namespace sidecore::progress {

coll_plan::coll_plan(const coll_comm& c, coll::spec s, coll::algorithm req, coll::algorithm chosen)
    : spec(std::move(s)), requested(req), sched(coll::build(spec, chosen, c.rank(), c.size())),
      sizes(coll::buffer_bytes(spec, c.rank(), c.size())) {
  if (sched.tags > tag::coll_first_notice) {
    // In the caller's elements: value_index pairs that are only moved are counted in bytes here.
    const std::string count = std::to_string(spec.count / coll::caller_unit(spec)) +
                              (spec.moved_pairs ? " {value; int32 index} pairs" : " elements");
    throw std::invalid_argument(
        "segment_bytes: " + std::to_string(spec.segment_bytes) + " cuts this " + std::string(coll::kind_name(spec.k)) +
        " of " + count + " into " + std::to_string(sched.tags) +
        " messages, more than the wire tag numbers (" + std::to_string(tag::coll_first_notice) +
        "); give a larger segment size (SIDECORE_COLL_SEGMENT)");
  }
  const std::uint32_t n = ops();
  dependents_first.assign(n + 1, 0);
  peer_world.assign(n, -1);
  for (std::uint32_t i = 0; i < n; ++i) {
    const coll::op& o = sched.ops[i];
    for (std::uint32_t k = 0; k < o.dep_count; ++k) ++dependents_first[sched.deps[o.dep_first + k] + 1];
    if (o.dep_count == 0) {
      roots.push_back(i);
      if (coll::is_local(o.type) && o.bytes > largest_root_step)
        largest_root_step = o.bytes;
    }
    if (o.type == coll::op_type::send || o.type == coll::op_type::recv) {
      ++(o.type == coll::op_type::send ? sends : recvs);
      peer_world[i] = c.world(o.peer);
      if (o.bytes > largest_message) largest_message = o.bytes;
    }
  }
  for (std::uint32_t i = 0; i < n; ++i) dependents_first[i + 1] += dependents_first[i];
  dependents.resize(dependents_first[n]);
  std::vector<std::uint32_t> fill(dependents_first.begin(), dependents_first.end() - 1);
  for (std::uint32_t i = 0; i < n; ++i) {
    const coll::op& o = sched.ops[i];
    for (std::uint32_t k = 0; k < o.dep_count; ++k) dependents[fill[sched.deps[o.dep_first + k]]++] = i;
  }
  sig = coll_signature(spec, sched.alg);
  contribution = sizes.send != 0 ? sizes.send : (spec.in_place ? sizes.recv : 0);
}

coll_plan_info plan_info(const coll_plan& p) noexcept { return {p.sizes.send, p.sizes.recv, p.sched.alg}; }

// ---- the communicator's cache ----------------------------------------------------------------------------------

struct coll_comm::cache_entry {
  std::shared_ptr<const coll_plan> plan;
  std::uint64_t last_use = 0;
};

coll_comm::coll_comm(int id, int rank, std::vector<int> to_world, std::size_t cache_entries)
    : id_(id), rank_(rank), to_world_(std::move(to_world)), cache_capacity_(cache_entries) {
  cache_.reserve(cache_capacity_);
}

coll_comm::~coll_comm() = default;

namespace {

// Two calls have the same schedule when every field build() reads is equal.
bool same_call(const coll::spec& a, const coll::spec& b) noexcept {
  return a.k == b.k && a.type == b.type && a.op == b.op && a.root == b.root && a.count == b.count &&
         a.in_place == b.in_place && a.segment_bytes == b.segment_bytes && a.commutative == b.commutative &&
         a.send_counts == b.send_counts && a.send_displs == b.send_displs && a.recv_counts == b.recv_counts &&
         a.recv_displs == b.recv_displs && a.moved_pairs == b.moved_pairs;
}

// The algorithm that runs for `a`: a forced algorithm that cannot run this call falls back to automatic (a setting
// is for every call of the kind; one call it does not fit still runs).
coll::algorithm effective(const coll::spec& s, coll::algorithm a) noexcept {
  if (a == coll::algorithm::automatic || !coll::supports(s.k, a)) return coll::algorithm::automatic;
  const bool reduces = s.k == coll::kind::reduce || s.k == coll::kind::allreduce ||
                       s.k == coll::kind::reduce_scatter_block;
  if (reduces && s.op == coll::reduce_op::user && !s.commutative && !coll::keeps_rank_order(s.k, a))
    return coll::algorithm::automatic;
  return a;
}

}  // namespace

std::shared_ptr<const coll_plan> coll_comm::plan(const coll::spec& s, coll::algorithm a) {
  {
    const std::lock_guard<std::mutex> g(cache_mutex_);
    for (cache_entry& e : cache_) {
      if (e.plan->requested == a && same_call(e.plan->spec, s)) {
        e.last_use = ++cache_clock_;
        return e.plan;
      }
    }
  }
  // Built outside the lock (a large schedule takes a while); a second thread building the same plan meanwhile
  // only costs the time.
  const coll::algorithm run = effective(s, a);
  auto p =
      std::make_shared<const coll_plan>(*this, s, a, run == coll::algorithm::automatic ? coll::choose(s, size()) : run);
  if (cache_capacity_ == 0) return p;
  const std::lock_guard<std::mutex> g(cache_mutex_);
  if (cache_.size() < cache_capacity_) {
    cache_.push_back({p, ++cache_clock_});
  } else {
    cache_entry* oldest = &cache_.front();
    for (cache_entry& e : cache_)
      if (e.last_use < oldest->last_use) oldest = &e;
    *oldest = {p, ++cache_clock_};
  }
  return p;
}

}  // namespace sidecore::progress
