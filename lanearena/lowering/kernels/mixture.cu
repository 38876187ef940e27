// The expert mixture past moe.cu's: a router's choices picked from logits a split product made (mix_pick); a block's
// rows grouped by expert (mix_group), each choice's activation row gathered (mix_gather), its hidden row (mix_hidden)
// and its weighed down projection (mix_weigh), combined a row a block with the residual and the next norm
// (mix_combine); and the decode row's down projection with a shared expert, the residual and the next norm
// (mix_down). Choices are ranked with NaN above every number and ties to the lower expert.
#include "common.cuh"

#define TOPK_MAX 32

// Whether logit (v, i) ranks above (best, at): NaN above every number (the first NaN wins), then larger, then the
// lower index among equals.
__device__ __forceinline__ bool ranks_above(float v, int i, float best, int at) {
  if (isnan(v) || isnan(best)) return isnan(v) && (!isnan(best) || i < at);
  return v > best || (v == best && i < at);
}

__device__ __forceinline__ void warp_rank(float& v, int& i) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) {
    const float ov = __shfl_xor_sync(FULL, v, o);
    const int oi = __shfl_xor_sync(FULL, i, o);
    if (ranks_above(ov, oi, v, i)) {
      v = ov;
      i = oi;
    }
  }
}

// The top `topk` of row `row` of `experts` logits into ids and their gates (write_gates) into gates, by warp 0 of the
// block.
__device__ void pick(const float* row, int* ids, float* gates, int experts, int topk, int over_all) {
  __shared__ int picked[TOPK_MAX];
  __shared__ float logit[TOPK_MAX];
  const int lane = threadIdx.x & 31;
  for (int j = 0; j < topk; ++j) {
    float best = -INFINITY;
    int at = experts;
    for (int i = lane; i < experts; i += 32) {
      bool taken = false;
      for (int p = 0; p < j; ++p) taken |= picked[p] == i;
      const float v = __ldcg(&row[i]);
      if (!taken && (at == experts || ranks_above(v, i, best, at))) {
        best = v;
        at = i;
      }
    }
    warp_rank(best, at);
    if (lane == 0) {
      picked[j] = at;
      logit[j] = best;
      ids[j] = at;
    }
    __syncwarp();
  }
  write_gates(row, logit, gates, experts, topk, over_all);
}

// Row r's choices from its logits rl[r] (finished by the router's split product before this launch); grid (1,
// rows): each row's one block arrives at rc[r], resetting it, and picks.
extern "C" __global__ void mix_pick(int* ids, float* gates, int* rc, const float* rl, int experts, int topk,
                                    int over_all) {
  const int r = blockIdx.y;
  if (!last_arrival(&rc[r], 1) || threadIdx.x >= 32) return;
  pick(rl + (long)r * experts, ids + (long)r * topk, gates + (long)r * topk, experts, topk, over_all);
}

// The `choices` choices ids[] grouped by expert, in choice order within an expert: ec[e] their count, eo[e] where
// expert e's start (eo[experts] = choices), el[place] the choice at each place, ep[choice] its place; one block.
extern "C" __global__ void mix_group(int* ec, int* eo, int* el, int* ep, const int* ids, int experts, int choices) {
  for (int e = threadIdx.x; e < experts; e += blockDim.x) ec[e] = 0;
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int c = 0; c < choices; ++c) ec[ids[c]] += 1;
    int at = 0;
    for (int e = 0; e < experts; ++e) {
      eo[e] = at;
      at += ec[e];
    }
    eo[experts] = at;
    for (int e = 0; e < experts; ++e) ec[e] = 0;  // reused as each expert's fill, left as its count
    for (int c = 0; c < choices; ++c) {
      const int e = ids[c];
      const int place = eo[e] + ec[e]++;
      el[place] = c;
      ep[c] = place;
    }
  }
}

