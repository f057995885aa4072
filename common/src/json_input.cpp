// sidecore — JSON input parsing with errors that name the place (json_input.hpp).
#include "sidecore/common/json_input.hpp"

#include <cstddef>
#include <memory>
#include <unordered_set>
#include <vector>

#include "sidecore/common/input_error.hpp"

namespace sidecore {
namespace {

using json = nlohmann::json;

// Finds where in the document a parse error happened: nlohmann's DOM parser reports only a byte offset, and for a
// number beyond a double's range (1e400) not even that. With `find_duplicate`, stops at the first key that an object
// names twice instead (duplicate()). Run only after the DOM parse failed, or found a duplicate key.
class json_path_tracker final : public nlohmann::json_sax<json> {
 public:
  explicit json_path_tracker(bool find_duplicate = false) : find_duplicate_(find_duplicate) {}
  bool null() override { return value(); }
  bool boolean(bool) override { return value(); }
  bool number_integer(number_integer_t) override { return value(); }
  bool number_unsigned(number_unsigned_t) override { return value(); }
  bool number_float(number_float_t, const string_t&) override { return value(); }
  bool string(string_t&) override { return value(); }
  bool binary(binary_t&) override { return value(); }
  bool start_object(std::size_t) override { return open(false); }
  bool key(string_t& k) override {
    frame& f = stack_.back();
    f.key = k;
    if (!find_duplicate_) return true;
    if (!f.keys) f.keys = std::make_unique<std::unordered_set<std::string>>();
    if (f.keys->insert(k).second) return true;
    duplicate_ = k;
    return false;  // path() names it
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
  /// find_duplicate: the first key named twice in its object ("" when none).
  [[nodiscard]] const std::string& duplicate() const noexcept { return duplicate_; }

 private:
  struct frame {
    bool array = false;
    std::size_t index = 0;  // arrays: elements completed, i.e. the index of the one being read
    std::string key;        // objects: the last key read
    std::unique_ptr<std::unordered_set<std::string>> keys;  // objects, find_duplicate: the keys read so far
  };
  bool value() {
    if (!stack_.empty() && stack_.back().array) ++stack_.back().index;
    return true;
  }
  bool open(bool array) {
    stack_.push_back(frame{array, 0, {}, nullptr});
    return true;
  }
  bool close() {
    stack_.pop_back();
    return value();
  }
  bool find_duplicate_;
  std::vector<frame> stack_;
  std::string token_, duplicate_;
  int id_ = 0;
};

// nlohmann keeps the last value of a key that an object names twice, silently: a profile with "count" twice would be
// read with one of its two counts dropped. parse_json_input parses with counting_dom, which counts the keys of the
// text while nlohmann's own SAX DOM builder builds the document; a document with fewer object members than the text
// has keys named one twice, and json_path_tracker (a second pass, on that error only) finds the first and its path.
class counting_dom final {
 public:
  explicit counting_dom(json& doc) : dom_(doc, true) {}
  bool null() { return dom_.null(); }
  bool boolean(bool v) { return dom_.boolean(v); }
  bool number_integer(json::number_integer_t v) { return dom_.number_integer(v); }
  bool number_unsigned(json::number_unsigned_t v) { return dom_.number_unsigned(v); }
  bool number_float(json::number_float_t v, const json::string_t& s) { return dom_.number_float(v, s); }
  bool string(json::string_t& v) { return dom_.string(v); }
  bool binary(json::binary_t& v) { return dom_.binary(v); }
  bool start_object(std::size_t n) { return dom_.start_object(n); }
  bool key(json::string_t& k) {
    ++keys_;
    return dom_.key(k);
  }
  bool end_object() { return dom_.end_object(); }
  bool start_array(std::size_t n) { return dom_.start_array(n); }
  bool end_array() { return dom_.end_array(); }
  template <class Exception>
  bool parse_error(std::size_t position, const std::string& token, const Exception& ex) {
    return dom_.parse_error(position, token, ex);  // throws ex (exceptions allowed)
  }
  [[nodiscard]] std::size_t keys() const noexcept { return keys_; }

 private:
  nlohmann::detail::json_sax_dom_parser<json> dom_;
  std::size_t keys_ = 0;
};

// The members of every object in `doc`, without recursion (a document may nest 10^5 levels deep).
std::size_t object_members(const json& doc) {
  std::size_t n = 0;
  std::vector<const json*> todo{&doc};
  while (!todo.empty()) {
    const json* j = todo.back();
    todo.pop_back();
    if (j->is_object()) n += j->size();
    if (j->is_structured())
      for (const json& child : *j) todo.push_back(&child);
  }
  return n;
}

}  // namespace

json parse_json_input(std::string_view text, const std::string& source, std::string_view accepted) {
  try {
    json doc;
    counting_dom dom(doc);
    (void)json::sax_parse(text.begin(), text.end(), &dom);
    if (dom.keys() != object_members(doc)) {
      json_path_tracker dup(true);
      (void)json::sax_parse(text.begin(), text.end(), &dup);
      throw input_error(source, dup.path(),
                        "the key \"" + dup.duplicate() + "\" appears twice in its object; accepted: each key once (the "
                        "second value would silently replace the first)");
    }
    return doc;
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
