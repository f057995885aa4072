// Peer liveness: finding that a peer died, and completing what involves it with req_result::peer_failed.
//
// On this node a peer's process id sits beside its doorbell (the runtime's shared window): while a request
// involving that peer is pending, a progressor looks, at most every check_interval_ns, whether the process still
// exists (kill(pid, 0) == ESRCH: gone). Across nodes there is no process id to look at: the
// provider's errors on the peer say it (an error completion such as a reset connection, or a transfer the provider
// cancelled by itself), and with SIDECORE_PEER_TIMEOUT its silence does: a peer from which nothing arrived for that
// long while we waited on it is pinged, and declared dead if it still says nothing; an error from shm on a
// transfer with a peer of this node whose process is gone is its death as well. Nothing here runs on the
// small-message path: the checks run from every 64th progress pass at most every check_interval_ns (and the
// progress thread's idle passes), and a dead peer costs the hot path one flag test. The same check looks for a
// first message that the file descriptors used up keep from going (check_fds, fd_watch.cpp).
//
// What involves a dead peer completes with peer_failed (docs/failures.md): receives from it still in the posted
// list (unlinked, as cancel does), any-source receives posted when the death is found, sends to it, rendezvous
// transfers either way, and the schedules (collectives) whose ranks include it. The provider may still hold such an
// operation: a receive is cancelled (fi_cancel) and completes through its cancellation; a send, which the
// providers we use cannot cancel, completes to its owner now while its slot stays the provider's until the
// provider's own completion (retire_read, late_completion), so that no context the provider may write is reused.
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <mutex>
#include <string>

#include <sidecore/common/common.hpp>

#include "completion.hpp"

