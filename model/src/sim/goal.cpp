// GOAL reader and writer (goal.hpp). The grammar is LogGOPSim's txt2bin.re, state by state:
// statements start at the beginning of a line or after "{"; keywords inside a statement are
// matched as literal prefixes (so "8b" and "to1" read as in txt2bin); at the start of a statement
// a word is read whole, and is a keyword only when it is exactly one.
#include "sidecore/model/sim/goal.hpp"

#include <cstdint>
#include <limits>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "sidecore/common/input_error.hpp"
#include "sidecore/common/input_file.hpp"

namespace sidecore::model::sim {

namespace {

bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_word(char c) { return is_alpha(c) || is_digit(c) || c == '_'; }

struct parsed_op {
  op_kind kind;
  std::uint64_t size = 0;
  std::uint32_t peer = 0, tag = 0;
  unsigned cpu = 0, nic = 0;
};

class goal_parser {
 public:
  goal_parser(std::string_view text, const std::string& source) : t_(text), source_(source) {}

  schedule parse() {
    while (true) {
      skip_ws();
      if (at_end()) break;
      const std::size_t stmt = pos_;
      if (newline()) continue;
      if (starts("//")) {
        while (!at_end() && !newline()) ++pos_;
        continue;
      }
      if (starts("/*")) {
        skip_block_comment();
        continue;
      }
      if (t_[pos_] == '}') {
        if (rank_ < 0) fail("\"}\" outside a rank block (no \"rank N {\" is open)");
        ++pos_;
        rank_ = -1;
        continue;
      }
      if (!is_alpha(t_[pos_]))
        fail(expected_statement(), found());
      const std::string_view w = word();
      if (w == "num_ranks") num_ranks_stmt();
      else if (w == "rank") rank_stmt(stmt);
      else if (w == "send" || w == "recv" || w == "calc") operation(w, {}, stmt);
      else labelled(w, stmt);
    }
    if (rank_ >= 0)
      fail_at(t_.size(), fmt::format("end of file inside the block of rank {} (opened on line {}): expected \"}}\"",
                                     rank_, block_line_));
    if (!builder_) fail_at(0, "no \"num_ranks N\" statement: the file defines no schedule");
    try {
      return builder_->build();
    } catch (const std::invalid_argument& e) {
      throw input_error(source_, "", e.what());
    }
  }

 private:
  // --- scanning -------------------------------------------------------------------------------
  bool at_end() const { return pos_ >= t_.size(); }
  bool starts(std::string_view s) const { return t_.substr(pos_, s.size()) == s; }
  void skip_ws() {
    while (!at_end() && (t_[pos_] == ' ' || t_[pos_] == '\t')) ++pos_;
  }
  // A newline ("\n" or "\r\n"); the end of the file counts as one (txt2bin appends one).
  bool newline() {
    if (at_end()) return true;
    if (t_[pos_] == '\n') {
      ++pos_;
      next_line();
      return true;
    }
    if (starts("\r\n")) {
      pos_ += 2;
      next_line();
      return true;
    }
    return false;
  }
  void next_line() {
    ++line_;
    line_start_ = pos_;
  }
  bool literal(std::string_view s) {
    skip_ws();
    if (!starts(s)) return false;
    pos_ += s.size();
    return true;
  }
  std::string_view word() {
    const std::size_t b = pos_;
    while (!at_end() && is_word(t_[pos_])) ++pos_;
    return t_.substr(b, pos_ - b);
  }
  void skip_block_comment() {
    const std::uint32_t open_line = line_;
    const std::size_t open = pos_, open_line_start = line_start_;
    pos_ += 2;
    while (!starts("*/")) {
      if (at_end()) {
        pos_ = open;
        line_ = open_line;
        line_start_ = open_line_start;
        fail("unterminated comment: \"/*\" without \"*/\"");
      }
      if (!newline()) ++pos_;
    }
    pos_ += 2;
  }
  std::string found() const {
    if (at_end()) return "the end of the file";
    if (t_[pos_] == '\n' || starts("\r\n")) return "the end of the line";
    std::size_t e = pos_;
    while (e < t_.size() && e < pos_ + 20 && t_[e] != '\n' && t_[e] != '\r' && t_[e] != ' ' && t_[e] != '\t') ++e;
    if (e == pos_) e = pos_ + 1;
    return fmt::format("\"{}\"", t_.substr(pos_, e - pos_));
  }
  static std::string expected_statement() {
    return "expected \"num_ranks\", \"rank\", an operation (\"send\", \"recv\", \"calc\"), a label, \"}\", a comment "
           "or the end of the line";
  }

