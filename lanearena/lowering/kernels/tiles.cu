// Projections in tiles, as the seed's tensor-core projections lay out their sums (gemm_tc, glu_tc): a tile is up to
// `rt` rows by GEMM_TILE_N columns of sums (a gated pair's: the gate and up sums of GEMM_TILE_N / 2 outputs). The
// first `whole` tiles are computed whole; the rest (the last wave's) are cut along k in `split` parts whose sums go to
// tp[cut tile, part, rt, GEMM_TILE_N], the last part of a tile to arrive at tc[cut tile] adding them in part order.
// A batch's gated pair uncut keeps its gate and up sums apart (mg, mu) and gates them after (glu_gated). The dots are
// lane_dot's (common.cuh), so results match gemv's and glu's.
#include "common.cuh"

#define GEMM_TILE_N 64

// Sums of tile `tile` over k [k0, k1) for its rows [r0, r1): column slot j of the tile into put(r, j, sum).
template <typename W, typename Put>
__device__ void tile_sums(const float* x, const signed char* xh, const signed char* xl, const float* xs, const void* w,
                          const float* ws, const void* wu, const float* wus, int n, int k, int r0, int r1, int c0,
                          int k0, int k1, Put put) {
  const int outs = wu ? GEMM_TILE_N / 2 : GEMM_TILE_N;
  for (int j = threadIdx.x >> 5; j < GEMM_TILE_N; j += WARPS) {
    const bool up = wu && j >= outs;
    const int c = c0 + (up ? j - outs : j);
    if (c >= n) continue;
    const Wrow<W> row = up ? weight_row<W>(wu, wus, c, k) : weight_row<W>(w, ws, c, k);
    for (int r = r0; r < r1; ++r) {
      const float s = warp_dot(act_row(x, xh, xl, xs, r, k), row, k0, k1);
      if ((threadIdx.x & 31) == 0) put(r, j, s);
    }
  }
}

// Writes finished sums of a tile: out[r, c] = s (gemm) or silu(gate) * up (a gated pair, gate in slot j, up in j + 32).
__device__ void finish_tile(float* out, const float* sums, int n, int r0, int r1, int c0, bool gated) {
  const int outs = gated ? GEMM_TILE_N / 2 : GEMM_TILE_N;
  for (int p = threadIdx.x; p < (r1 - r0) * outs; p += blockDim.x) {
    const int r = r0 + p / outs, j = p % outs;
    if (c0 + j >= n) continue;
    const float* row = sums + (long)(r - r0) * GEMM_TILE_N;
    out[(long)r * n + c0 + j] = gated ? silu(__ldcg(&row[j])) * __ldcg(&row[j + outs]) : __ldcg(&row[j]);
  }
}

// Grid (whole + (tiles - whole) * split): a block a whole tile, or a part of a cut one; tiles numbered row tile by row
// tile, `wide` across. wu null: a projection; else a gated pair with gate w and up wu.
template <typename W>
__device__ __forceinline__ void gemm_tiles_of(float* out, const float* x, const signed char* xh, const signed char* xl,
                                              const float* xs, const void* w, const float* ws, const void* wu,
                                              const float* wus, float* tp, int* tc, int n, int k, int m, int rt,
                                              int wide, int whole, int split, int kpart) {
  const int b = blockIdx.x;
  const bool cut = b >= whole;
  const int tile = cut ? whole + (b - whole) / split : b, part = cut ? (b - whole) % split : 0;
  const int r0 = tile / wide * rt, r1 = min(m, r0 + rt);
  const int c0 = tile % wide * (wu ? GEMM_TILE_N / 2 : GEMM_TILE_N);
  const int k0 = cut ? part * kpart : 0, k1 = cut ? min(k, k0 + kpart) : k;
  __shared__ float sums[GEMM_TILE_N * 64];  // rt <= 64 rows of a whole tile
  float* at = cut ? tp + ((long)(tile - whole) * split + part) * rt * GEMM_TILE_N : sums;
  tile_sums<W>(x, xh, xl, xs, w, ws, wu, wus, n, k, r0, r1, c0, k0, k1,
            [&](int r, int j, float s) { at[(long)(r - r0) * GEMM_TILE_N + j] = s; });
  if (!cut) {
    __syncthreads();
    finish_tile(out, sums, n, r0, r1, c0, wu != nullptr);
    return;
  }
  if (!last_arrival(&tc[tile - whole], split)) return;
  float* first = tp + (long)(tile - whole) * split * rt * GEMM_TILE_N;
  for (int p = threadIdx.x; p < rt * GEMM_TILE_N; p += blockDim.x) {
    float s = 0.f;
    for (int q = 0; q < split; ++q) s += __ldcg(&first[(long)q * rt * GEMM_TILE_N + p]);
    first[p] = s;  // part 0's slot holds the total: no other block reads it now
  }
  __syncthreads();
  finish_tile(out, first, n, r0, r1, c0, wu != nullptr);
}

