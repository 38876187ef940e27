// Attention past attention.cu's a-head-a-block: shared attention, every head of a kv group in one block over a chunk
// of the cache, its chunks' partials folded by a second kernel (attention_group, attention_fold); and attention in
// two words, the cache's key and value rows quantized (high and low int8 words, a scale a row) before the heads read
// them (kv_two_words, attention_two_words). Scores are scaled by 1/sqrt(hd); a position past pos[r] is not seen.
#include "common.cuh"

#define HD_MAX 256

// exp(m - top), 0 where m saw nothing (-inf).
__device__ __forceinline__ float seen(float m, float top) { return m == -INFINITY ? 0.f : expf(m - top); }

// The online softmax of one head over positions [t0, t1): its (max, sum, weighed values) in m, l and acc (a thread a
// value, threads below hd), the scores and values given by `score(t)` and `value(t, i)`; every thread calls it.
template <typename Score, typename Value>
__device__ void online(float& m, float& l, float& acc, int t0, int t1, int hd, Score score, Value value) {
  m = -INFINITY;
  l = 0.f;
  acc = 0.f;
  for (int t = t0; t < t1; ++t) {
    const float s = score(t);
    const float top = fmaxf(m, s), was = seen(m, top), p = expf(s - top);
    l = l * was + p;
    if (threadIdx.x < hd) acc = acc * was + p * value(t, threadIdx.x);
    m = top;
  }
}

// Every head of kv group g of row r over chunk c of the positions it sees (from window_start(pos[r], window)), in the
// caches' slot of r's sequence (slot_of r, of `seqs` slots of `length` rows); grid (splits, kv_heads, rows). One chunk writes out[r, h] = softmax . values; more write each head's (max, sum, weighed
// values) to ap[rows, heads, splits, hd + 2].
extern "C" __global__ void attention_group(float* out, float* ap, const float* q, const float* kc, const float* vc,
                                           const int* pos, int heads, int kv_heads, int hd, int length, int chunk,
                                           int window, int seqs) {
  const int c = blockIdx.x, g = blockIdx.y, r = blockIdx.z, splits = gridDim.x, group = heads / kv_heads;
  const int width = kv_heads * hd, t0 = window_start(pos[r], window) + c * chunk;
  const int t1 = min(min(t0 + chunk, pos[r] + 1), length);
  const long slot = slot_of(r, gridDim.z, seqs) * length * width;
  kc += slot;
  vc += slot;
  const float scale = rsqrtf((float)hd);
  for (int h = g * group; h < (g + 1) * group; ++h) {
    const float* qh = q + ((long)r * heads + h) * hd;
    float m, l, acc;
    online(
        m, l, acc, t0, t1, hd,
        [&](int t) {
          float s = 0.f;
          for (int i = threadIdx.x; i < hd; i += blockDim.x) s = fmaf(qh[i], kc[(long)t * width + g * hd + i], s);
          return block_sum(s) * scale;
        },
        [&](int t, int i) { return vc[(long)t * width + g * hd + i]; });
    const long head = ((long)r * heads + h) * hd;
    if (splits == 1) {
      if (threadIdx.x < hd) out[head + threadIdx.x] = acc / l;
      continue;
    }
    float* mine = ap + (((long)r * heads + h) * splits + c) * (hd + 2);
    if (threadIdx.x == 0) {
      mine[0] = m;
      mine[1] = l;
    }
    if (threadIdx.x < hd) mine[2 + threadIdx.x] = acc;
  }
}

