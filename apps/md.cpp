// md — a MiniMD-like short-range molecular dynamics code on sidecore (seed 004, Sections V and VI-C: MiniMD).
//
// Lennard-Jones atoms on an FCC lattice in a periodic box, split over a 3-D grid of ranks, integrated with
// velocity Verlet. As in MiniMD: every --reneigh steps the atoms that left a rank's sub-box migrate to the
// neighbour (exchange), the ghost atoms within cutoff + skin of each face are rebuilt (borders: one swap per face,
// dimension after dimension, forwarding ghosts to reach edges and corners), and Verlet neighbour lists are built
// from cell lists; on the other steps only the ghosts' positions travel (communicate: the same six swaps). Every
// swap is a blocking exchange (send + recv, ordered by the parity of the rank's coordinate so that no pair waits
// on itself), and every --thermo steps an allreduce sums the kinetic and potential energy.
//
// --alpha A converts that fraction of the communicate swaps (evenly spread over the run) into nonblocking ones
// overlapped with the interior force computation: the swap's irecv and isend are posted, a share of the atoms
// whose neighbours are all owned by this rank gets its forces, the two requests are waited for, and the atoms
// next to ghosts get theirs after the last swap. Each converted blocking call becomes one initiation and one wait,
// as the dedicated-core model of seed 004 (Section III-C2b) assumes; the run prints the fraction of all blocking
// calls that this is (the model's alpha).
//
//   mpiexec -n 2 md [--size 16] [--steps 100] [--alpha 0.5] [--check]
//
// --check runs the same steps on rank 0 alone and compares a checksum of every atom's position and velocity:
// neighbour lists are sorted by atom and periodic image, so each atom's force is summed in the same order
// whatever the decomposition, and the trajectories are equal to the last bit. It also checks that the atoms are
// all there and that the total momentum stayed zero.
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <numbers>
#include <span>
#include <string>
#include <vector>

#include <sidecore/sidecore.hpp>

#include "common/checksum.hpp"
#include "common/cli.hpp"
#include "common/collectives.hpp"
#include "common/decomp.hpp"
#include "common/run.hpp"

namespace {

struct options {
  int size = 16;  // FCC unit cells per side: 4 * size^3 atoms
  int steps = 100;
  double dt = 0.005, density = 0.8442, temperature = 1.44, cutoff = 2.5, skin = 0.3;
  int reneigh = 20, thermo = 1;
  double alpha = 0.0;
  int px = 0, py = 0, pz = 0;
  bool check = false;
};

constexpr int max_size = 1000;  // --size's upper limit
constexpr int own_image = 13;  // image code of (0, 0, 0): code = (ix + 1) * 9 + (iy + 1) * 3 + (iz + 1)
constexpr std::array<int, 3> image_step{9, 3, 1};

using apps::mix;
double uniform(std::int64_t id, int component) {  // in [-0.5, 0.5), a function of the atom alone
  return static_cast<double>(mix(static_cast<std::uint64_t>(id) * 3 + static_cast<std::uint64_t>(component)) >> 11) *
             0x1.0p-53 - 0.5;
}

// What travels: a migrating atom, and a ghost (position and key = id * 27 + image code).
struct atom_msg {
  double x[3], v[3];
  std::int64_t id;
};
struct ghost_msg {
  double x[3];
  std::int64_t key;
};

void expect(const sidecore::status& st, std::int64_t bytes, const char* what) {
  if (!st.ok() || static_cast<std::int64_t>(st.bytes) != bytes)
    throw sidecore::error(st.ok() ? sidecore::errc::invalid_argument : st.error,
                          std::string("md: ") + what + " from rank " + std::to_string(st.source) + ": " +
                              std::to_string(st.bytes) + " bytes, " + std::to_string(bytes) + " expected (" +
                              sidecore::errc_name(st.error) + ")");
}

// [lo, hi) of the sub-box of coordinate c of the g ranks along a side `box` long (the last ends on the box).
[[nodiscard]] std::array<double, 2> sub_box(double box, int c, int g) {
  return {box * c / g, c + 1 == g ? box : box * (c + 1) / g};
}
// The narrowest of the g sub-boxes along a side: every rank computes the same.
[[nodiscard]] double narrowest(double box, int g) {
  double w = box;
  for (int c = 0; c < g; ++c) {
    const auto [lo, hi] = sub_box(box, c, g);
    w = std::min(w, hi - lo);
  }
  return w;
}
// About how many atoms, owned and ghosts, a rank holds at most on the lattice of `o` with sub-boxes `width` wide:
// the lattice's planes in the sub-box widened by cutoff + skin on each side (the FCC's density times the widened
// volume, each side half a lattice constant longer for the plane at both ends).
[[nodiscard]] double atoms_held(const options& o, const std::array<double, 3>& width) {
  const double reach = o.cutoff + o.skin, lattice = std::cbrt(4.0 / o.density);
  double v = o.density;
  for (const double w : width) v *= w + 2 * reach + lattice / 2;
  return v;
}
// The most atoms a rank of `grid` holds, from its widest sub-boxes: every rank computes the same.
[[nodiscard]] double most_atoms_held(const options& o, int size, const std::array<int, 3>& grid) {
  const double box = std::cbrt(4.0 / o.density) * size;
  std::array<double, 3> width{};
  for (std::size_t d = 0; d < 3; ++d)
    for (int c = 0; c < grid[d]; ++c) {
      const auto [lo, hi] = sub_box(box, c, grid[d]);
      width[d] = std::max(width[d], hi - lo);
    }
  return atoms_held(o, width);
}

// Cells of the neighbour search along a sub-box `width` wide with its ghosts `reach` deep on each side: the widest
// of at least `reach`, so that an atom's neighbours are in its cell or the next.
[[nodiscard]] int cells_along(double width, double reach) {
  return std::max(1, static_cast<int>((width + 2 * reach) / reach));
}
[[nodiscard]] double cell_count(const std::array<double, 3>& width, double reach) {
  double n = 1;
  for (const double w : width) n *= cells_along(w, reach);
  return n;
}

// Why a sub-box of the grid is too narrow, and what would do.
[[nodiscard]] std::string narrow_message(const options& o, int ranks, char axis, double narrow) {
  const double reach = o.cutoff + o.skin, lattice = std::cbrt(4.0 / o.density);
  int fits = 0;  // the smallest --size whose sub-boxes are all wide enough, if the option accepts one
  for (int size = o.size + 1; size <= max_size && fits == 0; ++size)
    if (narrowest(lattice * size, ranks) >= reach) fits = size;
  char text[400];
  std::snprintf(text, sizeof text,
                "--size %d --cutoff %.17g --skin %.17g: with %d ranks in %c the narrowest sub-box is %.17g wide, "
                "below --cutoff + --skin (%.17g), which each sub-box must reach: give ",
                o.size, o.cutoff, o.skin, ranks, axis, narrow, reach);
  std::string s = text;
  if (fits > 0) s += "--size " + std::to_string(fits) + " or more, ";
  return s + "fewer ranks in " + axis + " (--p" + axis + "), or a smaller --cutoff or --skin";
}

class simulation {
 public:
  // `grid`/`coords`: the rank grid and this rank's place; `collective` false for the one-rank recomputation of
  // --check, which runs on rank 0 alone (its sums stay local).
  simulation(const options& o, std::array<int, 3> grid, std::array<int, 3> coords, bool collective)
      : o_(o), grid_(grid), collective_(collective) {
    lattice_ = std::cbrt(4.0 / o.density);
    box_ = lattice_ * o.size;
    cutneigh_ = o.cutoff + o.skin;
    // Every rank decides on the narrowest sub-box, not its own: the widths differ by a rounding, and a rank that
    // refused alone would leave the others waiting in the next collective.
    for (int d = 0; d < 3; ++d) {
      const double narrow = narrowest(box_, grid[d]);
      if (narrow < cutneigh_) throw apps::usage_error{narrow_message(o, grid[d], "xyz"[d], narrow)};
      const auto [lo, hi] = sub_box(box_, coords[d], grid[d]);
      lo_[d] = lo;
      hi_[d] = hi;
    }
    for (int s = 0; s < 6; ++s) {
      swap& w = swaps_[static_cast<std::size_t>(s)];
      w.dim = s / 2;
      w.dir = s % 2;  // 0: send the atoms near the lower face to the lower neighbour; 1: upper
      std::array<int, 3> lower = coords, upper = coords;
      lower[static_cast<std::size_t>(w.dim)] -= 1;
      upper[static_cast<std::size_t>(w.dim)] += 1;
      w.send_to = apps::grid_rank(w.dir == 0 ? lower : upper, grid);
      w.recv_from = apps::grid_rank(w.dir == 0 ? upper : lower, grid);
      w.self = grid[static_cast<std::size_t>(w.dim)] == 1;
      const std::size_t dim = static_cast<std::size_t>(w.dim);
      const bool across = w.dir == 0 ? coords[dim] == 0 : coords[dim] + 1 == grid[dim];
      w.image = across ? (w.dir == 0 ? 1 : -1) : 0;
      w.send_first = coords[static_cast<std::size_t>(w.dim)] % 2 == 0;
    }
  }

