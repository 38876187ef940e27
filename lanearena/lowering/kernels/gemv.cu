// Matrix products of activation rows (x: f32, or int8 (xh, xl, xs)) with weights of N rows of K values (f32, or Q8_0
// words and scales): gemv and glu, each with a bias of N values added to its sums where the bias is not null. Grid
// (ceil(N / TILE), split, rows): a block computes TILE columns of a row over the values [part * kpart, (part + 1) *
// kpart) of K. Cut in parts (split > 1), each part's sums go to scratch and the last part to arrive at its tile's
// counter adds them, in part order, then the bias.
#include "common.cuh"

// The bias of column c, 0 where there is none.
__device__ __forceinline__ float bias_of(const float* bias, int c) { return bias ? bias[c] : 0.f; }

// out[r * pitch + n] = sum_k x[r, k] * w[n, k] + bias[n]; parts in fp[split, rows, N], arrivals in
// fq[ceil(rows / TILE), ceil(N / TILE)]: a tile of TILE rows and TILE columns counts its rows' parts, and the last to
// arrive adds them all.
extern "C" __global__ void gemv(float* out, int pitch, const float* x, const signed char* xh, const signed char* xl,
                                const float* xs, const void* w, const float* ws, const float* bias, float* fp, int* fq,
                                int n, int k, int kpart) {
  const int tile = blockIdx.x, part = blockIdx.y, row = blockIdx.z, split = gridDim.y, rows = gridDim.z;
  const Act a = act_row(x, xh, xl, xs, row, k);
  const int k0 = part * kpart, k1 = min(k, k0 + kpart);
  const int c0 = tile * TILE, c1 = min(n, c0 + TILE);
  for (int c = c0 + (threadIdx.x >> 5); c < c1; c += WARPS) {
    const float s = warp_dot(a, weight_row(w, ws, c, k), k0, k1);
    if ((threadIdx.x & 31) == 0) {
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

// out[r, n] = silu(x[r] . w_gate[n] + bg[n]) * (x[r] . w_up[n] + bu[n]); parts in gp[2, split, rows, N] (gate
// sums, then up sums), arrivals in gq[rows, ceil(N / TILE)].
extern "C" __global__ void glu(float* out, const float* x, const signed char* xh, const signed char* xl,
                               const float* xs, const void* wg, const float* wgs, const void* wu, const float* wus,
                               const float* bg, const float* bu, float* gp, int* gq, int n, int k, int kpart) {
  const int tile = blockIdx.x, part = blockIdx.y, row = blockIdx.z, split = gridDim.y, rows = gridDim.z;
  const Act a = act_row(x, xh, xl, xs, row, k);
  const int k0 = part * kpart, k1 = min(k, k0 + kpart);
  const int c0 = tile * TILE, c1 = min(n, c0 + TILE);
  const long up = (long)split * rows * n;  // where the up sums start in gp
  for (int c = c0 + (threadIdx.x >> 5); c < c1; c += WARPS) {
    const float g = warp_dot(a, weight_row(wg, wgs, c, k), k0, k1);
    const float u = warp_dot(a, weight_row(wu, wus, c, k), k0, k1);
    if ((threadIdx.x & 31) == 0) {
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
