// Symbol visibility: the library is built with hidden symbols; what the API names is exported.
#pragma once

#if defined(GEMMLAB_BUILDING_LIBRARY)
#define GEMMLAB_API __attribute__((visibility("default")))
#else
#define GEMMLAB_API
#endif