  [[noreturn]] void fail_at(std::size_t where, const std::string& msg) const {
    std::uint32_t line = 1;
    std::size_t ls = 0;
    for (std::size_t i = 0; i < where && i < t_.size(); ++i)
      if (t_[i] == '\n') {
        ++line;
        ls = i + 1;
      }
    throw input_error(source_, fmt::format("line {}, column {}", line, where - ls + 1), msg);
  }
  [[noreturn]] void fail(const std::string& msg) const {
    throw input_error(source_, fmt::format("line {}, column {}", line_, pos_ - line_start_ + 1), msg);
  }
  [[noreturn]] void fail(const std::string& expected, const std::string& found) const {
    fail(fmt::format("{}; found {}", expected, found));
  }

  // An unsigned decimal integer no larger than `max`; a larger one is refused naming `accepted` (when not empty, else
  // 0..max), and quoting the value whole up to 40 digits.
  std::uint64_t integer(const char* what, std::uint64_t max, const std::string& accepted = {}) {
    skip_ws();
    if (at_end() || !is_digit(t_[pos_])) fail(fmt::format("expected an integer ({})", what), found());
    const std::size_t b = pos_;
    std::uint64_t v = 0;
    bool overflow = false;
    while (!at_end() && is_digit(t_[pos_])) {
      const auto d = static_cast<std::uint64_t>(t_[pos_] - '0');
      if (v > (max - d) / 10) overflow = true;
      else v = v * 10 + d;
      ++pos_;
    }
    if (overflow) {
      constexpr std::size_t shown = 40;
      const std::size_t digits = pos_ - b;
      const std::string value = digits <= shown
                                    ? fmt::format("\"{}\"", t_.substr(b, digits))
                                    : fmt::format("\"{}...\" ({} digits)", t_.substr(b, shown), digits);
      pos_ = b;
      fail(fmt::format("{} {} is too large; accepted: {}", what, value,
                       accepted.empty() ? fmt::format("0..{}", max) : accepted));
    }
    return v;
  }
  // The rest of the line must be blank.
  void end_of_line(const std::string& alternatives) {
    skip_ws();
    if (!newline()) fail(fmt::format("expected {}the end of the line", alternatives), found());
  }

  // --- statements -----------------------------------------------------------------------------
  void num_ranks_stmt() {
    const std::size_t at = pos_;
    const std::uint64_t n = integer("the number of ranks", std::numeric_limits<std::uint32_t>::max() - 1,
                                    fmt::format("1..{}", max_goal_ranks));
    if (n == 0) {
      pos_ = at;
      skip_ws();
      fail("num_ranks 0: a schedule needs at least 1 rank");
    }
    if (n > max_goal_ranks) {
      pos_ = at;
      skip_ws();
      fail(fmt::format("num_ranks {}: too many ranks (reading and simulating keep state for every rank, before any "
                       "operation); accepted: 1..{}",
                       n, max_goal_ranks));
    }
    if (builder_) {
      if (n != builder_->num_ranks()) fail(fmt::format("num_ranks {} contradicts num_ranks {} given on line {}", n,
                                                       builder_->num_ranks(), num_ranks_line_));
      return;
    }
    builder_.emplace(static_cast<std::uint32_t>(n), source_);
    seen_rank_.assign(n, 0);
    num_ranks_line_ = line_;
  }

  void rank_stmt(std::size_t stmt) {
    if (rank_ >= 0) {
      pos_ = stmt;
      fail(fmt::format("\"rank\" inside the block of rank {} (opened on line {}): expected \"}}\" first", rank_,
                       block_line_));
    }
    if (!builder_) {
      pos_ = stmt;
      fail("\"rank\" before \"num_ranks N\": the number of ranks must come first");
    }
    skip_ws();
    const std::size_t at = pos_;
    const std::uint64_t r = integer("the rank", std::numeric_limits<std::uint32_t>::max());
    if (r >= builder_->num_ranks()) {
      pos_ = at;
      fail(fmt::format("rank {} is not a rank of this schedule (num_ranks {}: ranks 0..{})", r, builder_->num_ranks(),
                       builder_->num_ranks() - 1));
    }
    if (seen_rank_[r]) {
      pos_ = at;
      fail(fmt::format("rank {} has a second block; each rank has one", r));
    }
    if (!literal("{")) fail("expected \"{\" after the rank number", found());
    seen_rank_[r] = 1;
    rank_ = static_cast<std::int64_t>(r);
    block_line_ = line_;
    labels_.clear();
  }

