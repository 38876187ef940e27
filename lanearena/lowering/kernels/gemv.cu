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
#include "products.cuh"


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
  float sums[COLS];
  product_sums<W>(a, w, ws, k, k0, k1, c0, c1, sums);
#pragma unroll
  for (int j = 0; j < COLS; ++j) {
    const int c = c0 + warp + j * WARPS;
    const float s = sums[j];
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
      const float s = parts_sum(fp, split, rows, n, r, c);
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
  float gs[COLS], us[COLS];
  glu_sums<W>(a, wg, wgs, wu, wus, k, k0, k1, c0, c1, gs, us);
#pragma unroll
  for (int j = 0; j < COLS; ++j) {
    const int c = c0 + warp + j * WARPS;
    const float g = gs[j], u = us[j];
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
    const float g = parts_sum(gp, split, rows, n, row, c), u = parts_sum(gp + up, split, rows, n, row, c);
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