  // Atoms on the lattice, velocities for the temperature, ghosts, neighbour lists, first forces.
  void setup() {
    const std::int64_t n = 4LL * o_.size * o_.size * o_.size;
    natoms_ = n;
    // Mean velocity and spread over all atoms in id order, on every rank: the same numbers everywhere, so the
    // velocities do not depend on the decomposition.
    double mean[3] = {0, 0, 0};
    for (std::int64_t id = 0; id < n; ++id)
      for (int c = 0; c < 3; ++c) mean[c] += uniform(id, c);
    for (double& m : mean) m /= static_cast<double>(n);
    double sq = 0.0;
    for (std::int64_t id = 0; id < n; ++id)
      for (int c = 0; c < 3; ++c) sq += (uniform(id, c) - mean[c]) * (uniform(id, c) - mean[c]);
    const double scale = std::sqrt(3.0 * static_cast<double>(n) * o_.temperature / sq);
    static constexpr double basis[4][3] = {{0, 0, 0}, {0.5, 0.5, 0}, {0.5, 0, 0.5}, {0, 0.5, 0.5}};
    for (int i = 0; i < o_.size; ++i)
      for (int j = 0; j < o_.size; ++j)
        for (int k = 0; k < o_.size; ++k)
          for (int b = 0; b < 4; ++b) {
            const double p[3] = {(i + basis[b][0]) * lattice_, (j + basis[b][1]) * lattice_,
                                 (k + basis[b][2]) * lattice_};
            if (!inside(p)) continue;
            const std::int64_t id = ((static_cast<std::int64_t>(i) * o_.size + j) * o_.size + k) * 4 + b;
            for (int c = 0; c < 3; ++c) {
              x_.push_back(p[c]);
              v_.push_back((uniform(id, c) - mean[c]) * scale);
            }
            key_.push_back(id * 27 + own_image);
          }
    nlocal_ = static_cast<int>(key_.size());
    reneighbour();
    compute_forces(all_owned());
    energy0_ = energies();
  }

  void run() {
    const double half = 0.5 * o_.dt;
    for (int step = 1; step <= o_.steps; ++step) {
#pragma omp parallel for schedule(static)
      for (std::size_t c = 0; c < 3 * static_cast<std::size_t>(nlocal_); ++c) {
        v_[c] += half * f_[c];
        x_[c] += o_.dt * v_[c];
      }
      if (step % o_.reneigh == 0) {
        reneighbour();
        compute_forces(all_owned());
      } else {
        communicate_and_forces();
      }
#pragma omp parallel for schedule(static)
      for (std::size_t c = 0; c < 3 * static_cast<std::size_t>(nlocal_); ++c) v_[c] += half * f_[c];
      if (step % o_.thermo == 0 || step == o_.steps) energy_ = energies();
    }
  }

