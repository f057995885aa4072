// The libfabric endpoint (endpoint.cpp): fabric, domain, completion queue, address vector and one tagged RDM
// endpoint, opened for what the engine needs (query_provider), and the address table (engine address index ->
// fi_addr_t). Set-up only: failures here throw transport_error; once open, every call on it is made under the
// progress lock (FI_THREAD_DOMAIN).
#pragma once

#include <rdma/fabric.h>
#include <rdma/fi_domain.h>

#include <cstddef>
#include <string>
#include <vector>

namespace sidecore::progress {

struct endpoint {
  /// Opens everything on `provider`; `min_inject` is the smallest inject size the engine can work with (its
  /// control messages). Throws transport_error naming the provider and the failing call; what was opened is closed.
  endpoint(const std::string& provider, std::size_t min_inject);
  ~endpoint();
  endpoint(const endpoint&) = delete;
  endpoint& operator=(const endpoint&) = delete;

  /// This endpoint's libfabric name. Throws transport_error.
  [[nodiscard]] std::vector<char> name() const;
  /// Inserts `count` names, back to back (each as name() gives it: the provider's address length), as address
  /// indices 0..count-1. Throws transport_error.
  void insert(const char* names, std::size_t count);
  [[nodiscard]] fi_addr_t addr(int index) const noexcept { return addrs[static_cast<std::size_t>(index)]; }

  std::string provider, fabric_name;
  std::size_t max_msg_size = 0, inject_size = 0, iov_limit = 0, rx_size = 0;
  struct fi_info* info = nullptr;
  struct fid_fabric* fabric = nullptr;
  struct fid_domain* domain = nullptr;
  struct fid_cq* cq = nullptr;
  struct fid_av* av = nullptr;
  struct fid_ep* ep = nullptr;
  std::vector<fi_addr_t> addrs;

  /// Closes everything (the engine does it before it frees the memory its receives are posted into).
  void close() noexcept;
  /// shm: removes the region's name from /dev/shm (once every peer has mapped the region, the mappings keep it
  /// alive and nothing needs the name), so that no region outlives the job, even a job killed by SIGKILL.
  /// Idempotent; nothing for other providers.
  void unlink_shm_region() noexcept;

  std::string shm_name;  // shm: our region's name until unlink_shm_region

 private:
  void open(std::size_t min_inject);
  void name_shm_region();  // shm: a region name no leftover of a killed process can collide with
};

/// Throws transport_error for a failed set-up call: "libfabric <call> failed on provider '<p>': <text> (<rc>)".
[[noreturn]] void throw_fi(const char* call, int rc, const std::string& provider);

}  // namespace sidecore::progress
