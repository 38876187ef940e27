// Attention with what feeds it (rope_attention.py's kinds): a decode row's q heads and k (normed where the gains are
// given), turned by the row's position, k and v appended to the caches, and attention over the positions seen, in one
// kernel, split in chunks sized at run time from the position: a block a chunk of a kv group, every q head of the
// group in it (the group's key and value rows read once), each warp with IN_FLIGHT positions in flight. A chunk's rows
// are made and appended by a kernel first (rope_append), each then attending as a decode row does.
#include "common.cuh"
#include "rope.cuh"

#define HD_MAX 256     // a head's values: HD_MAX / 32 a lane
#define GROUP_MAX 8    // q heads a kv head serves
#define IN_FLIGHT 2    // positions a warp reads and scores at a time
#define GRAIN (WARPS * IN_FLIGHT)  // a chunk is a whole number of these: every warp takes a full step

// exp(m - top), or 0 for a softmax that saw no position (m = -inf), whatever top is.
__device__ __forceinline__ float kept(float m, float top) { return m == -INFINITY ? 0.f : expf(m - top); }

// The positions each of `splits` chunks takes of the `seen` a row sees: ceil(seen / splits) rounded up to GRAIN
// (the kind's chunk_size, CHUNK_GRAIN = GRAIN), so the chunks past ceil(seen / chunk) see none.
__device__ __forceinline__ int chunk_size(int seen, int splits) {
  const int even = (seen + splits - 1) / splits;
  return (even + GRAIN - 1) / GRAIN * GRAIN;
}

// Row x of hd values (shared memory) normed in place by one warp: x / sqrt(mean(x^2) + eps) * gain.
__device__ void warp_norm(float* x, const float* gain, int hd, float eps) {
  const int lane = threadIdx.x & 31;
  float ss = 0.f;
  for (int i = lane; i < hd; i += 32) ss = fmaf(x[i], x[i], ss);
  const float inv = 1.f / sqrtf(warp_sum(ss) / (float)hd + eps);
  for (int i = lane; i < hd; i += 32) x[i] = x[i] * inv * gain[i];
  __syncwarp();
}

// Row x of hd values (shared memory) replaced by one warp with what its two words stand for: s = max|x| / 127,
// hi = clamp(rint(x / s)), lo = clamp(rint((x / s - hi) * 127)), x = (hi + lo / 127) * s; 0 where s is 0.
__device__ void warp_two_words(float* x, int hd) {
  const int lane = threadIdx.x & 31;
  float top = 0.f;
  for (int i = lane; i < hd; i += 32) top = fmaxf(top, fabsf(x[i]));
  const float s = warp_max(top) / 127.f;
  for (int i = lane; i < hd; i += 32) {
    float y = 0.f;
    if (s != 0.f) {
      const float t = x[i] / s;
      const float hi = fminf(fmaxf(rintf(t), -127.f), 127.f);
      const float lo = fminf(fmaxf(rintf((t - hi) * 127.f), -127.f), 127.f);
      y = (hi + lo / 127.f) * s;
    }
    x[i] = y;
  }
  __syncwarp();
}

// Row r's new values into shared memory, every thread of the block calling: its q heads [g * group, (g + 1) * group)
// into sq and kv head g of its k and v into sk and sv (heads of `hd`), normed by q_gain and k_gain where not null,
// their first `rot` values turned at position p (rope's `frequency`, its scaling, n the step's last position + 1),
// and k and v in two words where `two_words`.
__device__ void new_row(float* sq, float* sk, float* sv, const float* q, const float* k, const float* v,
                        const float* q_gain, const float* k_gain, int r, int g, int heads, int kv_heads, int hd,
                        float eps, int p, int n, int rot, float theta, int scaling, float factor, float low, float high,
                        int original, int two_words) {
  const int group = heads / kv_heads, warp = threadIdx.x >> 5;
  for (int i = threadIdx.x; i < group * hd; i += blockDim.x) sq[i] = q[((long)r * heads + (long)g * group) * hd + i];
  for (int i = threadIdx.x; i < hd; i += blockDim.x) {
    sk[i] = k[((long)r * kv_heads + g) * hd + i];
    sv[i] = v[((long)r * kv_heads + g) * hd + i];
  }
  __syncthreads();
  if (q_gain) {
    for (int row = warp; row <= group; row += WARPS)
      warp_norm(row < group ? sq + row * hd : sk, row < group ? q_gain : k_gain, hd, eps);
    __syncthreads();
  }
  // Each pair's angle once (in double: in f32 it is off by far more than rounding at long positions), then every
  // row turned by it.
  const int half = rot / 2;
  __shared__ float cosine[HD_MAX / 2], sine[HD_MAX / 2];
  for (int i = threadIdx.x; i < half; i += blockDim.x) {
    double s, co;
    sincos((double)p * frequency(i, rot, theta, scaling, factor, low, high, original, (double)n), &s, &co);
    cosine[i] = (float)co;
    sine[i] = (float)s;
  }
  __syncthreads();
  for (int at = threadIdx.x; at < (group + 1) * half; at += blockDim.x) {
    const int row = at / half, i = at % half;
    float* x = row < group ? sq + row * hd : sk;
    const float a = x[i], b = x[i + half];
    x[i] = a * cosine[i] - b * sine[i];
    x[i + half] = b * cosine[i] + a * sine[i];
  }
  __syncthreads();
  if (two_words) {
    if (warp == 0) warp_two_words(sk, hd);
    if (warp == 1) warp_two_words(sv, hd);
    __syncthreads();
  }
}

