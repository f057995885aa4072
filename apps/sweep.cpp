// sweep — a Kripke-like discrete-ordinates transport sweep on sidecore (seed 004, Section V: Kripke).
//
// The 3-D grid of cells is split over a 2-D grid of ranks in x and y (the KBA decomposition); z stays whole on
// each rank and is cut into z-sets that pipeline the sweep. The angular flux of every direction of the 8 octants
// and every energy group is swept from the octant's upwind corner with the step (upwind) scheme:
//
//   psi = (q + cx*psi_in_x + cy*psi_in_y + cz*psi_in_z) / (sigma_t + cx + cy + cz),   psi_out = psi
//
// Work unit: (octant, direction set, group set, z-set). A unit can run once its upwind x and y faces have come
// from the neighbouring ranks and its upwind z face from the previous z-set on this rank. As Kripke does, every
// face receive of an iteration is posted at its start, and the loop alternates "progress the receives with
// testany until none completes" and "sweep one ready unit (OpenMP), isend its downwind faces"; a final waitall
// completes the sends. Many small units (case 1) make the nonblocking traffic large; few big ones (case 2)
// make it negligible. Each source iteration ends with an allreduce of the particle population, as Kripke's edit.
//
//   mpiexec -n 2 sweep [--case 1|2] [--nx 32 --ny 32 --nz 32 --groups 16 --dirs 4 ...] [--check]
//
// --check recomputes the same iterations on rank 0 alone (one rank, no messages) and compares every rank's
// flux, cell by cell through a per-rank checksum of each value at its place: equal to the last bit, since every
// cell sees the same arithmetic.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <numbers>
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
  std::string kripke_case;  // "", "1" or "2": presets for what was not given
  int nx = 32, ny = 32, nz = 32;
  int groups = 16, groupsets = 2;
  int dirs = 4, dirsets = 1;  // directions per octant, direction sets per octant
  int zsets = 4;
  int iters = 5;
  int px = 0, py = 0;  // rank grid; 0: chosen
  bool check = false;
};

// The paper's two Kripke cases scaled to a small machine. Case 1: small subdomains cut into many units (1024
// per iteration, faces of 12 KiB: above the eager limit, so they move only when someone progresses them); case 2:
// big subdomains swept as one unit per octant (8 per iteration). Sizes are per rank in x and y, so that a case
// keeps its character at any rank count.
void apply_case(options& o, const apps::cli& cli, int px, int py) {
  if (o.kripke_case.empty()) return;
  const bool one = o.kripke_case == "1";
  auto set = [&](const char* name, int& v, int value) {
    if (!cli.given(name)) v = value;
  };
  set("nx", o.nx, (one ? 8 : 40) * px);
  set("ny", o.ny, (one ? 8 : 40) * py);
  set("nz", o.nz, one ? 48 : 40);
  set("groups", o.groups, one ? 64 : 16);
  set("groupsets", o.groupsets, one ? 8 : 1);
  set("dirs", o.dirs, 8);
  set("dirsets", o.dirsets, one ? 4 : 1);
  set("zsets", o.zsets, one ? 4 : 1);
  set("iters", o.iters, 10);
}

// The problem: cross sections per group, an external source, the quadrature.
struct problem {
  int nx, ny, nz, groups, dirs;
  std::vector<double> sigma_t, sigma_s;  // per group
  std::vector<std::array<double, 3>> cosines;  // per direction of one octant, all positive
  double weight;  // every direction's quadrature weight (they sum to 1 over the 8 octants)

