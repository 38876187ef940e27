// What the kernels share: warp reductions, the arrival count of a block split, block quantization, and a warp's
// dot product of an activation row (f32, int8, or int8 in two words) with a weight row (f32, bf16 or Q8_0).
#pragma once
#include <cuda_bf16.h>

typedef __nv_bfloat16 bf16;

#define QBLOCK 32
#define THREADS 256
#define WARPS (THREADS / 32)
#define TILE 64  // the output columns of a matrix product's block: WARPS warps, a column each at a time
#define FULL 0xffffffffu

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(FULL, v, o);
  return v;
}

__device__ __forceinline__ float warp_max(float v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(FULL, v, o));
  return v;
}

// Whether (v, i) beats (best, at): larger, or as large at a lower index. NaN is larger than every number (so the
// first NaN wins, as numpy.argmax has it) and any value beats the start (-INFINITY at an index past the end), so
// the winner is always in range.
__device__ __forceinline__ bool beats(float v, int i, float best, int at) {
  const bool vn = isnan(v), bn = isnan(best);
  if (vn != bn) return vn;
  return v > best || (!(v < best) && i < at);
}

// The warp's best (value, index) by `beats`, in every lane.
__device__ __forceinline__ void warp_best(float& v, int& i) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) {
    const float ov = __shfl_xor_sync(FULL, v, o);
    const int oi = __shfl_xor_sync(FULL, i, o);
    if (beats(ov, oi, v, i)) {
      v = ov;
      i = oi;
    }
  }
}

// The sum of `v` over a block of THREADS threads, in every thread (warps added in order).
__device__ float block_sum(float v) {
  __shared__ float part[WARPS];
  v = warp_sum(v);
  if ((threadIdx.x & 31) == 0) part[threadIdx.x >> 5] = v;
  __syncthreads();
  float s = 0.f;
#pragma unroll
  for (int w = 0; w < WARPS; ++w) s += part[w];
  __syncthreads();  // so that a later call may reuse `part`
  return s;
}

// The largest of `v` over a block of THREADS threads, in every thread.
__device__ float block_max(float v) {
  __shared__ float part[WARPS];
  v = warp_max(v);
  if ((threadIdx.x & 31) == 0) part[threadIdx.x >> 5] = v;
  __syncthreads();
  float m = part[0];
#pragma unroll
  for (int w = 1; w < WARPS; ++w) m = fmaxf(m, part[w]);
  __syncthreads();  // so that a later call may reuse `part`
  return m;
}

// Column c of row r summed over the `split` parts fp[split, rows, n] a product's blocks wrote, in part order (read
// with __ldcg: other multiprocessors wrote them, past this one's L1).
__device__ __forceinline__ float parts_sum(const float* fp, int split, int rows, int n, int r, int c) {
  float s = 0.f;
  for (int p = 0; p < split; ++p) s += __ldcg(&fp[((long)p * rows + r) * n + c]);
  return s;
}

// Whether this block is the last of `arrivals` blocks to reach `counter`. Every block calls it after writing its
// partials; the last one resets the counter, so the launch leaves it zero for the next, and may then read the others'
// partials (with __ldcg: they were written on other multiprocessors, past this one's L1).
__device__ bool last_arrival(int* counter, int arrivals) {
  __shared__ bool last;
  __threadfence();  // this block's partials are visible before its arrival is
  __syncthreads();
  if (threadIdx.x == 0) {
    last = atomicAdd(counter, 1) == arrivals - 1;
    if (last) atomicExch(counter, 0);
  }
  __syncthreads();
  if (last) __threadfence();
  return last;
}

// Quantizes the block of QBLOCK values a warp holds, lane i value `v` at index `at` (a multiple of QBLOCK in lane 0):
// s = max|v|/127, hi = clamp(rint(v/s)), lo = clamp(rint((v/s - hi)*127)); all words 0 where s is 0.
__device__ void quantize_block(float v, long at, signed char* hi, signed char* lo, float* scales) {
  const float s = warp_max(fabsf(v)) / 127.f;
  int h = 0, l = 0;
  if (s != 0.f) {
    const float t = v / s;
    const float r = fminf(fmaxf(rintf(t), -127.f), 127.f);
    h = (int)r;
    l = (int)fminf(fmaxf(rintf((t - r) * 127.f), -127.f), 127.f);
  }
  hi[at] = (signed char)h;
  if (lo) lo[at] = (signed char)l;
  if ((threadIdx.x & 31) == 0) scales[at / QBLOCK] = s;
}

// An activation row: f32 values `x`, or (x null) int8 words `hi`, low words `lo` (null in one word), block scales `s`.
struct Act {
  const float* x;
  const signed char* hi;
  const signed char* lo;
  const float* s;
};

// Row `row` of `k` values of an activation given by its four pointers, the absent form's null.
__device__ __forceinline__ Act act_row(const float* x, const signed char* hi, const signed char* lo, const float* s,
                                       long row, int k) {
  if (x) return Act{x + row * k, nullptr, nullptr, nullptr};
  return Act{nullptr, hi + row * k, lo ? lo + row * k : nullptr, s + row * (k / QBLOCK)};
}

