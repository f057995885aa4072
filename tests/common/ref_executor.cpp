// The reference executor of the schedule tests (ref_executor.hpp).
#include "ref_executor.hpp"

#include <algorithm>
#include <random>
#include <sstream>
#include <unordered_map>

namespace sctest {
namespace {

using sidecore::coll::buffer;
using sidecore::coll::op;
using sidecore::coll::op_type;
using sidecore::coll::schedule;

const char* buffer_name(buffer b) {
  switch (b) {
    case buffer::send: return "send";
    case buffer::recv: return "recv";
    case buffer::tmp: return "tmp";
  }
  return "?";
}

std::size_t idx(buffer b) { return static_cast<std::size_t>(b); }

struct access {
  std::uint64_t lo, hi;
  std::uint32_t op;
  bool write;
};

// Reads an op's accesses: (buffer, lo, hi, write)
template <class F>
void for_each_access(const op& o, F f) {
  switch (o.type) {
    case op_type::send: f(o.src_buf, o.src_off, o.bytes, false); break;
    case op_type::recv: f(o.dst_buf, o.dst_off, o.bytes, true); break;
    case op_type::copy:
    case op_type::reduce:
      f(o.src_buf, o.src_off, o.bytes, false);
      f(o.dst_buf, o.dst_off, o.bytes, true);
      break;
  }
}

std::string where(int rank, std::uint32_t i) {
  return "rank " + std::to_string(rank) + " op " + std::to_string(i);
}

std::string check_structure(const schedule& s, int rank, int size, const rank_buffers& b) {
  const std::size_t es = sidecore::coll::element_size(s.type, s.rop);
  if (s.alg == sidecore::coll::algorithm::automatic)
    return "rank " + std::to_string(rank) + ": schedule::alg is automatic";
  std::unordered_map<std::uint64_t, std::uint32_t> seen[2];
  for (std::uint32_t i = 0; i < s.ops.size(); ++i) {
    const op& o = s.ops[i];
    if (std::uint64_t{o.dep_first} + o.dep_count > s.deps.size()) return where(rank, i) + ": dependencies out of range";
    for (std::uint32_t d = 0; d < o.dep_count; ++d)
      if (s.deps[o.dep_first + d] >= i)
        return where(rank, i) + ": depends on op " + std::to_string(s.deps[o.dep_first + d]) + ", not an earlier one";
    std::string err;
    for_each_access(o, [&](buffer buf, std::uint64_t off, std::uint64_t bytes, bool write) {
      const std::uint64_t have = b.data[idx(buf)].size();
      if (off > have || bytes > have - off) {
        err = where(rank, i) + ": [" + std::to_string(off) + ", " + std::to_string(off + bytes) + ") outside " +
              buffer_name(buf) + " of " + std::to_string(have) + " bytes";
      } else if (write && buf == buffer::send) {
        err = where(rank, i) + ": writes the send buffer";
      }
    });
    if (!err.empty()) return err;
    if (o.type == op_type::send || o.type == op_type::recv) {
      if (o.peer < 0 || o.peer >= size || o.peer == rank) return where(rank, i) + ": peer " + std::to_string(o.peer);
      if (o.tag >= s.tags)
        return where(rank, i) + ": tag " + std::to_string(o.tag) + " >= tags " + std::to_string(s.tags);
      const std::uint64_t key = (static_cast<std::uint64_t>(o.peer) << 32) | o.tag;
      auto [it, fresh] = seen[o.type == op_type::send ? 0 : 1].emplace(key, i);
      if (!fresh)
        return where(rank, i) + ": (peer " + std::to_string(o.peer) + ", tag " + std::to_string(o.tag) +
               ") already used by op " + std::to_string(it->second);
    } else {
      if (o.src_buf == o.dst_buf && o.src_off < o.dst_off + o.bytes && o.dst_off < o.src_off + o.bytes)
        return where(rank, i) + ": source and destination overlap";
      if (o.type == op_type::reduce && (o.bytes % es != 0 || s.rop == sidecore::coll::reduce_op::none))
        return where(rank, i) + ": reduction of " + std::to_string(o.bytes) + " bytes (element " + std::to_string(es) +
               ")";
    }
  }
  return {};
}

// Every pair of operations touching the same bytes, one writing, must be ordered by the DAG.
std::string check_races(const schedule& s, int rank) {
  const std::size_t n = s.ops.size();
  const std::size_t words = (n + 63) / 64;
  std::vector<std::uint64_t> ancestors(n * words, 0);
  for (std::size_t i = 0; i < n; ++i) {
    std::uint64_t* mine = &ancestors[i * words];
    const op& o = s.ops[i];
    for (std::uint32_t k = 0; k < o.dep_count; ++k) {
      const std::size_t d = s.deps[o.dep_first + k];
      const std::uint64_t* theirs = &ancestors[d * words];
      for (std::size_t w = 0; w <= d / 64; ++w) mine[w] |= theirs[w];
      mine[d / 64] |= std::uint64_t{1} << (d % 64);
    }
  }
  auto before = [&](std::size_t a, std::size_t b) { return (ancestors[b * words + a / 64] >> (a % 64)) & 1; };
  std::vector<access> acc[3];
  for (std::uint32_t i = 0; i < n; ++i)
    for_each_access(s.ops[i], [&](buffer buf, std::uint64_t off, std::uint64_t bytes, bool write) {
      if (bytes > 0) acc[idx(buf)].push_back({off, off + bytes, i, write});
    });
  for (std::size_t bi = 0; bi < 3; ++bi) {
    auto& v = acc[bi];
    std::sort(v.begin(), v.end(), [](const access& x, const access& y) { return x.lo < y.lo; });
    for (std::size_t i = 0; i < v.size(); ++i)
      for (std::size_t j = i + 1; j < v.size() && v[j].lo < v[i].hi; ++j) {
        if (!(v[i].write || v[j].write) || v[i].op == v[j].op) continue;
        const std::uint32_t a = std::min(v[i].op, v[j].op), b = std::max(v[i].op, v[j].op);
        if (!before(a, b)) {
          return "rank " + std::to_string(rank) + ": ops " + std::to_string(a) + " and " + std::to_string(b) +
                 " touch " + buffer_name(static_cast<buffer>(bi)) + " [" + std::to_string(std::max(v[i].lo, v[j].lo)) +
                 ", " + std::to_string(std::min(v[i].hi, v[j].hi)) + "), one writing, with no order between them";
        }
      }
  }
  return {};
}

struct event {
  int rank;
  std::uint32_t op;
  int peer_rank = -1;  // a match: the receive's rank and op
  std::uint32_t peer_op = 0;
};

class network {
 public:
  network(const std::vector<schedule>& scheds, std::vector<rank_buffers>& bufs, user_op user, std::uint64_t seed)
      : s_(scheds), b_(bufs), user_(user), rng_(seed), p_(static_cast<int>(scheds.size())),
        words_((scheds.size() + 63) / 64) {}