  // Kinetic and potential energy per atom, summed over the ranks (an allreduce) unless the run is the local
  // recomputation.
  [[nodiscard]] std::array<double, 2> energies() {
    double ke = 0.0, pe = 0.0;
    for (std::size_t c = 0; c < v_.size(); ++c) ke += 0.5 * v_[c] * v_[c];
    for (int i = 0; i < nlocal_; ++i) pe += pe_[static_cast<std::size_t>(i)];
    std::array<double, 2> e{ke, pe};
    if (collective_) {
      apps::allreduce_sum(e);
      ++allreduces_;
    }
    for (double& v : e) v /= static_cast<double>(natoms_);
    return e;
  }
  // The sum over owned atoms of a hash of each atom's id, position and velocity bits, and the atom count: equal
  // between two runs exactly when every atom is in the same state.
  [[nodiscard]] std::array<std::uint64_t, 2> checksum() const {
    std::uint64_t sum = 0;
    for (int i = 0; i < nlocal_; ++i) {
      std::uint64_t h = mix(static_cast<std::uint64_t>(key_[static_cast<std::size_t>(i)] / 27));
      for (int c = 0; c < 3; ++c) {
        h = mix(h ^ std::bit_cast<std::uint64_t>(x_[3 * static_cast<std::size_t>(i) + c]));
        h = mix(h ^ std::bit_cast<std::uint64_t>(v_[3 * static_cast<std::size_t>(i) + c]));
      }
      sum += h;
    }
    return {sum, static_cast<std::uint64_t>(nlocal_)};
  }
  // The total momentum (x, y, z) and, fourth, the sum of the velocity components' magnitudes: the scale of the
  // rounding in the first three.
  [[nodiscard]] std::array<double, 4> momentum() const {
    std::array<double, 4> p{0, 0, 0, 0};
    for (int i = 0; i < nlocal_; ++i)
      for (int c = 0; c < 3; ++c) {
        const double v = v_[3 * static_cast<std::size_t>(i) + c];
        p[static_cast<std::size_t>(c)] += v;
        p[3] += std::fabs(v);
      }
    return p;
  }

  struct counters {
    std::int64_t blocking_calls = 0;   // send + recv calls made
    std::int64_t converted_calls = 0;  // blocking calls the run made nonblocking instead (2 per converted swap)
    std::int64_t swaps = 0;            // communicate swaps between two ranks (not to self)
    double force_s = 0, comm_s = 0, reneigh_s = 0;
  };
  [[nodiscard]] const counters& stats() const { return stats_; }
  [[nodiscard]] std::array<double, 2> first_energy() const { return energy0_; }
  [[nodiscard]] std::array<double, 2> last_energy() const { return energy_; }
  [[nodiscard]] std::int64_t atoms() const { return natoms_; }
  [[nodiscard]] double box() const { return box_; }
  [[nodiscard]] std::array<double, 3> widths() const { return {hi_[0] - lo_[0], hi_[1] - lo_[1], hi_[2] - lo_[2]}; }
  [[nodiscard]] std::int64_t allreduces() const { return allreduces_; }
  [[nodiscard]] double interior_share() const {
    return nlocal_ ? static_cast<double>(interior_.size()) / nlocal_ : 0.0;
  }

 private:
  struct swap {
    int dim = 0, dir = 0, send_to = 0, recv_from = 0, image = 0;
    bool self = false, send_first = false;
    std::vector<int> list;     // atoms (owned or earlier ghosts) whose positions this swap sends
    int first = 0, count = 0;  // the ghosts it receives: [first, first + count)
    std::vector<double> buf;   // packed positions (stays untouched while a converted send is in flight)
  };

  // A wrapped coordinate kept below the box: p + box of a p a rounding below 0 is the box itself in doubles, which no
  // sub-box holds (they are [lo, hi)); the largest double below it is the same place within that rounding.
  [[nodiscard]] double below_box(double p) const { return p < box_ ? p : std::nextafter(box_, 0.0); }

  [[nodiscard]] bool inside(const double* p) const {
    for (int d = 0; d < 3; ++d)
      if (p[d] < lo_[d] || p[d] >= hi_[d]) return false;
    return true;
  }
  [[nodiscard]] std::vector<int> all_owned() const {
    std::vector<int> a(static_cast<std::size_t>(nlocal_));
    for (int i = 0; i < nlocal_; ++i) a[static_cast<std::size_t>(i)] = i;
    return a;
  }
  double shift(const swap& w) const { return w.image * box_; }

  // A blocking exchange with the two neighbours of a swap: send `sbytes` to send_to and receive `rbytes` from
  // recv_from, in the order the coordinate's parity gives.
  void sendrecv(const swap& w, const void* sbuf, std::int64_t sbytes, void* rbuf, std::int64_t rbytes, int tag,
                const char* what) {
    sidecore::status st;
    if (w.send_first) {
      sidecore::send(sbuf, sbytes, w.send_to, tag);
      st = sidecore::recv(rbuf, rbytes, w.recv_from, tag);
    } else {
      st = sidecore::recv(rbuf, rbytes, w.recv_from, tag);
      sidecore::send(sbuf, sbytes, w.send_to, tag);
    }
    stats_.blocking_calls += 2;
    expect(st, rbytes, what);
  }

  // Exchange (migration), borders (ghosts) and neighbour lists: every --reneigh steps.
  void reneighbour() {
    const double t0 = apps::seconds();
    migrate();
    borders();
    build_neighbours();
    stats_.reneigh_s += apps::seconds() - t0;
  }

