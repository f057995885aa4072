// sidecore — JSON input parsing with errors that name the place (json_input.hpp).
#include "sidecore/common/json_input.hpp"

#include <cstddef>
#include <vector>

#include "sidecore/common/input_error.hpp"

namespace sidecore {
namespace {

using json = nlohmann::json;

// Finds where in the document a parse error happened: nlohmann's DOM parser reports only a byte offset, and for a
// number beyond a double's range (1e400) not even that. Run only after the DOM parse failed.
class json_path_tracker final : public nlohmann::json_sax<json> {
 public:
  bool null() override { return value(); }
  bool boolean(bool) override { return value(); }
  bool number_integer(number_integer_t) override { return value(); }
  bool number_unsigned(number_unsigned_t) override { return value(); }
  bool number_float(number_float_t, const string_t&) override { return value(); }
  bool string(string_t&) override { return value(); }
  bool binary(binary_t&) override { return value(); }
  bool start_object(std::size_t) override { return open(false); }
  bool key(string_t& k) override {
    stack_.back().key = k;
    return true;
  }
  bool end_object() override { return close(); }
  bool start_array(std::size_t) override { return open(true); }
  bool end_array() override { return close(); }
  bool parse_error(std::size_t, const std::string& token, const nlohmann::detail::exception& e) override {
    token_ = token;
    id_ = e.id;
    return false;
  }

  /// The JSON path of the value being read when the error came ("categories.wait.count", "ranks[1].rank"); the
  /// middle of a path deeper than any profile's is left out, so that the message stays short.
  [[nodiscard]] std::string path() const {
    constexpr std::size_t shown = 16;
    std::string p;
    for (std::size_t i = 0; i < stack_.size(); ++i) {
      if (stack_.size() > 2 * shown && i == shown) {
        p += "...(" + std::to_string(stack_.size() - 2 * shown) + " levels)...";
        i = stack_.size() - shown;
      }
      const frame& f = stack_[i];
      if (f.array) p += "[" + std::to_string(f.index) + "]";
      else if (!f.key.empty()) p += (p.empty() ? "" : ".") + f.key;
    }
    return p;
  }
  [[nodiscard]] const std::string& token() const noexcept { return token_; }
  [[nodiscard]] int id() const noexcept { return id_; }

 private:
  struct frame {
    bool array = false;
    std::size_t index = 0;  // arrays: elements completed, i.e. the index of the one being read
    std::string key;        // objects: the last key read
  };
  bool value() {
    if (!stack_.empty() && stack_.back().array) ++stack_.back().index;
    return true;
  }
  bool open(bool array) {
    stack_.push_back(frame{array, 0, {}});
    return true;
  }
  bool close() {
    stack_.pop_back();
    return value();
  }
  std::vector<frame> stack_;
  std::string token_;
  int id_ = 0;
};

}  // namespace

json parse_json_input(std::string_view text, const std::string& source, std::string_view accepted) {
  try {
    return json::parse(text.begin(), text.end());
  } catch (const json::exception& e) {
    json_path_tracker where;
    (void)json::sax_parse(text.begin(), text.end(), &where);
    // nlohmann's out_of_range 406: a number beyond a double (1e400, -1e999); its message has no position.
    if (where.id() == 406)
      throw input_error(source, where.path(),
                        "number " + where.token() + " is not a finite number (beyond the range of a double); " +
                            "accepted: " + std::string(accepted));
    // e.what(): "[json.exception.parse_error.101] parse error at line 1, column 5: syntax error ... expected ...".
    std::string what = e.what();
    if (auto p = what.find("] "); p != std::string::npos) what = what.substr(p + 2);
    const std::string at = where.path().empty() ? std::string() : " (in " + where.path() + ")";
    std::string byte;
    if (const auto* pe = dynamic_cast<const json::parse_error*>(&e)) byte = " at byte " + std::to_string(pe->byte);
    throw input_error(source, "", "malformed JSON" + at + byte + ": " + what);
  }
}

}  // namespace sidecore
