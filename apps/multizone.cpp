// multizone — a BT-MZ-like multi-zone solver on sidecore (seed 004, Section V: NAS BT-MZ).
//
// The x-y plane of the mesh is cut into a grid of zones of uneven widths (the widths grow geometrically, so the
// largest zone has --ratio times the area of the smallest, as in BT-MZ); the zones are dealt out to the ranks by
// size, largest first to the least loaded rank. Each time step has BT-MZ's two phases:
//  1. exchange: the boundary values of every zone face go to the neighbouring zone's ghost layer (periodic in x
//     and y). Faces between zones of two ranks are packed, every irecv and isend is posted, one waitall completes
//     them, and the ghost layers are filled; faces between zones of one rank are copied. Nothing is computed
//     between the posts and the waitall: the nonblocking calls overlap communications with each other, not with
//     computation (the case the dedicated-core model of seed 004 gets wrong, Section VI-B).
//  2. compute: each zone takes an implicit (ADI) diffusion step of its 5 fields: a tridiagonal solve along every
//     x line, then y, then z (OpenMP over the lines), fed by the ghost values.
//
//   mpiexec -n 2 multizone [--class S|W|A|B|C] [--zones-x 4 --zones-y 4 --nx 64 --ny 64 --nz 16] [--check]
//
// --check recomputes the same steps on rank 0 alone and compares every zone's cells, through a checksum of each
// value at its place: equal to the last bit, as each zone sees the same arithmetic on the same ghost values.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <sidecore/sidecore.hpp>

#include "common/checksum.hpp"
#include "common/cli.hpp"
#include "common/collectives.hpp"
#include "common/run.hpp"