namespace sidecore::progress {

namespace {

bool involves_any_peer(const req* r) noexcept { return r->op == req_kind::schedule || r->peer_world < 0; }

// Whether process `pid` of this node is gone: no such process, or a zombie (killed, and not yet reaped by its
// parent: kill(pid, 0) still succeeds on it, so its state is read from /proc).
bool process_gone(int pid) noexcept {
  if (::kill(pid, 0) != 0) return errno == ESRCH;
  char path[32], buf[512];
  std::snprintf(path, sizeof path, "/proc/%d/stat", pid);
  std::FILE* f = std::fopen(path, "re");
  if (!f) return false;
  const std::size_t n = std::fread(buf, 1, sizeof buf - 1, f);
  std::fclose(f);
  buf[n] = '\0';
  const char* paren = std::strrchr(buf, ')');  // "pid (comm) S ...": the name may hold spaces and parentheses
  return paren && paren[1] == ' ' && (paren[2] == 'Z' || paren[2] == 'X');
}

}  // namespace

void engine_core::check_peers(std::uint64_t now) noexcept {
  live.next_check_ns = now + peer_liveness::check_interval_ns;
  const std::size_t n = live.dead.size();
  if (failed() || n == 0) return;
  check_fds(now);
  live.involved.assign(n, 0);
  bool all = live.watch_all.load(std::memory_order_relaxed);
  for (std::uint32_t i = 0, slots = pool.slots(); i < slots && !all; ++i) {
    const req* r = pool.at(i);
    if (!taken_in_flight(*r)) continue;
    if (involves_any_peer(r)) all = true;
    else if (static_cast<std::size_t>(r->peer_world) < n) live.involved[static_cast<std::size_t>(r->peer_world)] = 1;
  }
  for (std::size_t p = 0; p < n; ++p) {
    if (p == my_index || live.dead[p]) continue;
    const bool watched = all || live.involved[p];
    const doorbell* b = p < bells.peers.size() ? bells.peers[p] : nullptr;
    const int pid = b ? b->pid.load(std::memory_order_relaxed) : 0;
    if (pid > 0) {
      if (watched && process_gone(pid)) {
        if (b->ended.load(std::memory_order_acquire)) {
          end_peer(static_cast<int>(p), pid);
          continue;
        }
        char why[96];
        std::snprintf(why, sizeof why, "its process (pid %d, on this node) is gone", pid);
        fail_peer(static_cast<int>(p), why);
      }
      continue;
    }
    if (live.timeout_ns == 0) continue;
    if (!watched || live.heard[p] != live.heard_seen[p]) {  // not waited on, or heard from since the last check
      live.heard_seen[p] = live.heard[p];
      live.silent_since[p] = watched ? now : 0;
      continue;
    }
    if (live.silent_since[p] == 0) live.silent_since[p] = now;
    const std::uint64_t silent = now - live.silent_since[p];
    if (silent >= live.timeout_ns) {
      char why[128];
      std::snprintf(why, sizeof why, "nothing arrived from it for %.1f s while a request waited on it "
                    "(SIDECORE_PEER_TIMEOUT)", static_cast<double>(silent) * 1e-9);
      fail_peer(static_cast<int>(p), why);
    } else if (silent >= live.timeout_ns / 2) {
      // Half the timeout without a word: ask. A live peer answers as soon as it progresses (its progress thread in
      // mode core; in mode off its next sidecore call). Refused for now: asked again at the next check.
      (void)inject_hdr(ping_hdr(my_index), ep.addr(static_cast<int>(p)));
    }
  }
}

int engine_core::gone_local_peer(int p) const noexcept {
  if (p < 0 || static_cast<std::size_t>(p) >= bells.peers.size() || static_cast<std::size_t>(p) == my_index) return 0;
  const doorbell* b = bells.peers[static_cast<std::size_t>(p)];
  const int pid = b ? b->pid.load(std::memory_order_relaxed) : 0;
  if (pid <= 0) return 0;
  // A process killed while its memory was being copied: the copy fails as soon as its memory is gone, which is
  // before the kernel makes it a zombie; give it that moment. A process that stays is alive: the error is another.
  for (int i = 0; i < 200; ++i) {
    if (process_gone(pid)) return pid;
    struct timespec ms{0, 1000000};
    ::nanosleep(&ms, nullptr);
  }
  return 0;
}

// Marks peer `index` dead, why, and whether it ended (finalized) rather than failed; false when it was already.
bool engine_core::lose_peer(int index, const char* how, bool ended) noexcept {
  if (index < 0 || static_cast<std::size_t>(index) >= live.dead.size() || live.dead[static_cast<std::size_t>(index)])
    return false;
  live.dead[static_cast<std::size_t>(index)] = 1;
  live.any = true;
  refusing = true;
  try {
    const std::lock_guard<std::mutex> g(live.order_mutex);
    if (!ended) live.order.push_back(index);
    live.reasons.resize(live.dead.size());
    live.reasons[static_cast<std::size_t>(index)] = how;
    live.ended.resize(live.dead.size());
    live.ended[static_cast<std::size_t>(index)] = ended ? 1 : 0;
  } catch (...) {  // no memory for the note: the failure itself still counts (describe says less)
  }
  if (!ended) live.count.fetch_add(1, std::memory_order_release);
  return true;
}

void engine_core::fail_peer(int index, const char* how) noexcept {
  if (!lose_peer(index, how, false)) return;
  std::fprintf(stderr,
               "sidecore: warning: address %u: peer rank %d failed (%s); requests involving it complete with "
               "errc::peer_failed\n",
               my_index, index, how);
  fail_peer_requests(index);
}

// Peer `index` finalized (its doorbell says so) and its process is gone: a normal end, not a failure (it is not
// listed by failed_peers). What still involves it can never complete: it completes with peer_failed, and when a
// request of ours was waiting on it that is said on stderr, as a failure is.
void engine_core::end_peer(int index, int pid) noexcept {
  char why[96];
  std::snprintf(why, sizeof why, "it finalized and its process (pid %d, on this node) ended", pid);
  if (!lose_peer(index, why, true)) return;
  if (const std::size_t n = fail_peer_requests(index))
    std::fprintf(stderr,
                 "sidecore: warning: address %u: peer rank %d ended (%s) while %zu request(s) involving it were "
                 "pending; they complete with errc::peer_failed\n",
                 my_index, index, why, n);
}

// Every request that involves dead peer p completes with peer_failed (or, held by the provider, as soon as it may);
// returns how many did.
std::size_t engine_core::fail_peer_requests(int p) noexcept {
  std::size_t failed = 0;
  // Backlogged steps of p's requests leave the backlogs (their requests are failed below); the others keep order.
  drop_backlogged([p](const req& r) { return r.peer_world == p; });
  forget_credits(static_cast<std::uint32_t>(p));  // its sends waiting for credits are failed below
  // A ready-to-send from p that no receive took: its data will never come. Eager data from p that arrived before
  // it died stays for the receives to come (MPI keeps a message that was sent).
  for (unexpected_msg *m = matching.unexp_head, *prev = nullptr; m;) {
    unexpected_msg* next = m->next;
    if (m->hdr.type == wire_rts && m->hdr.src_index == static_cast<std::uint32_t>(p)) {
      matching.unhold(m, prev);
      delete m;
    } else {
      prev = m;
    }
    m = next;
  }
  const std::uint32_t n = pool.slots();
  for (std::uint32_t i = 0; i < n; ++i) {
    req* r = pool.at(i);
    if (!taken_in_flight(*r)) continue;  // one not taken yet is refused when it is (accept)
    const req_stage stage = r->stage.load(std::memory_order_relaxed);
    if (r->op == req_kind::schedule) {
      if (r->sched && r->sched->on_peer_failed(p)) {
        ready.push(r->sched);
        ++failed;
      }
    } else if (r->op == req_kind::recv && stage == req_stage::posted) {
      // From p, or from any source: the rule for any-source receives (docs/failures.md) is that those pending when
      // a death is found report it; those posted afterwards wait for the live peers.
      if (r->peer_world != p && r->peer_world >= 0) continue;
      unlink_posted(r);
      r->peer_world = p;
      fail_with_peer(r);
      ++failed;
    } else if (r->peer_world == p) {
      fail_in_flight_with_peer(r);
      ++failed;
    }
  }
  return failed;
}

void engine_core::fail_with_peer(req* r) noexcept {
  r->act = req_act::none;
  r->result = req_result::peer_failed;
  r->what = failure::none;
  r->fi_err = 0;
  if (r->op == req_kind::recv) r->bytes = 0;
  complete(r);
}

// A request of dead peer p that the engine has matched or posted: a rendezvous receive, or a send.
void engine_core::fail_in_flight_with_peer(req* r) noexcept {
  // What the provider holds: a receive's rendezvous data receive (posted once act left data_recv, unless it takes 0
  // bytes); a send's eager message (fi_tsendv) or rendezvous data (fi_tsend): posted (begin_xfer) with no step left.
  // A rendezvous send that waits for its clear-to-send has given the provider nothing.
  const bool held = r->op == req_kind::recv ? r->rdv_n != 0 && (r->act == req_act::cts || r->act == req_act::none)
                                            : r->act == req_act::none && r->posted;
  if (!held) {
    fail_with_peer(r);
    return;
  }
  r->act = req_act::none;
  r->result = req_result::peer_failed;
  r->what = failure::none;
  r->fi_err = 0;
  if (r->op == req_kind::recv) {
    r->bytes = 0;
    // Its cancellation completes it (handle_error keeps the result).
    if (fi_cancel(&ep.ep->fid, &r->ctx) == 0) return;
  }
  complete_held(r);
}

// r completes with its result now, but the provider still has its context: the slot is freed only after the
// provider's own completion (late_completion) and the owner's read (retire_read), whichever comes second.
void engine_core::complete_held(req* r) noexcept {
  if (on_xfer && r->posted) xfer(r, false);
  bump(completions);
  if (r->parent) {
    // A child: its schedule hears of it now; the slot becomes an orphan that the provider's completion frees.
    schedule* s = r->parent;
    completion c{};
    read_result(*r, c);
    c.sig = r->sig;
    const std::uint64_t token = r->token;
    r->parent = nullptr;
    r->buf = nullptr;
    r->state.store(static_cast<std::uint32_t>(req_state::orphan), std::memory_order_release);
    s->on_child_complete(c, token);
    ready.push(s);
    return;
  }
  r->provider_late = true;
  r->provider_holds.store(true, std::memory_order_seq_cst);
  const auto prev = r->state.exchange(static_cast<std::uint32_t>(req_state::complete), std::memory_order_seq_cst);
  if (prev == static_cast<std::uint32_t>(req_state::orphan)) {
    // Nobody will read it: the provider's completion frees it (late_completion).
    r->provider_holds.store(false, std::memory_order_relaxed);
    r->state.store(static_cast<std::uint32_t>(req_state::orphan), std::memory_order_release);
    return;
  }
  if (r->waiter.load(std::memory_order_seq_cst)) futex_wake(&r->state);
}

// The provider's completion (or error entry) of an operation that already completed with peer_failed.
void engine_core::late_completion(req* r) noexcept {
  r->provider_late = false;
  // Its owner read (or dropped) it already: freed now. Otherwise the owner's read frees it (retire_read).
  if (!r->provider_holds.exchange(false, std::memory_order_acq_rel)) pool.release(r);
}

// The owner read the result of a request the provider still holds: the handle goes stale now; the slot is freed by
// whichever of this and late_completion comes second.
void engine_core::retire_read(req* r) noexcept {
  r->gen.store((r->gen.load(std::memory_order_relaxed) + 1) & request_pool::gen_mask, std::memory_order_relaxed);
  if (r->provider_holds.exchange(false, std::memory_order_acq_rel)) return;
  pool.release(r);
}

// A new request that involves a dead peer (accept): a send to it, or a receive from it that no message kept from
// before its death matched. True when it was refused (completed with peer_failed).
bool engine_core::refuse_dead(req* r) noexcept {
  if (r->op == req_kind::schedule) {
    const std::lock_guard<std::mutex> g(live.order_mutex);
    for (std::size_t p = 0; p < live.dead.size(); ++p)  // failed or ended
      if (live.dead[p] && r->sched && r->sched->on_peer_failed(static_cast<int>(p))) break;
    return false;  // its advance gives up at once
  }
  if (!peer_dead(r->peer_world)) return false;
  r->stage.store(req_stage::taken, std::memory_order_relaxed);
  fail_with_peer(r);
  return true;
}

std::vector<int> engine::failed_peers() const {
  const auto& l = static_cast<const engine_core&>(*this).live;
  const std::lock_guard<std::mutex> g(l.order_mutex);
  return l.order;
}

std::size_t engine::failed_peer_count() const noexcept {
  return static_cast<const engine_core&>(*this).live.count.load(std::memory_order_acquire);
}

void engine::watch_all_peers(bool on) noexcept {
  engine_core& e = core_of(*this);
  e.live.watch_all.store(on, std::memory_order_relaxed);
}

bool engine::watching_all_peers() const noexcept {
  return static_cast<const engine_core&>(*this).live.watch_all.load(std::memory_order_relaxed);
}

void engine::mark_ended() noexcept {
  engine_core& e = core_of(*this);
  if (e.bells.mine && e.bells.mine != &e.bells.own) e.bells.mine->ended.store(1, std::memory_order_release);
}

void engine::set_peer_timeout(double seconds) noexcept {
  core_of(*this).live.timeout_ns = seconds > 0 ? static_cast<std::uint64_t>(seconds * 1e9) : 0;
}

std::string engine_core::peer_failure_text(int index) const {
  std::string why;
  bool ended = false;
  {
    const std::lock_guard<std::mutex> g(live.order_mutex);
    if (index >= 0 && static_cast<std::size_t>(index) < live.reasons.size())
      why = live.reasons[static_cast<std::size_t>(index)];
    const auto i = static_cast<std::size_t>(index);
    ended = index >= 0 && i < live.ended.size() && live.ended[i];
  }
  return "peer rank " + std::to_string(index) + (ended ? " ended" : " failed") +
         (why.empty() ? std::string() : " (" + why + ")");
}

}  // namespace sidecore::progress
