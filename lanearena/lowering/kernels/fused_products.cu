// Matrix products with the launches around them folded in (dialects/kinds/fused_products.py): a prologue that makes
// the block's activation row in shared memory, normed as rms_norm norms it (gain not null) and quantized as
// quantize_block quantizes it (in `words` words: 1, or 2 under int8x2), so that the dots read the very words the
// unfused step's norm or quantize would have written; an epilogue that adds the residual (gemv_fused; gemv_add_norm
// then norms the sums, in its last block) or writes the gated pair's result quantized (glu_fused). The dots are
// gemv's (products.cuh's lane_dots): grid (ceil(N / TILE), split, rows), parts met per tile as gemv and glu meet
// them. Each kernel is a template over the weights' element (products.cuh's Wrow<W>): `name` reads f32 or Q8_0
// weights, `name_bf16` bf16 ones.
#include "products.cuh"

#define ROW_LIMIT 8192  // the longest row a prologue stages: 32 KB of f32 (fused_products.py's ROW_LIMIT)

// Row `row` of `k` values of the activation the product reads: x as it is (gain null and words 0), or made in
// `staged`: x's row (f32) normed by `gain` where it is not null, quantized in `words` words where not 0 (the words,
// then the low words under two, then the block scales).
__device__ Act staged_row(const float* x, const signed char* xh, const signed char* xl, const float* xs,
                          const float* gain, float eps, int words, long row, int k, float* staged) {
  if (!gain && !words) return act_row(x, xh, xl, xs, row, k);
  const float* xr = x + row * k;
  float inv = 1.f;
  if (gain) {  // rms_norm's sum, in its order
    float ss = 0.f;
    for (int i = threadIdx.x; i < k; i += blockDim.x) ss = fmaf(xr[i], xr[i], ss);
    inv = 1.f / sqrtf(block_sum(ss) / (float)k + eps);
  }
  if (!words) {
    for (int i = threadIdx.x; i < k; i += blockDim.x) staged[i] = xr[i] * inv * gain[i];
    __syncthreads();
    return Act{staged, nullptr, nullptr, nullptr};
  }
  signed char* hi = (signed char*)staged;
  signed char* lo = words == 2 ? hi + k : nullptr;
  float* scales = (float*)(hi + (long)words * k);
  // A warp a block of QBLOCK values, every lane one (k a whole number of blocks, THREADS of whole blocks).
  for (int i = threadIdx.x; i < k; i += blockDim.x)
    quantize_block(gain ? xr[i] * inv * gain[i] : xr[i], i, hi, lo, scales);
  __syncthreads();
  return Act{nullptr, hi, lo, scales};
}

// The finished value of column c of row r: the bias added to the sum, then the residual (where each is not null),
// in the order the unfused gemv_bias and binary add them.
__device__ __forceinline__ float finished(float s, const float* bias, const float* residual, long r, int n, int c) {
  const float y = s + bias_of(bias, c);
  return residual ? residual[r * n + c] + y : y;
}

// This block's columns of row blockIdx.z of out[r, n] = residual[r, n] + (a[r] . w[n] + bias[n]), a[r] the
// prologue's row of x (made in `staged`); parts in fp[split, rows, N], arrivals in fq[ceil(rows / TILE), ceil(N /
// TILE)] (gemv's). Returns whether the block finished its tile (whole, or the last part of its TILE x TILE tile to
// arrive, which adds every row's parts).
template <typename W>
__device__ bool product_block(float* out, const float* x, const signed char* xh, const signed char* xl,
                              const float* xs, const float* gain, float eps, int words, const void* w, const float* ws,
                              const float* bias, const float* residual, float* fp, int* fq, int n, int k, int kpart,
                              float* staged) {
  const int tile = blockIdx.x, part = blockIdx.y, row = blockIdx.z, split = gridDim.y, rows = gridDim.z;
  const Act a = staged_row(x, xh, xl, xs, gain, eps, words, row, k, staged);
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
        out[(long)row * n + c] = finished(s, bias, residual, row, n, c);
      else
        fp[((long)part * rows + row) * n + c] = s;
    }
  }
  if (split == 1) return true;
  const int r0 = row / TILE * TILE, r1 = min(rows, r0 + TILE);
  if (!last_arrival(&fq[row / TILE * gridDim.x + tile], split * (r1 - r0))) return false;
  for (int r = r0; r < r1; ++r)
    for (int c = c0 + threadIdx.x; c < c1; c += blockDim.x) {
      const float s = parts_sum(fp, split, rows, n, r, c);
      out[(long)r * n + c] = finished(s, bias, residual, r, n, c);
    }
  return true;
}

