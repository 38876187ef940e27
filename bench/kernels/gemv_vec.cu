// Candidate matrix products for the bandwidth (bench/gpu_kernels.py measures them against gemv.cu's): the arguments,
// the split-k scratch and counters, and the sums of gemv.cu's gemv and glu, but a warp takes its COLS columns at once
// (COLS independent weight streams in flight, not one) with 16-byte loads (f32 float4; Q8_0 by int8 as int4 halves of
// a block, the two halves' integer dots added before the scales, as gemv.cu adds a whole block). A block has WARPS
// warps, so TILE_C = WARPS * COLS columns: grid (ceil(N / TILE_C), split, rows); arrivals in
// fq[ceil(rows / TILE), ceil(N / TILE_C)]. Other pairings of forms (f32 by Q8_0, int8 by f32) take lane_dot.
#include "common.cuh"

__device__ __forceinline__ float bias_at(const float* bias, int c) { return bias ? bias[c] : 0.f; }

__device__ __forceinline__ float dot4(float4 a, float4 b, float acc) {
  return fmaf(a.w, b.w, fmaf(a.z, b.z, fmaf(a.y, b.y, fmaf(a.x, b.x, acc))));
}

__device__ __forceinline__ int idot16(int4 a, int4 b) {
  return __dp4a(a.w, b.w, __dp4a(a.z, b.z, __dp4a(a.y, b.y, __dp4a(a.x, b.x, 0))));
}