namespace {

constexpr int fields = 5;  // BT's five conserved quantities

struct options {
  std::string npb_class;  // "" or S, W, A, B, C: BT-MZ's sizes for what was not given
  int zones_x = 4, zones_y = 4;
  int nx = 64, ny = 64, nz = 16;
  double ratio = 20.0;
  int steps = 20;
  double lambda = 0.5;  // diffusion number of the implicit step
  bool check = false;
};

// BT-MZ's problem classes (zones, then mesh points).
void apply_class(options& o, const apps::cli& cli) {
  struct size {
    const char* name;
    int zx, zy, nx, ny, nz, steps;
  };
  static constexpr size classes[] = {{"S", 2, 2, 24, 24, 6, 60},        {"W", 4, 4, 64, 64, 8, 200},
                                     {"A", 4, 4, 128, 128, 16, 200},    {"B", 8, 8, 304, 208, 17, 200},
                                     {"C", 16, 16, 480, 320, 28, 200}};
  for (const auto& c : classes) {
    if (o.npb_class != c.name) continue;
    auto set = [&](const char* name, int& v, int value) {
      if (!cli.given(name)) v = value;
    };
    set("zones-x", o.zones_x, c.zx);
    set("zones-y", o.zones_y, c.zy);
    set("nx", o.nx, c.nx);
    set("ny", o.ny, c.ny);
    set("nz", o.nz, c.nz);
    set("steps", o.steps, c.steps);
  }
}

// Widths of `zones` zones summing to `n` and growing geometrically by a total factor `ratio` (each at least 3).
std::vector<int> zone_widths(int n, int zones, double ratio) {
  std::vector<double> w(static_cast<std::size_t>(zones));
  double total = 0.0;
  for (int z = 0; z < zones; ++z) {
    w[static_cast<std::size_t>(z)] = zones > 1 ? std::pow(ratio, static_cast<double>(z) / (zones - 1)) : 1.0;
    total += w[static_cast<std::size_t>(z)];
  }
  std::vector<int> out(static_cast<std::size_t>(zones));
  int used = 0;
  for (int z = 0; z < zones; ++z) {
    const double share = n * w[static_cast<std::size_t>(z)] / total;
    out[static_cast<std::size_t>(z)] = std::max(3, static_cast<int>(std::floor(share)));
    used += out[static_cast<std::size_t>(z)];
  }
  out[static_cast<std::size_t>(zones) - 1] += n - used;  // the rest to the widest (n >= 3 * zones is checked)
  // Zones raised to the minimum can leave the widest below it, or negative: it takes back from the next widest.
  for (int z = zones - 2; z >= 0 && out[static_cast<std::size_t>(zones) - 1] < 3; --z) {
    const int take = std::min(out[static_cast<std::size_t>(z)] - 3, 3 - out[static_cast<std::size_t>(zones) - 1]);
    out[static_cast<std::size_t>(z)] -= take;
    out[static_cast<std::size_t>(zones) - 1] += take;
  }
  return out;
}

// One zone: its place, size, owner, and fields with one ghost layer in x and y: [field][k][j + 1][i + 1].
struct zone {
  int id = 0, zx = 0, zy = 0, gx = 0, gy = 0, gz = 0, x0 = 0, y0 = 0, owner = 0;
  std::vector<double> u;
  [[nodiscard]] std::size_t at(int f, int i, int j, int k) const {  // i in [-1, gx], j in [-1, gy]
    return ((static_cast<std::size_t>(f) * gz + k) * (gy + 2) + (j + 1)) * static_cast<std::size_t>(gx + 2) + (i + 1);
  }
};

enum face : int { west = 0, east = 1, south = 2, north = 3 };

class multizone {
 public:
  // The zone map: `ranks` share the zones (the one-rank recomputation of --check passes 1: rank 0 owns all);
  // allocate() makes this rank's fields.
  multizone(const options& o, int ranks, int rank) : o_(o), rank_(rank) {
    const std::vector<int> wx = zone_widths(o.nx, o.zones_x, std::sqrt(o.ratio));
    const std::vector<int> wy = zone_widths(o.ny, o.zones_y, std::sqrt(o.ratio));
    std::vector<std::int64_t> load(static_cast<std::size_t>(ranks), 0);
    zones_.reserve(static_cast<std::size_t>(o.zones_x) * static_cast<std::size_t>(o.zones_y));  // as bytes() counts
    for (int zy = 0, y0 = 0; zy < o.zones_y; y0 += wy[static_cast<std::size_t>(zy)], ++zy)
      for (int zx = 0, x0 = 0; zx < o.zones_x; x0 += wx[static_cast<std::size_t>(zx)], ++zx) {
        zone z;
        z.id = zy * o.zones_x + zx;
        z.zx = zx;
        z.zy = zy;
        z.gx = wx[static_cast<std::size_t>(zx)];
        z.gy = wy[static_cast<std::size_t>(zy)];
        z.gz = o.nz;
        z.x0 = x0;
        z.y0 = y0;
        zones_.push_back(std::move(z));
      }
    // BT-MZ's zone map: the biggest zones first, each to the least loaded rank (the lowest on a tie).
    std::vector<int> order(zones_.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return cells(a) > cells(b); });
    for (const int z : order) {
      const auto r = std::min_element(load.begin(), load.end()) - load.begin();
      zones_[static_cast<std::size_t>(z)].owner = static_cast<int>(r);
      load[static_cast<std::size_t>(r)] += cells(z);
    }
  }

  // What this rank allocates, in bytes: the zone map with its sort order and this rank's list, its zones' fields
  // with their ghost layers (a 3 x 3 zone holds 5 x 5 points per field and level), and per face towards another
  // rank a send and a receive buffer.
  [[nodiscard]] double bytes() const {
    double b = static_cast<double>(zones_.size()) * (sizeof(zone) + 2 * sizeof(int));
    for (const zone& z : zones_) {
      if (z.owner != rank_) continue;
      b += static_cast<double>(sizeof(double)) * fields * z.gz * (z.gx + 2.0) * (z.gy + 2.0);
      for (int side = 0; side < 4; ++side)
        if (zones_[static_cast<std::size_t>(neighbour(z, side))].owner != rank_)
          b += 2.0 * sizeof(double) * static_cast<double>(layer_size(z, side));
    }
    return b;
  }

