// Checks figures of one profile that libsidecore-pmpi.so wrote for pmpi_edge_app.c.
// Usage: pmpi_edge_check <profile> <name>=<value>...; <name> is a category (its call count), main:<category> (the
// communicating thread's count of it), calling_threads, unmatched (collective instances not matched across the ranks),
// coll:<kind> (the kind's instances) or latency_max_ms:<kind> (the longest instance of the kind, in whole milliseconds:
// a bound, checked as <=).
#include <cstdint>
#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

#include "profile_check.hpp"

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s <profile> <category, calling_threads, unmatched or coll:<kind>>=<value>...\n",
                 argv[0]);
    return 2;
  }
  const nlohmann::json p = nlohmann::json::parse(profile_check::slurp(argv[1]));
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    const std::size_t eq = arg.find('=');
    if (eq == std::string::npos) {
      std::fprintf(stderr, "pmpi_edge_check: '%s' is not <name>=<value>\n", argv[i]);
      return 2;
    }
    const std::string name = arg.substr(0, eq);
    const std::uint64_t want = std::stoull(arg.substr(eq + 1));
    nlohmann::json v;
    if (name.rfind("latency_max_ms:", 0) == 0) {
      double max_s = -1;
      for (const auto& k : p.at("collectives").at("by_kind"))
        if (k.at("kind") == name.substr(15)) max_s = k.at("latency").at("max_s").get<double>();
      CHECK(max_s >= 0 && max_s * 1e3 <= static_cast<double>(want), "%s: %s is %g ms, expected at most %llu",
            argv[1], name.c_str(), max_s * 1e3, static_cast<unsigned long long>(want));
      continue;
    }
    if (name == "calling_threads") {
      v = p.at("calling_threads");
    } else if (name == "unmatched") {
      v = p.at("collectives").at("unmatched");
    } else if (name.rfind("main:", 0) == 0) {
      v = p.at("communicating_thread").at("categories").at(name.substr(5)).at("count");
    } else if (name.rfind("coll:", 0) == 0) {
      v = 0;
      for (const auto& k : p.at("collectives").at("by_kind"))
        if (k.at("kind") == name.substr(5)) v = k.at("count");
    } else {
      v = p.at("categories").at(name).at("count");
    }
    CHECK(v.get<std::uint64_t>() == want, "%s: %s is %s, expected %llu", argv[1], name.c_str(), v.dump().c_str(),
          static_cast<unsigned long long>(want));
  }
  if (profile_check::failures == 0) std::printf("pmpi_edge_check: %s OK\n", argv[1]);
  return profile_check::failures == 0 ? 0 : 1;
}
