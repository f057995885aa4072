// Credits: the sender's side (spending, waiting for one, the credits a peer gives back) and the receiver's (owing
// them for what it read and took, giving them back). Why there are two kinds: credits.hpp.
#include <algorithm>

#include <sidecore/progress/tag.hpp>

#include "completion.hpp"

namespace sidecore::progress {

void engine_core::setup_credits(std::size_t addresses) {
  credit_state& c = credits;
  c.send_window = static_cast<std::uint32_t>(cfg.send_credits);
  c.eager_window = static_cast<std::uint32_t>(cfg.eager_credits);
  c.send_return = std::max<std::uint32_t>(1, c.send_window / 2);
  c.eager_return = std::max<std::uint32_t>(1, c.eager_window / 2);
  c.left.assign(addresses, peer_credits{c.send_window, c.eager_window});
  c.owed.assign(addresses, peer_credits{});
  c.waiting.assign(addresses, backlog_fifo{});
  c.spare.assign(addresses, 0);
  c.listed.assign(addresses, 0);
  c.granted.clear();
  c.unsent.clear();
  c.granted.reserve(addresses);  // listed at most once each: appending never allocates on the progress path
  c.unsent.reserve(addresses);
}

// An eager message or ready-to-send about to go to r's peer: false when it has no send credit (r then waits, in
// order, for the credits the peer gives back). An eager message without an eager credit becomes a ready-to-send.
bool engine_core::take_credit(req* r) {
  const auto p = static_cast<std::size_t>(r->peer_world);
  peer_credits& left = credits.left[p];
  if (left.send == 0) {
    backlog_fifo& w = credits.waiting[p];
    r->backlog_next = 0;
    if (w.tail) pool.at(w.tail - 1)->backlog_next = r->index + 1;
    else w.head = r->index + 1;
    w.tail = r->index + 1;
    return false;
  }
  --left.send;
  spend_eager(r);
  return true;
}

void engine_core::spend_eager(req* r) noexcept {
  r->credited = true;
  if (r->act != req_act::eager) return;
  // A collective's notice is read as it arrives, never held: it takes no eager credit, and must not become a
  // ready-to-send, which no receive would ever answer.
  if (tag::is_coll_notice(r->tag)) [[unlikely]] return;
  peer_credits& left = credits.left[static_cast<std::size_t>(r->peer_world)];
  if (left.eager) --left.eager;
  else r->act = req_act::rts;  // the peer holds its share of our eager data: only a header goes
}

// A send that took its credits (take_credit) fails before the peer read it: the peer will never give them back, so
// they are ours again. An eager message still marked eager took an eager credit (spend_eager turns one that found
// none into a ready-to-send).
void engine_core::return_credit(req* r) noexcept {
  const auto p = static_cast<std::size_t>(r->peer_world);
  if (!r->credited || p >= credits.left.size()) return;
  ++credits.left[p].send;
  if (r->act == req_act::eager && !tag::is_coll_notice(r->tag)) ++credits.left[p].eager;
  r->credited = false;
}

// Takes every send waiting for peer p's credits off its list and returns the first (linked by req::backlog_next,
// index + 1; 0: none); the spare credits kept for them become anyone's, as when none waits (grant_credits).
std::uint32_t engine_core::unlink_waiting(std::uint32_t p) noexcept {
  if (p >= credits.waiting.size()) return 0;
  const std::uint32_t head = credits.waiting[p].head;
  credits.waiting[p] = {};
  credits.left[p].send += credits.spare[p];
  credits.spare[p] = 0;
  return head;
}

// A credit message from peer p (h.size send credits, h.cookie eager credits).
void engine_core::on_credit(const wire_hdr& h) {
  const std::uint32_t p = h.src_index;
  if (p >= credits.left.size()) {
    drop_message("is a credit message from an unknown address", &h, hdr_size);
    return;
  }
  credits.left[p].eager += static_cast<std::uint32_t>(h.cookie);
  const auto n = static_cast<std::uint32_t>(h.size);
  if (credits.waiting[p].head == 0) {
    credits.left[p].send += n;
    return;
  }
  credits.spare[p] += n;
  if (!grant_credits(p) && !(credits.listed[p] & 1)) {
    credits.listed[p] |= 1;
    credits.granted.push_back(p);
  }
}

// The sends waiting for peer p's credits go, in order, as long as its spare credits last; what is left over is
// anyone's once none waits. false: the provider refused one for now (it stays first; retried next pass).
bool engine_core::grant_credits(std::uint32_t p) {
  backlog_fifo& w = credits.waiting[p];
  while (w.head) {
    req* r = pool.at(w.head - 1);
    if (!r->credited) {
      if (credits.spare[p] == 0) return true;
      --credits.spare[p];
      spend_eager(r);
    }
    w.head = r->backlog_next;
    if (!w.head) w.tail = 0;
    if (post(r) == op_status::retry) {
      r->backlog_next = w.head;
      w.head = r->index + 1;
      if (!w.tail) w.tail = w.head;
      return false;
    }
  }
  credits.left[p].send += credits.spare[p];
  credits.spare[p] = 0;
  return true;
}

// Receiver: a message of p read out of a receive buffer (eager or ready-to-send); eager_taken: an eager message a
// receive took at once, not held.
void engine_core::owe_credit(std::uint32_t p, bool eager_taken) {
  if (p >= credits.owed.size()) return;
  peer_credits& o = credits.owed[p];
  ++o.send;
  if (eager_taken) ++o.eager;
  if (o.send >= credits.send_return || o.eager >= credits.eager_return) give_credits(p);
}

// Receiver: an eager message of p held as unexpected was taken by a receive.
void engine_core::owe_eager_credit(std::uint32_t p) {
  if (p >= credits.owed.size()) return;
  if (++credits.owed[p].eager >= credits.eager_return) give_credits(p);
}

// Gives p what we owe it in one credit message. Refused for now: sent from a later pass (what is owed meanwhile
// goes with it).
void engine_core::give_credits(std::uint32_t p) {
  peer_credits& o = credits.owed[p];
  if (peer_dead(static_cast<int>(p))) {
    o = {};
    return;
  }
  wire_hdr h{};
  h.size = o.send;
  h.cookie = o.eager;
  h.src_index = my_index;
  h.type = wire_credit;
  const ssize_t rc = send_msg(static_cast<int>(p), h, nullptr, 0);
  if (rc == 0) {
    o = {};
    ring_peer(static_cast<int>(p));  // a sender waiting for credits may be asleep
    return;
  }
  if (classify(rc) == op_status::retry) {
    if (!(credits.listed[p] & 2)) {
      credits.listed[p] |= 2;
      credits.unsent.push_back(p);
    }
    return;
  }
  // Failed: the peer's connection is gone, which its own failure reports (liveness.cpp); nothing to give back to.
  o = {};
}

// The progress pass: grants the provider refused last time, credit messages it refused.
bool engine_core::retry_credits() {
  bool did = false;
  for (std::size_t i = 0; i < credits.granted.size();) {
    const std::uint32_t p = credits.granted[i];
    if (grant_credits(p)) {
      credits.listed[p] &= static_cast<std::uint8_t>(~1U);
      credits.granted[i] = credits.granted.back();
      credits.granted.pop_back();
      did = true;
    } else {
      ++i;
    }
  }
  // give_credits lists a peer refused again behind the ones looked at here.
  const std::size_t n = credits.unsent.size();
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint32_t p = credits.unsent[i];
    credits.listed[p] &= static_cast<std::uint8_t>(~2U);
    if (credits.owed[p].send || credits.owed[p].eager) give_credits(p);
  }
  credits.unsent.erase(credits.unsent.begin(), credits.unsent.begin() + static_cast<std::ptrdiff_t>(n));
  did |= credits.unsent.size() < n;
  return did;
}

// Dead peer p: its waiting sends are failed by fail_peer_requests; what we owe it and it owes us is void.
void engine_core::forget_credits(std::uint32_t p) noexcept {
  if (p >= credits.waiting.size()) return;
  credits.waiting[p] = {};
  credits.spare[p] = 0;
  credits.owed[p] = {};
}

}  // namespace sidecore::progress
