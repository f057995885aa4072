// sidecore model — reading mpiP reports (seed 004, Section IV gathers the model's inputs with mpiP).
#pragma once

#include <cstdint>
#include <istream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sidecore/common/common.hpp"
#include "sidecore/model/model.hpp"

namespace sidecore::model {

/// One row of "@--- MPI Time (seconds)": per task, AppTime and MPITime.
struct mpip_task_time {
  int rank = 0;
  double app_time_s = 0.0;
  double mpi_time_s = 0.0;
};

/// One row of "@--- Aggregate Time (top twenty, descending, milliseconds)". Older mpiP (3.4) has
/// no Count column; newer (3.5) has one.
struct mpip_aggregate_row {
  std::string call;
  int site = 0;
  double time_ms = 0.0;
  double app_pct = 0.0;
  double mpi_pct = 0.0;
  std::optional<std::uint64_t> count;
  double cov = 0.0;
};

/// One per-rank row of "@--- Callsite Time statistics (all, milliseconds)" (aggregate "*" rows are
/// not kept: they merge ranks).
struct mpip_callsite_row {
  std::string call;
  int site = 0;
  int rank = 0;
  std::uint64_t count = 0;
  double max_ms = 0.0;
  double mean_ms = 0.0;
  double min_ms = 0.0;
};

/// What the model needs from an mpiP report.
struct mpip_report {
  std::string source;
  std::string version;             ///< "@ Version" header, if present
  std::string command;             ///< "@ Command" header, if present
  std::vector<mpip_task_time> tasks;
  std::vector<mpip_aggregate_row> aggregate;
  bool aggregate_has_count = false;
  std::vector<mpip_callsite_row> callsites;
  std::vector<std::string> warnings;  ///< inconsistencies noticed while reading
};

/// Parses an mpiP report from a stream. Accepts both "Aggregate Time" layouts (with and without the
/// Count column) and locates columns by their header names. Throws input_error naming `source` and
/// the line when a required section ("MPI Time", "Callsite Time statistics") is missing or a row
/// is malformed.
[[nodiscard]] mpip_report parse_mpip(std::istream& in, const std::string& source);
/// Reads and parses an mpiP report file; throws input_error naming the path when it cannot be opened.
[[nodiscard]] mpip_report read_mpip_file(const std::string& path);

/// The model's category of an MPI function name, with or without the "MPI_" prefix, any case:
/// MPI_I* initiations (Isend, Irecv, Iallreduce, ...), Start/Startall and RMA Put/Get/... → init;
/// Test* and Iprobe/Improbe → test; Wait* → wait; blocking point-to-point, probes, collectives
/// and RMA synchronisation → blocking; everything else (Init, Comm_*, Type_*, File_*, ...) → other.
/// docs/model.md lists the table.
[[nodiscard]] category classify_mpi_call(std::string_view name) noexcept;

/// Per-rank model inputs from a report: categories from the callsite statistics (time = Σ count ×
/// mean, count = Σ count, min = smallest Min), t_noprogress = AppTime, t_comp = AppTime − Σ category
/// times. Throws input_error when n_core <= 1 (source "--cores") or a rank has callsites but no
/// MPI Time row.
[[nodiscard]] std::vector<rank_inputs> mpip_to_inputs(const mpip_report& report, int n_core);

}  // namespace sidecore::model