  std::string run(run_stats* stats) {
    remaining_.resize(s_.size());
    dependents_first_.resize(s_.size());
    dependents_.resize(s_.size());
    knows_.resize(s_.size());
    std::uint64_t total = 0;
    for (int r = 0; r < p_; ++r) {
      const schedule& s = s_[static_cast<std::size_t>(r)];
      const std::size_t n = s.ops.size();
      total += n;
      auto& rem = remaining_[static_cast<std::size_t>(r)];
      auto& first = dependents_first_[static_cast<std::size_t>(r)];
      auto& list = dependents_[static_cast<std::size_t>(r)];
      rem.assign(n, 0);
      first.assign(n + 1, 0);
      for (const op& o : s.ops)
        for (std::uint32_t k = 0; k < o.dep_count; ++k) ++first[s.deps[o.dep_first + k] + 1];
      for (std::size_t i = 0; i < n; ++i) first[i + 1] += first[i];
      list.resize(first[n]);
      std::vector<std::uint32_t> fill(first.begin(), first.end() - 1);
      for (std::uint32_t i = 0; i < n; ++i) {
        const op& o = s.ops[i];
        rem[i] = o.dep_count;
        for (std::uint32_t k = 0; k < o.dep_count; ++k) list[fill[s.deps[o.dep_first + k]]++] = i;
        if (o.dep_count == 0) ready_.push_back({r, i});
      }
      knows_[static_cast<std::size_t>(r)].assign(n * words_, 0);
      auto& tmp = b_[static_cast<std::size_t>(r)].data[idx(buffer::tmp)];
      tmp.resize(s.tmp_bytes);
      for (auto& x : tmp) x = static_cast<std::byte>(rng_());
      b_[static_cast<std::size_t>(r)].defined[idx(buffer::tmp)].assign(s.tmp_bytes, 0);
    }
    std::uint64_t done = 0;
    while (!ready_.empty()) {
      const std::size_t pick = std::uniform_int_distribution<std::size_t>(0, ready_.size() - 1)(rng_);
      const event e = ready_[pick];
      ready_[pick] = ready_.back();
      ready_.pop_back();
      std::string err = e.peer_rank >= 0 ? deliver(e, stats, done) : start(e, done);
      if (!err.empty()) return err;
    }
    if (done != total) return deadlock();
    if (stats != nullptr) {
      stats->ops = total;
      stats->heard_from_all.assign(s_.size(), true);
      for (int r = 0; r < p_; ++r) {
        std::vector<std::uint64_t> all(words_, 0);
        all[static_cast<std::size_t>(r) / 64] |= std::uint64_t{1} << (r % 64);
        const auto& k = knows_[static_cast<std::size_t>(r)];
        for (std::size_t i = 0; i < k.size(); ++i) all[i % words_] |= k[i];
        for (int q = 0; q < p_; ++q)
          if (((all[static_cast<std::size_t>(q) / 64] >> (q % 64)) & 1) == 0)
            stats->heard_from_all[static_cast<std::size_t>(r)] = false;
      }
    }
    return {};
  }

