// Raw libfabric transport: the fast baseline that sidecore's latency and bandwidth targets are ratios of.
//
// It is deliberately the shortest path libfabric offers to a single-threaded program: one tagged RDM endpoint,
// FI_THREAD_DOMAIN (no locking), a completion queue without wait object polled by spinning on fi_cq_read,
// fi_tinject (no completion at all) for messages up to the provider's inject size, and exact tag matching.
// MPI is used only to exchange endpoint names. Provider selection is sidecore's: SIDECORE_PROVIDER when set,
// else shm (every rank of these benchmarks runs on one host); "tcp" means "tcp;ofi_rxm", on the loopback
// interface unless FI_TCP_IFACE is already set.
#pragma once

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_tagged.h>

#include <span>
#include <string>
#include <vector>

#include "bench_common.hpp"

namespace scb {

class fabric_transport {
 public:
  /// One operation in flight. Completion entries carry a pointer to it (FI_CONTEXT2 space first).
  struct op {
    fi_context2 ctx{};
    bool done = true;
  };
  using request = op*;

  fabric_transport() {
    provider_ = env_or("SIDECORE_PROVIDER", "shm");
    if (provider_ == "tcp") provider_ = "tcp;ofi_rxm";
    if (provider_.find("tcp") != std::string::npos) setenv("FI_TCP_IFACE", "lo", 0);  // only if the user did not

    fi_info* hints = fi_allocinfo();
    hints->caps = FI_TAGGED;
    hints->mode = FI_CONTEXT | FI_CONTEXT2;
    hints->ep_attr->type = FI_EP_RDM;
    hints->domain_attr->threading = FI_THREAD_DOMAIN;
    hints->domain_attr->mr_mode = FI_MR_UNSPEC;  // no registration by the application: rxm/shm handle it
    hints->fabric_attr->prov_name = strdup(provider_.c_str());
    check(fi_getinfo(FI_VERSION(1, 14), nullptr, nullptr, 0, hints, &info_), "fi_getinfo(" + provider_ + ")");
    fi_freeinfo(hints);
    provider_ = info_->fabric_attr->prov_name;
    inject_size_ = info_->tx_attr->inject_size;

    check(fi_fabric(info_->fabric_attr, &fabric_, nullptr), "fi_fabric");
    check(fi_domain(fabric_, info_, &domain_, nullptr), "fi_domain");
    fi_cq_attr cq_attr{};
    cq_attr.format = FI_CQ_FORMAT_TAGGED;
    cq_attr.wait_obj = FI_WAIT_NONE;  // we spin: no wait object to signal
    cq_attr.size = 1024;
    check(fi_cq_open(domain_, &cq_attr, &cq_, nullptr), "fi_cq_open");
    fi_av_attr av_attr{};
    av_attr.type = FI_AV_TABLE;
    check(fi_av_open(domain_, &av_attr, &av_, nullptr), "fi_av_open");
    check(fi_endpoint(domain_, info_, &ep_, nullptr), "fi_endpoint");
    check(fi_ep_bind(ep_, &cq_->fid, FI_TRANSMIT | FI_RECV), "fi_ep_bind(cq)");
    check(fi_ep_bind(ep_, &av_->fid, 0), "fi_ep_bind(av)");
    check(fi_enable(ep_), "fi_enable");

    // Bootstrap: every rank's endpoint name through MPI, inserted in rank order (FI_AV_TABLE: fi_addr == rank).
    std::vector<char> name(256);
    std::size_t len = name.size();
    check(fi_getname(&ep_->fid, name.data(), &len), "fi_getname");
    int size = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    std::vector<char> names(static_cast<std::size_t>(size) * name.size());
    MPI_Allgather(name.data(), static_cast<int>(name.size()), MPI_BYTE, names.data(), static_cast<int>(name.size()),
                  MPI_BYTE, MPI_COMM_WORLD);
    addrs_.resize(static_cast<std::size_t>(size));
    for (int r = 0; r < size; ++r) {
      int n = fi_av_insert(av_, &names[static_cast<std::size_t>(r) * name.size()], 1,
                           &addrs_[static_cast<std::size_t>(r)], 0, nullptr);
      if (n != 1) die("fi_av_insert of rank " + std::to_string(r) + " failed");
    }
    pool_.resize(pool_size);
  }