// out[r, h] = the fold of head h's chunks' partials in ap, in chunk order; grid (heads, rows).
extern "C" __global__ void attention_fold(float* out, const float* ap, int heads, int hd, int splits) {
  const int h = blockIdx.x, r = blockIdx.y;
  const float* all = ap + ((long)r * heads + h) * splits * (hd + 2);
  float best = -INFINITY;
  for (int i = 0; i < splits; ++i) best = fmaxf(best, all[i * (hd + 2)]);
  float total = 0.f;
  for (int i = 0; i < splits; ++i) total += all[i * (hd + 2) + 1] * seen(all[i * (hd + 2)], best);
  for (int d = threadIdx.x; d < hd; d += blockDim.x) {
    float v = 0.f;
    for (int i = 0; i < splits; ++i) v += all[i * (hd + 2) + 2 + d] * seen(all[i * (hd + 2)], best);
    out[((long)r * heads + h) * hd + d] = v / total;
  }
}

// Row `row` of hd values in two words with one scale: s = max|x| / 127, hi = clamp(rint(x / s)),
// lo = clamp(rint((x / s - hi) * 127)); all 0 where s is 0.
__device__ void two_words(const float* x, signed char* hi, signed char* lo, float* scale, int hd) {
  const float v = threadIdx.x < hd ? x[threadIdx.x] : 0.f;
  const float s = block_max(fabsf(v)) / 127.f;
  if (threadIdx.x < hd) {
    int h = 0, l = 0;
    if (s != 0.f) {
      const float t = v / s;
      const float rh = fminf(fmaxf(rintf(t), -127.f), 127.f);
      h = (int)rh;
      l = (int)fminf(fmaxf(rintf((t - rh) * 127.f), -127.f), 127.f);
    }
    hi[threadIdx.x] = (signed char)h;
    lo[threadIdx.x] = (signed char)l;
  }
  if (threadIdx.x == 0) *scale = s;
}

// The cache's rows in two words: ak, aw [2 (high, low), length, kv_heads, hd], as [length, kv_heads, 2 (key's,
// value's)] (several sequences' slots: `length` is all their rows); grid (length, kv_heads).
extern "C" __global__ void kv_two_words(signed char* ak, signed char* aw, float* asc, const float* kc, const float* vc,
                                        int length, int kv_heads, int hd) {
  const long t = blockIdx.x, g = blockIdx.y, at = (t * kv_heads + g) * hd, low = (long)length * kv_heads * hd;
  two_words(kc + at, ak + at, ak + low + at, asc + (t * kv_heads + g) * 2, hd);
  two_words(vc + at, aw + at, aw + low + at, asc + (t * kv_heads + g) * 2 + 1, hd);
}

// Head h of row r over the cache in two words, positions [window_start(pos[r], window), pos[r]] of the slot of r's
// sequence (slot_of r, of `seqs` slots of `length` rows); grid (heads, rows).
extern "C" __global__ void attention_two_words(float* out, const float* q, const signed char* ak,
                                               const signed char* aw, const float* asc, const int* pos, int heads,
                                               int kv_heads, int hd, int length, int window, int seqs) {
  const int h = blockIdx.x, r = blockIdx.y, g = h / (heads / kv_heads);
  const long low = (long)seqs * length * kv_heads * hd, base = slot_of(r, gridDim.y, seqs) * length;
  const float* qh = q + ((long)r * heads + h) * hd;
  const float scale = rsqrtf((float)hd);
  float m, l, acc;
  online(
      m, l, acc, window_start(pos[r], window), min(pos[r] + 1, length), hd,
      [&](int t) {
        const long at = ((base + t) * kv_heads + g) * hd;
        float s = 0.f;
        for (int i = threadIdx.x; i < hd; i += blockDim.x)
          s = fmaf(qh[i], (float)ak[at + i] + (float)ak[low + at + i] / 127.f, s);
        return block_sum(s) * asc[((base + t) * kv_heads + g) * 2] * scale;
      },
      [&](int t, int i) {
        const long at = ((base + t) * kv_heads + g) * hd;
        return ((float)aw[at + i] + (float)aw[low + at + i] / 127.f) * asc[((base + t) * kv_heads + g) * 2 + 1];
      });
  if (threadIdx.x < hd) out[((long)r * heads + h) * hd + threadIdx.x] = acc / l;
}