// A weight's value in f32: an f32 as it is, a bf16 exactly (its 16 bits are the high half of an f32's).
__device__ __forceinline__ float widen(float v) { return v; }
__device__ __forceinline__ float widen(bf16 v) { return __bfloat162float(v); }

// A weight row: values `f` of the weights' element W (f32, or bf16 in a kernel's `_bf16` instantiation), or (s
// non-null) Q8_0 words `q` with block scales `s`. The kernels that read weight matrices are templates over W, each
// instantiated as `name` (f32 or Q8_0 weights) and `name_bf16`.
template <typename W>
struct Wrow {
  const W* f;
  const signed char* q;
  const float* s;
};

// Row `row` of a weight matrix of `k` values a row: values of W at `w` when `scales` is null, else Q8_0 words at `w`.
template <typename W = float>
__device__ __forceinline__ Wrow<W> weight_row(const void* w, const float* scales, long row, int k) {
  if (!scales) return Wrow<W>{(const W*)w + row * k, nullptr, nullptr};
  return Wrow<W>{nullptr, (const signed char*)w + row * k, scales + row * (k / QBLOCK)};
}

// The integer dot of two blocks of QBLOCK int8 values (4-byte aligned).
__device__ __forceinline__ int block_idot(const signed char* a, const signed char* b) {
  const int* a4 = (const int*)a;
  const int* b4 = (const int*)b;
  int d = 0;
#pragma unroll
  for (int i = 0; i < QBLOCK / 4; ++i) d = __dp4a(a4[i], b4[i], d);
  return d;
}

// This lane's share of the dot of `a` and `w` over values [k0, k1) (multiples of QBLOCK where either is quantized;
// warp_sum it). In f32 lanes take every 32nd value; quantized, a lane takes whole blocks, as a Q8_0 kernel does:
// int8 by Q8_0 is an integer dot a block times both scales.
template <typename W>
__device__ float lane_dot(const Act& a, const Wrow<W>& w, int k0, int k1) {
  const int lane = threadIdx.x & 31;
  float acc = 0.f;
  if (a.x && w.f) {
    for (int k = k0 + lane; k < k1; k += 32) acc = fmaf(a.x[k], widen(w.f[k]), acc);
    return acc;
  }
  for (int b = k0 / QBLOCK + lane; b < k1 / QBLOCK; b += 32) {
    const int k = b * QBLOCK;
    if (a.hi && w.q) {
      float d = (float)block_idot(a.hi + k, w.q + k);
      if (a.lo) d += (float)block_idot(a.lo + k, w.q + k) / 127.f;
      acc += a.s[b] * w.s[b] * d;
    } else if (a.hi) {
      float dh = 0.f, dl = 0.f;
#pragma unroll 8
      for (int i = 0; i < QBLOCK; ++i) {
        dh = fmaf((float)a.hi[k + i], widen(w.f[k + i]), dh);
        if (a.lo) dl = fmaf((float)a.lo[k + i], widen(w.f[k + i]), dl);
      }
      acc += a.s[b] * (dh + dl / 127.f);
    } else {
      float d = 0.f;
#pragma unroll 8
      for (int i = 0; i < QBLOCK; ++i) d = fmaf(a.x[k + i], (float)w.q[k + i], d);
      acc += w.s[b] * d;
    }
  }
  return acc;
}

// The warp's dot of `a` and `w` over values [k0, k1), in every lane.
template <typename W>
__device__ __forceinline__ float warp_dot(const Act& a, const Wrow<W>& w, int k0, int k1) {
  return warp_sum(lane_dot(a, w, k0, k1));
}

__device__ __forceinline__ float silu(float a) { return a / (1.f + expf(-a)); }

// The first cache position a row at position p attends to: 0, or with a sliding window of `window` positions (0 for
// none), the window's first, p - window + 1.
__device__ __forceinline__ int window_start(int p, int window) { return window > 0 ? max(0, p - window + 1) : 0; }

// The sequence (its state's slot) row r of `rows` is in, of `seqs` sequences of rows / seqs rows each, in order.
__device__ __forceinline__ long slot_of(int r, int rows, int seqs) { return r / (rows / seqs); }

// A router's gates, by warp 0 (every lane calls it; lane 0 writes): of its `topk` chosen logits `logit` (the first
// the largest) among the row's `experts` logits `row`, the softmax over the chosen, or (over_all) each chosen one's
// share of the softmax over all of them.
__device__ void write_gates(const float* row, const float* logit, float* gates, int experts, int topk, int over_all) {
  const int lane = threadIdx.x & 31;
  float sum = 0.f;
  if (over_all) {
    for (int i = lane; i < experts; i += 32) sum += expf(__ldcg(&row[i]) - logit[0]);
    sum = warp_sum(sum);
  } else {
    for (int j = 0; j < topk; ++j) sum += expf(logit[j] - logit[0]);
  }
  if (lane == 0)
    for (int j = 0; j < topk; ++j) gates[j] = expf(logit[j] - logit[0]) / sum;
}