  explicit problem(const options& o) : nx(o.nx), ny(o.ny), nz(o.nz), groups(o.groups), dirs(o.dirs) {
    for (int g = 0; g < groups; ++g) {
      sigma_t.push_back(1.0 + 0.05 * g);
      sigma_s.push_back(0.5 * sigma_t.back());
    }
    for (int d = 0; d < dirs; ++d) {
      const double xi = (d + 0.5) / dirs, s = std::sqrt(1.0 - xi * xi);
      const double omega = 0.5 * std::numbers::pi * (d + 0.5) / dirs;
      cosines.push_back({s * std::cos(omega), s * std::sin(omega), xi});
    }
    weight = 1.0 / (8.0 * dirs);
  }
  // External source: strong in a box in the middle of the domain.
  [[nodiscard]] double q_ext(int gi, int gj, int gk) const {
    const bool inside = gi >= nx / 4 && gi < 3 * nx / 4 && gj >= ny / 4 && gj < 3 * ny / 4 && gk >= nz / 4 &&
                        gk < 3 * nz / 4;
    return inside ? 1.0 : 0.01;
  }
};

// One rank's part of the sweep: its block of cells, the units, their face buffers.
class transport {
 public:
  // `grid`/`coords`: the rank grid and this rank's place in it; a 1x1 grid sweeps everything without messages.
  transport(const options& o, const problem& p, std::array<int, 2> grid, std::array<int, 2> coords)
      : o_(o), p_(p), grid_(grid), coords_(coords) {
    xb_ = apps::block_of(p.nx, grid[0], coords[0]);
    yb_ = apps::block_of(p.ny, grid[1], coords[1]);
    nxl_ = xb_.count;
    nyl_ = yb_.count;
    cells_ = static_cast<std::size_t>(nxl_) * nyl_ * p.nz;
    const int nunits = 8 * o.dirsets * o.groupsets * o.zsets;
    units_.resize(static_cast<std::size_t>(nunits));
    std::size_t scratch = 0;
    for (int u = 0; u < nunits; ++u) {
      unit& t = units_[static_cast<std::size_t>(u)];
      int rest = u;
      t.zset = rest % o.zsets;
      rest /= o.zsets;
      t.gset = rest % o.groupsets;
      rest /= o.groupsets;
      t.dset = rest % o.dirsets;
      t.octant = rest / o.dirsets;
      t.sign = {(t.octant & 1) ? -1 : 1, (t.octant & 2) ? -1 : 1, (t.octant & 4) ? -1 : 1};
      t.dirs = apps::block_of(p.dirs, o.dirsets, t.dset);
      t.groups = apps::block_of(p.groups, o.groupsets, t.gset);
      // z-sets are numbered in sweep order: the octant's first z-set is at its upwind end.
      t.z = apps::block_of(p.nz, o.zsets, t.sign[2] > 0 ? t.zset : o.zsets - 1 - t.zset);
      const std::size_t lines = static_cast<std::size_t>(t.dirs.count) * t.groups.count;
      t.xface.assign(lines * nyl_ * t.z.count, 0.0);
      t.yface.assign(lines * nxl_ * t.z.count, 0.0);
      for (int axis = 0; axis < 2; ++axis) {
        const int c = coords_[axis] - t.sign[axis];  // upwind neighbour's coordinate
        t.upwind[axis] = (c >= 0 && c < grid_[axis]) ? rank_at(axis, c) : -1;
        const int e = coords_[axis] + t.sign[axis];
        t.downwind[axis] = (e >= 0 && e < grid_[axis]) ? rank_at(axis, e) : -1;
      }
      // Pipeline stage: distance from the octant's upwind corner, counted in units (Kripke's priority).
      t.stage = (t.sign[0] > 0 ? coords_[0] : grid_[0] - 1 - coords_[0]) +
                (t.sign[1] > 0 ? coords_[1] : grid_[1] - 1 - coords_[1]) + t.zset;
      scratch = std::max(scratch, lines * nxl_ * nyl_ * t.z.count);
    }
    zfaces_.resize(static_cast<std::size_t>(8 * o.dirsets * o.groupsets));
    psi_.resize(scratch);
    q_.assign(static_cast<std::size_t>(p.groups) * cells_, 0.0);
    phi_.assign(q_.size(), 0.0);
    partial_.assign(static_cast<std::size_t>(8 * o.dirsets) * q_.size(), 0.0);
  }

