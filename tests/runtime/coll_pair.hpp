// Two local shm engines in this process, each the other's rank of a two-rank communicator (mode off), each with its
// collective executor: for the unit tests of collective runs that fail or end (test_engine_coll_failure.cpp,
// test_engine_coll_ended.cpp). And finding a run's child requests in an engine's pool.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <sidecore/progress/collective.hpp>
#include <sidecore/progress/tag.hpp>

#include "engine_core.hpp"
#include "local_engine.hpp"

namespace sctest {

using namespace sidecore::progress;
namespace coll = sidecore::coll;

inline const std::uint64_t kConnectTag = tag::make(tag::kind::p2p, 0, 12);

// Two engines, connected both ways, each with its executor and its rank of communicator 1.
struct coll_pair {
  explicit coll_pair(std::size_t eager_credits = engine_config{}.eager_credits)
      : e(sctest::engine_pair(idle_policy::hybrid, eager_credits)) {}
  explicit coll_pair(const engine_config& cfg) : e(sctest::engine_pair_with(cfg)) {}
  std::vector<std::unique_ptr<engine>> e;
  std::unique_ptr<coll_executor> x[2];
  std::shared_ptr<coll_comm> c[2];

  void open() {
    ASSERT_EQ(e.size(), 2u);
    ASSERT_NO_FATAL_FAILURE(sctest::connect_engines(*e[0], 0, *e[1], 1, kConnectTag));
    ASSERT_NO_FATAL_FAILURE(sctest::connect_engines(*e[1], 1, *e[0], 0, kConnectTag));
    for (int r = 0; r < 2; ++r) {
      x[r] = std::make_unique<coll_executor>(*e[static_cast<std::size_t>(r)]);
      c[r] = std::make_shared<coll_comm>(1, r, std::vector<int>{0, 1}, 4);
    }
  }
  engine_core& core(int r) { return core_of(*e[static_cast<std::size_t>(r)]); }
  // Progresses both engines until both requests completed (10 s at most).
  bool finish(std::uint64_t h0, std::uint64_t h1) {
    return sctest::progress_until(*e[1], [&] {
      e[0]->progress();
      return !e[0]->pending(h0) && !e[1]->pending(h1);
    });
  }
  // Both runs' results and sentences (each request read once).
  struct outcome {
    completion c[2]{};
    std::string why[2];
  };
  outcome results(std::uint64_t h0, std::uint64_t h1) {
    outcome o;
    const std::uint64_t h[2] = {h0, h1};
    for (std::size_t r = 0; r < 2; ++r)
      o.why[r] = e[r]->wait(h[r], o.c[r]) ? x[r]->describe(h[r], o.c[r]) : "(no result)";
    return o;
  }
  // Progresses both runs to their end and checks that both succeeded.
  void expect_both_ok(std::uint64_t h0, std::uint64_t h1) {
    ASSERT_TRUE(finish(h0, h1));
    const outcome o = results(h0, h1);
    EXPECT_EQ(o.c[0].result, req_result::ok) << o.why[0];
    EXPECT_EQ(o.c[1].result, req_result::ok) << o.why[1];
  }
  bool slots_back() {
    return sctest::progress_until(*e[0], [&] {
      e[1]->progress();
      return e[0]->requests_in_use() == 0 && e[1]->requests_in_use() == 0;
    });
  }
};

// The child requests of collectives that `pred` accepts, in slot order.
inline std::vector<req*> find_children(engine_core& core, const std::function<bool(const req&)>& pred) {
  std::vector<req*> found;
  for (std::uint32_t i = 0, n = core.pool.slots(); i < n; ++i) {
    req* r = core.pool.at(i);
    if (taken_in_flight(*r) && r->parent && pred(*r)) found.push_back(r);
  }
  return found;
}
inline req* find_child(engine_core& core, const std::function<bool(const req&)>& pred) {
  const std::vector<req*> found = find_children(core, pred);
  return found.empty() ? nullptr : found.front();
}

// A sum allreduce of `count` doubles.
inline coll::spec allreduce_of(std::uint64_t count) {
  coll::spec s;
  s.k = coll::kind::allreduce;
  s.type = coll::dtype::float64;
  s.op = coll::reduce_op::sum;
  s.count = count;
  return s;
}

inline bool waiting_send(const req& q) {
  return q.op == req_kind::send && q.rdv && q.act == req_act::none && !q.posted;
}
inline bool answered_recv(const req& q) {
  return q.op == req_kind::recv && q.stage.load(std::memory_order_relaxed) == req_stage::matched &&
         q.act == req_act::none;
}

// Messages held as unexpected by engine `core` (under its lock: the caller progresses it from this thread only).
inline std::size_t unexpected_held(const engine_core& core) {
  std::size_t n = 0;
  for (const unexpected_msg* m = core.matching.unexp_head; m; m = m->next) ++n;
  return n;
}

}  // namespace sctest