// gemm_tiles_of over f32 or Q8_0 weights (gemm_tiles), and over bf16 ones (gemm_tiles_bf16).
extern "C" __global__ void gemm_tiles(float* out, const float* x, const signed char* xh, const signed char* xl,
                                      const float* xs, const void* w, const float* ws, const void* wu, const float* wus,
                                      float* tp, int* tc, int n, int k, int m, int rt, int wide, int whole, int split,
                                      int kpart) {
  gemm_tiles_of<float>(out, x, xh, xl, xs, w, ws, wu, wus, tp, tc, n, k, m, rt, wide, whole, split, kpart);
}
extern "C" __global__ void gemm_tiles_bf16(float* out, const float* x, const signed char* xh, const signed char* xl,
                                           const float* xs, const void* w, const float* ws, const void* wu,
                                           const float* wus, float* tp, int* tc, int n, int k, int m, int rt, int wide,
                                           int whole, int split, int kpart) {
  gemm_tiles_of<bf16>(out, x, xh, xl, xs, w, ws, wu, wus, tp, tc, n, k, m, rt, wide, whole, split, kpart);
}

// A batch's gated pair uncut: mg[r, c] = x[r] . w_gate[c], mu[r, c] = x[r] . w_up[c]; grid (ceil(n / TILE), rows).
template <typename W>
__device__ __forceinline__ void glu_sums_of(float* mg, float* mu, const float* x, const signed char* xh,
                                            const signed char* xl, const float* xs, const void* wg, const float* wgs,
                                            const void* wu, const float* wus, int n, int k) {
  const int r = blockIdx.y, c1 = min(n, (int)(blockIdx.x + 1) * TILE);
  const Act a = act_row(x, xh, xl, xs, r, k);
  for (int c = blockIdx.x * TILE + (threadIdx.x >> 5); c < c1; c += WARPS) {
    const float g = warp_dot(a, weight_row<W>(wg, wgs, c, k), 0, k);
    const float u = warp_dot(a, weight_row<W>(wu, wus, c, k), 0, k);
    if ((threadIdx.x & 31) == 0) {
      mg[(long)r * n + c] = g;
      mu[(long)r * n + c] = u;
    }
  }
}

// glu_sums_of over f32 or Q8_0 weights (glu_sums), and over bf16 ones (glu_sums_bf16).
extern "C" __global__ void glu_sums(float* mg, float* mu, const float* x, const signed char* xh, const signed char* xl,
                                    const float* xs, const void* wg, const float* wgs, const void* wu, const float* wus,
                                    int n, int k) {
  glu_sums_of<float>(mg, mu, x, xh, xl, xs, wg, wgs, wu, wus, n, k);
}
extern "C" __global__ void glu_sums_bf16(float* mg, float* mu, const float* x, const signed char* xh,
                                         const signed char* xl, const float* xs, const void* wg, const float* wgs,
                                         const void* wu, const float* wus, int n, int k) {
  glu_sums_of<bf16>(mg, mu, x, xh, xl, xs, wg, wgs, wu, wus, n, k);
}

// out[i] = silu(mg[i]) * mu[i], `count` values; grid ceil(count / THREADS).
extern "C" __global__ void glu_gated(float* out, const float* mg, const float* mu, int count) {
  const long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) out[i] = silu(mg[i]) * mu[i];
}