  // One source iteration: the source from the last flux, the sweep of every unit, the new flux.
  void iterate() {
    build_source();
    for (auto& z : zfaces_) z.clear();  // vacuum boundaries: nothing enters from outside
    sweep_all();
    // phi: the per-(octant, direction set) parts added in a fixed order, so that the result does not depend on
    // the order the units ran in (which depends on message arrival).
    const std::size_t n = phi_.size();
    const std::size_t parts = partial_.size() / n;
#pragma omp parallel for schedule(static)
    for (std::size_t i = 0; i < n; ++i) {
      double s = 0.0;
      for (std::size_t k = 0; k < parts; ++k) s += partial_[k * n + i];
      phi_[i] = s;
    }
  }

  // Sum of the scalar flux over this rank's cells and groups (the population, before the allreduce).
  [[nodiscard]] double population() const {
    double s = 0.0;
    for (const double v : phi_) s += v;
    return s;
  }
  // Sum of the flux over the cells of the block (x0, nx) x (y0, ny) of the global grid, in the order a rank
  // owning exactly that block sums it (for the one-rank check).
  // The checksum of the flux in the block of global columns bx and rows by (every group and plane): each value's
  // cell_hash at its global place, summed modulo 2^64, so that a value in the wrong cell changes it as a wrong value
  // does (a sum of the values would not see two values swapped).
  [[nodiscard]] std::uint64_t block_hash(apps::block bx, apps::block by) const {
    std::uint64_t h = 0;
    for (int g = 0; g < p_.groups; ++g)
      for (int k = 0; k < p_.nz; ++k)
        for (int j = by.begin; j < by.begin + by.count; ++j)
          for (int i = bx.begin; i < bx.begin + bx.count; ++i) {
            const auto place = ((static_cast<std::uint64_t>(g) * static_cast<std::uint64_t>(p_.nz) +
                                 static_cast<std::uint64_t>(k)) * static_cast<std::uint64_t>(p_.ny) +
                                static_cast<std::uint64_t>(j)) * static_cast<std::uint64_t>(p_.nx) +
                               static_cast<std::uint64_t>(i);
            h += apps::cell_hash(place, phi_[index(g, i - xb_.begin, j - yb_.begin, k)]);
          }
    return h;
  }
  [[nodiscard]] apps::block xblock() const { return xb_; }
  [[nodiscard]] apps::block yblock() const { return yb_; }
  [[nodiscard]] std::size_t units() const { return units_.size(); }
  [[nodiscard]] std::int64_t messages_posted() const { return messages_; }
  [[nodiscard]] double bytes_sent() const { return bytes_sent_; }
  [[nodiscard]] double sweep_seconds() const { return sweep_s_; }
  [[nodiscard]] double kernel_seconds() const { return kernel_s_; }

 private:
  struct unit {
    int octant = 0, dset = 0, gset = 0, zset = 0, stage = 0;
    std::array<int, 3> sign{};
    apps::block dirs, groups, z;
    std::vector<double> xface, yface;  // incoming on entry, outgoing after the sweep: [group][dir][line]
    std::array<int, 2> upwind{}, downwind{};  // ranks, -1 at the domain boundary
  };

  [[nodiscard]] int rank_at(int axis, int c) const {
    std::array<int, 2> at = coords_;
    at[static_cast<std::size_t>(axis)] = c;
    return apps::grid_rank(at, grid_);
  }
  [[nodiscard]] std::size_t index(int g, int i, int j, int k) const {
    return ((static_cast<std::size_t>(g) * p_.nz + k) * nyl_ + j) * nxl_ + i;
  }
  [[nodiscard]] int tag(std::size_t u, int axis) const { return static_cast<int>(u) * 2 + axis; }
  [[nodiscard]] std::int64_t face_bytes(const unit& t, int axis) const {
    return static_cast<std::int64_t>((axis == 0 ? t.xface.size() : t.yface.size()) * sizeof(double));
  }
  std::vector<double>& zface(const unit& t) {
    auto& z = zfaces_[static_cast<std::size_t>((t.octant * o_.dirsets + t.dset) * o_.groupsets + t.gset)];
    if (z.empty()) z.assign(static_cast<std::size_t>(t.dirs.count) * t.groups.count * nxl_ * nyl_, 0.0);
    return z;
  }