 private:
  const op& at(int r, std::uint32_t i) const { return s_[static_cast<std::size_t>(r)].ops[i]; }
  std::uint64_t* knows(int r, std::uint32_t i) { return &knows_[static_cast<std::size_t>(r)][i * words_]; }

  // What op i of rank r knows when it runs: its rank's start, and everything its dependencies knew.
  void learn(int r, std::uint32_t i) {
    std::uint64_t* k = knows(r, i);
    k[static_cast<std::size_t>(r) / 64] |= std::uint64_t{1} << (r % 64);
    const schedule& s = s_[static_cast<std::size_t>(r)];
    const op& o = s.ops[i];
    for (std::uint32_t d = 0; d < o.dep_count; ++d) {
      const std::uint64_t* dk = knows(r, s.deps[o.dep_first + d]);
      for (std::size_t w = 0; w < words_; ++w) k[w] |= dk[w];
    }
  }

  std::string read_defined(int r, std::uint32_t i, buffer buf, std::uint64_t off, std::uint64_t bytes) {
    const auto& def = b_[static_cast<std::size_t>(r)].defined[idx(buf)];
    for (std::uint64_t x = off; x < off + bytes; ++x)
      if (def[x] == 0)
        return where(r, i) + ": reads " + buffer_name(buf) + " byte " + std::to_string(x) +
               ", which holds no value yet";
    return {};
  }

  void write(int r, buffer buf, std::uint64_t off, const std::byte* src, std::uint64_t bytes) {
    auto& b = b_[static_cast<std::size_t>(r)];
    std::copy(src, src + bytes, b.data[idx(buf)].begin() + static_cast<std::ptrdiff_t>(off));
    std::fill_n(b.defined[idx(buf)].begin() + static_cast<std::ptrdiff_t>(off), bytes, std::uint8_t{1});
  }

  std::byte* ptr(int r, buffer buf, std::uint64_t off) {
    return b_[static_cast<std::size_t>(r)].data[idx(buf)].data() + off;
  }

  void complete(int r, std::uint32_t i, std::uint64_t& done) {
    ++done;
    const auto& first = dependents_first_[static_cast<std::size_t>(r)];
    const auto& list = dependents_[static_cast<std::size_t>(r)];
    auto& rem = remaining_[static_cast<std::size_t>(r)];
    for (std::uint32_t k = first[i]; k < first[i + 1]; ++k)
      if (--rem[list[k]] == 0) ready_.push_back({r, list[k]});
  }