  void migrate() {
    x_.resize(3 * static_cast<std::size_t>(nlocal_));
    key_.resize(static_cast<std::size_t>(nlocal_));
    for (int d = 0; d < 3; ++d) {
      if (grid_[static_cast<std::size_t>(d)] == 1) {  // the periodic image is this rank: wrap in place
        for (int i = 0; i < nlocal_; ++i) {
          double& p = x_[3 * static_cast<std::size_t>(i) + d];
          if (p < 0.0) p = below_box(p + box_);
          else if (p >= box_) p -= box_;
        }
        continue;
      }
      std::array<std::vector<atom_msg>, 2> out;  // to the lower and the upper neighbour
      int kept = 0;
      for (int i = 0; i < nlocal_; ++i) {
        const std::size_t a = static_cast<std::size_t>(i);
        const double p = x_[3 * a + d];
        const int to = p < lo_[d] ? 0 : (p >= hi_[d] ? 1 : -1);
        if (to < 0) {
          for (int c = 0; c < 3; ++c) {
            x_[3 * static_cast<std::size_t>(kept) + c] = x_[3 * a + c];
            v_[3 * static_cast<std::size_t>(kept) + c] = v_[3 * a + c];
          }
          key_[static_cast<std::size_t>(kept)] = key_[a];
          ++kept;
          continue;
        }
        atom_msg m{{x_[3 * a], x_[3 * a + 1], x_[3 * a + 2]}, {v_[3 * a], v_[3 * a + 1], v_[3 * a + 2]}, key_[a] / 27};
        const swap& w = swaps_[static_cast<std::size_t>(2 * d + to)];
        m.x[d] = below_box(m.x[d] + shift(w));  // crossing the periodic boundary: the position wraps
        out[static_cast<std::size_t>(to)].push_back(m);
      }
      nlocal_ = kept;
      x_.resize(3 * static_cast<std::size_t>(kept));
      v_.resize(3 * static_cast<std::size_t>(kept));
      key_.resize(static_cast<std::size_t>(kept));
      for (int to = 0; to < 2; ++to) {
        const swap& w = swaps_[static_cast<std::size_t>(2 * d + to)];
        auto& send = out[static_cast<std::size_t>(to)];
        std::int64_t nsend = static_cast<std::int64_t>(send.size()), nrecv = 0;
        sendrecv(w, &nsend, sizeof nsend, &nrecv, sizeof nrecv, 30 + 2 * d + to, "migrating atom count");
        std::vector<atom_msg> in(static_cast<std::size_t>(nrecv));
        sendrecv(w, send.data(), nsend * static_cast<std::int64_t>(sizeof(atom_msg)), in.data(),
                 nrecv * static_cast<std::int64_t>(sizeof(atom_msg)), 40 + 2 * d + to, "migrating atoms");
        for (const atom_msg& m : in) {
          x_.insert(x_.end(), m.x, m.x + 3);
          v_.insert(v_.end(), m.v, m.v + 3);
          key_.push_back(m.id * 27 + own_image);
        }
        nlocal_ += static_cast<int>(in.size());
      }
    }
    for (int i = 0; i < nlocal_; ++i)
      for (int d = 0; d < 3; ++d) {
        const double p = x_[3 * static_cast<std::size_t>(i) + d];
        if (p < lo_[d] || p >= hi_[d]) runaway(i, d);
      }
    f_.assign(x_.size(), 0.0);
    pe_.assign(static_cast<std::size_t>(nlocal_), 0.0);
  }

  // An atom outside this rank's sub-box after the migration moved further between two builds than a migration
  // carries: past the neighbouring rank's sub-box, or, with one rank in that dimension (wrapped in place), more
  // than the box's side.
  [[noreturn]] void runaway(int i, int d) const {
    char text[200];
    if (grid_[static_cast<std::size_t>(d)] == 1)
      std::snprintf(text, sizeof text, "more than the box's side (%.6g) in %c", box_, "xyz"[d]);
    else
      std::snprintf(text, sizeof text, "past the neighbouring rank's sub-box in %c", "xyz"[d]);
    char steps[80];
    std::snprintf(steps, sizeof steps, " (--reneigh %d steps of --dt %g)", o_.reneigh, o_.dt);
    throw sidecore::error(sidecore::errc::invalid_argument,
                          "md: atom " + std::to_string(key_[static_cast<std::size_t>(i)] / 27) + " moved " + text +
                              " between two neighbour-list builds" + steps + ": lower --dt or --reneigh");
  }

  void borders() {
    for (int s = 0; s < 6; ++s) {
      swap& w = swaps_[static_cast<std::size_t>(s)];
      const int d = w.dim;
      const int n = static_cast<int>(key_.size());  // owned atoms and the ghosts of the swaps before
      w.list.clear();
      for (int i = 0; i < n; ++i) {
        const double p = x_[3 * static_cast<std::size_t>(i) + d];
        // The ghosts this swap's partner swap brought in lie beyond the opposite face and are never selected.
        if (w.dir == 0 ? p < lo_[d] + cutneigh_ : (p >= hi_[d] - cutneigh_ && p < hi_[d])) w.list.push_back(i);
      }
      std::vector<ghost_msg> out(w.list.size());
      for (std::size_t k = 0; k < w.list.size(); ++k) {
        const std::size_t a = static_cast<std::size_t>(w.list[k]);
        out[k] = {{x_[3 * a], x_[3 * a + 1], x_[3 * a + 2]},
                  key_[a] + w.image * image_step[static_cast<std::size_t>(d)]};
        out[k].x[d] += shift(w);
      }
      std::vector<ghost_msg> in;
      if (w.self) {
        in = std::move(out);
      } else {
        std::int64_t nsend = static_cast<std::int64_t>(out.size()), nrecv = 0;
        sendrecv(w, &nsend, sizeof nsend, &nrecv, sizeof nrecv, 10 + s, "ghost count");
        in.resize(static_cast<std::size_t>(nrecv));
        sendrecv(w, out.data(), nsend * static_cast<std::int64_t>(sizeof(ghost_msg)), in.data(),
                 nrecv * static_cast<std::int64_t>(sizeof(ghost_msg)), 20 + s, "ghosts");
      }
      w.first = n;
      w.count = static_cast<int>(in.size());
      for (const ghost_msg& g : in) {
        x_.insert(x_.end(), g.x, g.x + 3);
        key_.push_back(g.key);
      }
      w.buf.resize(3 * w.list.size());
    }
  }