  void build_source() {
#pragma omp parallel for schedule(static)
    for (int g = 0; g < p_.groups; ++g)
      for (int k = 0; k < p_.nz; ++k)
        for (int j = 0; j < nyl_; ++j)
          for (int i = 0; i < nxl_; ++i) {
            const std::size_t c = index(g, i, j, k);
            q_[c] = p_.q_ext(xb_.begin + i, yb_.begin + j, k) + p_.sigma_s[static_cast<std::size_t>(g)] * phi_[c];
          }
  }

  void sweep_all() {
    const double t0 = apps::seconds();
    const std::size_t n = units_.size();
    std::vector<int> missing(n, 0);  // dependencies a unit still waits for
    std::vector<sidecore::request> recvs;
    std::vector<std::size_t> recv_unit;
    std::vector<sidecore::request> sends;
    std::vector<std::size_t> ready;
    for (std::size_t u = 0; u < n; ++u) {
      unit& t = units_[u];
      if (t.zset > 0) ++missing[u];
      for (int axis = 0; axis < 2; ++axis) {
        auto& face = axis == 0 ? t.xface : t.yface;
        if (t.upwind[axis] < 0) {
          std::fill(face.begin(), face.end(), 0.0);  // vacuum boundary
        } else {
          recvs.push_back(sidecore::irecv(face.data(), face_bytes(t, axis), t.upwind[axis], tag(u, axis)));
          recv_unit.push_back(u);
          ++missing[u];
          ++messages_;
        }
      }
      if (missing[u] == 0) ready.push_back(u);
    }
    std::size_t done = 0;
    while (done < n) {
      // Progress the receives: take every completed one (Kripke's testReceives).
      for (;;) {
        sidecore::status st;
        const int i = recvs.empty() ? -1 : sidecore::testany(recvs, &st);
        if (i < 0) break;
        const std::size_t u = recv_unit[static_cast<std::size_t>(i)];
        const int axis = st.tag % 2;
        if (!st.ok() || static_cast<std::int64_t>(st.bytes) != face_bytes(units_[u], axis))
          throw sidecore::error(st.ok() ? sidecore::errc::invalid_argument : st.error,
                                "sweep: face of unit " + std::to_string(u) + " from rank " +
                                    std::to_string(st.source) + " has " + std::to_string(st.bytes) + " bytes, " +
                                    std::to_string(face_bytes(units_[u], axis)) + " expected");
        recvs[static_cast<std::size_t>(i)] = std::move(recvs.back());
        recvs.pop_back();
        recv_unit[static_cast<std::size_t>(i)] = recv_unit.back();
        recv_unit.pop_back();
        if (--missing[u] == 0) ready.push_back(u);
      }
      if (ready.empty()) continue;
      // The ready unit deepest in the pipeline's order first: it unblocks the ranks downwind soonest.
      const auto best = std::min_element(ready.begin(), ready.end(), [&](std::size_t a, std::size_t b) {
        return units_[a].stage != units_[b].stage ? units_[a].stage < units_[b].stage : a < b;
      });
      const std::size_t u = *best;
      ready.erase(best);
      unit& t = units_[u];
      sweep_unit(t);
      ++done;
      for (int axis = 0; axis < 2; ++axis)
        if (t.downwind[axis] >= 0) {
          const auto& face = axis == 0 ? t.xface : t.yface;
          sends.push_back(sidecore::isend(face.data(), face_bytes(t, axis), t.downwind[axis], tag(u, axis)));
          ++messages_;
          bytes_sent_ += static_cast<double>(face_bytes(t, axis));
        }
      if (t.zset + 1 < o_.zsets) {
        const std::size_t next = u + 1;  // same octant, sets, next z-set
        if (--missing[next] == 0) ready.push_back(next);
      }
    }
    sidecore::waitall(sends);
    sweep_s_ += apps::seconds() - t0;
  }

