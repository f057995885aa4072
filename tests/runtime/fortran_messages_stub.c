/* For fortran_messages.F90: stands in for the C API's sidecore_startall (this program's definition comes before
 * libsidecore's for the module's C glue, which calls it through the dynamic linker) so that the program controls
 * the message a failed array call leaves: one far longer than any sidecore writes today, naming reqs[0] and
 * reqs[1] as C does. Nothing else of sidecore is replaced, and no MPI call is made. */
#include <stdlib.h>
#include <string.h>

#include <sidecore/sidecore.h>

/* The message's length: its head, `filler` 'x's, then its tail. */
static const char head[] = "sidecore_startall: reqs[0]: ";
static const char tail[] = " (reqs[1] was not started) end";
int fortran_messages_filler = 5000;

/* Exported (the build hides symbols by default; CMakeLists.txt exports the program's), so that it is the one the
 * dynamic linker finds first. */
__attribute__((visibility("default"))) int sidecore_startall(int count, sidecore_request* reqs) {
  (void)count;
  (void)reqs;
  const size_t filler = (size_t)fortran_messages_filler;
  char* message = malloc(sizeof head + filler + sizeof tail);
  if (!message) return SIDECORE_ERR_INTERNAL;
  memcpy(message, head, sizeof head - 1);
  memset(message + sizeof head - 1, 'x', filler);
  memcpy(message + sizeof head - 1 + filler, tail, sizeof tail);
  const int rc = sidecore_binding_fail(SIDECORE_ERR_INVALID_REQUEST, message);
  free(message);
  return rc;
}