  ~fabric_transport() {
    fi_close(&ep_->fid);
    fi_close(&av_->fid);
    fi_close(&cq_->fid);
    fi_close(&domain_->fid);
    fi_close(&fabric_->fid);
    fi_freeinfo(info_);
  }
  fabric_transport(const fabric_transport&) = delete;
  fabric_transport& operator=(const fabric_transport&) = delete;

  [[nodiscard]] std::string name() const { return "raw libfabric"; }
  [[nodiscard]] std::string label() const { return "raw"; }
  [[nodiscard]] std::string mode() const { return "raw (application thread spins on fi_cq_read)"; }
  [[nodiscard]] std::string provider() const {
    return provider_ + " (inject_size " + std::to_string(inject_size_) + ")";
  }

  request isend(const void* buf, std::size_t bytes, int peer, int tag) {
    const fi_addr_t dest = addrs_[static_cast<std::size_t>(peer)];
    if (bytes <= inject_size_) {
      // Inject: the buffer is reusable at return and no completion is written — the cheapest small send.
      while (true) {
        ssize_t rc = fi_tinject(ep_, buf, bytes, dest, static_cast<std::uint64_t>(tag));
        if (rc == 0) return &completed_;
        if (rc != -FI_EAGAIN) check(static_cast<int>(rc), "fi_tinject");
        progress();
      }
    }
    op* o = next_op();
    while (true) {
      ssize_t rc = fi_tsend(ep_, buf, bytes, nullptr, dest, static_cast<std::uint64_t>(tag), &o->ctx);
      if (rc == 0) return o;
      if (rc != -FI_EAGAIN) check(static_cast<int>(rc), "fi_tsend");
      progress();
    }
  }

  request irecv(void* buf, std::size_t bytes, int peer, int tag) {
    op* o = next_op();
    while (true) {
      ssize_t rc = fi_trecv(ep_, buf, bytes, nullptr, addrs_[static_cast<std::size_t>(peer)],
                            static_cast<std::uint64_t>(tag), 0, &o->ctx);
      if (rc == 0) return o;
      if (rc != -FI_EAGAIN) check(static_cast<int>(rc), "fi_trecv");
      progress();
    }
  }

  void wait(request r) {
    while (!r->done) progress();
  }
  void waitall(std::span<request> rs) {
    for (request r : rs) wait(r);
  }
  void send(const void* buf, std::size_t bytes, int peer, int tag) { wait(isend(buf, bytes, peer, tag)); }
  void recv(void* buf, std::size_t bytes, int peer, int tag) { wait(irecv(buf, bytes, peer, tag)); }

 private:
  static constexpr std::size_t pool_size = 1024;  // > the largest window + a few: slots are reused round-robin

  op* next_op() {
    op* o = &pool_[next_++ % pool_size];
    if (!o->done) die("raw libfabric: more than 1024 operations in flight");
    o->done = false;
    return o;
  }

  void progress() {
    fi_cq_tagged_entry entries[16];
    ssize_t n = fi_cq_read(cq_, entries, 16);
    if (n > 0) {
      for (ssize_t i = 0; i < n; ++i) static_cast<op*>(entries[i].op_context)->done = true;
    } else if (n == -FI_EAVAIL) {
      fi_cq_err_entry err{};
      fi_cq_readerr(cq_, &err, 0);
      die(std::string("raw libfabric: completion error: ") + fi_strerror(err.err) + " (" +
          fi_cq_strerror(cq_, err.prov_errno, err.err_data, nullptr, 0) + ")");
    } else if (n != -FI_EAGAIN) {
      check(static_cast<int>(n), "fi_cq_read");
    }
  }

  static void check(int rc, const std::string& what) {
    if (rc != 0) die("raw libfabric: " + what + " failed: " + fi_strerror(-rc));
  }

  std::string provider_;
  std::size_t inject_size_ = 0;
  fi_info* info_ = nullptr;
  fid_fabric* fabric_ = nullptr;
  fid_domain* domain_ = nullptr;
  fid_cq* cq_ = nullptr;
  fid_av* av_ = nullptr;
  fid_ep* ep_ = nullptr;
  std::vector<fi_addr_t> addrs_;
  std::vector<op> pool_;
  std::size_t next_ = 0;
  op completed_;  // returned for injected sends: already done
};

}  // namespace scb