  // Sweeps one unit: every (group, direction) line of work in parallel, then the directions' contributions to
  // the flux added in direction order.
  void sweep_unit(unit& t) {
    const double t0 = apps::seconds();
    std::vector<double>& zf = zface(t);
    const int nd = t.dirs.count, ng = t.groups.count, nzb = t.z.count;
    const std::size_t cells = static_cast<std::size_t>(nxl_) * nyl_ * nzb;
    const int lines = nd * ng;
#pragma omp parallel for schedule(dynamic)
    for (int line = 0; line < lines; ++line) {
      const int gl = line / nd, dl = line % nd, g = t.groups.begin + gl;
      const auto& cos = p_.cosines[static_cast<std::size_t>(t.dirs.begin + dl)];
      const double cx = cos[0], cy = cos[1], cz = cos[2];
      const double inv = 1.0 / (p_.sigma_t[static_cast<std::size_t>(g)] + cx + cy + cz);
      double* xf = &t.xface[static_cast<std::size_t>(line) * nyl_ * nzb];
      double* yf = &t.yface[static_cast<std::size_t>(line) * nxl_ * nzb];
      double* zfl = &zf[static_cast<std::size_t>(line) * nxl_ * nyl_];
      double* psi = &psi_[static_cast<std::size_t>(line) * cells];
      for (int kk = 0; kk < nzb; ++kk) {
        const int k = t.sign[2] > 0 ? t.z.begin + kk : t.z.begin + nzb - 1 - kk;
        for (int jj = 0; jj < nyl_; ++jj) {
          const int j = t.sign[1] > 0 ? jj : nyl_ - 1 - jj;
          double& in_x = xf[static_cast<std::size_t>(jj) * nzb + kk];
          for (int ii = 0; ii < nxl_; ++ii) {
            const int i = t.sign[0] > 0 ? ii : nxl_ - 1 - ii;
            double& in_y = yf[static_cast<std::size_t>(ii) * nzb + kk];
            double& in_z = zfl[static_cast<std::size_t>(ii) * nyl_ + jj];
            const double v = (q_[index(g, i, j, k)] + cx * in_x + cy * in_y + cz * in_z) * inv;
            in_x = in_y = in_z = v;
            psi[(static_cast<std::size_t>(k - t.z.begin) * nyl_ + j) * nxl_ + i] = v;
          }
        }
      }
    }
    double* part = &partial_[static_cast<std::size_t>(t.octant * o_.dirsets + t.dset) * phi_.size()];
#pragma omp parallel for schedule(static)
    for (int gl = 0; gl < ng; ++gl) {
      const int g = t.groups.begin + gl;
      for (int kk = 0; kk < nzb; ++kk)
        for (int j = 0; j < nyl_; ++j)
          for (int i = 0; i < nxl_; ++i) {
            const std::size_t c = (static_cast<std::size_t>(kk) * nyl_ + j) * nxl_ + i;
            double s = 0.0;
            for (int dl = 0; dl < nd; ++dl) s += p_.weight * psi_[static_cast<std::size_t>(gl * nd + dl) * cells + c];
            part[index(g, i, j, t.z.begin + kk)] = s;
          }
    }
    kernel_s_ += apps::seconds() - t0;
  }

  const options& o_;
  const problem& p_;
  std::array<int, 2> grid_, coords_;
  apps::block xb_, yb_;
  int nxl_ = 0, nyl_ = 0;
  std::size_t cells_ = 0;
  std::vector<unit> units_;
  std::vector<std::vector<double>> zfaces_;  // per (octant, direction set, group set): the z face between z-sets
  std::vector<double> psi_;                  // one unit's angular flux, [line][cell]
  std::vector<double> q_, phi_;              // [group][k][j][i]
  std::vector<double> partial_;              // [octant * dirsets + dset][group][k][j][i]
  std::int64_t messages_ = 0;
  double bytes_sent_ = 0.0, sweep_s_ = 0.0, kernel_s_ = 0.0;
};

