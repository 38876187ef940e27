// An expert mixture in three kernels (four under int8, which quantizes the hidden rows with `quantize` between):
// moe_route (router logits, top-k choices and their gates), moe_hidden (each choice's gated hidden row), moe_down
// (the choices' down projections, weighed by their gates and added in choice order).
#include "common.cuh"

#define TOPK_MAX 32

// rl[r, e] = x[r] . w_router[e] (an f32 or, in moe_route_bf16, a bf16 router, `experts` rows of `d`), a warp an
// expert; grid (ceil(experts / WARPS), rows). The last block of a row to arrive at rc[r] picks its `topk` largest
// logits (ties to the lower expert) into ids[r], in order, and their gates into gates[r] (write_gates: the softmax
// over the chosen, or over_all).
template <typename W>
__device__ __forceinline__ void moe_route_of(float* rl, int* ids, float* gates, int* rc, const float* x,
                                             const signed char* xh, const signed char* xl, const float* xs,
                                             const void* wr, int d, int experts, int topk, int over_all) {
  const int r = blockIdx.y, warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int e = blockIdx.x * WARPS + warp;
  if (e < experts) {
    const float s = warp_dot(act_row(x, xh, xl, xs, r, d), weight_row<W>(wr, nullptr, e, d), 0, d);
    if (lane == 0) rl[(long)r * experts + e] = s;
  }
  if (!last_arrival(&rc[r], gridDim.x) || warp != 0) return;
  __shared__ int picked[TOPK_MAX];
  __shared__ float logit[TOPK_MAX];
  const float* row = rl + (long)r * experts;
  for (int j = 0; j < topk; ++j) {
    float best = -INFINITY;
    int at = experts;
    for (int i = lane; i < experts; i += 32) {
      bool taken = false;
      for (int p = 0; p < j; ++p) taken |= picked[p] == i;
      const float v = __ldcg(&row[i]);
      if (!taken && beats(v, i, best, at)) {
        best = v;
        at = i;
      }
    }
    warp_best(best, at);
    if (lane == 0) {
      picked[j] = at;
      logit[j] = best;
      ids[(long)r * topk + j] = at;
    }
    __syncwarp();
  }
  write_gates(row, logit, gates + (long)r * topk, experts, topk, over_all);
}

// moe_route_of over an f32 router (moe_route), and over a bf16 one (moe_route_bf16).
extern "C" __global__ void moe_route(float* rl, int* ids, float* gates, int* rc, const float* x, const signed char* xh,
                                     const signed char* xl, const float* xs, const void* wr, int d, int experts,
                                     int topk, int over_all) {
  moe_route_of<float>(rl, ids, gates, rc, x, xh, xl, xs, wr, d, experts, topk, over_all);
}
extern "C" __global__ void moe_route_bf16(float* rl, int* ids, float* gates, int* rc, const float* x,
                                          const signed char* xh, const signed char* xl, const float* xs, const void* wr,
                                          int d, int experts, int topk, int over_all) {
  moe_route_of<bf16>(rl, ids, gates, rc, x, xh, xl, xs, wr, d, experts, topk, over_all);
}

// h[r, j, n] = silu(x[r] . w_gate[e, n]) * (x[r] . w_up[e, n]) for choice j of row r, e = ids[r, j]; weights
// [experts, f, d] (f32, or Q8_0 with scales); grid (ceil(f / TILE), topk, rows).
template <typename W>
__device__ __forceinline__ void moe_hidden_of(float* h, const float* x, const signed char* xh, const signed char* xl,
                                              const float* xs, const int* ids, const void* wg, const float* wgs,
                                              const void* wu, const float* wus, int d, int f, int topk) {
  const int j = blockIdx.y, r = blockIdx.z;
  const long choice = (long)r * topk + j;
  const long e = ids[choice];
  const Act a = act_row(x, xh, xl, xs, r, d);
  const int c1 = min(f, (int)(blockIdx.x + 1) * TILE);
  for (int c = blockIdx.x * TILE + (threadIdx.x >> 5); c < c1; c += WARPS) {
    const float g = warp_dot(a, weight_row<W>(wg, wgs, e * f + c, d), 0, d);
    const float u = warp_dot(a, weight_row<W>(wu, wus, e * f + c, d), 0, d);
    if ((threadIdx.x & 31) == 0) h[choice * f + c] = silu(g) * u;
  }
}

// moe_hidden_of over f32 or Q8_0 weights (moe_hidden), and over bf16 ones (moe_hidden_bf16).
extern "C" __global__ void moe_hidden(float* h, const float* x, const signed char* xh, const signed char* xl,
                                      const float* xs, const int* ids, const void* wg, const float* wgs, const void* wu,
                                      const float* wus, int d, int f, int topk) {
  moe_hidden_of<float>(h, x, xh, xl, xs, ids, wg, wgs, wu, wus, d, f, topk);
}
extern "C" __global__ void moe_hidden_bf16(float* h, const float* x, const signed char* xh, const signed char* xl,
                                           const float* xs, const int* ids, const void* wg, const float* wgs,
                                           const void* wu, const float* wus, int d, int f, int topk) {
  moe_hidden_of<bf16>(h, x, xh, xl, xs, ids, wg, wgs, wu, wus, d, f, topk);
}

// out[r, n] = sum over j in order of gates[r, j] * (h[r, j] . w_down[ids[r, j], n]), h f32 or int8 (hh, hl, hs);
// w_down [experts, d, f]; grid (ceil(d / TILE), rows).
template <typename W>
__device__ __forceinline__ void moe_down_of(float* out, const float* h, const signed char* hh, const signed char* hl,
                                            const float* hs, const int* ids, const float* gates, const void* wd,
                                            const float* wds, int d, int f, int topk) {
  const int r = blockIdx.y;
  const int c1 = min(d, (int)(blockIdx.x + 1) * TILE);
  for (int c = blockIdx.x * TILE + (threadIdx.x >> 5); c < c1; c += WARPS) {
    float acc = 0.f;
    for (int j = 0; j < topk; ++j) {
      const long choice = (long)r * topk + j;
      const long e = ids[choice];
      acc += gates[choice] * warp_dot(act_row(h, hh, hl, hs, choice, f), weight_row<W>(wd, wds, e * d + c, f), 0, f);
    }
    if ((threadIdx.x & 31) == 0) out[(long)r * d + c] = acc;
  }
}

// moe_down_of over f32 or Q8_0 weights (moe_down), and over bf16 ones (moe_down_bf16).
extern "C" __global__ void moe_down(float* out, const float* h, const signed char* hh, const signed char* hl,
                                    const float* hs, const int* ids, const float* gates, const void* wd,
                                    const float* wds, int d, int f, int topk) {
  moe_down_of<float>(out, h, hh, hl, hs, ids, gates, wd, wds, d, f, topk);
}
extern "C" __global__ void moe_down_bf16(float* out, const float* h, const signed char* hh, const signed char* hl,
                                         const float* hs, const int* ids, const float* gates, const void* wd,
                                         const float* wds, int d, int f, int topk) {
  moe_down_of<bf16>(out, h, hh, hl, hs, ids, gates, wd, wds, d, f, topk);
}
