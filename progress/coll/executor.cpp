// The collectives executor (collective.hpp): starting runs of plans behind engine requests, the pool of instances
// (and so of scratch buffers), persistent collectives, the failures' descriptions and the monitoring hooks.
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <thread>

#include <sidecore/progress/tag.hpp>

#include "instance.hpp"

namespace sidecore::progress {

namespace {
// A pooled instance keeps a scratch buffer up to this size for its next run; larger ones are given back.
constexpr std::size_t keep_scratch_bytes = std::size_t{1} << 20;
}  // namespace

class coll_persistent {
 public:
  coll_persistent(coll_instance* i, std::uint32_t id, std::shared_ptr<coll_comm> c)
      : inst(i), instance_id(id), comm(std::move(c)) {}
  coll_instance* inst;
  std::uint32_t instance_id;  // the wire tag's instance, the same for every start
  std::uint64_t starts = 0;   // the run number of the next start (alike on every rank: each starts it in turn)
  std::shared_ptr<coll_comm> comm;  // whose id space instance_id is taken from (given back at destroy)
};

coll_executor::coll_executor(engine& e) : eng_(e), mismatches_(std::make_unique<mismatches>()) {
  core_of(eng_).coll_msgs = {&mismatches::on_notice, &mismatches::on_unexpected, mismatches_.get()};
}

coll_executor::~coll_executor() { detach(); }

void coll_executor::detach() noexcept {
  if (detached_) return;
  detached_ = true;
  core_of(eng_).coll_msgs = {};
}

std::uint64_t coll_executor::start(const std::shared_ptr<coll_comm>& c, const std::shared_ptr<const coll_plan>& p,
                                   const coll_buffers& b, std::uint32_t owner_thread) {
  // A wrapped instance number stays unambiguous while fewer than 2^19 instances of the communicator are in flight.
  while (c->in_flight_.load(std::memory_order_acquire) >= tag::coll_seq_bits) {
    if (!eng_.thread_running()) eng_.progress();
    else std::this_thread::yield();
  }
  engine_core& core = core_of(eng_);
  req* slot = core.take_slot();  // throws too_many_requests before anything of the communicator changes
  coll_instance* i = nullptr;
  try {
    const std::lock_guard<std::mutex> g(pool_mutex_);
    if (!free_.empty()) {
      i = free_.back();
      free_.pop_back();
    } else {
      instances_.push_back(std::make_unique<coll_instance>(*this));
      i = instances_.back().get();
    }
  } catch (...) {
    core.pool.release(slot);
    throw;
  }
  try {
    i->prepare(c, p, b, false);
  } catch (...) {
    core.pool.release(slot);
    i->unbind(0);
    const std::lock_guard<std::mutex> g(pool_mutex_);
    free_.push_back(i);
    throw;
  }
  i->reset(c->next_seq_.fetch_add(1, std::memory_order_relaxed) & tag::coll_seq_bits,
           c->started_.fetch_add(1, std::memory_order_relaxed));
  c->in_flight_.fetch_add(1, std::memory_order_acq_rel);
  try {
    return launch(*i, owner_thread, slot);
  } catch (...) {
    c->in_flight_.fetch_sub(1, std::memory_order_acq_rel);
    i->unbind(keep_scratch_bytes);
    const std::lock_guard<std::mutex> g(pool_mutex_);
    free_.push_back(i);
    throw;
  }
}

coll_persistent* coll_executor::create(const std::shared_ptr<coll_comm>& c, const std::shared_ptr<const coll_plan>& p,
                                       const coll_buffers& b) {
  auto i = std::make_unique<coll_instance>(*this);
  i->prepare(c, p, b, true);
  // The next id that no live persistent collective of c holds: two on one tag would take each other's messages.
  // Ids are taken here and given back at destroy, both in program order, so ranks that create and free c's
  // persistent collectives in the same order pick the same id.
  const std::lock_guard<std::mutex> g(c->persistent_mutex_);
  if (c->persistent_live_.empty()) c->persistent_live_.resize(std::size_t{tag::coll_seq_bits} + 1);
  if (c->persistent_live_count_ > tag::coll_seq_bits)
    throw too_many_persistent("2^19 (524288) persistent collectives of this communicator are live, the most it "
                              "may hold: free one first");
  std::uint32_t n = 0;
  do n = c->next_persistent_++ & tag::coll_seq_bits;
  while (c->persistent_live_[n]);
  auto* pc = new coll_persistent(i.get(), tag::coll_persistent | n, c);
  c->persistent_live_[n] = true;
  ++c->persistent_live_count_;
  i.release();
  return pc;
}

std::uint64_t coll_executor::start(coll_persistent& pc, std::uint32_t owner_thread) {
  coll_instance& i = *pc.inst;
  req* slot = core_of(eng_).take_slot();  // throws too_many_requests before the run is counted
  i.reset(pc.instance_id, i.comm().started_.fetch_add(1, std::memory_order_relaxed), pc.starts++);
  i.state.store(coll_instance::life::running, std::memory_order_release);
  try {
    return launch(i, owner_thread, slot);
  } catch (...) {
    i.state.store(coll_instance::life::idle, std::memory_order_release);
    throw;
  }
}

void coll_executor::destroy(coll_persistent* pc) noexcept {
  if (!pc) return;
  {
    const std::lock_guard<std::mutex> g(pc->comm->persistent_mutex_);
    pc->comm->persistent_live_[pc->instance_id & tag::coll_seq_bits] = false;
    --pc->comm->persistent_live_count_;
  }
  // Running: its retire() deletes it, unless no run completes any more (detach). Idle: nothing else holds it.
  if (pc->inst->state.exchange(coll_instance::life::released, std::memory_order_acq_rel) !=
          coll_instance::life::running ||
      detached_)
    delete pc->inst;
  delete pc;
}

std::uint64_t coll_executor::launch(coll_instance& i, std::uint32_t owner_thread, req* slot) {
  const coll_plan& p = i.plan();
  if (monitor_.arrive) {
    try {
      monitor_.arrive(p.spec.k, i.comm().id(), i.seq(), p.contribution, i.comm().size());
    } catch (...) {
      core_of(eng_).pool.release(slot);
      throw;
    }
  }
  // A collective of eager-sized messages is latency-bound: a thread that waits for it may progress it itself (mode
  // core's caller progress, as for point-to-point). Larger ones are the progress thread's, to move in the background.
  const progressor by = p.largest_message <= eng_.eager_max() ? progressor::any : progressor::thread;
  const std::uint64_t h = core_of(eng_).start_schedule(i, owner_thread, by, slot);
  // i may have completed and be reused from here on.
  if (!eng_.thread_running()) eng_.progress();  // mode off: the first operations go out now, not at the next call
  return h;
}

void coll_executor::comm_freed(int id) noexcept { mismatches_->comm_freed(id); }

void coll_executor::retired(coll_instance& i, const char* failure, std::uint64_t handle) noexcept {
  if (failure) {
    const std::lock_guard<std::mutex> g(failures_mutex_);
    failure_note& n = failures_[failures_next_++ % std::size(failures_)];
    n.handle = handle;
    std::snprintf(n.text, sizeof n.text, "%s", failure);
  }
  if (monitor_.depart) monitor_.depart(i.comm().id(), i.seq());
  if (i.state.load(std::memory_order_acquire) != coll_instance::life::idle) {  // persistent
    if (i.state.exchange(coll_instance::life::idle, std::memory_order_acq_rel) == coll_instance::life::released)
      delete &i;
    return;
  }
  i.comm().in_flight_.fetch_sub(1, std::memory_order_acq_rel);
  i.unbind(keep_scratch_bytes);
  const std::lock_guard<std::mutex> g(pool_mutex_);
  free_.push_back(&i);
}

std::string coll_executor::describe(std::uint64_t handle, const completion& c) const {
  {
    const std::lock_guard<std::mutex> g(failures_mutex_);
    for (const failure_note& n : failures_)
      if (n.handle == handle && handle != 0) return n.text;
  }
  if (c.result == req_result::invalid) return "the ranks called the collective with arguments that differ";
  if (c.result == req_result::transport || c.result == req_result::peer_failed) return eng_.describe(c);
  return {};
}

}  // namespace sidecore::progress