  // The fields of this rank's zones, at their initial values.
  void allocate() {
    for (zone& z : zones_) {
      if (z.owner != rank_) continue;
      z.u.assign(static_cast<std::size_t>(fields) * z.gz * (z.gy + 2) * (z.gx + 2), 0.0);
      for (int f = 0; f < fields; ++f)
        for (int k = 0; k < z.gz; ++k)
          for (int j = 0; j < z.gy; ++j)
            for (int i = 0; i < z.gx; ++i) z.u[z.at(f, i, j, k)] = initial(f, z.x0 + i, z.y0 + j, k);
      owned_.push_back(z.id);
      cells_ += cells(z.id);
    }
  }

  void step() {
    const double t0 = apps::seconds();
    exchange();
    const double t1 = apps::seconds();
    for (const int id : owned_) adi(zones_[static_cast<std::size_t>(id)]);
    exchange_s_ += t1 - t0;
    compute_s_ += apps::seconds() - t1;
  }

  // Per-zone sums of every field over the zone's own cells (0 for the zones of other ranks).
  [[nodiscard]] std::vector<double> zone_sums() const {
    std::vector<double> s(zones_.size(), 0.0);
    for (const int id : owned_) {
      const zone& z = zones_[static_cast<std::size_t>(id)];
      double sum = 0.0;
      for (int f = 0; f < fields; ++f)
        for (int k = 0; k < z.gz; ++k)
          for (int j = 0; j < z.gy; ++j)
            for (int i = 0; i < z.gx; ++i) sum += z.u[z.at(f, i, j, k)];
      s[static_cast<std::size_t>(id)] = sum;
    }
    return s;
  }
  // Per-zone checksums of every field over the zone's own cells (0 for the zones of other ranks): each value's
  // cell_hash at its place in the zone, summed modulo 2^64, so that a value in the wrong cell changes it as a wrong
  // value does (a sum would not see two values swapped).
  [[nodiscard]] std::vector<std::uint64_t> zone_hashes() const {
    std::vector<std::uint64_t> h(zones_.size(), 0);
    for (const int id : owned_) {
      const zone& z = zones_[static_cast<std::size_t>(id)];
      std::uint64_t sum = 0, place = 0;
      for (int f = 0; f < fields; ++f)
        for (int k = 0; k < z.gz; ++k)
          for (int j = 0; j < z.gy; ++j)
            for (int i = 0; i < z.gx; ++i) sum += apps::cell_hash(place++, z.u[z.at(f, i, j, k)]);
      h[static_cast<std::size_t>(id)] = sum;
    }
    return h;
  }
  [[nodiscard]] std::size_t zones_owned() const { return owned_.size(); }
  [[nodiscard]] std::int64_t cells_owned() const { return cells_; }
  [[nodiscard]] std::int64_t messages() const { return messages_; }
  [[nodiscard]] double bytes_sent() const { return bytes_; }
  [[nodiscard]] double exchange_seconds() const { return exchange_s_; }
  [[nodiscard]] double compute_seconds() const { return compute_s_; }
  [[nodiscard]] std::int64_t smallest_zone() const {
    std::int64_t m = cells(0);
    for (std::size_t z = 0; z < zones_.size(); ++z) m = std::min(m, cells(static_cast<int>(z)));
    return m;
  }
  [[nodiscard]] std::int64_t largest_zone() const {
    std::int64_t m = 0;
    for (std::size_t z = 0; z < zones_.size(); ++z) m = std::max(m, cells(static_cast<int>(z)));
    return m;
  }

 private:
  [[nodiscard]] std::int64_t cells(int id) const {
    const zone& z = zones_[static_cast<std::size_t>(id)];
    return static_cast<std::int64_t>(z.gx) * z.gy * z.gz;
  }
  [[nodiscard]] double initial(int f, int gi, int gj, int k) const {
    return 1.0 + 0.1 * f + std::sin(0.1 * gi + 0.05 * f) * std::cos(0.07 * gj) + 0.01 * k;
  }
  [[nodiscard]] int neighbour(const zone& z, int side) const {
    int zx = z.zx, zy = z.zy;
    if (side == west) zx = (zx + o_.zones_x - 1) % o_.zones_x;
    if (side == east) zx = (zx + 1) % o_.zones_x;
    if (side == south) zy = (zy + o_.zones_y - 1) % o_.zones_y;
    if (side == north) zy = (zy + 1) % o_.zones_y;
    return zy * o_.zones_x + zx;
  }
  static int opposite(int side) { return side ^ 1; }

