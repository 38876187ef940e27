// The key/value cache: kv_store, and attention over it (a block a head of a row, or of a chunk of the cache).
#include "common.cuh"

#define HD_MAX 256  // a head's values: HD_MAX / 32 a lane

// A variant compiled with -DHEAD_DIM=hd (hd a multiple of 32, at most HD_MAX) runs heads of hd values only: its
// per-lane arrays, loops and shared sums are sized for hd, not HD_MAX, and every bound is a constant.
#ifdef HEAD_DIM
#define HD_LANE (HEAD_DIM / 32)
#else
#define HD_LANE (HD_MAX / 32)
#endif

// k_cache[s, pos[r]] = k[r], v_cache[s, pos[r]] = v[r], rows of `width`, s = slot_of(r) of `seqs` slots of `length`
// rows (one sequence: the cache); a position outside [0, length) writes nothing; grid (rows).
extern "C" __global__ void kv_store(float* kc, float* vc, const float* k, const float* v, const int* pos, int width,
                                    int length, int seqs) {
  const int r = blockIdx.x, p = pos[r];
  if (p < 0 || p >= length) return;
  const long at = (slot_of(r, gridDim.x, seqs) * length + p) * width;
  for (int i = threadIdx.x; i < width; i += blockDim.x) {
    kc[at + i] = k[(long)r * width + i];
    vc[at + i] = v[(long)r * width + i];
  }
}

// exp(m - top), or 0 for a part that saw no position (m = -inf), whatever top is.
__device__ __forceinline__ float weight_of(float m, float top) { return m == -INFINITY ? 0.f : expf(m - top); }

// Head h of row r of q (heads of `hd` values) attends to cache positions [lo + chunk * c, lo + chunk * (c + 1)) up to
// p = pos[r] (and `length`), lo = window_start(p, window), through kv head h / (heads / kv_heads), scores scaled by
// 1/sqrt(hd), in the caches' slot of r's sequence (slot_of r, of `seqs` slots of `length` rows); grid (splits, heads,
// rows).
// One chunk (splits = 1) writes out[r, h] = softmax(scores) . values. Else each chunk writes its (max, sum of
// exp(score - max), sum of exp(score - max) * value) to ap[rows, heads, splits, hd + 2], and the last chunk of a head
// to arrive at ac[rows, heads] merges them in chunk order. Within a block each warp takes every WARPS-th position
// with an online softmax; the warps merge in order.
extern "C" __global__ void attention(float* out, const float* q, const float* kc, const float* vc, const int* pos,
                                     float* ap, int* ac, int heads, int kv_heads, int hd, int length, int chunk,
                                     int window, int seqs) {
#ifdef HEAD_DIM
  hd = HEAD_DIM;  // the launcher passes the same; as a constant, the loops below unroll and their guards fold away
#endif
  const int c = blockIdx.x, h = blockIdx.y, r = blockIdx.z, splits = gridDim.x;
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int width = kv_heads * hd;  // a cache row
  const long kv = (long)(h / (heads / kv_heads)) * hd;
  const float scale = 1.f / sqrtf((float)hd);
  const long head = ((long)r * heads + h) * hd;
  const int t0 = window_start(pos[r], window) + c * chunk, t1 = min(min(t0 + chunk, pos[r] + 1), length);
  const long slot = slot_of(r, gridDim.z, seqs) * length * width;
  kc += slot;
  vc += slot;

  float qv[HD_LANE], acc[HD_LANE];
#pragma unroll
  for (int j = 0; j < HD_LANE; ++j) {
    const int d = lane + 32 * j;
    qv[j] = d < hd ? q[head + d] : 0.f;
    acc[j] = 0.f;
  }
  float m = -INFINITY, l = 0.f;
  for (int t = t0 + warp; t < t1; t += WARPS) {
    const float* kr = kc + (long)t * width + kv;
    const float* vr = vc + (long)t * width + kv;
    float s = 0.f;
#pragma unroll
    for (int j = 0; j < HD_LANE; ++j)
      if (lane + 32 * j < hd) s = fmaf(qv[j], kr[lane + 32 * j], s);
    s = warp_sum(s) * scale;
    const float top = fmaxf(m, s);
    const float was = weight_of(m, top), p = expf(s - top);
    l = l * was + p;
#pragma unroll
    for (int j = 0; j < HD_LANE; ++j)
      if (lane + 32 * j < hd) acc[j] = acc[j] * was + p * vr[lane + 32 * j];
    m = top;
  }

  __shared__ float wm[WARPS], wl[WARPS], wacc[WARPS][HD_LANE * 32];
  if (lane == 0) {
    wm[warp] = m;
    wl[warp] = l;
  }
#pragma unroll
  for (int j = 0; j < HD_LANE; ++j)
    if (lane + 32 * j < hd) wacc[warp][lane + 32 * j] = acc[j];
  __syncthreads();
  float top = -INFINITY;
  for (int w = 0; w < WARPS; ++w) top = fmaxf(top, wm[w]);
  float sum = 0.f;
  for (int w = 0; w < WARPS; ++w) sum += wl[w] * weight_of(wm[w], top);

  if (splits == 1) {
    for (int d = threadIdx.x; d < hd; d += blockDim.x) {
      float v = 0.f;
      for (int w = 0; w < WARPS; ++w) v += wacc[w][d] * weight_of(wm[w], top);
      out[head + d] = v / sum;
    }
    return;
  }
  float* mine = ap + (((long)r * heads + h) * splits + c) * (hd + 2);
  if (threadIdx.x == 0) {
    mine[0] = top;
    mine[1] = sum;
  }
  for (int d = threadIdx.x; d < hd; d += blockDim.x) {
    float v = 0.f;
    for (int w = 0; w < WARPS; ++w) v += wacc[w][d] * weight_of(wm[w], top);
    mine[2 + d] = v;
  }
  if (!last_arrival(&ac[r * heads + h], splits)) return;
  const float* all = ap + ((long)r * heads + h) * splits * (hd + 2);
  float best = -INFINITY;
  for (int i = 0; i < splits; ++i) best = fmaxf(best, __ldcg(&all[i * (hd + 2)]));
  float total = 0.f;
  for (int i = 0; i < splits; ++i)
    total += __ldcg(&all[i * (hd + 2) + 1]) * weight_of(__ldcg(&all[i * (hd + 2)]), best);
  for (int d = threadIdx.x; d < hd; d += blockDim.x) {
    float v = 0.f;
    for (int i = 0; i < splits; ++i)
      v += __ldcg(&all[i * (hd + 2) + 2 + d]) * weight_of(__ldcg(&all[i * (hd + 2)]), best);
    out[head + d] = v / total;
  }
}