// A chunk's rows before their attention (more than one row a sequence: rope_attention then reads them): block (r, g)
// makes row r's new values (new_row, at pos[r], n = the largest position of r's sequence + 1), writes its q heads to
// aq[rows, heads * hd] and its k and v at pos[r] into the caches' slot of r's sequence (slot_of r, of `seqs` slots of
// `length` rows; nothing where pos[r] lies outside [0, length)); grid (rows, kv_heads).
extern "C" __global__ void rope_append(float* aq, float* kc, float* vc, const float* q, const float* k, const float* v,
                                       const int* pos, const float* q_gain, const float* k_gain, int heads,
                                       int kv_heads, int hd, int length, float eps, int rot, float theta, int scaling,
                                       float factor, float low, float high, int original, int two_words, int seqs) {
  const int r = blockIdx.x, g = blockIdx.y, group = heads / kv_heads, p = pos[r];
  const int per = gridDim.x / seqs, s = (int)slot_of(r, gridDim.x, seqs);
  int last = 0;
  for (int i = s * per; i < (s + 1) * per; ++i) last = max(last, pos[i]);
  __shared__ float sq[GROUP_MAX * HD_MAX], sk[HD_MAX], sv[HD_MAX];
  new_row(sq, sk, sv, q, k, v, q_gain, k_gain, r, g, heads, kv_heads, hd, eps, p, last + 1, rot, theta, scaling,
          factor, low, high, original, two_words);
  for (int i = threadIdx.x; i < group * hd; i += blockDim.x) aq[((long)r * heads + (long)g * group) * hd + i] = sq[i];
  if (p < 0 || p >= length) return;
  const long at = ((long)s * length + p) * kv_heads * hd + (long)g * hd;
  for (int i = threadIdx.x; i < hd; i += blockDim.x) {
    kc[at + i] = sk[i];
    vc[at + i] = sv[i];
  }
}