  // Verlet lists from cell lists: every pair within cutoff + skin, each list sorted by atom and image so that a
  // force is summed in the same order on any decomposition. An owned atom is interior when no ghost is in its list.
  void build_neighbours() {
    const int ntotal = static_cast<int>(key_.size());
    std::array<int, 3> nb{};
    std::array<double, 3> origin{}, width{};
    for (int d = 0; d < 3; ++d) {
      origin[static_cast<std::size_t>(d)] = lo_[d] - cutneigh_;
      const double extent = hi_[d] - lo_[d] + 2 * cutneigh_;
      nb[static_cast<std::size_t>(d)] = cells_along(hi_[d] - lo_[d], cutneigh_);
      width[static_cast<std::size_t>(d)] = extent / nb[static_cast<std::size_t>(d)];
    }
    auto cell_of = [&](int i, int d) {
      const int c = static_cast<int>(std::floor((x_[3 * static_cast<std::size_t>(i) + d] -
                                                 origin[static_cast<std::size_t>(d)]) /
                                                width[static_cast<std::size_t>(d)]));
      return std::clamp(c, 0, nb[static_cast<std::size_t>(d)] - 1);
    };
    const std::size_t ncells = static_cast<std::size_t>(nb[0]) * nb[1] * nb[2];
    // A cell's index can pass INT_MAX (a low density, a small cutoff); its atom counts cannot (atoms are ints).
    auto index = [&](std::size_t cx, std::size_t cy, std::size_t cz) {
      return (cx * static_cast<std::size_t>(nb[1]) + cy) * static_cast<std::size_t>(nb[2]) + cz;
    };
    std::vector<std::size_t> cell(static_cast<std::size_t>(ntotal));
    std::vector<int> start(ncells + 1, 0), members(static_cast<std::size_t>(ntotal));
    for (int i = 0; i < ntotal; ++i) {
      cell[static_cast<std::size_t>(i)] = index(static_cast<std::size_t>(cell_of(i, 0)),
                                                static_cast<std::size_t>(cell_of(i, 1)),
                                                static_cast<std::size_t>(cell_of(i, 2)));
      ++start[cell[static_cast<std::size_t>(i)] + 1];
    }
    for (std::size_t c = 0; c < ncells; ++c) start[c + 1] += start[c];
    std::vector<int> fill(start.begin(), start.end() - 1);
    for (int i = 0; i < ntotal; ++i) {
      int& next = fill[cell[static_cast<std::size_t>(i)]];
      members[static_cast<std::size_t>(next++)] = i;
    }

    const double cutsq = cutneigh_ * cutneigh_;
    // Visits the atoms j within cutoff + skin of owned atom i.
    auto for_each_neighbour = [&](int i, auto&& visit) {
      const std::size_t a = static_cast<std::size_t>(i);
      const std::size_t c = cell[a], n1 = static_cast<std::size_t>(nb[1]), n2 = static_cast<std::size_t>(nb[2]);
      const int cx = static_cast<int>(c / (n1 * n2)), cy = static_cast<int>(c / n2 % n1),
                cz = static_cast<int>(c % n2);
      for (int ix = std::max(cx - 1, 0); ix <= std::min(cx + 1, nb[0] - 1); ++ix)
        for (int iy = std::max(cy - 1, 0); iy <= std::min(cy + 1, nb[1] - 1); ++iy)
          for (int iz = std::max(cz - 1, 0); iz <= std::min(cz + 1, nb[2] - 1); ++iz) {
            const std::size_t cc = index(static_cast<std::size_t>(ix), static_cast<std::size_t>(iy),
                                         static_cast<std::size_t>(iz));
            for (int m = start[cc]; m < start[cc + 1]; ++m) {
              const int j = members[static_cast<std::size_t>(m)];
              if (j == i) continue;
              const std::size_t b = static_cast<std::size_t>(j);
              const double dx = x_[3 * a] - x_[3 * b], dy = x_[3 * a + 1] - x_[3 * b + 1],
                           dz = x_[3 * a + 2] - x_[3 * b + 2];
              if (dx * dx + dy * dy + dz * dz < cutsq) visit(j);
            }
          }
    };
    nstart_.assign(static_cast<std::size_t>(nlocal_) + 1, 0);
#pragma omp parallel for schedule(static)
    for (int i = 0; i < nlocal_; ++i) {
      std::int64_t count = 0;
      for_each_neighbour(i, [&](int) { ++count; });
      nstart_[static_cast<std::size_t>(i) + 1] = count;
    }
    for (int i = 0; i < nlocal_; ++i) nstart_[static_cast<std::size_t>(i) + 1] += nstart_[static_cast<std::size_t>(i)];
    nlist_.resize(static_cast<std::size_t>(nstart_.back()));
    std::vector<char> interior(static_cast<std::size_t>(nlocal_), 1);
#pragma omp parallel for schedule(static)
    for (int i = 0; i < nlocal_; ++i) {
      int* out = &nlist_[static_cast<std::size_t>(nstart_[static_cast<std::size_t>(i)])];
      int k = 0;
      for_each_neighbour(i, [&](int j) {
        out[k++] = j;
        if (j >= nlocal_) interior[static_cast<std::size_t>(i)] = 0;
      });
      std::sort(out, out + k,
                [&](int p, int q) { return key_[static_cast<std::size_t>(p)] < key_[static_cast<std::size_t>(q)]; });
    }
    interior_.clear();
    boundary_.clear();
    for (int i = 0; i < nlocal_; ++i) (interior[static_cast<std::size_t>(i)] ? interior_ : boundary_).push_back(i);
  }