  std::string start(const event& e, std::uint64_t& done) {
    const op& o = at(e.rank, e.op);
    learn(e.rank, e.op);
    const schedule& s = s_[static_cast<std::size_t>(e.rank)];
    switch (o.type) {
      case op_type::copy:
      case op_type::reduce: {
        std::string err = read_defined(e.rank, e.op, o.src_buf, o.src_off, o.bytes);
        if (err.empty() && o.type == op_type::reduce) err = read_defined(e.rank, e.op, o.dst_buf, o.dst_off, o.bytes);
        if (!err.empty()) return err;
        if (o.type == op_type::copy) {
          write(e.rank, o.dst_buf, o.dst_off, ptr(e.rank, o.src_buf, o.src_off), o.bytes);
        } else {
          reduce_bytes(s.type, s.rop, user_, ptr(e.rank, o.src_buf, o.src_off), ptr(e.rank, o.dst_buf, o.dst_off),
                       o.bytes, o.dst_first);
        }
        complete(e.rank, e.op, done);
        return {};
      }
      case op_type::send:
      case op_type::recv: {
        const bool is_send = o.type == op_type::send;
        const int src = is_send ? e.rank : o.peer;
        const int dst = is_send ? o.peer : e.rank;
        const std::uint64_t key = (static_cast<std::uint64_t>(src) * static_cast<std::uint64_t>(p_) +
                                   static_cast<std::uint64_t>(dst)) << 32 | o.tag;
        auto& mine = is_send ? sends_ : recvs_;
        auto& theirs = is_send ? recvs_ : sends_;
        auto it = theirs.find(key);
        if (it == theirs.end()) {
          mine.emplace(key, std::make_pair(e.rank, e.op));
          return {};
        }
        const auto [other_rank, other_op] = it->second;
        theirs.erase(it);
        if (is_send) ready_.push_back({e.rank, e.op, other_rank, other_op});
        else ready_.push_back({other_rank, other_op, e.rank, e.op});
        return {};
      }
    }
    return {};
  }

  std::string deliver(const event& e, run_stats* stats, std::uint64_t& done) {
    const op& snd = at(e.rank, e.op);
    const op& rcv = at(e.peer_rank, e.peer_op);
    if (snd.bytes != rcv.bytes) {
      return where(e.rank, e.op) + " sends " + std::to_string(snd.bytes) + " bytes with tag " +
             std::to_string(snd.tag) + " to rank " + std::to_string(e.peer_rank) + ", whose op " +
             std::to_string(e.peer_op) + " expects " + std::to_string(rcv.bytes);
    }
    std::string err = read_defined(e.rank, e.op, snd.src_buf, snd.src_off, snd.bytes);
    if (!err.empty()) return err;
    write(e.peer_rank, rcv.dst_buf, rcv.dst_off, ptr(e.rank, snd.src_buf, snd.src_off), snd.bytes);
    learn(e.peer_rank, e.peer_op);
    std::uint64_t* rk = knows(e.peer_rank, e.peer_op);
    const std::uint64_t* sk = knows(e.rank, e.op);
    for (std::size_t w = 0; w < words_; ++w) rk[w] |= sk[w];
    if (stats != nullptr) {
      ++stats->messages;
      stats->message_bytes += snd.bytes;
    }
    complete(e.rank, e.op, done);
    complete(e.peer_rank, e.peer_op, done);
    return {};
  }

  std::string deadlock() const {
    std::ostringstream out;
    out << "deadlock: nothing can run, yet operations remain";
    int shown = 0;
    for (const auto& [key, v] : sends_) {
      if (shown++ == 4) break;
      const op& o = at(v.first, v.second);
      out << "; " << where(v.first, v.second) << " (send to " << o.peer << ", tag " << o.tag << ") unmatched";
    }
    for (const auto& [key, v] : recvs_) {
      if (shown++ == 8) break;
      const op& o = at(v.first, v.second);
      out << "; " << where(v.first, v.second) << " (recv from " << o.peer << ", tag " << o.tag << ") unmatched";
    }
    return out.str();
  }

  const std::vector<schedule>& s_;
  std::vector<rank_buffers>& b_;
  user_op user_;
  std::mt19937_64 rng_;
  int p_;
  std::size_t words_;
  std::vector<std::vector<std::uint32_t>> remaining_, dependents_first_, dependents_;
  std::vector<std::vector<std::uint64_t>> knows_;
  std::vector<event> ready_;
  std::unordered_map<std::uint64_t, std::pair<int, std::uint32_t>> sends_, recvs_;
};

}  // namespace

std::string execute(const std::vector<schedule>& scheds, std::vector<rank_buffers>& bufs, user_op user,
                    std::uint64_t seed, run_stats* stats) {
  const int p = static_cast<int>(scheds.size());
  for (int r = 0; r < p; ++r) {
    auto& b = bufs[static_cast<std::size_t>(r)];
    b.data[idx(buffer::tmp)].resize(scheds[static_cast<std::size_t>(r)].tmp_bytes);
    std::string err = check_structure(scheds[static_cast<std::size_t>(r)], r, p, b);
    if (err.empty()) err = check_races(scheds[static_cast<std::size_t>(r)], r);
    if (!err.empty()) return err;
  }
  return network(scheds, bufs, user, seed).run(stats);
}

}  // namespace sctest
