// Matrix products of activation rows (x: f32, or int8 (xh, xl, xs)) with weights of N rows of K values (f32, or Q8_0
// words and scales; bf16 in the `_bf16` kernels): gemv and glu, each with a bias of N values added to its sums where
// the bias is not null. Grid (ceil(N / TILE), split, rows): a block computes TILE columns of a row over the values
// [part * kpart, (part + 1) * kpart) of K. Cut in parts (split > 1), each part's sums go to scratch and the last
// part to arrive at its tile's counter adds them, in part order, then the bias.
//
// For the memory bandwidth (bench/gpu_kernels.py measures it): a warp takes its TILE / WARPS columns at once, so
// that as many weight rows stream at a time, with 16-byte loads: f32 by f32 as float4 (where k is a multiple of 4
// and the rows 16-byte aligned), f32 by bf16 eight weights a load (k a multiple of 8), int8 by Q8_0 a lane pair a
// block, each lane a 16-byte half, the halves' integer dots added before the scales (as lane_dot adds a whole block).
// Other pairings of forms take lane_dot.
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

// out[r * pitch + n] = sum_k x[r, k] * w[n, k] + bias[n]; parts in fp[split, rows, N], arrivals in
// fq[ceil(rows / TILE), ceil(N / TILE)]: a tile of TILE rows and TILE columns counts its rows' parts, and the last to
// arrive adds them all.
template <typename W>
__device__ __forceinline__ void gemv_of(float* out, int pitch, const float* x, const signed char* xh,
                                        const signed char* xl, const float* xs, const void* w, const float* ws,
                                        const float* bias, float* fp, int* fq, int n, int k, int kpart) {
  const int tile = blockIdx.x, part = blockIdx.y, row = blockIdx.z, split = gridDim.y, rows = gridDim.z;
  const Act a = act_row(x, xh, xl, xs, row, k);
  const int k0 = part * kpart, k1 = min(k, k0 + kpart);
  const int c0 = tile * TILE, c1 = min(n, c0 + TILE), warp = threadIdx.x >> 5;
  Wrow<W> wr[COLS];
  float acc[COLS];
#pragma unroll
  for (int j = 0; j < COLS; ++j) {
    const int c = c0 + warp + j * WARPS;
    wr[j] = weight_row<W>(w, ws, c < c1 ? c : c0, k);  // a column past the end reads column c0, and is not written
    acc[j] = 0.f;
  }
  lane_dots(a, wr, k, k0, k1, acc);
#pragma unroll
  for (int j = 0; j < COLS; ++j) {
    const int c = c0 + warp + j * WARPS;
    const float s = warp_sum(acc[j]);
    if ((threadIdx.x & 31) == 0 && c < c1) {
      if (split == 1)
        out[(long)row * pitch + c] = s + bias_of(bias, c);
      else
        fp[((long)part * rows + row) * n + c] = s;
    }
  }
  const int r0 = row / TILE * TILE, r1 = min(rows, r0 + TILE);
  if (split == 1 || !last_arrival(&fq[row / TILE * gridDim.x + tile], split * (r1 - r0))) return;
  for (int r = r0; r < r1; ++r)
    for (int c = c0 + threadIdx.x; c < c1; c += blockDim.x) {
      float s = 0.f;
      for (int p = 0; p < split; ++p) s += __ldcg(&fp[((long)p * rows + r) * n + c]);
      out[(long)r * pitch + c] = s + bias_of(bias, c);
    }
}

// gemv_of over f32 or Q8_0 weights (gemv), and over bf16 ones (gemv_bf16).
extern "C" __global__ void gemv(float* out, int pitch, const float* x, const signed char* xh, const signed char* xl,
                                const float* xs, const void* w, const float* ws, const float* bias, float* fp, int* fq,
                                int n, int k, int kpart) {
  gemv_of<float>(out, pitch, x, xh, xl, xs, w, ws, bias, fp, fq, n, k, kpart);
}
extern "C" __global__ void gemv_bf16(float* out, int pitch, const float* x, const signed char* xh,
                                     const signed char* xl, const float* xs, const void* w, const float* ws,
                                     const float* bias, float* fp, int* fq, int n, int k, int kpart) {
  gemv_of<bf16>(out, pitch, x, xh, xl, xs, w, ws, bias, fp, fq, n, k, kpart);
}

// out[r, n] = silu(x[r] . w_gate[n] + bg[n]) * (x[r] . w_up[n] + bu[n]); parts in gp[2, split, rows, N] (gate
// sums, then up sums), arrivals in gq[rows, ceil(N / TILE)].
template <typename W>
__device__ __forceinline__ void glu_of(float* out, const float* x, const signed char* xh, const signed char* xl,
                                       const float* xs, const void* wg, const float* wgs, const void* wu,
                                       const float* wus, const float* bg, const float* bu, float* gp, int* gq, int n,
                                       int k, int kpart) {
  const int tile = blockIdx.x, part = blockIdx.y, row = blockIdx.z, split = gridDim.y, rows = gridDim.z;
  const Act a = act_row(x, xh, xl, xs, row, k);
  const int k0 = part * kpart, k1 = min(k, k0 + kpart);
  const int c0 = tile * TILE, c1 = min(n, c0 + TILE), warp = threadIdx.x >> 5;
  const long up = (long)split * rows * n;  // where the up sums start in gp
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
    const int c = c0 + warp + j * WARPS;
    const float g = warp_sum(acc[j]), u = warp_sum(acc[COLS + j]);
    if ((threadIdx.x & 31) == 0 && c < c1) {
      if (split == 1) {
        out[(long)row * n + c] = silu(g + bias_of(bg, c)) * (u + bias_of(bu, c));
      } else {
        const long at = ((long)part * rows + row) * n + c;
        gp[at] = g;
        gp[up + at] = u;
      }
    }
  }
  if (split == 1 || !last_arrival(&gq[row * gridDim.x + tile], split)) return;
  for (int c = c0 + threadIdx.x; c < c1; c += blockDim.x) {
    float g = 0.f, u = 0.f;
    for (int p = 0; p < split; ++p) {
      const long at = ((long)p * rows + row) * n + c;
      g += __ldcg(&gp[at]);
      u += __ldcg(&gp[up + at]);
    }
    out[(long)row * n + c] = silu(g + bias_of(bg, c)) * (u + bias_of(bu, c));
  }
}

// glu_of over f32 or Q8_0 weights (glu), and over bf16 ones (glu_bf16).
extern "C" __global__ void glu(float* out, const float* x, const signed char* xh, const signed char* xl,
                               const float* xs, const void* wg, const float* wgs, const void* wu, const float* wus,
                               const float* bg, const float* bu, float* gp, int* gq, int n, int k, int kpart) {
  glu_of<float>(out, x, xh, xl, xs, wg, wgs, wu, wus, bg, bu, gp, gq, n, k, kpart);
}
extern "C" __global__ void glu_bf16(float* out, const float* x, const signed char* xh, const signed char* xl,
                                    const float* xs, const void* wg, const float* wgs, const void* wu, const float* wus,
                                    const float* bg, const float* bu, float* gp, int* gq, int n, int k, int kpart) {
  glu_of<bf16>(out, x, xh, xl, xs, wg, wgs, wu, wus, bg, bu, gp, gq, n, k, kpart);
}