// Each place's activation row: x's row of the choice there (rows of d, f32 or int8), copied f32 into gx, or (gx null)
// into the quantized rows (gq, gl, gs): copied where x is quantized, quantized where it is f32; grid (places).
extern "C" __global__ void mix_gather(float* gx, signed char* gq, signed char* gl, float* gs, const float* x,
                                      const signed char* xh, const signed char* xl, const float* xs, const int* el,
                                      int d, int topk) {
  const long place = blockIdx.x, row = el[place] / topk;
  const Act a = act_row(x, xh, xl, xs, row, d);
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    const long at = place * d + i;
    if (gx) {
      gx[at] = a.x ? a.x[i] : a.s[i / QBLOCK] * ((float)a.hi[i] + (a.lo ? (float)a.lo[i] / 127.f : 0.f));
    } else if (a.x) {
      quantize_block(a.x[i], at, gq, gl, gs);  // d a whole number of blocks: whole warps a block
    } else {
      gq[at] = a.hi[i];
      if (gl) gl[at] = a.lo ? a.lo[i] : 0;
      if (i % QBLOCK == 0) gs[at / QBLOCK] = a.s[i / QBLOCK];
    }
  }
}

// h[place, n] = silu(g . w_gate[e, n]) * (g . w_up[e, n]) for the gathered row g at each place, e its choice's
// expert; grid (ceil(f / TILE), places).
template <typename W>
__device__ __forceinline__ void mix_hidden_of(float* h, const float* gx, const signed char* gq, const signed char* gl,
                                              const float* gs, const int* ids, const int* el, const void* wg,
                                              const float* wgs, const void* wu, const float* wus, int d, int f) {
  const long place = blockIdx.y, e = ids[el[place]];
  const Act a = act_row(gx, gq, gl, gs, place, d);
  const int c1 = min(f, (int)(blockIdx.x + 1) * TILE);
  for (int c = blockIdx.x * TILE + (threadIdx.x >> 5); c < c1; c += WARPS) {
    const float g = warp_dot(a, weight_row<W>(wg, wgs, e * f + c, d), 0, d);
    const float u = warp_dot(a, weight_row<W>(wu, wus, e * f + c, d), 0, d);
    if ((threadIdx.x & 31) == 0) h[place * f + c] = silu(g) * u;
  }
}

// mix_hidden_of over f32 or Q8_0 weights (mix_hidden), and over bf16 ones (mix_hidden_bf16).
extern "C" __global__ void mix_hidden(float* h, const float* gx, const signed char* gq, const signed char* gl,
                                      const float* gs, const int* ids, const int* el, const void* wg, const float* wgs,
                                      const void* wu, const float* wus, int d, int f) {
  mix_hidden_of<float>(h, gx, gq, gl, gs, ids, el, wg, wgs, wu, wus, d, f);
}
extern "C" __global__ void mix_hidden_bf16(float* h, const float* gx, const signed char* gq, const signed char* gl,
                                           const float* gs, const int* ids, const int* el, const void* wg,
                                           const float* wgs, const void* wu, const float* wus, int d, int f) {
  mix_hidden_of<bf16>(h, gx, gq, gl, gs, ids, el, wg, wgs, wu, wus, d, f);
}

// pa[place, n] = gate * (h[place] . w_down[e, n]), the choice's gate and expert at each place; h f32 or int8;
// grid (ceil(d / TILE), places).
template <typename W>
__device__ __forceinline__ void mix_weigh_of(float* pa, const float* h, const signed char* hh, const signed char* hl,
                                             const float* hs, const int* ids, const float* gates, const int* el,
                                             const void* wd, const float* wds, int d, int f) {
  const long place = blockIdx.y, choice = el[place], e = ids[choice];
  const Act a = act_row(h, hh, hl, hs, place, f);
  const int c1 = min(d, (int)(blockIdx.x + 1) * TILE);
  for (int c = blockIdx.x * TILE + (threadIdx.x >> 5); c < c1; c += WARPS) {
    const float s = warp_dot(a, weight_row<W>(wd, wds, e * d + c, f), 0, f);
    if ((threadIdx.x & 31) == 0) pa[place * d + c] = gates[choice] * s;
  }
}

// mix_weigh_of over f32 or Q8_0 weights (mix_weigh), and over bf16 ones (mix_weigh_bf16).
extern "C" __global__ void mix_weigh(float* pa, const float* h, const signed char* hh, const signed char* hl,
                                     const float* hs, const int* ids, const float* gates, const int* el, const void* wd,
                                     const float* wds, int d, int f) {
  mix_weigh_of<float>(pa, h, hh, hl, hs, ids, gates, el, wd, wds, d, f);
}
extern "C" __global__ void mix_weigh_bf16(float* pa, const float* h, const signed char* hh, const signed char* hl,
                                          const float* hs, const int* ids, const float* gates, const int* el,
                                          const void* wd, const float* wds, int d, int f) {
  mix_weigh_of<bf16>(pa, h, hh, hl, hs, ids, gates, el, wd, wds, d, f);
}