  // Lennard-Jones forces (and half of each pair's energy) on the given owned atoms, from their lists.
  void compute_forces(std::span<const int> atoms) {
    const double t0 = apps::seconds();
    const double cutsq = o_.cutoff * o_.cutoff;
    const std::size_t n = atoms.size();
#pragma omp parallel for schedule(static)
    for (std::size_t k = 0; k < n; ++k) {
      const std::size_t a = static_cast<std::size_t>(atoms[k]);
      const double xi = x_[3 * a], yi = x_[3 * a + 1], zi = x_[3 * a + 2];
      double fx = 0, fy = 0, fz = 0, e = 0;
      for (std::int64_t m = nstart_[a]; m < nstart_[a + 1]; ++m) {
        const std::size_t b = static_cast<std::size_t>(nlist_[static_cast<std::size_t>(m)]);
        const double dx = xi - x_[3 * b], dy = yi - x_[3 * b + 1], dz = zi - x_[3 * b + 2];
        const double r2 = dx * dx + dy * dy + dz * dz;
        if (r2 < cutsq) {
          const double sr2 = 1.0 / r2, sr6 = sr2 * sr2 * sr2;
          const double fpair = 48.0 * sr6 * (sr6 - 0.5) * sr2;
          fx += dx * fpair;
          fy += dy * fpair;
          fz += dz * fpair;
          e += 2.0 * sr6 * (sr6 - 1.0);
        }
      }
      f_[3 * a] = fx;
      f_[3 * a + 1] = fy;
      f_[3 * a + 2] = fz;
      pe_[a] = e;
    }
    stats_.force_s += apps::seconds() - t0;
  }

  // Whether the next communicate swap between two ranks is converted: spread evenly, floor(alpha * k) of the
  // first k (the printed alpha counts what was converted).
  bool convert_next() {
    const std::int64_t k = stats_.swaps++;
    return std::floor((static_cast<double>(k) + 1) * o_.alpha) > std::floor(static_cast<double>(k) * o_.alpha);
  }

  // The ghosts' new positions, swap after swap (a swap forwards ghosts of the dimensions before it), and the
  // forces. Converted swaps overlap with a share of the interior atoms' forces.
  void communicate_and_forces() {
    std::array<bool, 6> convert{};
    int phases = 0;  // dimensions with a converted swap: each gets an equal share of the interior atoms
    for (int d = 0; d < 3; ++d) {
      bool any = false;
      for (int dir = 0; dir < 2; ++dir) {
        const swap& w = swaps_[static_cast<std::size_t>(2 * d + dir)];
        convert[static_cast<std::size_t>(2 * d + dir)] = !w.self && convert_next();
        any = any || convert[static_cast<std::size_t>(2 * d + dir)];
      }
      phases += any ? 1 : 0;
    }
    std::size_t done = 0;  // interior atoms whose forces are computed
    int phase = 0;
    for (int d = 0; d < 3; ++d) {
      const double t0 = apps::seconds();
      std::array<sidecore::request, 4> reqs;
      int nreq = 0;
      for (int dir = 0; dir < 2; ++dir) {
        const int s = 2 * d + dir;
        swap& w = swaps_[static_cast<std::size_t>(s)];
        const double sh = shift(w);
        for (std::size_t k = 0; k < w.list.size(); ++k) {
          const std::size_t a = static_cast<std::size_t>(w.list[k]);
          for (int c = 0; c < 3; ++c) w.buf[3 * k + c] = x_[3 * a + c] + (c == d ? sh : 0.0);
        }
        double* ghosts = &x_[3 * static_cast<std::size_t>(w.first)];
        const std::int64_t sbytes = static_cast<std::int64_t>(w.buf.size() * sizeof(double));
        const std::int64_t rbytes = static_cast<std::int64_t>(3 * static_cast<std::size_t>(w.count) * sizeof(double));
        if (w.self) {
          std::copy(w.buf.begin(), w.buf.end(), ghosts);
        } else if (convert[static_cast<std::size_t>(s)]) {
          reqs[static_cast<std::size_t>(nreq++)] = sidecore::irecv(ghosts, rbytes, w.recv_from, s);
          reqs[static_cast<std::size_t>(nreq++)] = sidecore::isend(w.buf.data(), sbytes, w.send_to, s);
          stats_.converted_calls += 2;
        } else {
          sendrecv(w, w.buf.data(), sbytes, ghosts, rbytes, s, "ghost positions");
        }
      }
      stats_.comm_s += apps::seconds() - t0;
      if (nreq == 0) continue;
      // Overlap: this dimension's share of the interior atoms while the swaps travel.
      ++phase;
      const std::size_t upto = interior_.size() * static_cast<std::size_t>(phase) / static_cast<std::size_t>(phases);
      compute_forces(std::span<const int>(interior_).subspan(done, upto - done));
      done = upto;
      const double t1 = apps::seconds();
      for (int r = 0; r < nreq; ++r) {
        const sidecore::status st = sidecore::wait(reqs[static_cast<std::size_t>(r)]);
        if (r % 2 == 0) {
          const swap& w = swaps_[static_cast<std::size_t>(st.tag)];
          expect(st, static_cast<std::int64_t>(3 * static_cast<std::size_t>(w.count) * sizeof(double)),
                 "ghost positions");
        }
      }
      stats_.comm_s += apps::seconds() - t1;
    }
    if (done < interior_.size())
      compute_forces(std::span<const int>(interior_).subspan(done));
    compute_forces(boundary_);
  }