  void need_block(std::size_t stmt, std::string_view what) {
    if (rank_ >= 0) return;
    pos_ = stmt;
    fail(fmt::format("{} outside a rank block: expected \"rank N {{\" first", what));
  }

  // "LABEL:" OPERATION, or "LABEL requires|irequires LABEL".
  void labelled(std::string_view name, std::size_t stmt) {
    skip_ws();
    if (literal(":")) {
      skip_ws();
      std::string_view kw;
      for (std::string_view k : {"send", "recv", "calc"})
        if (starts(k)) kw = k;
      if (kw.empty()) fail("expected \"send\", \"recv\" or \"calc\" after the label's \":\"", found());
      pos_ += kw.size();
      operation(kw, name, stmt);
      return;
    }
    bool on_start = false;
    if (starts("irequires")) {
      on_start = true;
      pos_ += 9;
    } else if (starts("requires")) {
      pos_ += 8;
    } else {
      fail(fmt::format("expected \":\" (to label an operation), \"requires\" or \"irequires\" after \"{}\"", name),
           found());
    }
    need_block(stmt, on_start ? "a dependency (irequires)" : "a dependency (requires)");
    skip_ws();
    const std::size_t second_at = pos_;
    if (at_end() || !is_alpha(t_[pos_])) fail("expected a label (the operation depended on)", found());
    const std::string_view other = word();
    const op_id a = lookup(name, stmt);
    const op_id b = lookup(other, second_at);
    end_of_line("");
    if (on_start) builder_->depend_on_start(a, b);
    else builder_->depend(a, b);
  }

  op_id lookup(std::string_view name, std::size_t where) {
    const auto it = labels_.find(std::string(name));
    if (it == labels_.end()) {
      pos_ = where;
      fail(fmt::format("label \"{}\" is not defined in rank {} before this line (a dependency names operations "
                       "labelled earlier in the same rank block)", name, rank_));
    }
    return it->second.first;
  }

  void operation(std::string_view kw, std::string_view name, std::size_t stmt) {
    need_block(stmt, fmt::format("an operation (\"{}\")", kw));
    const auto r = static_cast<std::uint32_t>(rank_);
    const std::uint32_t stmt_line = line_;
    parsed_op o;
    if (kw == "calc") {
      o.kind = op_kind::calc;
      o.size = integer("the computation time in ns", std::numeric_limits<std::uint64_t>::max());
      skip_ws();
      if (literal("cpu")) {
        o.cpu = static_cast<unsigned>(integer("the CPU index", 255));
        end_of_line("");
      } else {
        end_of_line("\"cpu\" or ");
      }
    } else {
      const bool send = kw == "send";
      o.kind = send ? op_kind::send : op_kind::recv;
      o.size = integer("the message size in bytes", std::numeric_limits<std::uint64_t>::max());
      if (!literal("b")) fail("expected \"b\" after the message size (as in \"8b\")", found());
      if (!literal(send ? "to" : "from"))
        fail(fmt::format("expected \"{}\"", send ? "to" : "from"), found());
      skip_ws();
      const std::size_t peer_at = pos_;
      if (!send && starts("-1")) {
        pos_ += 2;
        o.peer = any_source;
      } else {
        const std::uint64_t p = integer(send ? "the destination rank" : "the source rank, or -1 for any source",
                                        std::numeric_limits<std::uint32_t>::max());
        if (p >= builder_->num_ranks()) {
          pos_ = peer_at;
          fail(fmt::format("{} {} is not a rank of this schedule (num_ranks {}: ranks 0..{}{})",
                           send ? "destination" : "source", p, builder_->num_ranks(), builder_->num_ranks() - 1,
                           send ? "" : ", or -1 for any source"));
        }
        o.peer = static_cast<std::uint32_t>(p);
      }
      // Then optionally "tag T", "cpu C", "nic N", in this order.
      if (literal("tag")) {
        skip_ws();
        if (starts("-1")) {
          pos_ += 2;
          o.tag = any_tag;
        } else {
          const std::size_t tag_at = pos_;
          const std::string accepted = fmt::format("0..{}, or -1 for any tag", any_tag - 1);
          const std::uint64_t tag = integer("the tag, or -1 for any tag", any_tag, accepted);
          // any_tag is how -1 is held: taken as a number it would make the operation match every tag.
          if (tag == any_tag) {
            pos_ = tag_at;
            fail(fmt::format("tag {} is the value that stands for -1 (any tag), not a tag; accepted: {}", tag,
                             accepted));
          }
          o.tag = static_cast<std::uint32_t>(tag);
        }
      }
      bool more = true;
      if (literal("cpu")) o.cpu = static_cast<unsigned>(integer("the CPU index", 255));
      if (literal("nic")) {
        o.nic = static_cast<unsigned>(integer("the NIC index", 255));
        more = false;
      }
      end_of_line(more ? "\"tag\", \"cpu\", \"nic\" (in this order) or " : "");
    }
    op_id id = 0;
    switch (o.kind) {
      case op_kind::send: id = builder_->send(r, o.peer, o.size, o.tag, o.cpu, o.nic); break;
      case op_kind::recv: id = builder_->recv(r, o.peer, o.size, o.tag, o.cpu, o.nic); break;
      case op_kind::calc: id = builder_->calc(r, o.size, o.cpu); break;
    }
    if (!name.empty()) {
      const auto [it, fresh] = labels_.try_emplace(std::string(name), id, stmt_line);
      if (!fresh) {
        // pos_ is past the line now: report the statement's line.
        throw input_error(source_, fmt::format("line {}", stmt_line),
                          fmt::format("label \"{}\" is already defined in rank {} (line {}); labels are unique "
                                      "within a rank block", name, rank_, it->second.second));
      }
    }
    builder_->label(id, name, stmt_line);
  }

