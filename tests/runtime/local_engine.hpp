// An engine on a local endpoint, connected to itself (address 0 is its own): for the progress unit tests, which
// need no MPI and no peer. `self_path` false: its messages to itself go through the provider and the wire protocol.
// And two such engines, each the other's peer (engine_pair, connect_engines), and raw wire messages (raw_inject).
#pragma once

#include <gtest/gtest.h>

#include <rdma/fi_errno.h>
#include <rdma/fi_tagged.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <sidecore/progress/engine.hpp>

#include "engine_core.hpp"

namespace sctest {

// The settings of the unit tests' engines.
inline sidecore::progress::engine_config local_config(
    const std::string& provider = "shm", std::size_t eager_max = 8192,
    sidecore::progress::idle_policy idle = sidecore::progress::idle_policy::hybrid, bool self_path = true,
    std::size_t eager_credits = sidecore::progress::engine_config{}.eager_credits) {
  sidecore::progress::engine_config cfg;
  cfg.provider = provider;
  cfg.idle = idle;
  cfg.self_path = self_path;
  cfg.spin_us = 20;
  cfg.block_us = 100;
  cfg.queue_capacity = 64;
  cfg.eager_max = eager_max;
  cfg.eager_credits = eager_credits;
  return cfg;
}

// One engine made with `cfg`, its only address its own (0).
inline std::unique_ptr<sidecore::progress::engine> local_engine_with(const sidecore::progress::engine_config& cfg) {
  using namespace sidecore::progress;
  try {
    auto e = engine::open(cfg);
    const std::vector<char> me = e->endpoint_name();
    e->add_addresses(me.data(), 1, 0);
    return e;
  } catch (const transport_error& ex) {
    ADD_FAILURE() << "cannot open a " << cfg.provider << " endpoint: " << ex.what();
    return nullptr;
  }
}

inline std::unique_ptr<sidecore::progress::engine> local_engine(
    const std::string& provider = "shm", std::size_t eager_max = 8192,
    sidecore::progress::idle_policy idle = sidecore::progress::idle_policy::hybrid, bool self_path = true,
    std::size_t eager_credits = sidecore::progress::engine_config{}.eager_credits) {
  return local_engine_with(local_config(provider, eager_max, idle, self_path, eager_credits));
}

// Two engines on local endpoints made with `cfg`, each with both addresses (0, 1): each other's peer, in this process.
inline std::vector<std::unique_ptr<sidecore::progress::engine>> engine_pair_with(
    const sidecore::progress::engine_config& cfg) {
  using namespace sidecore::progress;
  std::vector<std::unique_ptr<engine>> e;
  try {
    e.push_back(engine::open(cfg));
    e.push_back(engine::open(cfg));
  } catch (const transport_error& ex) {
    ADD_FAILURE() << "cannot open a " << cfg.provider << " endpoint: " << ex.what();
    return {};
  }
  std::vector<char> names = e[0]->endpoint_name();
  const std::vector<char> second = e[1]->endpoint_name();
  if (names.size() != second.size()) return {};
  names.insert(names.end(), second.begin(), second.end());
  e[0]->add_addresses(names.data(), 2, 0);
  e[1]->add_addresses(names.data(), 2, 1);
  return e;
}

// Progresses (mode off; in mode core only waits) until pred() or 10 s.
template <typename P>
bool progress_until(sidecore::progress::engine& e, P pred) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!pred()) {
    if (!e.thread_running()) e.progress();
    if (std::chrono::steady_clock::now() > deadline) return false;
  }
  return true;
}

// Engines 0 and 1 on local shm endpoints, each with both addresses (0, 1): each other's peer, in this process.
inline std::vector<std::unique_ptr<sidecore::progress::engine>> engine_pair(
    sidecore::progress::idle_policy idle = sidecore::progress::idle_policy::hybrid,
    std::size_t eager_credits = sidecore::progress::engine_config{}.eager_credits) {
  return engine_pair_with(local_config("shm", 8192, idle, true, eager_credits));
}

// One 8-byte message on `tag` from engine `from` (address from_index) to engine `to` (address to_index; the same
// engine for a message to itself), both progressed until it arrived: it sets up shm's connection, until when the
// provider answers EAGAIN and a message waits in the backlog. Mode off.
inline void connect_engines(sidecore::progress::engine& from, int from_index, sidecore::progress::engine& to,
                            int to_index, std::uint64_t tag) {
  using namespace sidecore::progress;
  std::uint64_t v = 1, got = 0;
  const std::uint64_t r = to.start_recv(&got, sizeof got, tag, 0, from_index, from_index, 0);
  const std::uint64_t s = from.start_send(&v, sizeof v, to_index, tag, to_index, from_index, 0);
  ASSERT_TRUE(progress_until(from, [&] {
    if (&to != &from) to.progress();
    return !to.pending(r) && (is_inline(s) || !from.pending(s));
  }));
  completion c{};
  ASSERT_TRUE(to.wait(r, c));
  if (!is_inline(s)) {
    ASSERT_TRUE(from.wait(s, c));
  }
}

// fi_tinject from engine `from`'s endpoint to its address `to` (itself for an engine connected to itself), as a peer's
// provider delivers the wire protocol's messages; retried while shm answers EAGAIN (it sets up the connection).
// Mode off: nothing else progresses.
inline ssize_t raw_inject(sidecore::progress::engine& from, int to, const void* buf, std::size_t len,
                          std::uint64_t tag) {
  sidecore::progress::engine_core& c = sidecore::progress::core_of(from);
  ssize_t rc = -FI_EAGAIN;
  for (int i = 0; i < 100000 && rc == -FI_EAGAIN; ++i) {
    rc = fi_tinject(c.ep.ep, buf, len, c.ep.addr(to), tag);
    if (rc == -FI_EAGAIN) from.progress();
  }
  return rc;
}

}  // namespace sctest