  const options& o_;
  std::array<int, 3> grid_;
  bool collective_;
  double lattice_ = 0, box_ = 0, cutneigh_ = 0;
  double lo_[3] = {0, 0, 0}, hi_[3] = {0, 0, 0};
  std::array<swap, 6> swaps_;
  std::int64_t natoms_ = 0;
  int nlocal_ = 0;                  // owned atoms: the first nlocal_ of x_ and key_; ghosts follow
  std::vector<double> x_, v_, f_;   // 3 per atom (v_ and f_: owned atoms only)
  std::vector<double> pe_;          // per owned atom: half the energy of its pairs
  std::vector<std::int64_t> key_;   // id * 27 + periodic image code
  std::vector<std::int64_t> nstart_;  // neighbour lists (CSR over owned atoms): a rank's pairs can pass INT_MAX
  std::vector<int> nlist_;
  std::vector<int> interior_, boundary_;
  std::array<double, 2> energy0_{}, energy_{};
  std::int64_t allreduces_ = 0;
  counters stats_;
};

int run_md(const options& o) {
  const int rank = sidecore::rank(), size = sidecore::size();
  std::array<int, 3> grid{o.px, o.py, o.pz};
  if (!apps::rank_grid(size, grid))
    throw apps::usage_error{"--px " + std::to_string(o.px) + " --py " + std::to_string(o.py) + " --pz " +
                            std::to_string(o.pz) + " cannot make a grid of " + std::to_string(size) +
                            " ranks: give extents whose product is the rank count, or 0 to have one chosen"};
  simulation sim(o, grid, apps::grid_coords(rank, grid), true);
  {
    // Per owned atom: velocity, force, energy, the list offset, the interior flag and its place in the interior or
    // boundary list, and a neighbour list of every atom within cutoff + skin; per atom held (owned and ghosts):
    // position, key, cell and cell member; per ghost, its place in a swap's list and packed position. The cell
    // lists (2 ints per cell) are built, and freed, at each neighbour-list build: at low density they outweigh the
    // atoms. --check's recomputation holds the whole box on rank 0 besides (its cell lists once this run's are gone).
    const double reach = o.cutoff + o.skin;
    const double per_owned = 7.0 * sizeof(double) + sizeof(std::int64_t) + 1.0 + sizeof(int) +
                             sizeof(int) * o.density * 4.0 / 3.0 * std::numbers::pi * reach * reach * reach;
    const double per_held = 3.0 * sizeof(double) + 2.0 * sizeof(std::int64_t) + sizeof(int);
    const double per_ghost = sizeof(int) + 3.0 * sizeof(double);
    auto bytes = [&](const std::array<double, 3>& width) {
      double owned = o.density;
      for (const double w : width) owned *= w;
      const double held = atoms_held(o, width);
      return per_owned * owned + per_held * held + per_ghost * (held - owned);
    };
    const double box = sim.box();
    double need = bytes(sim.widths()), cells = 2.0 * sizeof(int) * cell_count(sim.widths(), reach);
    if (o.check && rank == 0) {
      need += bytes({box, box, box});
      cells = std::max(cells, 2.0 * sizeof(int) * cell_count({box, box, box}, reach));
    }
    char physics[120];
    std::snprintf(physics, sizeof physics, " --density %g --cutoff %g --skin %g (%lld atoms", o.density, o.cutoff,
                  o.skin, 4LL * o.size * o.size * o.size);
    apps::require_memory(need + cells, "--size " + std::to_string(o.size) + physics +
                                           (o.check ? ", and --check" : "") + ")");
  }
  {
    // Atoms are indexed with int on a rank (and on rank 0 alone for --check's recomputation).
    constexpr double most = std::numeric_limits<int>::max();
    const std::array<int, 3> one{1, 1, 1};
    auto held = [&](int cells) {
      return std::max(most_atoms_held(o, cells, grid), o.check ? most_atoms_held(o, cells, one) : 0.0);
    };
    if (const double atoms = held(o.size); atoms > most) {
      int fits = o.size - 1;
      while (fits >= 2 && held(fits) > most) --fits;
      const bool solo = most_atoms_held(o, o.size, grid) <= most;  // only --check's recomputation is too big
      char text[200];
      std::snprintf(text, sizeof text, " (%lld atoms): about %.4g atoms with the ghosts on %s, more than the %d a rank"
                    " indexes: give ", 4LL * o.size * o.size * o.size, atoms, solo ? "rank 0 for --check" : "one rank",
                    std::numeric_limits<int>::max());
      throw apps::usage_error{"--size " + std::to_string(o.size) + text +
                              (fits >= 2 ? "--size " + std::to_string(fits) + " or less, or " : std::string()) +
                              (solo ? "no --check" : "more ranks")};
    }
  }
  if (rank == 0)
    std::printf("md: %lld atoms (FCC %d^3 cells, box %.3f), density %g, temperature %g, cutoff %g + skin %g, dt %g, "
                "%d steps, neighbour lists every %d, energies every %d, alpha %g; rank grid %dx%dx%d; %s\n",
                4LL * o.size * o.size * o.size, o.size, sim.box(), o.density, o.temperature, o.cutoff, o.skin, o.dt,
                o.steps, o.reneigh, o.thermo, o.alpha, grid[0], grid[1], grid[2], apps::describe_runtime().c_str());
  apps::barrier();
  const double t0 = apps::seconds();
  sim.setup();
  sim.run();
  const double elapsed = apps::allreduce_max(apps::seconds() - t0);
  const auto& st = sim.stats();
  const double force_s = apps::allreduce_max(st.force_s), comm_s = apps::allreduce_max(st.comm_s),
               reneigh_s = apps::allreduce_max(st.reneigh_s);
  const auto e0 = sim.first_energy(), e1 = sim.last_energy();
  if (rank == 0) {
    // The profile counts every blocking call: the sends and receives, the step's allreduces, and this program's own
    // collectives (the barrier before the timed run, the four maxima above, and --check's three sums and maximum).
    // The model's alpha is the converted share of all of them as the unconverted run makes them.
    const std::int64_t harness_collectives = 5 + (o.check ? 3 : 0);
    const std::int64_t p2p = st.blocking_calls + st.converted_calls;
    const std::int64_t all = p2p + sim.allreduces() + harness_collectives;
    std::printf("md: rank 0: %lld blocking calls (send, recv), %lld converted to isend/irecv + wait (%lld of %lld "
                "communicate swaps): %.4f of its sends and receives; the model's alpha %.4f (of all %lld blocking "
                "calls of the unconverted run, collectives included); %lld allreduces; %.0f%% of its atoms "
                "interior\n",
                static_cast<long long>(st.blocking_calls), static_cast<long long>(st.converted_calls),
                static_cast<long long>(st.converted_calls / 2), static_cast<long long>(st.swaps),
                p2p ? static_cast<double>(st.converted_calls) / static_cast<double>(p2p) : 0.0,
                all ? static_cast<double>(st.converted_calls) / static_cast<double>(all) : 0.0,
                static_cast<long long>(all), static_cast<long long>(sim.allreduces()), 100.0 * sim.interior_share());
    std::printf("md: %.3f s (%.3f ms per step; slowest rank: forces %.3f s, communicate %.3f s, neighbour lists and "
                "migration %.3f s); energy per atom %.6f -> %.6f (kinetic %.6f, potential %.6f)\n",
                elapsed, 1e3 * elapsed / o.steps, force_s, comm_s, reneigh_s, e0[0] + e0[1], e1[0] + e1[1], e1[0],
                e1[1]);
  }
  if (!o.check) return 0;

  int bad = 0;
  std::array<std::uint64_t, 2> sum = sim.checksum();
  apps::allreduce_sum(sum);
  std::array<double, 4> p = sim.momentum();
  apps::allreduce_sum(p);
  if (rank == 0) {
    const double atoms = static_cast<double>(sim.atoms());
    const double pmax = std::max({std::fabs(p[0]), std::fabs(p[1]), std::fabs(p[2])}) / atoms;
    // The limit grows with the velocities (a run that blew up holds speeds of 1e17 and rounds its momentum sum at
    // 0.1 per atom, with forces still opposite to the bit); below a mean speed of 1 it is 1e-10 per atom.
    const double limit = 1e-10 * std::max(1.0, p[3] / (3 * atoms));
    if (static_cast<std::int64_t>(sum[1]) != sim.atoms()) {
      std::printf("md: check: %llu atoms, %lld expected\n", static_cast<unsigned long long>(sum[1]),
                  static_cast<long long>(sim.atoms()));
      bad = 1;
    }
    // Forces are pairwise opposite to the bit, so the momentum stays zero up to rounding in the sums.
    if (pmax > limit) {
      std::printf("md: check: total momentum per atom %.3e, above %.1e: a pair's forces differ\n", pmax, limit);
      bad = 1;
    }
    simulation solo(o, {1, 1, 1}, {0, 0, 0}, false);
    solo.setup();
    solo.run();
    const auto ref = solo.checksum();
    if (ref[0] != sum[0]) {
      std::printf("md: check: the atoms' positions and velocities differ from the one-rank recomputation's "
                  "(checksum %016llx, one rank %016llx)\n",
                  static_cast<unsigned long long>(sum[0]), static_cast<unsigned long long>(ref[0]));
      bad = 1;
    }
    std::printf("md: check against one rank: %s (momentum per atom %.1e)\n",
                bad ? "MISMATCH" : "every atom's position and velocity equal: OK", pmax);
  }
  return apps::allreduce_max(bad);
}

}  // namespace

