// The dot products of the matrix products (gemv.cu, fused_products.cu): a warp's TILE / WARPS columns at once, so
// that as many weight rows stream at a time, with 16-byte loads (gemv.cu says how), over f32, Q8_0 or bf16 weights.
#pragma once
#include "common.cuh"

#define COLS (TILE / WARPS)  // the columns a warp takes at once

__device__ __forceinline__ float dot4(float4 a, float4 b, float acc) {
  return fmaf(a.w, b.w, fmaf(a.z, b.z, fmaf(a.y, b.y, fmaf(a.x, b.x, acc))));
}

// The dot of 8 f32 values (x0, then x1) with 8 bf16 values (16 bytes, the first in the low half of w.x), added to
// acc: each bf16 widened exactly, its 16 bits the high half of an f32's.
__device__ __forceinline__ float dot8(float4 x0, float4 x1, uint4 w, float acc) {
  const float4 w0 = make_float4(__uint_as_float(w.x << 16), __uint_as_float(w.x & 0xffff0000u),
                                __uint_as_float(w.y << 16), __uint_as_float(w.y & 0xffff0000u));
  const float4 w1 = make_float4(__uint_as_float(w.z << 16), __uint_as_float(w.z & 0xffff0000u),
                                __uint_as_float(w.w << 16), __uint_as_float(w.w & 0xffff0000u));
  return dot4(x1, w1, dot4(x0, w0, acc));
}

__device__ __forceinline__ int idot16(int4 a, int4 b) {
  return __dp4a(a.w, b.w, __dp4a(a.z, b.z, __dp4a(a.y, b.y, __dp4a(a.x, b.x, 0))));
}

__device__ __forceinline__ bool aligned16(const void* p) { return ((unsigned long long)p & 15) == 0; }

// This lane's shares of the dots of activation `a` with weight rows w[0..N) over values [k0, k1) (k0 and k1 multiples
// of QBLOCK, or k1 = k), into acc[j]: warp_sum each after.
template <typename W, int N>
__device__ __forceinline__ void lane_dots(const Act& a, const Wrow<W> (&w)[N], int k, int k0, int k1,
                                          float (&acc)[N]) {
  constexpr int PER = 16 / sizeof(W);  // the weights' values in a 16-byte load: 4 f32, 8 bf16
  const int lane = threadIdx.x & 31;
  bool vec = a.x && k % PER == 0 && aligned16(a.x), q8 = a.hi && aligned16(a.hi) && (!a.lo || aligned16(a.lo));
#pragma unroll
  for (int j = 0; j < N; ++j) {  // (a row of k values, k a multiple of PER, is aligned where its matrix is)
    vec = vec && w[j].f && aligned16(w[j].f);
    q8 = q8 && w[j].q && aligned16(w[j].q);
  }
  if (vec) {  // k1 is a multiple of PER too (k, or k0 plus whole blocks)
#pragma unroll 1  // N loads of a lane in flight already (as bench/gpu_kernels.py measured it)
    for (int i = k0 / PER + lane; i < k1 / PER; i += 32) {
      if constexpr (PER == 4) {
        const float4 xv = ((const float4*)a.x)[i];
        float4 wv[N];
#pragma unroll
        for (int j = 0; j < N; ++j) wv[j] = __ldcs((const float4*)w[j].f + i);  // streamed: read once a step
#pragma unroll
        for (int j = 0; j < N; ++j) acc[j] = dot4(xv, wv[j], acc[j]);
      } else {
        const float4 x0 = ((const float4*)a.x)[2 * i], x1 = ((const float4*)a.x)[2 * i + 1];
        uint4 wv[N];
#pragma unroll
        for (int j = 0; j < N; ++j) wv[j] = __ldcs((const uint4*)w[j].f + i);
#pragma unroll
        for (int j = 0; j < N; ++j) acc[j] = dot8(x0, x1, wv[j], acc[j]);
      }
    }
    return;
  }
  if (q8) {  // k0 and k1 whole blocks (quantized)
    const int half = lane & 1;
    const unsigned pair = 3u << (lane & 30);  // a pair's lanes run the same blocks: the shuffles name only them
#pragma unroll 1
    for (int b = k0 / QBLOCK + (lane >> 1); b < k1 / QBLOCK; b += 16) {
      const long at = (long)b * QBLOCK + half * 16;
      const int4 hv = *(const int4*)(a.hi + at);
      const int4 lv = a.lo ? *(const int4*)(a.lo + at) : make_int4(0, 0, 0, 0);
      int4 wv[N];
      float ws[N];
#pragma unroll
      for (int j = 0; j < N; ++j) {
        wv[j] = __ldcs((const int4*)(w[j].q + at));
        ws[j] = w[j].s[b];
      }
      const float as = a.s[b];
#pragma unroll
      for (int j = 0; j < N; ++j) {
        int dh = idot16(hv, wv[j]);
        dh += __shfl_xor_sync(pair, dh, 1);
        float d = (float)dh;
        if (a.lo) {
          int dl = idot16(lv, wv[j]);
          dl += __shfl_xor_sync(pair, dl, 1);
          d += (float)dl / 127.f;
        }
        if (!half) acc[j] += as * ws[j] * d;
      }
    }
    return;
  }
#pragma unroll
  for (int j = 0; j < N; ++j) acc[j] = lane_dot(a, w[j], k0, k1);
}