// out[r, n] = residual[r, n] + (a[r] . w[n] + bias[n]) (product_block's), a block a tile of a part of a row.
template <typename W>
__device__ __forceinline__ void gemv_fused_of(float* out, const float* x, const signed char* xh,
                                              const signed char* xl, const float* xs, const float* gain, float eps,
                                              int words, const void* w, const float* ws, const float* bias,
                                              const float* residual, float* fp, int* fq, int n, int k, int kpart) {
  __shared__ __align__(16) float staged[ROW_LIMIT];
  product_block<W>(out, x, xh, xl, xs, gain, eps, words, w, ws, bias, residual, fp, fq, n, k, kpart, staged);
}

extern "C" __global__ void gemv_fused(float* out, const float* x, const signed char* xh, const signed char* xl,
                                      const float* xs, const float* gain, float eps, int words, const void* w,
                                      const float* ws, const float* bias, const float* residual, float* fp, int* fq,
                                      int n, int k, int kpart) {
  gemv_fused_of<float>(out, x, xh, xl, xs, gain, eps, words, w, ws, bias, residual, fp, fq, n, k, kpart);
}
extern "C" __global__ void gemv_fused_bf16(float* out, const float* x, const signed char* xh, const signed char* xl,
                                           const float* xs, const float* gain, float eps, int words, const void* w,
                                           const float* ws, const float* bias, const float* residual, float* fp,
                                           int* fq, int n, int k, int kpart) {
  gemv_fused_of<bf16>(out, x, xh, xl, xs, gain, eps, words, w, ws, bias, residual, fp, fq, n, k, kpart);
}

// gemv_fused's out, then the last finished tile to arrive at gc norms every row of out as rms_norm norms it (its sum
// in its order) with `norm_gain` (n values) into nf and / or (nh, nl, ns), each where not null.
template <typename W>
__device__ __forceinline__ void gemv_add_norm_of(float* out, float* nf, signed char* nh, signed char* nl, float* ns,
                                                 int* gc, const float* x, const signed char* xh, const signed char* xl,
                                                 const float* xs, int words, const void* w, const float* ws,
                                                 const float* residual, float* fp, int* fq, const float* norm_gain,
                                                 float norm_eps, int n, int k, int kpart) {
  __shared__ __align__(16) float staged[ROW_LIMIT];
  const int rows = gridDim.z, split = gridDim.y;
  if (!product_block<W>(out, x, xh, xl, xs, nullptr, 0.f, words, w, ws, nullptr, residual, fp, fq, n, k, kpart,
                        staged))
    return;
  const int tiles_done = gridDim.x * (split == 1 ? rows : (rows + TILE - 1) / TILE);
  if (!last_arrival(gc, tiles_done)) return;
  for (int r = 0; r < rows; ++r) {
    const long row = (long)r * n;
    float ss = 0.f;
    for (int i = threadIdx.x; i < n; i += blockDim.x) ss = fmaf(__ldcg(&out[row + i]), __ldcg(&out[row + i]), ss);
    const float inv = 1.f / sqrtf(block_sum(ss) / (float)n + norm_eps);
    for (int i = threadIdx.x; i < n; i += blockDim.x) {
      const float y = __ldcg(&out[row + i]) * inv * norm_gain[i];
      if (nf) nf[row + i] = y;
      if (nh) quantize_block(y, row + i, nh, nl, ns);  // a warp a block: n a whole number of blocks where quantized
    }
  }
}