int main(int argc, char** argv) {
  options o;
  apps::cli cli("md",
                "A MiniMD-like Lennard-Jones molecular dynamics (FCC lattice, cell-built Verlet lists, velocity "
                "Verlet): blocking halo exchanges (send + recv) dimension by dimension, an allreduce of the "
                "energies, and --alpha to convert a fraction of the exchanges into nonblocking ones overlapped with "
                "the interior forces. docs/apps.md has the details.");
  cli.option("size", o.size, 2, max_size, "FCC unit cells per side of the box (4 * size^3 atoms)");
  cli.option("steps", o.steps, 1, 10000000, "time steps");
  cli.option("dt", o.dt, 1e-6, 0.1, "time step (Lennard-Jones units)");
  cli.option("density", o.density, 0.01, 1.5, "atoms per unit volume");
  cli.option("temperature", o.temperature, 0.0, 100.0, "initial temperature");
  cli.option("cutoff", o.cutoff, 1.0, 10.0, "force cutoff");
  cli.option("skin", o.skin, 0.0, 5.0, "neighbour-list skin beyond the cutoff");
  cli.option("reneigh", o.reneigh, 1, 100000, "steps between migrations and neighbour-list builds");
  cli.option("thermo", o.thermo, 1, 10000000, "steps between energy allreduces");
  cli.option("alpha", o.alpha, 0.0, 1.0, "fraction of the per-step halo exchanges made nonblocking and overlapped");
  cli.option("px", o.px, 0, 65536, "ranks in x (0: chosen)");
  cli.option("py", o.py, 0, 65536, "ranks in y (0: chosen)");
  cli.option("pz", o.pz, 0, 65536, "ranks in z (0: chosen)");
  cli.flag("check", o.check, "recompute on rank 0 alone and compare every atom (exact), the atom count and momentum");
  return apps::run(argc, argv, cli, [&] { return run_md(o); });
}
