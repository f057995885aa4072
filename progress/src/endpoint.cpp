// Endpoint: opening the libfabric objects the engine needs, naming shm's region, and filling the address vector
// (from an MPI exchange of endpoint names in connect(), or from names given directly).
#include "endpoint.hpp"
#include "fd_room.hpp"
#include "shm_space.hpp"

#include <rdma/fi_cm.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>

#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <utility>

#include <sidecore/common/common.hpp>

#include "engine_core.hpp"

namespace sidecore::progress {

namespace {

struct info_deleter {
  void operator()(fi_info* i) const noexcept { fi_freeinfo(i); }
};

// Providers that open a tagged RDM endpoint with send-after-send ordering but break what sidecore promises, and
// why (libfabric 1.17, measured with the point-to-point suite at 2 ranks on one host). Refused at init: a job
// that fails at once with a reason beats one that hangs or reorders later.
struct refused_provider {
  const char* name;
  const char* why;
};
constexpr refused_provider refused_providers[] = {
    {"udp;ofi_rxd",
     "its sends complete before their data reached the receiver (ofi_rxd retransmits in software, driven by the "
     "sender's progress), so a rank that completed its sends and stopped calling sidecore leaves its peers waiting "
     "forever (P2P.TwoThousandReceivesPostedBeforeTheSends hangs)"},
    {"net",
     "it delivers messages of one sender and tag out of order although it announces send-after-send ordering "
     "(P2P.OrderingSameTagSmallMessagesSentBeforeReceives: message 74 arrived before 70); 'net;ofi_rxm' keeps "
     "order and is accepted"},
};

}  // namespace

const char* provider_refusal(const std::string& provider) noexcept {
  for (const refused_provider& r : refused_providers)
    if (provider == r.name) return r.why;
  return nullptr;
}

[[noreturn]] void throw_fi(const char* call, int rc, const std::string& provider) {
  // Near the descriptor limit a provider's call fails with EMFILE, or with a code that hides it (EIO from
  // fi_endpoint on tcp;ofi_rxm): the room is what tells.
  const std::string fds = fd_room_note(fd_margin);
  throw transport_error(std::string("libfabric ") + call + " failed on provider '" + provider + "': " +
                        fi_strerror(-rc) + " (" + std::to_string(rc) + ")" + (fds.empty() ? "" : "; " + fds));
}

int query_provider(const std::string& provider, fi_info** info) {
  *info = nullptr;
  std::unique_ptr<fi_info, info_deleter> hints(fi_allocinfo());
  if (!hints) return -FI_ENOMEM;
  // Matching is sidecore's own (wire.hpp): the provider only matches exact tags, any source.
  hints->caps = FI_TAGGED | FI_SEND | FI_RECV;
  hints->mode = FI_CONTEXT | FI_CONTEXT2;
  hints->ep_attr->type = FI_EP_RDM;
  hints->domain_attr->threading = FI_THREAD_DOMAIN;  // every fi_* call is made under the progress lock
  hints->domain_attr->mr_mode = FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY;
  hints->tx_attr->msg_order = FI_ORDER_SAS;  // matching order per (source, tag): MPI's non-overtaking rule
  hints->rx_attr->msg_order = FI_ORDER_SAS;
  if (!provider.empty()) hints->fabric_attr->prov_name = strdup(provider.c_str());
  return fi_getinfo(FI_VERSION(1, 14), nullptr, nullptr, 0, hints.get(), info);
}

endpoint::endpoint(const std::string& prov, std::size_t min_inject) : provider(prov) {
  try {
    open(min_inject);
  } catch (...) {
    close();
    throw;
  }
}

endpoint::~endpoint() { close(); }

void endpoint::open(std::size_t min_inject) {
  int rc = query_provider(provider, &info);
  if (rc != 0 || info == nullptr) {
    const bool shm = provider.rfind("shm", 0) == 0;
    throw transport_error("no libfabric provider matches SIDECORE_PROVIDER='" + provider +
                          "' with tagged RDM endpoints and send-after-send ordering (fi_getinfo: " +
                          fi_strerror(-rc) + "); " + (shm ? shm_space_note() + "; " : std::string()) +
                          "`fi_info -l` lists the providers installed");
  }
  fabric_name = info->fabric_attr->name ? info->fabric_attr->name : "";
  if (info->fabric_attr->prov_name) provider = info->fabric_attr->prov_name;
  if (const char* why = provider_refusal(provider))
    throw transport_error("libfabric provider '" + provider + "' is not supported by sidecore: " + why +
                          "; use shm on one host, tcp;ofi_rxm (the default across hosts), sockets or net;ofi_rxm");
  max_msg_size = info->ep_attr->max_msg_size;
  inject_size = info->tx_attr->inject_size;
  iov_limit = info->tx_attr->iov_limit;
  rx_size = info->rx_attr->size;
  if (inject_size < min_inject)
    throw transport_error("libfabric provider '" + provider + "' injects " + std::to_string(inject_size) +
                          " bytes at most; sidecore needs " + std::to_string(min_inject) + " (its control messages)");

  if ((rc = fi_fabric(info->fabric_attr, &fabric, nullptr))) throw_fi("fi_fabric", rc, provider);
  if ((rc = fi_domain(fabric, info, &domain, nullptr))) throw_fi("fi_domain", rc, provider);

  // No CQ wait object: measured with libfabric 1.17, neither shm (a sched_yield loop) nor tcp;ofi_rxm woke a
  // sleeper in fi_cq_sread when a message arrived, and a wait object can add work to every completion. A
  // blocked progressor sleeps on our own futex instead: submissions wake it at once, incoming data is seen
  // within block_us (see engine_core::sleep_locked).
  fi_cq_attr cq_attr{};
  cq_attr.format = FI_CQ_FORMAT_TAGGED;
  cq_attr.wait_obj = FI_WAIT_NONE;
  if ((rc = fi_cq_open(domain, &cq_attr, &cq, nullptr))) throw_fi("fi_cq_open", rc, provider);

  fi_av_attr av_attr{};
  av_attr.type = FI_AV_TABLE;
  if ((rc = fi_av_open(domain, &av_attr, &av, nullptr))) throw_fi("fi_av_open", rc, provider);
  if ((rc = fi_endpoint(domain, info, &ep, nullptr))) throw_fi("fi_endpoint", rc, provider);
  if ((rc = fi_ep_bind(ep, &av->fid, 0))) throw_fi("fi_ep_bind(av)", rc, provider);
  if ((rc = fi_ep_bind(ep, &cq->fid, FI_TRANSMIT | FI_RECV))) throw_fi("fi_ep_bind(cq)", rc, provider);
  if (provider == "shm") name_shm_region();
  if ((rc = fi_enable(ep))) throw_fi("fi_enable", rc, provider);
}

void endpoint::close() noexcept {
  if (ep) fi_close(&ep->fid);
  if (av) fi_close(&av->fid);
  if (cq) fi_close(&cq->fid);
  if (domain) fi_close(&domain->fid);
  if (fabric) fi_close(&fabric->fid);
  if (info) fi_freeinfo(info);
  ep = nullptr;
  av = nullptr;
  cq = nullptr;
  domain = nullptr;
  fabric = nullptr;
  info = nullptr;
}

// shm names its shared-memory region (in /dev/shm) after the process id by default ("<pid>:<domain>:<ep>"). A
// process killed before it closes its endpoint (a job that timed out) leaves that region behind, and a later
// process that gets the same pid then failed to set up or hung. A name of our own with 64 random bits never
// meets a leftover: "sidecore-<pid>-<random hex>". The name itself is removed once every peer has mapped the
// region (unlink_shm_region, from engine::connect_peers): only a process killed inside init can leave one.
void endpoint::name_shm_region() {
  std::string name = unique_shm_name("");
  const int rc = fi_setname(&ep->fid, name.data(), name.size() + 1);
  if (rc) throw_fi("fi_setname (shm region name)", rc, provider);
  shm_name = std::move(name);
}

std::string unique_shm_name(const char* suffix) {
  std::random_device rd;
  const std::uint64_t nonce = (std::uint64_t{rd()} << 32) ^ rd() ^ now_ns();
  char name[64];
  std::snprintf(name, sizeof(name), "sidecore-%ld-%016llx%s", static_cast<long>(::getpid()),
                static_cast<unsigned long long>(nonce), suffix);
  return name;
}

// libfabric's shm creates the region with shm_open(name) at fi_enable, each peer maps it by that name at its
// first message to us, and the endpoint's close unlinks the name (an unlink already done is ignored there).
void endpoint::unlink_shm_region() noexcept {
  if (shm_name.empty()) return;
  ::shm_unlink(shm_name.c_str());
  shm_name.clear();
}

std::vector<char> endpoint::name() const {
  std::vector<char> n(256);
  std::size_t len = n.size();
  int rc = fi_getname(&ep->fid, n.data(), &len);
  if (rc == -FI_ETOOSMALL) {
    n.resize(len);
    rc = fi_getname(&ep->fid, n.data(), &len);
  }
  if (rc) throw_fi("fi_getname", rc, provider);
  n.resize(len);
  return n;
}

void endpoint::insert(const char* names, std::size_t count) {
  std::vector<fi_addr_t> table(count);
  const int rc = fi_av_insert(av, names, count, table.data(), 0, nullptr);
  if (rc != static_cast<int>(count)) throw_fi("fi_av_insert", rc < 0 ? rc : -FI_EOTHER, provider);
  addrs = std::move(table);
}

std::vector<char> engine::endpoint_name() const { return static_cast<const engine_core&>(*this).ep.name(); }

void engine::add_addresses(const char* names, std::size_t count, int me) {
  if (me < 0 || static_cast<std::size_t>(me) >= count)
    throw transport_error("engine::add_addresses: me=" + std::to_string(me) + " is not one of the " +
                          std::to_string(count) + " addresses");
  engine_core& e = core_of(*this);
  e.ep.insert(names, count);
  e.my_index = static_cast<std::uint32_t>(me);
  e.self_index = e.cfg.self_path ? e.my_index : ~std::uint32_t{0};
  e.live.dead.assign(count, 0);
  e.live.heard.assign(count, 0);
  e.live.heard_seen.assign(count, 0);
  e.live.silent_since.assign(count, 0);
  e.setup_credits(count);
}

void engine::connect(MPI_Comm comm) {
  // Bootstrap: every rank's endpoint name through MPI, then one address-vector insert.
  std::vector<char> name = endpoint_name();
  int nranks = 0;
  MPI_Comm_size(comm, &nranks);
  int my_len = static_cast<int>(name.size()), max_len = 0;
  if (MPI_Allreduce(&my_len, &max_len, 1, MPI_INT, MPI_MAX, comm) != MPI_SUCCESS)
    throw transport_error("MPI_Allreduce failed while exchanging libfabric endpoint names");
  name.resize(static_cast<std::size_t>(max_len), 0);
  std::vector<char> all(static_cast<std::size_t>(max_len) * static_cast<std::size_t>(nranks));
  if (MPI_Allgather(name.data(), max_len, MPI_BYTE, all.data(), max_len, MPI_BYTE, comm) != MPI_SUCCESS)
    throw transport_error("MPI_Allgather failed while exchanging libfabric endpoint names");
  int me = 0;
  MPI_Comm_rank(comm, &me);
  add_addresses(all.data(), static_cast<std::size_t>(nranks), me);
}

}  // namespace sidecore::progress