extern "C" __global__ void gemv_add_norm(float* out, float* nf, signed char* nh, signed char* nl, float* ns, int* gc,
                                         const float* x, const signed char* xh, const signed char* xl, const float* xs,
                                         int words, const void* w, const float* ws, const float* residual, float* fp,
                                         int* fq, const float* norm_gain, float norm_eps, int n, int k, int kpart) {
  gemv_add_norm_of<float>(out, nf, nh, nl, ns, gc, x, xh, xl, xs, words, w, ws, residual, fp, fq, norm_gain, norm_eps,
                          n, k, kpart);
}
extern "C" __global__ void gemv_add_norm_bf16(float* out, float* nf, signed char* nh, signed char* nl, float* ns,
                                              int* gc, const float* x, const signed char* xh, const signed char* xl,
                                              const float* xs, int words, const void* w, const float* ws,
                                              const float* residual, float* fp, int* fq, const float* norm_gain,
                                              float norm_eps, int n, int k, int kpart) {
  gemv_add_norm_of<bf16>(out, nf, nh, nl, ns, gc, x, xh, xl, xs, words, w, ws, residual, fp, fq, norm_gain, norm_eps,
                         n, k, kpart);
}

// Column c0 + threadIdx.x (threads [0, c1 - c0), whole warps of QBLOCK columns where quantized) of row `row` of a
// gated pair's result, value v: written plain where `out` is not null, quantized where `oh` is not.
__device__ __forceinline__ void emit(float v, long at, float* out, signed char* oh, signed char* ol, float* os) {
  if (out) out[at] = v;
  if (oh) quantize_block(v, at, oh, ol, os);
}

// out[r, n] = silu(a[r] . w_gate[n]) * (a[r] . w_up[n]), a[r] the prologue's row of x, written plain (out) and
// quantized (oh, ol, os) where each is not null; parts in gp[2, split, rows, N], arrivals in gq[rows, ceil(N /
// TILE)] (glu's).
template <typename W>
__device__ __forceinline__ void glu_fused_of(float* out, signed char* oh, signed char* ol, float* os, const float* x,
                                             const signed char* xh, const signed char* xl, const float* xs,
                                             const float* gain, float eps, int words, const void* wg, const float* wgs,
                                             const void* wu, const float* wus, float* gp, int* gq, int n, int k,
                                             int kpart) {
  __shared__ __align__(16) float staged[ROW_LIMIT];
  __shared__ float tile_out[TILE];  // the tile's results, gathered so that a warp holds a block of QBLOCK columns
  const int tile = blockIdx.x, part = blockIdx.y, row = blockIdx.z, split = gridDim.y, rows = gridDim.z;
  const Act a = staged_row(x, xh, xl, xs, gain, eps, words, row, k, staged);
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
        tile_out[c - c0] = silu(g) * u;
      } else {
        const long at = ((long)part * rows + row) * n + c;
        gp[at] = g;
        gp[up + at] = u;
      }
    }
  }
  const long base = (long)row * n + c0;
  if (split == 1) {
    __syncthreads();
    if (threadIdx.x < c1 - c0) emit(tile_out[threadIdx.x], base + threadIdx.x, out, oh, ol, os);
    return;
  }
  if (!last_arrival(&gq[row * gridDim.x + tile], split)) return;
  if (threadIdx.x < c1 - c0) {  // TILE <= THREADS: a thread a column
    const int c = c0 + threadIdx.x;
    const float g = parts_sum(gp, split, rows, n, row, c), u = parts_sum(gp + up, split, rows, n, row, c);
    emit(silu(g) * u, base + threadIdx.x, out, oh, ol, os);
  }
}

extern "C" __global__ void glu_fused(float* out, signed char* oh, signed char* ol, float* os, const float* x,
                                     const signed char* xh, const signed char* xl, const float* xs, const float* gain,
                                     float eps, int words, const void* wg, const float* wgs, const void* wu,
                                     const float* wus, float* gp, int* gq, int n, int k, int kpart) {
  glu_fused_of<float>(out, oh, ol, os, x, xh, xl, xs, gain, eps, words, wg, wgs, wu, wus, gp, gq, n, k, kpart);
}
extern "C" __global__ void glu_fused_bf16(float* out, signed char* oh, signed char* ol, float* os, const float* x,
                                          const signed char* xh, const signed char* xl, const float* xs,
                                          const float* gain, float eps, int words, const void* wg, const float* wgs,
                                          const void* wu, const float* wus, float* gp, int* gq, int n, int k,
                                          int kpart) {
  glu_fused_of<bf16>(out, oh, ol, os, x, xh, xl, xs, gain, eps, words, wg, wgs, wu, wus, gp, gq, n, k, kpart);
}
