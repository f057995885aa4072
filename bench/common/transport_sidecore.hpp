// sidecore as a transport: isend/irecv/wait through the public API, mode and provider from the environment
// (SIDECORE_PROGRESS, SIDECORE_PROVIDER, ...), read by sidecore::init().
#pragma once

#include <sidecore/sidecore.hpp>

#include <span>
#include <string>
#include <vector>

#include "bench_common.hpp"

namespace scb {

class sidecore_transport {
 public:
  using request = sidecore::request;

  sidecore_transport() {
    try {
      sidecore::init(MPI_COMM_WORLD);
    } catch (const sidecore::error& e) {
      die(std::string("sidecore::init failed: ") + e.what());
    }
    info_ = sidecore::info();
  }
  ~sidecore_transport() {
    try {
      sidecore::finalize();
    } catch (const sidecore::error& e) {
      std::fprintf(stderr, "bench: sidecore::finalize failed: %s\n", e.what());
    }
  }
  sidecore_transport(const sidecore_transport&) = delete;
  sidecore_transport& operator=(const sidecore_transport&) = delete;

  [[nodiscard]] std::string name() const { return "sidecore"; }
  /// Short label for tables and CSV: "off" or "core".
  [[nodiscard]] std::string label() const { return info_.mode; }
  [[nodiscard]] std::string mode() const {
    std::string m = "sidecore " + info_.mode;
    if (info_.mode == "core") m += " (progress thread on core " + std::to_string(info_.reserved_core) + ")";
    m += ", SIDECORE_IDLE=" + env_or("SIDECORE_IDLE", "(default)");
    return m;
  }
  [[nodiscard]] std::string provider() const { return info_.provider; }
  [[nodiscard]] const sidecore::runtime_info& info() const { return info_; }

  request isend(const void* buf, std::size_t bytes, int peer, int tag) {
    return sidecore::isend(buf, static_cast<std::int64_t>(bytes), peer, tag);
  }
  request irecv(void* buf, std::size_t bytes, int peer, int tag) {
    return sidecore::irecv(buf, static_cast<std::int64_t>(bytes), peer, tag);
  }
  void wait(request& r) { check(sidecore::wait(r)); }
  void waitall(std::span<request> rs) {
    statuses_.resize(rs.size());  // grows once to the largest window: no allocation in the timed loops after that
    sidecore::waitall(rs, std::span(statuses_.data(), rs.size()));
    for (std::size_t i = 0; i < rs.size(); ++i) check(statuses_[i]);
  }
  void send(const void* buf, std::size_t bytes, int peer, int tag) {
    sidecore::send(buf, static_cast<std::int64_t>(bytes), peer, tag);
  }
  void recv(void* buf, std::size_t bytes, int peer, int tag) {
    check(sidecore::recv(buf, static_cast<std::int64_t>(bytes), peer, tag));
  }

 private:
  static void check(const sidecore::status& st) {
    if (!st.ok()) die(std::string("sidecore request completed with ") + sidecore::errc_name(st.error));
  }
  sidecore::runtime_info info_;
  std::vector<sidecore::status> statuses_;
};

}  // namespace scb
