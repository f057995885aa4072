// `sidecore loggp` (loggp.hpp, docs/loggp.md).
#include "loggp.hpp"

#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "sidecore/common/input_error.hpp"
#include "sidecore/model/loggp/files.hpp"
#include "write_file.hpp"

namespace sidecore::tools {

namespace lg = sidecore::model::loggp;

CLI::App* add_loggp(CLI::App& app, loggp_args& a) {
  CLI::App* c = app.add_subcommand(
      "loggp", "LogGP parameters per protocol range from PRTT(n, d, s) measurements (seed 001), with the protocol "
               "changes found automatically");
  c->add_option("measurement", a.measurement,
                "PRTT measurement file (JSON, schema sidecore-prtt) written by sidecore-loggp-probe; with --measure, "
                "the file the probe writes");
  c->add_flag("--measure", a.measure,
              "first run the probe: mpiexec -n 2 <dir of this program>/sidecore-loggp-probe --output MEASUREMENT "
              "(with -bind-to core in mode off, unless MPIEXEC names the launcher)");
  c->add_option("--probe-args", a.probe_args, "extra arguments for the probe (e.g. \"--max-bytes 1048576 --reps 5\")");
  c->add_option("-o,--output", a.output, "write the parameter file (JSON, schema sidecore-loggp)");
  c->add_option("--svg", a.svg, "write measured vs fitted PRTT and G_all per range as SVG");
  c->add_option("--xfer-table", a.xfer_table,
                "write the overlap bounds' a-priori transfer-time table (for SIDECORE_XFER_TABLE)");
  c->add_option("--xfer-series", a.xfer_series, "transport of the series the table is made from (default: the first)");
  c->add_option("--pfact", a.fit.pfact, "protocol-change sensitivity (seed 001's pfact, default 2.0)");
  c->add_option("--lookahead", a.fit.lookahead, "points of look-ahead (seed 001's x, default 3)");
  c->add_option("--overhead-weight", a.fit.overhead_weight,
                "weight of o_s(s) and o_r(s) against the PRTT series in the fit of a range (default 0.01; "
                "docs/loggp.md)");
  c->add_option("--tolerance", a.fit.tolerance,
                "split a range whose fit misses PRTT by more than this fraction, where a cut pays for its "
                "parameters (default 0.05; 0: no splits; docs/loggp.md)");
  return c;
}

namespace {

std::filesystem::path self_dir() {
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::filesystem::path(".") : exe.parent_path();
}

// Runs the probe under mpiexec with 2 ranks; the probe writes the measurement file.
void measure(const loggp_args& a) {
  const std::filesystem::path probe = self_dir() / "sidecore-loggp-probe";
  if (!std::filesystem::exists(probe))
    throw input_error("--measure", probe.string(),
                      "the probe program is not there (it is built with the runtime: a build with "
                      "-DSIDECORE_PARTS=model has none)");
  const char* mpiexec_env = std::getenv("MPIEXEC");
  const bool own_launcher = !(mpiexec_env && *mpiexec_env);
  const std::string mpiexec = own_launcher ? "mpiexec" : mpiexec_env;
  // Each rank on a core of its own (MPICH's hydra spells it -bind-to core), where no progress thread needs a core
  // of its own: measured on 2 cores, unbound ranks that slept through the large sizes' waits came out 2x slower in
  // the small sizes' round trips than bound ones (docs/loggp.md). A given MPIEXEC is used as it is.
  const char* mode = std::getenv("SIDECORE_PROGRESS");
  const bool bind = own_launcher && (!mode || !*mode || std::string_view(mode) == "off");
  const std::string cmd = fmt::format("{}{} -n 2 '{}' --output '{}' {}", mpiexec, bind ? " -bind-to core" : "",
                                      probe.string(), a.measurement, a.probe_args);
  std::cerr << "sidecore loggp: " << cmd << "\n";
  const int rc = std::system(cmd.c_str());
  if (rc != 0) throw input_error("--measure", cmd, fmt::format("the probe failed (status {})", rc));
}

}  // namespace

int run_loggp(const loggp_args& a) {
  if (a.measurement.empty()) throw input_error("MEASUREMENT", "", "no input: give a PRTT measurement file");
  if (a.fit.lookahead < 1 || a.fit.lookahead > 20)
    throw input_error("--lookahead", "", fmt::format("{} is not accepted; accepted: 1..20", a.fit.lookahead));
  if (!(a.fit.pfact > 1.0) || !std::isfinite(a.fit.pfact))
    throw input_error("--pfact", "", fmt::format("{} is not accepted; accepted: a number > 1", a.fit.pfact));
  if (!(a.fit.overhead_weight > 0) || !std::isfinite(a.fit.overhead_weight))
    throw input_error("--overhead-weight", "",
                      fmt::format("{} is not accepted; accepted: a number > 0", a.fit.overhead_weight));
  if (!(a.fit.tolerance >= 0) || !std::isfinite(a.fit.tolerance))
    throw input_error("--tolerance", "",
                      fmt::format("{} is not accepted; accepted: a number >= 0 (0: no splits)", a.fit.tolerance));
  if (a.measure) measure(a);
  const lg::measurement m = lg::read_measurement(a.measurement);
  std::vector<lg::series_fit> fits;
  for (const lg::prtt_series& s : m.series) {
    try {
      fits.push_back(lg::fit(s, a.fit));
    } catch (const std::invalid_argument& e) {
      throw input_error(a.measurement, s.transport, e.what());
    }
  }
  std::cout << lg::params_table(fits, a.fit);
  if (!a.output.empty()) write_file(a.output, lg::params_json(m, fits, a.fit).dump(2) + "\n", "--output");
  if (!a.svg.empty()) write_file(a.svg, lg::params_svg(fits), "--svg");
  if (!a.xfer_table.empty()) {
    const lg::series_fit* chosen = &fits.front();
    if (!a.xfer_series.empty()) {
      chosen = nullptr;
      for (const lg::series_fit& f : fits)
        if (f.series.transport == a.xfer_series) chosen = &f;
      if (!chosen) throw input_error("--xfer-series", a.xfer_series, "no series of that transport in the measurement");
    }
    write_file(a.xfer_table, lg::xfer_table_json(*chosen).dump(2) + "\n", "--xfer-table");
  }
  return 0;
}

}  // namespace sidecore::tools
