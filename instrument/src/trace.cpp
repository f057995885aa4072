// Chrome trace-event JSON (the "JSON Array/Object Format" that Perfetto UI and chrome://tracing open), streamed.
#include <cstdio>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "trace_writer.hpp"
#include "sidecore/common/utf8.hpp"

namespace sidecore::instrument::internal {

trace_writer g_trace;

namespace {
// Trace timestamps are microseconds; keep nanosecond resolution with three decimals.
std::string us(std::uint64_t t, std::uint64_t t0) {
  const std::uint64_t d = t > t0 ? t - t0 : 0;
  return fmt::format("{}.{:03}", d / 1000, d % 1000);
}
std::string json_str(std::string_view s) { return nlohmann::json(valid_utf8(s)).dump(); }
}  // namespace

// An unfinished trace's temporary file is removed (output_file), before the stream's buffer goes.
trace_writer::~trace_writer() { out_.reset(); }

bool trace_writer::open(const std::string& path, std::uint64_t max_events, int pid, std::uint64_t t0_ns) {
  std::lock_guard lk(mu_);
  refused_ = 0;  // first: a trace that fails to open must not show the previous collection's
  out_.reset();
  file_ = nullptr;
  open_.store(false, std::memory_order_release);
  try {
    out_ = std::make_unique<output_file>(path);
  } catch (const output_error& e) {
    std::fprintf(stderr, "sidecore: trace: %s; tracing is off\n", e.what());
    return false;
  }
  file_ = out_->stream();
  buffer_.assign(1 << 20, '\0');
  std::setvbuf(file_, buffer_.data(), _IOFBF, buffer_.size());
  path_ = path;
  max_events_ = max_events;
  written_ = 0;
  half_open_.clear();
  first_ = true;
  warned_ = false;
  pid_ = pid;
  t0_ = t0_ns;
  std::fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n", file_);
  open_.store(true, std::memory_order_release);
  return true;
}

bool trace_writer::admit_locked(std::uint64_t slots) {
  if (file_ == nullptr) return false;
  if (written_ + half_open_.size() + slots > max_events_) {
    ++refused_;
    if (!warned_) {
      warned_ = true;
      std::fprintf(stderr,
                   "sidecore: trace '%s': %llu events written, SIDECORE_TRACE_MAX_EVENTS reached; trace recording "
                   "stopped (the profile is unaffected)\n",
                   path_.c_str(), static_cast<unsigned long long>(written_));
    }
    return false;
  }
  ++written_;
  return true;
}

bool trace_writer::admit_half_locked(std::uint64_t id, bool begin) {
  if (file_ == nullptr) return false;
  if (auto it = half_open_.find(id); it != half_open_.end() && it->second != begin) {
    half_open_.erase(it);  // the other half is written: this one has its reserved slot
    ++written_;
    return true;
  } else if (it != half_open_.end()) {
    // The same half twice (a usage error: the first transfer's other half never came): one more event, the
    // reservation stays.
    return admit_locked(1);
  }
  // A first half, with room for the other. Written and reserved slots only grow, so once a first half is refused
  // every later one is, and the other half of a dropped transfer is dropped as well.
  if (!admit_locked(2)) return false;  // counts this event; the other half's slot is reserved below
  half_open_.emplace(id, begin);
  return true;
}

void trace_writer::emit_locked(const std::string& line) {
  if (!first_) std::fputs(",\n", file_);
  first_ = false;
  std::fputs(line.c_str(), file_);
}

void trace_writer::complete(std::uint32_t tid, std::string_view name, std::string_view cat, std::uint64_t t0,
                            std::uint64_t t1) {
  std::lock_guard lk(mu_);
  if (!admit_locked(1)) return;
  emit_locked(fmt::format(R"({{"ph":"X","pid":{},"tid":{},"name":{},"cat":"{}","ts":{},"dur":{}}})", pid_, tid,
                          json_str(name), cat, us(t0, t0_), us(t1 > t0 ? t1 : t0, t0)));
}

void trace_writer::async_begin(std::uint32_t tid, std::uint64_t id, std::uint64_t t, std::uint64_t bytes, int peer,
                               std::uint32_t owner) {
  std::lock_guard lk(mu_);
  if (!admit_half_locked(id, true)) return;
  emit_locked(fmt::format(
      R"({{"ph":"b","pid":{},"tid":{},"name":"transfer","cat":"xfer","id":"0x{:x}","ts":{},"args":{{"bytes":{},"peer":{},"owner_thread":{}}}}})",
      pid_, tid, id, us(t, t0_), bytes, peer, owner));
}

void trace_writer::async_end(std::uint32_t tid, std::uint64_t id, std::uint64_t t) {
  std::lock_guard lk(mu_);
  if (!admit_half_locked(id, false)) return;
  emit_locked(fmt::format(R"({{"ph":"e","pid":{},"tid":{},"name":"transfer","cat":"xfer","id":"0x{:x}","ts":{}}})",
                          pid_, tid, id, us(t, t0_)));
}

void trace_writer::instant(std::uint32_t tid, std::string_view name, std::uint64_t t, std::uint64_t id) {
  std::lock_guard lk(mu_);
  if (!admit_locked(1)) return;
  emit_locked(fmt::format(R"({{"ph":"i","s":"t","pid":{},"tid":{},"name":{},"ts":{},"args":{{"xfer_id":"0x{:x}"}}}})",
                          pid_, tid, json_str(name), us(t, t0_), id));
}

void trace_writer::op(std::uint32_t tid, std::string_view name, std::uint64_t t, std::string_view args) {
  std::lock_guard lk(mu_);
  if (!admit_locked(1)) return;
  emit_locked(fmt::format(R"({{"ph":"i","s":"t","pid":{},"tid":{},"name":{},"cat":"op","ts":{},"args":{{{}}}}})", pid_,
                          tid, json_str(name), us(t, t0_), args));
}

bool trace_writer::close(const std::vector<std::pair<std::uint32_t, std::string>>& thread_names,
                         std::string_view process_name, std::string_view other_data, const std::string& fallback) {
  std::lock_guard lk(mu_);
  if (file_ == nullptr) return true;
  emit_locked(fmt::format(R"({{"ph":"M","pid":{},"name":"process_name","args":{{"name":{}}}}})", pid_,
                          json_str(process_name)));
  for (const auto& [tid, name] : thread_names) {
    emit_locked(fmt::format(R"({{"ph":"M","pid":{},"tid":{},"name":"thread_name","args":{{"name":{}}}}})", pid_, tid,
                            json_str(name)));
    emit_locked(fmt::format(R"({{"ph":"M","pid":{},"tid":{},"name":"thread_sort_index","args":{{"sort_index":{}}}}})",
                            pid_, tid, tid));
  }
  std::fputs(fmt::format("\n],\"otherData\":{{\"producer\":\"sidecore\",\"events\":{},\"max_events\":{},"
                         "\"truncated\":{},\"origin_monotonic_ns\":{}{}{}}}}}\n",
                         written_, max_events_, warned_ ? "true" : "false", t0_, other_data.empty() ? "" : ",",
                         other_data)
                 .c_str(),
             file_);
  file_ = nullptr;
  open_.store(false, std::memory_order_release);
  std::unique_ptr<output_file> out = std::move(out_);
  try {
    if (out->commit(fallback) == output_outcome::replaced) {
      std::fprintf(stderr, "sidecore: trace: replaced the existing file '%s'\n", path_.c_str());
    }
  } catch (const output_error& e) {
    std::fprintf(stderr, "sidecore: SIDECORE_TRACE: %s%s\n", e.what(),
                 e.saved_to().empty() ? "; the trace is lost" : "");
    return false;
  }
  return true;
}

bool trace_writer::accepting() const noexcept {
  std::lock_guard lk(mu_);
  return file_ != nullptr && written_ + half_open_.size() < max_events_;
}

std::pair<std::uint64_t, std::uint64_t> trace_writer::bound_and_refused() const noexcept {
  std::lock_guard lk(mu_);
  return {max_events_, refused_};
}

std::uint64_t trace_writer::written() const noexcept {
  std::lock_guard lk(mu_);
  return written_;
}

}  // namespace sidecore::instrument::internal