int run_sweep(options& o, const apps::cli& cli) {
  const int rank = sidecore::rank(), size = sidecore::size();
  std::array<int, 2> grid{o.px, o.py};
  if (!apps::rank_grid(size, grid))
    throw apps::usage_error{"--px " + std::to_string(o.px) + " --py " + std::to_string(o.py) +
                            " cannot make a grid of " + std::to_string(size) +
                            " ranks: give extents whose product is the rank count, or 0 to have one chosen"};
  apply_case(o, cli, grid[0], grid[1]);
  if (o.nx < grid[0] || o.ny < grid[1])
    throw apps::usage_error{"--nx " + std::to_string(o.nx) + " --ny " + std::to_string(o.ny) +
                            " is smaller than the rank grid " + std::to_string(grid[0]) + "x" +
                            std::to_string(grid[1]) + ": give at least one cell per rank in x and y"};
  if (o.groupsets > o.groups || o.dirsets > o.dirs || o.zsets > o.nz)
    throw apps::usage_error{"--groupsets " + std::to_string(o.groupsets) + ", --dirsets " +
                            std::to_string(o.dirsets) + ", --zsets " + std::to_string(o.zsets) +
                            ": each must be at most --groups, --dirs, --nz (" + std::to_string(o.groups) + ", " +
                            std::to_string(o.dirs) + ", " + std::to_string(o.nz) + ")"};
  const std::array<int, 2> coords = apps::grid_coords(rank, grid);
  // What a transport of nxl x nyl columns holds (doubles): the source, the flux and the parts of the flux per
  // (octant, direction set), every unit's x and y faces, the z faces, and one unit's angular flux.
  auto footprint = [&](double nxl, double nyl) {
    const double g = o.groups, d = o.dirs, cells = nxl * nyl * o.nz;
    const double unit_psi = std::ceil(d / o.dirsets) * std::ceil(g / o.groupsets) * nxl * nyl *
                            std::ceil(static_cast<double>(o.nz) / o.zsets);
    return sizeof(double) * (g * cells * (2.0 + 8.0 * o.dirsets) + 8.0 * d * g * ((nxl + nyl) * o.nz + nxl * nyl) +
                             unit_psi);
  };
  apps::require_memory(footprint(apps::block_of(o.nx, grid[0], coords[0]).count,
                                 apps::block_of(o.ny, grid[1], coords[1]).count) +
                           (o.check && rank == 0 ? footprint(o.nx, o.ny) : 0.0),
                       "--nx " + std::to_string(o.nx) + " --ny " + std::to_string(o.ny) + " --nz " +
                           std::to_string(o.nz) + " with " + std::to_string(o.groups) + " groups and " +
                           std::to_string(o.dirsets) + " direction sets" + (o.check ? " and --check" : ""));
  const problem p(o);
  transport tr(o, p, grid, coords);

  if (rank == 0)
    std::printf("sweep: %dx%dx%d cells, %d groups in %d sets, 8x%d directions in %d sets per octant, %d z-sets, "
                "%d iterations; KBA grid %dx%d; %s\n",
                o.nx, o.ny, o.nz, o.groups, o.groupsets, o.dirs, o.dirsets, o.zsets, o.iters, grid[0], grid[1],
                apps::describe_runtime().c_str());
  apps::barrier();
  const double t0 = apps::seconds();
  double population = 0.0;
  for (int it = 0; it < o.iters; ++it) {
    tr.iterate();
    std::array<double, 1> pop{tr.population()};
    apps::allreduce_sum(pop);
    population = pop[0];
  }
  const double elapsed = apps::allreduce_max(apps::seconds() - t0);
  const double sweep_s = apps::allreduce_max(tr.sweep_seconds()), kernel_s = apps::allreduce_max(tr.kernel_seconds());
  if (rank == 0) {
    std::printf("sweep: per rank and iteration: %zu units, up to %lld face messages posted (isend + irecv), "
                "%.3f MiB sent by rank 0\n",
                tr.units(), static_cast<long long>(tr.messages_posted() / o.iters),
                tr.bytes_sent() / o.iters / (1024.0 * 1024.0));
    std::printf("sweep: %.3f s (%.2f ms per iteration; slowest rank: sweeps %.3f s, of which unit kernels %.3f s), "
                "population %.9e\n",
                elapsed, 1e3 * elapsed / o.iters, sweep_s, kernel_s, population);
  }
  if (!o.check) return 0;

  // Each rank's flux checksum (every value at its place), one slot per rank; rank 0 recomputes everything alone and
  // checks each rank's block.
  std::vector<std::uint64_t> hashes(static_cast<std::size_t>(size), 0);
  hashes[static_cast<std::size_t>(rank)] = tr.block_hash(tr.xblock(), tr.yblock());
  apps::allreduce_sum(hashes);
  int bad = 0;
  if (rank == 0) {
    transport solo(o, p, {1, 1}, {0, 0});
    for (int it = 0; it < o.iters; ++it) solo.iterate();
    for (int r = 0; r < size; ++r) {
      const std::array<int, 2> c = apps::grid_coords(r, grid);
      const std::uint64_t ref =
          solo.block_hash(apps::block_of(o.nx, grid[0], c[0]), apps::block_of(o.ny, grid[1], c[1]));
      if (ref != hashes[static_cast<std::size_t>(r)]) {
        std::printf("sweep: check: rank %d's flux checksum %016llx differs from the one-rank recomputation's "
                    "%016llx\n",
                    r, static_cast<unsigned long long>(hashes[static_cast<std::size_t>(r)]),
                    static_cast<unsigned long long>(ref));
        bad = 1;
      }
    }
    std::printf("sweep: check against one rank: %s\n", bad ? "MISMATCH" : "every rank's flux equal: OK");
  }
  return apps::allreduce_max(bad);
}

}  // namespace