  // The layer of `z` next to `side` (its own cells, ghost = false) or its ghost layer beyond `side`, visited
  // in one order: (field, k, then the position along the face).
  template <typename Visit>
  static void layer(zone& z, int side, bool ghost, Visit&& visit) {
    const bool along_y = side == west || side == east;  // a west/east face runs along y
    const int n = along_y ? z.gy : z.gx;
    int fixed = 0;
    if (side == west) fixed = ghost ? -1 : 0;
    if (side == east) fixed = ghost ? z.gx : z.gx - 1;
    if (side == south) fixed = ghost ? -1 : 0;
    if (side == north) fixed = ghost ? z.gy : z.gy - 1;
    for (int f = 0; f < fields; ++f)
      for (int k = 0; k < z.gz; ++k)
        for (int t = 0; t < n; ++t) visit(z.u[along_y ? z.at(f, fixed, t, k) : z.at(f, t, fixed, k)]);
  }
  [[nodiscard]] static std::size_t layer_size(const zone& z, int side) {
    return static_cast<std::size_t>(fields) * z.gz * (side == west || side == east ? z.gy : z.gx);
  }

  // BT-MZ's exch_qbc: pack the faces, post every receive and send, wait for all, unpack; copy the faces between
  // zones of this rank.
  void exchange() {
    struct transfer {
      int zone, side;             // the ghost layer a receive fills
      std::vector<double> data;
    };
    std::vector<transfer> in, out;
    for (const int id : owned_) {
      zone& z = zones_[static_cast<std::size_t>(id)];
      for (int side = 0; side < 4; ++side) {
        zone& nz = zones_[static_cast<std::size_t>(neighbour(z, side))];
        if (nz.owner == rank_) {
          // Same rank: this zone's boundary layer goes straight into the neighbour's ghost layer.
          std::vector<double> tmp;
          tmp.reserve(layer_size(z, side));
          layer(z, side, false, [&](double& v) { tmp.push_back(v); });
          std::size_t t = 0;
          layer(nz, opposite(side), true, [&](double& v) { v = tmp[t++]; });
          continue;
        }
        transfer send{nz.id, opposite(side), {}};
        send.data.reserve(layer_size(z, side));
        layer(z, side, false, [&](double& v) { send.data.push_back(v); });
        out.push_back(std::move(send));
        in.push_back({id, side, std::vector<double>(layer_size(z, side))});
      }
    }
    std::vector<sidecore::request> reqs;
    reqs.reserve(in.size() + out.size());
    for (transfer& t : in) {
      const zone& from = zones_[static_cast<std::size_t>(neighbour(zones_[static_cast<std::size_t>(t.zone)], t.side))];
      reqs.push_back(sidecore::irecv(t.data.data(), static_cast<std::int64_t>(t.data.size() * sizeof(double)),
                                     from.owner, t.zone * 4 + t.side));
    }
    for (transfer& t : out) {
      const zone& to = zones_[static_cast<std::size_t>(t.zone)];
      const std::int64_t bytes = static_cast<std::int64_t>(t.data.size() * sizeof(double));
      reqs.push_back(sidecore::isend(t.data.data(), bytes, to.owner, t.zone * 4 + t.side));
      bytes_ += static_cast<double>(bytes);
    }
    messages_ += static_cast<std::int64_t>(reqs.size());
    std::vector<sidecore::status> st(reqs.size());
    sidecore::waitall(reqs, st);
    for (std::size_t r = 0; r < in.size(); ++r) {
      transfer& t = in[r];
      if (!st[r].ok() || st[r].bytes != t.data.size() * sizeof(double))
        throw sidecore::error(st[r].ok() ? sidecore::errc::invalid_argument : st[r].error,
                              "multizone: face " + std::to_string(t.side) + " of zone " + std::to_string(t.zone) +
                                  " from rank " + std::to_string(st[r].source) + ": " + std::to_string(st[r].bytes) +
                                  " bytes, " + std::to_string(t.data.size() * sizeof(double)) + " expected");
      std::size_t k = 0;
      layer(zones_[static_cast<std::size_t>(t.zone)], t.side, true, [&](double& v) { v = t.data[k++]; });
    }
  }