// The bias of column c, 0 where there is none.
__device__ __forceinline__ float bias_of(const float* bias, int c) { return bias ? bias[c] : 0.f; }

// The sums of a product for the COLS columns this warp takes of tile [c0, c1), column c0 + warp + j * WARPS in s[j],
// over values [k0, k1) of activation `a`, in every lane; a column past c1 reads column c0 and is not to be written.
template <typename W>
__device__ __forceinline__ void product_sums(const Act& a, const void* w, const float* ws, int k, int k0, int k1,
                                             int c0, int c1, float (&s)[COLS]) {
  const int warp = threadIdx.x >> 5;
  Wrow<W> wr[COLS];
  float acc[COLS];
#pragma unroll
  for (int j = 0; j < COLS; ++j) {
    const int c = c0 + warp + j * WARPS;
    wr[j] = weight_row<W>(w, ws, c < c1 ? c : c0, k);
    acc[j] = 0.f;
  }
  lane_dots(a, wr, k, k0, k1, acc);
#pragma unroll
  for (int j = 0; j < COLS; ++j) s[j] = warp_sum(acc[j]);
}

// The gate and up sums of a gated pair (glu's) for the COLS columns this warp takes of tile [c0, c1), column
// c0 + warp + j * WARPS in g[j] and u[j], over values [k0, k1) of activation `a`, in every lane; a column past c1
// reads column c0 and is not to be written.
template <typename W>
__device__ __forceinline__ void glu_sums(const Act& a, const void* wg, const float* wgs, const void* wu,
                                         const float* wus, int k, int k0, int k1, int c0, int c1, float (&g)[COLS],
                                         float (&u)[COLS]) {
  const int warp = threadIdx.x >> 5;
  Wrow<W> wr[2 * COLS];  // gate rows, then up rows
  float acc[2 * COLS];
#pragma unroll
  for (int j = 0; j < COLS; ++j) {
    const int c = c0 + warp + j * WARPS, at = c < c1 ? c : c0;
    wr[j] = weight_row<W>(wg, wgs, at, k);
    wr[COLS + j] = weight_row<W>(wu, wus, at, k);
    acc[j] = acc[COLS + j] = 0.f;
  }
  lane_dots(a, wr, k, k0, k1, acc);
#pragma unroll
  for (int j = 0; j < COLS; ++j) {
    g[j] = warp_sum(acc[j]);
    u[j] = warp_sum(acc[COLS + j]);
  }
}