int main(int argc, char** argv) {
  options o;
  apps::cli cli("sweep",
                "A Kripke-like 3-D discrete-ordinates sweep (KBA over a 2-D rank grid, z-sets pipelined): face\n"
                "messages posted with irecv/isend, progressed by testany between unit sweeps, sends completed by a\n"
                "final waitall; an allreduce of the population per iteration. docs/apps.md has the details.");
  cli.option("case", o.kripke_case, {"1", "2"},
             "preset after the paper's Kripke cases: 1 = many small units (large nonblocking traffic), 2 = one "
             "unit per octant (negligible); options given as well win");
  cli.option("nx", o.nx, 1, 100000, "cells in x (global)");
  cli.option("ny", o.ny, 1, 100000, "cells in y (global)");
  cli.option("nz", o.nz, 1, 100000, "cells in z (global)");
  cli.option("groups", o.groups, 1, 1024, "energy groups");
  cli.option("groupsets", o.groupsets, 1, 64, "group sets (units per octant and z-set, with --dirsets)");
  cli.option("dirs", o.dirs, 1, 256, "directions per octant");
  cli.option("dirsets", o.dirsets, 1, 64, "direction sets per octant");
  cli.option("zsets", o.zsets, 1, 256, "z-sets (pipeline depth along z)");
  cli.option("iters", o.iters, 1, 100000, "source iterations");
  cli.option("px", o.px, 0, 65536, "ranks in x (0: chosen with --py)");
  cli.option("py", o.py, 0, 65536, "ranks in y (0: chosen with --px)");
  cli.flag("check", o.check, "recompute on rank 0 alone and compare every rank's flux (exact)");
  return apps::run(argc, argv, cli, [&] { return run_sweep(o, cli); });
}