  // One implicit diffusion step per field, split by direction: (1 + 2l) v_i - l v_(i-1) - l v_(i+1) = u_i along
  // every x line (ghost values at both ends), then y, then z (walls held at 1), by the Thomas algorithm.
  void adi(zone& z) {
    constexpr double wall = 1.0;
    const int longest = std::max({z.gx, z.gy, z.gz});
    for (int dir = 0; dir < 3; ++dir) {
      const int n = dir == 0 ? z.gx : (dir == 1 ? z.gy : z.gz);
      const int lines_a = dir == 0 ? z.gy : z.gx, lines_b = dir == 2 ? z.gy : z.gz;
      // 64 bits: a zone's lines (5 gx gy along z) can pass INT_MAX, and the loop would run none.
      const std::int64_t per_field = static_cast<std::int64_t>(lines_a) * lines_b, lines = fields * per_field;
#pragma omp parallel
      {
        std::vector<double> c(static_cast<std::size_t>(longest)), d(static_cast<std::size_t>(longest));
#pragma omp for schedule(static)
        for (std::int64_t line = 0; line < lines; ++line) {
          const int f = static_cast<int>(line / per_field), a = static_cast<int>(line / lines_b % lines_a),
                    b = static_cast<int>(line % lines_b);
          auto cell = [&](int t) -> double& {  // t in [-1, n] for x and y (ghosts at the ends)
            if (dir == 0) return z.u[z.at(f, t, a, b)];
            if (dir == 1) return z.u[z.at(f, a, t, b)];
            return z.u[z.at(f, a, b, t)];
          };
          const double l = o_.lambda * (1.0 + 0.2 * f), diag = 1.0 + 2.0 * l;
          const double before = dir == 2 ? wall : cell(-1), after = dir == 2 ? wall : cell(n);
          // Forward sweep, then back substitution.
          double prev_c = 0.0, prev_d = 0.0;
          for (int t = 0; t < n; ++t) {
            double rhs = cell(t);
            if (t == 0) rhs += l * before;
            if (t == n - 1) rhs += l * after;
            const double m = diag + l * prev_c;
            prev_c = t + 1 < n ? -l / m : 0.0;
            prev_d = (rhs + l * prev_d) / m;
            c[static_cast<std::size_t>(t)] = prev_c;
            d[static_cast<std::size_t>(t)] = prev_d;
          }
          double next = 0.0;
          for (int t = n - 1; t >= 0; --t) {
            next = d[static_cast<std::size_t>(t)] - c[static_cast<std::size_t>(t)] * next;
            cell(t) = next;
          }
        }
      }
    }
  }

  const options& o_;
  int rank_;
  std::vector<zone> zones_;
  std::vector<int> owned_;
  std::int64_t cells_ = 0, messages_ = 0;
  double bytes_ = 0.0, exchange_s_ = 0.0, compute_s_ = 0.0;
};