  std::string_view t_;
  const std::string& source_;
  std::size_t pos_ = 0, line_start_ = 0;
  std::uint32_t line_ = 1;
  std::optional<schedule_builder> builder_;
  std::uint32_t num_ranks_line_ = 0;
  std::vector<std::uint8_t> seen_rank_;
  std::int64_t rank_ = -1;
  std::uint32_t block_line_ = 0;
  std::unordered_map<std::string, std::pair<op_id, std::uint32_t>> labels_;  // label -> (op, line)
};

std::string op_line(const op& o) {
  auto num = [](std::uint32_t v) { return v == any_source ? std::string("-1") : std::to_string(v); };
  std::string s;
  switch (o.kind) {
    case op_kind::send: s = fmt::format("send {}b to {} tag {}", o.size, o.peer, num(o.tag)); break;
    case op_kind::recv: s = fmt::format("recv {}b from {} tag {}", o.size, num(o.peer), num(o.tag)); break;
    case op_kind::calc: s = fmt::format("calc {}", o.size); break;
  }
  if (o.cpu != 0 || (o.kind != op_kind::calc && o.nic != 0)) s += fmt::format(" cpu {}", o.cpu);
  if (o.kind != op_kind::calc && o.nic != 0) s += fmt::format(" nic {}", o.nic);
  return s;
}

}  // namespace

schedule parse_goal(std::string_view text, const std::string& source) {
  try {
    return goal_parser(text, source).parse();
  } catch (const std::invalid_argument& e) {  // the builder's checks, already located by the parser
    throw input_error(source, "", e.what());
  }
}

schedule read_goal_file(const std::string& path) {
  return parse_goal(read_input_file(path, max_goal_bytes, "GOAL file"), path);
}

void write_goal(const schedule& s, std::ostream& out) {
  out << "num_ranks " << s.num_ranks() << "\n";
  std::vector<std::string> names;
  for (std::uint32_t r = 0; r < s.num_ranks(); ++r) {
    const op_id b = s.rank_begin(r), e = s.rank_end(r);
    names.assign(e - b, {});
    std::unordered_set<std::string> used;
    for (op_id i = b; i < e; ++i)
      if (!s.label(i).empty()) used.emplace(s.label(i));
    for (op_id i = b; i < e; ++i) {
      std::string n(s.label(i));
      if (n.empty()) {
        n = fmt::format("o{}", i - b);
        while (used.count(n)) n += "_";
        used.insert(n);
      }
      names[i - b] = std::move(n);
    }
    out << "\nrank " << r << " {\n";
    for (op_id i = b; i < e; ++i) out << names[i - b] << ": " << op_line(s.at(i)) << "\n";
    for (op_id i = b; i < e; ++i) {
      for (op_id d : s.done_dependents(i)) out << names[d - b] << " requires " << names[i - b] << "\n";
      for (op_id d : s.start_dependents(i)) out << names[d - b] << " irequires " << names[i - b] << "\n";
    }
    out << "}\n";
  }
}

}  // namespace sidecore::model::sim