// Attention of row r at p = pos[r] (nothing where p lies outside [0, length)) over the caches' slot of its sequence
// (slot_of r, of `seqs` slots of `length` rows); grid (splits, kv_heads, rows).
// With k and v (a decode row, one a sequence), block (c, g) makes the row's new values (new_row, n = p + 1), and the block whose
// chunk holds p writes k and v at p into the caches (rows of kv_heads * hd) and reads them from shared memory; with
// k null (a chunk's rows, after rope_append) q is read as it is and every position from the caches. The block
// scores kv group g's q heads against the cache positions of chunk c of those p sees, [window_start(p, window), p],
// chunk_size long; one chunk (splits = 1) writes out = softmax(scores / sqrt(hd)) . values. Else each chunk writes
// each head's (max, sum of exp(score - max), sum of exp(score - max) * value) to ap[rows, heads, splits, hd + 2],
// and the last of a group's chunks to arrive at ac[rows, kv_heads] folds them in chunk order.
extern "C" __global__ void rope_attention(float* out, float* kc, float* vc, float* ap, int* ac, const float* q,
                                          const float* k, const float* v, const int* pos, const float* q_gain,
                                          const float* k_gain, int heads, int kv_heads, int hd, int length,
                                          int window, float eps, int rot, float theta, int scaling, float factor,
                                          float low, float high, int original, int two_words, int seqs) {
  const int c = blockIdx.x, g = blockIdx.y, r = blockIdx.z, splits = gridDim.x, group = heads / kv_heads;
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int p = pos[r];
  if (p < 0 || p >= length) return;
  const long slot = slot_of(r, gridDim.z, seqs) * length * kv_heads * hd;
  kc += slot;
  vc += slot;
  const int width = kv_heads * hd, first = window_start(p, window), chunk = chunk_size(p + 1 - first, splits);
  const int t0 = first + c * chunk, t1 = min(t0 + chunk, p + 1);
  const bool fresh = k != nullptr;  // the new row made here

  __shared__ float sq[GROUP_MAX * HD_MAX], sk[HD_MAX], sv[HD_MAX];
  if (fresh && t0 < t1) {  // a chunk past the positions seen scores nothing: it only arrives
    new_row(sq, sk, sv, q, k, v, q_gain, k_gain, r, g, heads, kv_heads, hd, eps, p, p + 1, rot, theta, scaling, factor,
            low, high, original, two_words);
    if (t0 <= p && p < t1)
      for (int i = threadIdx.x; i < hd; i += blockDim.x) {
        kc[(long)p * width + (long)g * hd + i] = sk[i];
        vc[(long)p * width + (long)g * hd + i] = sv[i];
      }
  } else if (!fresh) {
    for (int i = threadIdx.x; i < group * hd; i += blockDim.x)
      sq[i] = q[((long)r * heads + (long)g * group) * hd + i];
    __syncthreads();
  }

  const float scale = rsqrtf((float)hd);
  float m[GROUP_MAX], l[GROUP_MAX], acc[GROUP_MAX][HD_MAX / 32];
#pragma unroll
  for (int h = 0; h < GROUP_MAX; ++h) {
    m[h] = -INFINITY;
    l[h] = 0.f;
#pragma unroll
    for (int j = 0; j < HD_MAX / 32; ++j) acc[h][j] = 0.f;
  }
  for (int base = t0 + warp * IN_FLIGHT; base < t1; base += GRAIN) {  // warp-uniform: every lane the same base
    float kr[IN_FLIGHT][HD_MAX / 32], vr[IN_FLIGHT][HD_MAX / 32];
#pragma unroll
    for (int f = 0; f < IN_FLIGHT; ++f) {
      const int t = base + f;
      const float* krow = fresh && t == p ? sk : kc + (long)t * width + (long)g * hd;
      const float* vrow = fresh && t == p ? sv : vc + (long)t * width + (long)g * hd;
#pragma unroll
      for (int j = 0; j < HD_MAX / 32; ++j) {
        const int d = lane + 32 * j;
        const bool in = t < t1 && d < hd;
        kr[f][j] = in ? krow[d] : 0.f;
        vr[f][j] = in ? vrow[d] : 0.f;
      }
    }
#pragma unroll
    for (int h = 0; h < GROUP_MAX; ++h) {
      if (h < group) {
        float s[IN_FLIGHT], top = m[h];
#pragma unroll
        for (int f = 0; f < IN_FLIGHT; ++f) {
          float d = 0.f;
#pragma unroll
          for (int j = 0; j < HD_MAX / 32; ++j)
            if (lane + 32 * j < hd) d = fmaf(sq[h * hd + lane + 32 * j], kr[f][j], d);
          d = warp_sum(d) * scale;
          s[f] = base + f < t1 ? d : -INFINITY;
          top = fmaxf(top, s[f]);
        }
        const float was = kept(m[h], top);
        float e[IN_FLIGHT], sum = 0.f;
#pragma unroll
        for (int f = 0; f < IN_FLIGHT; ++f) {
          e[f] = kept(s[f], top);
          sum += e[f];
        }
        l[h] = l[h] * was + sum;
#pragma unroll
        for (int j = 0; j < HD_MAX / 32; ++j) {
          float a = acc[h][j] * was;
#pragma unroll
          for (int f = 0; f < IN_FLIGHT; ++f) a = fmaf(e[f], vr[f][j], a);
          acc[h][j] = a;
        }
        m[h] = top;
      }
    }
  }

  // The warps' softmaxes merged in warp order, a head at a time.
  __shared__ float wm[WARPS], wl[WARPS], wacc[WARPS][HD_MAX];
#pragma unroll
  for (int h = 0; h < GROUP_MAX; ++h) {
    if (h < group) {  // uniform over the block: its __syncthreads are reached by every thread
      if (lane == 0) {
        wm[warp] = m[h];
        wl[warp] = l[h];
      }
#pragma unroll
      for (int j = 0; j < HD_MAX / 32; ++j)
        if (lane + 32 * j < hd) wacc[warp][lane + 32 * j] = acc[h][j];
      __syncthreads();
      float top = -INFINITY;
      for (int w = 0; w < WARPS; ++w) top = fmaxf(top, wm[w]);
      float sum = 0.f;
      for (int w = 0; w < WARPS; ++w) sum += wl[w] * kept(wm[w], top);
      const long head = (long)r * heads + (long)g * group + h;  // of all rows' heads
      float* mine = ap + (head * splits + c) * (hd + 2);
      if (splits > 1 && threadIdx.x == 0) {
        mine[0] = top;
        mine[1] = sum;
      }
      for (int d = threadIdx.x; d < hd; d += blockDim.x) {
        float val = 0.f;
        for (int w = 0; w < WARPS; ++w) val += wacc[w][d] * kept(wm[w], top);
        if (splits == 1)
          out[head * hd + d] = val / sum;
        else
          mine[2 + d] = val;
      }
      __syncthreads();
    }
  }
  if (splits == 1 || !last_arrival(&ac[r * kv_heads + g], splits)) return;
  for (long head = (long)r * heads + (long)g * group; head < (long)r * heads + (long)(g + 1) * group; ++head) {
    const float* all = ap + head * splits * (hd + 2);
    float best = -INFINITY;
    for (int i = 0; i < splits; ++i) best = fmaxf(best, __ldcg(&all[i * (hd + 2)]));
    float total = 0.f;
    for (int i = 0; i < splits; ++i) total += __ldcg(&all[i * (hd + 2) + 1]) * kept(__ldcg(&all[i * (hd + 2)]), best);
    for (int d = threadIdx.x; d < hd; d += blockDim.x) {
      float val = 0.f;
      for (int i = 0; i < splits; ++i)
        val += __ldcg(&all[i * (hd + 2) + 2 + d]) * kept(__ldcg(&all[i * (hd + 2)]), best);
      out[head * hd + d] = val / total;
    }
  }
}
