// An engine on a local endpoint, connected to itself (address 0 is its own): for the progress unit tests, which
// need no MPI and no peer. `self_path` false: its messages to itself go through the provider and the wire protocol.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <sidecore/progress/engine.hpp>

namespace sctest {

inline std::unique_ptr<sidecore::progress::engine> local_engine(
    const std::string& provider = "shm", std::size_t eager_max = 8192,
    sidecore::progress::idle_policy idle = sidecore::progress::idle_policy::hybrid, bool self_path = true) {
  using namespace sidecore::progress;
  engine_config cfg;
  cfg.provider = provider;
  cfg.idle = idle;
  cfg.self_path = self_path;
  cfg.spin_us = 20;
  cfg.block_us = 100;
  cfg.queue_capacity = 64;
  cfg.eager_max = eager_max;
  try {
    auto e = engine::open(cfg);
    const std::vector<char> me = e->endpoint_name();
    e->add_addresses(me.data(), 1, 0);
    return e;
  } catch (const transport_error& ex) {
    ADD_FAILURE() << "cannot open a " << provider << " endpoint: " << ex.what();
    return nullptr;
  }
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

}  // namespace sctest
