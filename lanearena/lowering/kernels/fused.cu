// Fused launches (the seed's folds): a gather that norms each row in the block that gathers it (gather_norm), and
// projections finished in their last blocks: normed (gemv_norm, one count of blocks arrived) or with their q and k
// heads turned as each head's tiles finish (gemv_rope, a count a head). A projection's blocks are gemv's (gemv.cu):
// grid (ceil(N / TILE), split, rows), parts met per tile of TILE rows and TILE columns.
#include "common.cuh"

// x[r] = dequantized table[ids[r]] (f32, or Q8_0 with scales), then normed into out / (oh, ol, os); grid (rows).
template <typename W>
__device__ __forceinline__ void gather_norm_of(float* x, float* out, signed char* oh, signed char* ol, float* os,
                                               const void* table, const float* scales, const int* ids,
                                               const float* gain, int d, int v, float eps) {
  const long r = blockIdx.x, row = r * d;
  const int id = ids[r];
  const bool inside = id >= 0 && id < v;  // an id outside the table gathers zeros
  const Wrow<W> w = weight_row<W>(table, scales, inside ? id : 0, d);
  float ss = 0.f;
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    const float y = inside ? (w.f ? widen(w.f[i]) : w.s[i / QBLOCK] * (float)w.q[i]) : 0.f;
    x[row + i] = y;
    ss = fmaf(y, y, ss);
  }
  const float inv = 1.f / sqrtf(block_sum(ss) / (float)d + eps);
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    const float y = x[row + i] * inv * gain[i];
    if (out) out[row + i] = y;
    if (oh) quantize_block(y, row + i, oh, ol, os);
  }
}

// gather_norm_of over f32 or Q8_0 weights (gather_norm), and over bf16 ones (gather_norm_bf16).
extern "C" __global__ void gather_norm(float* x, float* out, signed char* oh, signed char* ol, float* os,
                                       const void* table, const float* scales, const int* ids, const float* gain, int d,
                                       int v, float eps) {
  gather_norm_of<float>(x, out, oh, ol, os, table, scales, ids, gain, d, v, eps);
}
extern "C" __global__ void gather_norm_bf16(float* x, float* out, signed char* oh, signed char* ol, float* os,
                                            const void* table, const float* scales, const int* ids, const float* gain,
                                            int d, int v, float eps) {
  gather_norm_of<bf16>(x, out, oh, ol, os, table, scales, ids, gain, d, v, eps);
}

