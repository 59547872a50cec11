// A kernel's resources (registers, static shared memory, local memory) read from the compiled
// program, without a GPU: the input of the offline occupancy model (`gemmlab occupancy --gpu`).
//
// How a kernel is found, knowing only the __global__ function pointer its plan() returns:
//   1. The pointer is the address of the host-side stub nvcc generates for the kernel; that stub
//      carries the kernel's own (mangled) name. gemmlab reads the symbol table of its own
//      executable and finds the symbol at that address (host_symbol_at).
//   2. `cuobjdump --dump-resource-usage <executable>` lists every device function with its
//      registers and shared memory, per GPU architecture (parse_resource_usage).
//   3. The two names are compared demangled (nvcc marks some host stubs with an extra "L", for
//      internal linkage, that the demangled form drops).
// `--function REGEX` bypasses 1 and 3: the first device function whose demangled (or mangled)
// name matches the regular expression.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace gemmlab {

// One device function in one architecture's binary, as cuobjdump reports it.
struct FunctionResources {
  std::string arch;      // "sm_90", "sm_90a"
  std::string mangled;   // the ELF symbol
  std::string demangled;
  int registers = 0;             // per thread
  std::size_t shared_bytes = 0;  // static shared memory per block
  std::size_t local_bytes = 0;   // local memory per thread (register spills, local arrays)
  std::size_t stack_bytes = 0;
};

// Parses `cuobjdump --dump-resource-usage` output. Throws Error when it holds no function or a
// function line is not followed by its resource line.
std::vector<FunctionResources> parse_resource_usage(const std::string& text);

// Runs cuobjdump on `binary` (found as $GEMMLAB_CUOBJDUMP, on PATH or in $CUDA_HOME/bin) and parses it.
std::vector<FunctionResources> read_resource_usage(const std::string& binary);

// The mangled name of the function symbol at `address` in the running executable; empty if the
// executable has no symbol table (stripped) or no function symbol there.
std::string host_symbol_at(const void* address);

// The demangled form of a C++ symbol (the input itself when it is not a mangled name).
std::string demangle(const std::string& mangled);

// The bare name of a function from its demangled signature, without namespaces, template
// arguments, return type or parameters: "void ns::(anonymous namespace)::tiled<16>(float*)" ->
// "tiled". What the profiler's kernel names are matched on.
std::string function_identifier(const std::string& demangled);

// The entry for `demangled_name` (exact match), or for the first function matching `regex` when
// that is non-empty, preferring the architecture `sm_<cc>` (then `sm_<cc>a`, then the highest
// one below, then any). Throws Error naming what was searched and what exists.
const FunctionResources& select_function(const std::vector<FunctionResources>& all, const std::string& demangled_name,
                                         const std::string& regex, int cc);

}  // namespace gemmlab