// Row r's y = residual[r] (none where null) + its choices' weighed rows pa[ep[r, j]] in choice order + (where a shared
// expert is given, wsd not null) sigmoid(x[r] . w_shared_router) * (hsh[r] . w_shared_down), hsh the shared hidden
// rows of fs (f32 or quantized); written to out and, where gain is given, normed (RMS, eps) into the plain (nf) and
// quantized (nh, nl, ns) rows given; grid (rows).
template <typename W>
__device__ __forceinline__ void mix_combine_of(float* out, float* nf, signed char* nh, signed char* nl, float* ns,
                                               const float* pa, const int* ep, const float* residual, const float* gain,
                                               const float* hsh, const signed char* hsh_h, const signed char* hsh_l,
                                               const float* hsh_s, const void* wsd, const float* wsds, const void* wsr,
                                               const float* x, const signed char* xh, const signed char* xl,
                                               const float* xs, int d, int fs, int topk, float eps) {
  const long r = blockIdx.x, row = r * d;
  if (wsd) {  // the shared expert's share first, a warp a column
    const Wrow<W> router = weight_row<W>(wsr, nullptr, 0, d);
    const float gate = 1.f / (1.f + expf(-warp_dot(act_row(x, xh, xl, xs, r, d), router, 0, d)));
    const Act a = act_row(hsh, hsh_h, hsh_l, hsh_s, r, fs);
    for (int c = threadIdx.x >> 5; c < d; c += WARPS) {
      const float s = warp_dot(a, weight_row<W>(wsd, wsds, c, fs), 0, fs);
      if ((threadIdx.x & 31) == 0) out[row + c] = gate * s;
    }
    __syncthreads();
  }
  float ss = 0.f;
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    float y = (residual ? residual[row + i] : 0.f) + (wsd ? out[row + i] : 0.f);
    for (int j = 0; j < topk; ++j) y += pa[(long)ep[r * topk + j] * d + i];
    out[row + i] = y;
    ss = fmaf(y, y, ss);
  }
  if (!gain) return;
  const float inv = 1.f / sqrtf(block_sum(ss) / (float)d + eps);
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    const float y = out[row + i] * inv * gain[i];
    if (nf) nf[row + i] = y;
    if (nh) quantize_block(y, row + i, nh, nl, ns);
  }
}

// mix_combine_of over f32 or Q8_0 weights (mix_combine), and over bf16 ones (mix_combine_bf16).
extern "C" __global__ void mix_combine(float* out, float* nf, signed char* nh, signed char* nl, float* ns,
                                       const float* pa, const int* ep, const float* residual, const float* gain,
                                       const float* hsh, const signed char* hsh_h, const signed char* hsh_l,
                                       const float* hsh_s, const void* wsd, const float* wsds, const void* wsr,
                                       const float* x, const signed char* xh, const signed char* xl, const float* xs,
                                       int d, int fs, int topk, float eps) {
  mix_combine_of<float>(out, nf, nh, nl, ns, pa, ep, residual, gain, hsh, hsh_h, hsh_l, hsh_s, wsd, wsds, wsr, x, xh,
                        xl, xs, d, fs, topk, eps);
}
extern "C" __global__ void mix_combine_bf16(float* out, float* nf, signed char* nh, signed char* nl, float* ns,
                                            const float* pa, const int* ep, const float* residual, const float* gain,
                                            const float* hsh, const signed char* hsh_h, const signed char* hsh_l,
                                            const float* hsh_s, const void* wsd, const float* wsds, const void* wsr,
                                            const float* x, const signed char* xh, const signed char* xl,
                                            const float* xs, int d, int fs, int topk, float eps) {
  mix_combine_of<bf16>(out, nf, nh, nl, ns, pa, ep, residual, gain, hsh, hsh_h, hsh_l, hsh_s, wsd, wsds, wsr, x, xh, xl,
                       xs, d, fs, topk, eps);
}

