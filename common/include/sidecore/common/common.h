/* sidecore — the C side of the common header: the export macro for the C API. */
#ifndef SIDECORE_COMMON_H
#define SIDECORE_COMMON_H
#if defined(SIDECORE_BUILDING_LIBRARY)
#define SIDECORE_C_API __attribute__((visibility("default")))
#else
#define SIDECORE_C_API
#endif
#endif