int run_multizone(options& o, const apps::cli& cli) {
  const int rank = sidecore::rank(), size = sidecore::size();
  apply_class(o, cli);
  const int zones = o.zones_x * o.zones_y;
  if (zones < size)
    throw apps::usage_error{"--zones-x " + std::to_string(o.zones_x) + " x --zones-y " + std::to_string(o.zones_y) +
                            " = " + std::to_string(zones) + " zones for " + std::to_string(size) +
                            " ranks: give at least one zone per rank"};
  if (o.nx < 3 * o.zones_x || o.ny < 3 * o.zones_y)
    throw apps::usage_error{"--nx " + std::to_string(o.nx) + " --ny " + std::to_string(o.ny) +
                            ": give at least 3 cells per zone in x and y (" + std::to_string(3 * o.zones_x) + ", " +
                            std::to_string(3 * o.zones_y) + ")"};
  // Each rank's own zones (the zone map can put most of the mesh on one rank); --check's recomputation holds them
  // all on rank 0 besides.
  multizone mz(o, size, rank);
  apps::require_memory(mz.bytes() + (o.check && rank == 0 ? multizone(o, 1, 0).bytes() : 0.0),
                       "--nx " + std::to_string(o.nx) + " --ny " + std::to_string(o.ny) + " --nz " +
                           std::to_string(o.nz) + " --zones-x " + std::to_string(o.zones_x) + " --zones-y " +
                           std::to_string(o.zones_y) + " (" + std::to_string(fields) + " fields per point" +
                           (o.check ? ", and --check" : "") + ")");
  mz.allocate();
  if (rank == 0)
    std::printf("multizone: %dx%d zones (cells %lld to %lld), mesh %dx%dx%d, %d fields, %d steps; %s\n", o.zones_x,
                o.zones_y, static_cast<long long>(mz.smallest_zone()), static_cast<long long>(mz.largest_zone()),
                o.nx, o.ny, o.nz, fields, o.steps, apps::describe_runtime().c_str());
  apps::barrier();
  const double t0 = apps::seconds();
  for (int s = 0; s < o.steps; ++s) mz.step();
  const double elapsed = apps::allreduce_max(apps::seconds() - t0);
  const double exch = apps::allreduce_max(mz.exchange_seconds()), comp = apps::allreduce_max(mz.compute_seconds());
  std::vector<double> sums = mz.zone_sums();
  apps::allreduce_sum(sums);
  double total = 0.0;
  for (const double s : sums) total += s;
  if (rank == 0) {
    std::printf("multizone: rank 0: %zu zones, %lld cells; %lld face messages posted per step (isend + irecv), "
                "%.3f MiB sent per step\n",
                mz.zones_owned(), static_cast<long long>(mz.cells_owned()),
                static_cast<long long>(mz.messages() / o.steps), mz.bytes_sent() / o.steps / (1024.0 * 1024.0));
    std::printf("multizone: %.3f s (%.3f ms per step; slowest rank: exchange %.3f s, compute %.3f s), sum %.12e\n",
                elapsed, 1e3 * elapsed / o.steps, exch, comp, total);
  }
  if (!o.check) return 0;
  std::vector<std::uint64_t> hashes = mz.zone_hashes();
  apps::allreduce_sum(hashes);
  int bad = 0;
  if (rank == 0) {
    multizone solo(o, 1, 0);
    solo.allocate();
    for (int s = 0; s < o.steps; ++s) solo.step();
    const std::vector<std::uint64_t> ref = solo.zone_hashes();
    for (std::size_t z = 0; z < ref.size(); ++z)
      if (ref[z] != hashes[z]) {
        std::printf("multizone: check: zone %zu's checksum %016llx differs from the one-rank recomputation's "
                    "%016llx\n",
                    z, static_cast<unsigned long long>(hashes[z]), static_cast<unsigned long long>(ref[z]));
        bad = 1;
      }
    std::printf("multizone: check against one rank: %s\n", bad ? "MISMATCH" : "every zone's cells equal: OK");
  }
  return apps::allreduce_max(bad);
}

}  // namespace

int main(int argc, char** argv) {
  options o;
  apps::cli cli("multizone",
                "A BT-MZ-like multi-zone solver: uneven zones dealt out to the ranks, a face exchange of "
                "isend/irecv and one waitall with nothing computed in between, then an implicit diffusion step per "
                "zone with OpenMP. docs/apps.md has the details.");
  cli.option("class", o.npb_class, {"S", "W", "A", "B", "C"},
             "BT-MZ problem class: zones, mesh and steps of NPB's BT-MZ; options given as well win");
  cli.option("zones-x", o.zones_x, 1, 1024, "zones in x");
  cli.option("zones-y", o.zones_y, 1, 1024, "zones in y");
  cli.option("nx", o.nx, 3, 100000, "mesh points in x (all zones)");
  cli.option("ny", o.ny, 3, 100000, "mesh points in y (all zones)");
  cli.option("nz", o.nz, 1, 100000, "mesh points in z");
  cli.option("ratio", o.ratio, 1.0, 1000.0, "area of the largest zone over the smallest's");
  cli.option("steps", o.steps, 1, 1000000, "time steps");
  cli.flag("check", o.check, "recompute on rank 0 alone and compare every zone (exact)");
  return apps::run(argc, argv, cli, [&] { return run_multizone(o, cli); });
}