// The decode row's mixture finished: out[n] = residual[n] (none where null) + sum over choices j in order of
// gates[j] * (h[j] . w_down[ids[j], n]) + sigmoid(x . w_shared_router) * (h[topk] . w_shared_down[n]) where a shared
// expert is given (wsd not null; its hidden row after the choices', f32 h rows of f and fs, or their quantized
// form); grid ceil(d / TILE). Where gain is given the last block to arrive at gc norms out into nf / (nh, nl, ns).
template <typename W>
__device__ __forceinline__ void mix_down_of(float* out, float* nf, signed char* nh, signed char* nl, float* ns, int* gc,
                                            const float* h, const signed char* hh, const signed char* hl,
                                            const float* hs, const int* ids, const float* gates, const void* wd,
                                            const float* wds, const void* wsd, const float* wsds, const void* wsr,
                                            const float* x, const signed char* xh, const signed char* xl,
                                            const float* xs, const float* residual, const float* gain, int d, int f,
                                            int fs, int topk, float eps) {
  const int c1 = min(d, (int)(blockIdx.x + 1) * TILE);
  float shared_gate = 0.f;
  if (wsd) {
    const Wrow<W> router = weight_row<W>(wsr, nullptr, 0, d);
    shared_gate = 1.f / (1.f + expf(-warp_dot(act_row(x, xh, xl, xs, 0, d), router, 0, d)));
  }
  for (int c = blockIdx.x * TILE + (threadIdx.x >> 5); c < c1; c += WARPS) {
    float acc = 0.f;
    for (int j = 0; j < topk; ++j)
      acc += gates[j] * warp_dot(Act{h ? h + (long)j * f : nullptr, hh ? hh + (long)j * f : nullptr,
                                     hl ? hl + (long)j * f : nullptr, hs ? hs + (long)j * f / QBLOCK : nullptr},
                                 weight_row<W>(wd, wds, (long)ids[j] * d + c, f), 0, f);
    if (wsd) {
      const long at = (long)topk * f;
      acc += shared_gate * warp_dot(Act{h ? h + at : nullptr, hh ? hh + at : nullptr, hl ? hl + at : nullptr,
                                        hs ? hs + at / QBLOCK : nullptr},
                                    weight_row<W>(wsd, wsds, c, fs), 0, fs);
    }
    if ((threadIdx.x & 31) == 0) out[c] = (residual ? residual[c] : 0.f) + acc;
  }
  if (!gain || !last_arrival(gc, gridDim.x)) return;
  float ss = 0.f;
  for (int i = threadIdx.x; i < d; i += blockDim.x) ss = fmaf(__ldcg(&out[i]), __ldcg(&out[i]), ss);
  const float inv = 1.f / sqrtf(block_sum(ss) / (float)d + eps);
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    const float y = __ldcg(&out[i]) * inv * gain[i];
    if (nf) nf[i] = y;
    if (nh) quantize_block(y, i, nh, nl, ns);
  }
}

// mix_down_of over f32 or Q8_0 weights (mix_down), and over bf16 ones (mix_down_bf16).
extern "C" __global__ void mix_down(float* out, float* nf, signed char* nh, signed char* nl, float* ns, int* gc,
                                    const float* h, const signed char* hh, const signed char* hl, const float* hs,
                                    const int* ids, const float* gates, const void* wd, const float* wds,
                                    const void* wsd, const float* wsds, const void* wsr, const float* x,
                                    const signed char* xh, const signed char* xl, const float* xs,
                                    const float* residual, const float* gain, int d, int f, int fs, int topk,
                                    float eps) {
  mix_down_of<float>(out, nf, nh, nl, ns, gc, h, hh, hl, hs, ids, gates, wd, wds, wsd, wsds, wsr, x, xh, xl, xs,
                     residual, gain, d, f, fs, topk, eps);
}
extern "C" __global__ void mix_down_bf16(float* out, float* nf, signed char* nh, signed char* nl, float* ns, int* gc,
                                         const float* h, const signed char* hh, const signed char* hl, const float* hs,
                                         const int* ids, const float* gates, const void* wd, const float* wds,
                                         const void* wsd, const float* wsds, const void* wsr, const float* x,
                                         const signed char* xh, const signed char* xl, const float* xs,
                                         const float* residual, const float* gain, int d, int f, int fs, int topk,
                                         float eps) {
  mix_down_of<bf16>(out, nf, nh, nl, ns, gc, h, hh, hl, hs, ids, gates, wd, wds, wsd, wsds, wsr, x, xh, xl, xs,
                    residual, gain, d, f, fs, topk, eps);
}
