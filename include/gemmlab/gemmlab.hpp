// gemmlab: fast, verified GEMM on NVIDIA GPUs. Include this header; link gemmlab::gemmlab.
//
//   gemmlab::Context ctx;                      // once per device
//   gemmlab::Gemm g;
//   g.m = m; g.n = n; g.k = k;
//   g.a = {A, gemmlab::DataType::bf16};        // row-major m x k
//   g.b = {B, gemmlab::DataType::bf16};        // row-major k x n
//   g.d = {D, gemmlab::DataType::f32};         // row-major m x n
//   gemmlab::gemm(ctx, g, stream);
//
// docs/api.md describes every field.
#pragma once

#include "gemmlab/context.hpp"
#include "gemmlab/error.hpp"
#include "gemmlab/gemm.hpp"
#include "gemmlab/types.hpp"
#include "gemmlab/version.hpp"
