// The catalogue of kernels. Each kernel file defines one `register_...` function; adding a kernel
// means writing its file and adding one line to catalog.cpp.
#pragma once

namespace gemmlab {
class Registry;
void register_all_kernels(Registry& r);
}  // namespace gemmlab