// This block's columns [c0, c1) of row `row` of a projection, summed over its part of k; returns whether the block
// finished its tile (whole, or the last part of its TILE x TILE tile to arrive, which adds every row's parts).
template <typename W>
__device__ bool product_tile(float* out, const Act& a, const void* w, const float* ws, float* fp, int* fq, int n,
                             int k, int kpart) {
  const int tile = blockIdx.x, part = blockIdx.y, row = blockIdx.z, split = gridDim.y, rows = gridDim.z;
  const int k0 = part * kpart, k1 = min(k, k0 + kpart);
  const int c0 = tile * TILE, c1 = min(n, c0 + TILE);
  for (int c = c0 + (threadIdx.x >> 5); c < c1; c += WARPS) {
    const float s = warp_dot(a, weight_row<W>(w, ws, c, k), k0, k1);
    if ((threadIdx.x & 31) == 0) {
      if (split == 1)
        out[(long)row * n + c] = s;
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
      out[(long)r * n + c] = s;
    }
  return true;
}

// out = x . w^T (rows of n), then the last finished tile to arrive at gc norms every row of out into normed / (nh,
// nl, ns) with `gain` (n values).
template <typename W>
__device__ __forceinline__ void gemv_norm_of(float* out, float* nf, signed char* nh, signed char* nl, float* ns,
                                             int* gc, const float* x, const signed char* xh, const signed char* xl,
                                             const float* xs, const void* w, const float* ws, float* fp, int* fq,
                                             const float* gain, int n, int k, int kpart, float eps) {
  const int rows = gridDim.z, split = gridDim.y;
  if (!product_tile<W>(out, act_row(x, xh, xl, xs, blockIdx.z, k), w, ws, fp, fq, n, k, kpart)) return;
  const int finished = gridDim.x * (split == 1 ? rows : (rows + TILE - 1) / TILE);
  if (!last_arrival(gc, finished)) return;
  for (int r = 0; r < rows; ++r) {
    const long row = (long)r * n;
    float ss = 0.f;
    for (int i = threadIdx.x; i < n; i += blockDim.x) ss = fmaf(__ldcg(&out[row + i]), __ldcg(&out[row + i]), ss);
    const float inv = 1.f / sqrtf(block_sum(ss) / (float)n + eps);
    for (int i = threadIdx.x; i < n; i += blockDim.x) {
      const float y = __ldcg(&out[row + i]) * inv * gain[i];
      if (nf) nf[row + i] = y;
      if (nh) quantize_block(y, row + i, nh, nl, ns);
    }
  }
}

// gemv_norm_of over f32 or Q8_0 weights (gemv_norm), and over bf16 ones (gemv_norm_bf16).
extern "C" __global__ void gemv_norm(float* out, float* nf, signed char* nh, signed char* nl, float* ns, int* gc,
                                     const float* x, const signed char* xh, const signed char* xl, const float* xs,
                                     const void* w, const float* ws, float* fp, int* fq, const float* gain, int n,
                                     int k, int kpart, float eps) {
  gemv_norm_of<float>(out, nf, nh, nl, ns, gc, x, xh, xl, xs, w, ws, fp, fq, gain, n, k, kpart, eps);
}
extern "C" __global__ void gemv_norm_bf16(float* out, float* nf, signed char* nh, signed char* nl, float* ns, int* gc,
                                          const float* x, const signed char* xh, const signed char* xl, const float* xs,
                                          const void* w, const float* ws, float* fp, int* fq, const float* gain, int n,
                                          int k, int kpart, float eps) {
  gemv_norm_of<bf16>(out, nf, nh, nl, ns, gc, x, xh, xl, xs, w, ws, fp, fq, gain, n, k, kpart, eps);
}

// out = x . w^T (rows of n = (heads + 2 kv_heads) hd: q, k and v heads), each of the first heads + kv_heads heads
// turned by the row's position (rope's rotate-half, theta) once every tile over it has finished: gc[head] counts
// the finished tiles over the head, and the last to arrive turns the head in every row.
template <typename W>
__device__ __forceinline__ void gemv_rope_of(float* out, int* gc, const float* x, const signed char* xh,
                                             const signed char* xl, const float* xs, const void* w, const float* ws,
                                             float* fp, int* fq, const int* pos, int n, int k, int kpart, int hd,
                                             int turned, float theta) {
  const int rows = gridDim.z, split = gridDim.y;
  if (!product_tile<W>(out, act_row(x, xh, xl, xs, blockIdx.z, k), w, ws, fp, fq, n, k, kpart)) return;
  const int c0 = blockIdx.x * TILE, c1 = min(n, c0 + TILE);
  const int events = split == 1 ? rows : (rows + TILE - 1) / TILE;
  for (int head = c0 / hd; head < turned && head * hd < c1; ++head) {
    const int first = head * hd / TILE, last = ((head + 1) * hd - 1) / TILE;
    if (!last_arrival(&gc[head], (last - first + 1) * events)) continue;
    const int half = hd / 2;
    for (int r = 0; r < rows; ++r) {
      float* h = out + (long)r * n + (long)head * hd;
      const double p = (double)pos[r];
      for (int i = threadIdx.x; i < half; i += blockDim.x) {
        double s, c;
        sincos(p * pow((double)theta, -2.0 * i / hd), &s, &c);
        const float a = __ldcg(&h[i]), b = __ldcg(&h[i + half]);
        h[i] = a * (float)c - b * (float)s;
        h[i + half] = b * (float)c + a * (float)s;
      }
    }
    __syncthreads();
  }
}

// gemv_rope_of over f32 or Q8_0 weights (gemv_rope), and over bf16 ones (gemv_rope_bf16).
extern "C" __global__ void gemv_rope(float* out, int* gc, const float* x, const signed char* xh, const signed char* xl,
                                     const float* xs, const void* w, const float* ws, float* fp, int* fq,
                                     const int* pos, int n, int k, int kpart, int hd, int turned, float theta) {
  gemv_rope_of<float>(out, gc, x, xh, xl, xs, w, ws, fp, fq, pos, n, k, kpart, hd, turned, theta);
}
extern "C" __global__ void gemv_rope_bf16(float* out, int* gc, const float* x, const signed char* xh,
                                          const signed char* xl, const float* xs, const void* w, const float* ws,
                                          float* fp, int* fq, const int* pos, int n, int k, int kpart, int hd,
                                          int turned, float theta) {
  gemv_rope_of<bf16>(out, gc, x, xh, xl, xs, w, ws, fp, fq, pos, n, k, kpart, hd, turned, theta);
}
