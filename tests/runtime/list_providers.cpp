// Prints every libfabric provider that offers what the engine asks for (progress::query_provider: tagged RDM,
// send-after-send ordering), once each, as "<name>\t<accepted|refused>" (progress::provider_refusal). The input
// of every_provider.sh, which runs init and a ping-pong on each.
#include <rdma/fabric.h>

#include <cstdio>
#include <set>
#include <string>

#include <sidecore/progress/engine.hpp>

int main() {
  fi_info* list = nullptr;
  const int rc = sidecore::progress::query_provider("", &list);
  if (rc != 0 || list == nullptr) {
    std::fprintf(stderr, "list_providers: fi_getinfo found no provider with tagged RDM endpoints: %s (%d)\n",
                 fi_strerror(-rc), rc);
    return 1;
  }
  std::set<std::string> seen;
  for (const fi_info* i = list; i; i = i->next) {
    const std::string name = i->fabric_attr->prov_name ? i->fabric_attr->prov_name : "";
    if (name.empty() || !seen.insert(name).second) continue;
    std::printf("%s\t%s\n", name.c_str(), sidecore::progress::provider_refusal(name) ? "refused" : "accepted");
  }
  fi_freeinfo(list);
  return 0;
}