// This lane's shares of the dots of activation `a` with NW * COLS weight rows (rows[j], j < NW * COLS) over values
// [k0, k1), into acc[j]: warp_sum each after.
template <int N>
__device__ __forceinline__ void lane_dots(const Act& a, const Wrow<float> (&w)[N], int k, int k0, int k1,
                                          float (&acc)[N]) {
  const int lane = threadIdx.x & 31;
  constexpr int UNROLL = N >= 8 ? 1 : 8 / N;  // about 8 loads of a lane in flight, whatever N
  if (a.x && w[0].f && (k & 3) == 0) {  // f32 by f32: k0 is a multiple of QBLOCK, so both are float4 aligned
#pragma unroll UNROLL
    for (int i = k0 / 4 + lane; i < k1 / 4; i += 32) {
      const float4 xv = ((const float4*)a.x)[i];
      float4 wv[N];
#pragma unroll
      for (int j = 0; j < N; ++j) wv[j] = __ldcs((const float4*)w[j].f + i);
#pragma unroll
      for (int j = 0; j < N; ++j) acc[j] = dot4(xv, wv[j], acc[j]);
    }
    return;
  }
  if (a.hi && w[0].q) {  // int8 by Q8_0: a lane pair a block, a lane its half; the halves' dots added as integers
    const int half = lane & 1;
    const unsigned pair = 3u << (lane & 30);  // a pair's lanes run the same blocks: the shuffles name only them
#pragma unroll UNROLL
    for (int b = k0 / QBLOCK + (lane >> 1); b < k1 / QBLOCK; b += 16) {
      const long at = (long)b * QBLOCK + half * 16;
      const int4 hv = *(const int4*)(a.hi + at);
      const int4 lv = a.lo ? *(const int4*)(a.lo + at) : int4{0, 0, 0, 0};
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

// gemv.cu's gemv, COLS columns a warp at once.
template <int COLS>
__device__ void gemv_cols(float* out, int pitch, const float* x, const signed char* xh, const signed char* xl,
                          const float* xs, const void* w, const float* ws, const float* bias, float* fp, int* fq, int n,
                          int k, int kpart) {
  const int tile = blockIdx.x, part = blockIdx.y, row = blockIdx.z, split = gridDim.y, rows = gridDim.z;
  const Act a = act_row(x, xh, xl, xs, row, k);
  const int k0 = part * kpart, k1 = min(k, k0 + kpart);
  const int c0 = tile * WARPS * COLS, c1 = min(n, c0 + WARPS * COLS), warp = threadIdx.x >> 5;
  Wrow<float> wr[COLS];
  float acc[COLS];
#pragma unroll
  for (int j = 0; j < COLS; ++j) {
    const int c = c0 + warp + j * WARPS;
    wr[j] = weight_row(w, ws, c < c1 ? c : c0, k);  // a column past the end reads column c0, and is not written
    acc[j] = 0.f;
  }
  lane_dots(a, wr, k, k0, k1, acc);
#pragma unroll
  for (int j = 0; j < COLS; ++j) {
    const int c = c0 + warp + j * WARPS;
    const float s = warp_sum(acc[j]);
    if ((threadIdx.x & 31) == 0 && c < c1) {
      if (split == 1)
        out[(long)row * pitch + c] = s + bias_at(bias, c);
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
      out[(long)r * pitch + c] = s + bias_at(bias, c);
    }
}

// gemv.cu's glu, COLS columns a warp at once (2 * COLS weight rows: gate and up).
template <int COLS>
__device__ void glu_cols(float* out, const float* x, const signed char* xh, const signed char* xl, const float* xs,
                         const void* wg, const float* wgs, const void* wu, const float* wus, const float* bg,
                         const float* bu, float* gp, int* gq, int n, int k, int kpart) {
  const int tile = blockIdx.x, part = blockIdx.y, row = blockIdx.z, split = gridDim.y, rows = gridDim.z;
  const Act a = act_row(x, xh, xl, xs, row, k);
  const int k0 = part * kpart, k1 = min(k, k0 + kpart);
  const int c0 = tile * WARPS * COLS, c1 = min(n, c0 + WARPS * COLS), warp = threadIdx.x >> 5;
  const long up = (long)split * rows * n;
  Wrow<float> wr[2 * COLS];
  float acc[2 * COLS];
#pragma unroll
  for (int j = 0; j < COLS; ++j) {
    const int c = c0 + warp + j * WARPS, at = c < c1 ? c : c0;
    wr[j] = weight_row(wg, wgs, at, k);
    wr[COLS + j] = weight_row(wu, wus, at, k);
    acc[j] = acc[COLS + j] = 0.f;
  }
  lane_dots(a, wr, k, k0, k1, acc);
#pragma unroll
  for (int j = 0; j < COLS; ++j) {
    const int c = c0 + warp + j * WARPS;
    const float g = warp_sum(acc[j]), u = warp_sum(acc[COLS + j]);
    if ((threadIdx.x & 31) == 0 && c < c1) {
      if (split == 1) {
        out[(long)row * n + c] = silu(g + bias_at(bg, c)) * (u + bias_at(bu, c));
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
    out[(long)row * n + c] = silu(g + bias_at(bg, c)) * (u + bias_at(bu, c));
  }
}

#define GEMV_ARGS                                                                                                   \
  float *out, int pitch, const float *x, const signed char *xh, const signed char *xl, const float *xs,             \
      const void *w, const float *ws, const float *bias, float *fp, int *fq, int n, int k, int kpart
#define GLU_ARGS                                                                                                    \
  float *out, const float *x, const signed char *xh, const signed char *xl, const float *xs, const void *wg,        \
      const float *wgs, const void *wu, const float *wus, const float *bg, const float *bu, float *gp, int *gq, int n, \
      int k, int kpart
#define VARIANT(C)                                                                                                  \
  extern "C" __global__ void gemv_c##C(GEMV_ARGS) {                                                                 \
    gemv_cols<C>(out, pitch, x, xh, xl, xs, w, ws, bias, fp, fq, n, k, kpart);                                      \
  }                                                                                                                 \
  extern "C" __global__ void glu_c##C(GLU_ARGS) {                                                                   \
    glu_cols<C>(out, x, xh, xl, xs, wg, wgs, wu, wus, bg, bu, gp, gq, n, k, kpart);                                 \
  }
VARIANT(8)
VARIANT(4)
VARIANT(2)
VARIANT(1)
