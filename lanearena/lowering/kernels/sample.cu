// Each row's token drawn from its logits (lane.sample): the procedure of lanearena/decoding.py in f32, one block a
// row, so that nothing meets in scratch and the draw needs no second launch.
#include "common.cuh"

// The 32-bit key that orders floats as their values do (NaN aside): larger value, larger key; -0 and +0 one key,
// as they are one value.
__device__ __forceinline__ unsigned key_of(float x) {
  const unsigned u = __float_as_uint(x == 0.f ? 0.f : x);
  return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}

// The key of the k-th largest of the row's `v` values (0 < k < v), counted with repeats: a radix select, eight bits
// a pass, in integer counts (the same on every run).
__device__ unsigned kth_key(const float* row, int v, int k) {
  __shared__ unsigned hist[256];
  __shared__ unsigned picked[2];
  unsigned prefix = 0, mask = 0, want = k;
  for (int shift = 24; shift >= 0; shift -= 8) {
    for (int b = threadIdx.x; b < 256; b += blockDim.x) hist[b] = 0;
    __syncthreads();
    for (int i = threadIdx.x; i < v; i += blockDim.x) {
      const unsigned key = key_of(row[i]);
      if ((key & mask) == prefix) atomicAdd(&hist[(key >> shift) & 255u], 1u);
    }
    __syncthreads();
    if (threadIdx.x == 0) {
      unsigned b = 255;
      while (b > 0 && want > hist[b]) want -= hist[b--];
      picked[0] = b;
      picked[1] = want;
    }
    __syncthreads();
    prefix |= picked[0] << shift;
    mask |= 255u << shift;
    want = picked[1];
    __syncthreads();
  }
  return prefix;
}

// The weight of a value of the row: exp((x - largest) / temperature), 1 at the largest.
__device__ __forceinline__ float weight(float x, float largest, float temperature) {
  return expf((x - largest) / temperature);
}

// The values a draw runs over, in id order: the whole row (in global memory), or the candidates of it that the
// top-k cut keeps (gathered in shared memory, with their ids), so that the top-p search and the draw read no more.
struct Whole {
  const float* row;
  int n;
  __device__ __forceinline__ float value(int j) const { return row[j]; }
  __device__ __forceinline__ int id(int j) const { return j; }
};
struct Gathered {
  const float* values;
  const int* ids;
  int n;
  __device__ __forceinline__ float value(int j) const { return values[j]; }
  __device__ __forceinline__ int id(int j) const { return ids[j]; }
};

#define GATHERED 1024  // the most candidates gathered in shared memory (8 KB)

// The kept weight of `r` from key `from` up: the sum of the weights of the values whose key is at least `from`.
template <typename R>
__device__ float weight_from(const R& r, unsigned from, float largest, float temperature) {
  float s = 0.f;
  for (int j = threadIdx.x; j < r.n; j += blockDim.x)
    if (key_of(r.value(j)) >= from) s += weight(r.value(j), largest, temperature);
  return block_sum(s);
}

// The largest key from `from` up whose kept weight reaches `need` (top_p of the kept weight; the weight from `from`
// reaches it): a binary search over keys, a pass of weights a step.
template <typename R>
__device__ unsigned top_p_key(const R& r, unsigned from, float largest, float temperature, float need) {
  unsigned lo = from, hi = key_of(largest);
  while (lo < hi) {
    const unsigned mid = lo + (hi - lo) / 2 + 1;
    if (weight_from(r, mid, largest, temperature) >= need)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

// The id drawn from the values of `r` from key `from` up with uniform number u: the first, in order, whose running
// weight passes u times their weight (the last with weight where rounding leaves none). Each thread takes a run of
// `r` in order and sums its kept weight; thread 0 finds the run the draw falls in; that run's thread walks it. In
// thread 0 only (the others return -1).
template <typename R>
__device__ int draw_from(const R& r, unsigned from, float largest, float temperature, float u) {
  __shared__ float parts[THREADS];
  __shared__ int owner;
  __shared__ float before, target;
  __shared__ int drawn;
  const int per = (r.n + blockDim.x - 1) / blockDim.x, j0 = threadIdx.x * per, j1 = min(r.n, j0 + per);
  float s = 0.f;
  for (int j = j0; j < j1; ++j)
    if (key_of(r.value(j)) >= from) s += weight(r.value(j), largest, temperature);
  parts[threadIdx.x] = s;
  __syncthreads();
  if (threadIdx.x == 0) {
    float total = 0.f;
    for (int t = 0; t < blockDim.x; ++t) total += parts[t];
    const float aim = u * total;
    float run = 0.f;
    int t = 0, last = 0;
    for (; t < blockDim.x; ++t) {
      if (parts[t] > 0.f) last = t;
      if (run + parts[t] > aim && parts[t] > 0.f) break;
      run += parts[t];
    }
    if (t == blockDim.x) {  // rounding left the aim past the sum: the last run with weight
      t = last;
      run = 0.f;
      for (int j = 0; j < t; ++j) run += parts[j];
    }
    owner = t;
    before = run;
    target = aim;
  }
  __syncthreads();
  if (threadIdx.x == owner) {
    float run = before;
    int token = -1;
    for (int j = j0; j < j1; ++j) {
      const float w = key_of(r.value(j)) < from ? 0.f : weight(r.value(j), largest, temperature);
      if (w == 0.f) continue;
      token = r.id(j);  // the last with weight so far: the token where rounding leaves the aim past the run's end
      run += w;
      if (run > target) break;
    }
    drawn = token;
  }
  __syncthreads();
  return threadIdx.x == 0 ? drawn : -1;
}

// The top-p cut (where top_p < 1: the largest key whose kept weight reaches `need`) and the draw over `r` from key
// `from` up: the token, in thread 0.
template <typename R>
__device__ int cut_and_draw(const R& r, unsigned from, float largest, float temperature, float top_p, float need,
                            float u) {
  if (top_p < 1.f) from = top_p_key(r, from, largest, temperature, need);
  return draw_from(r, from, largest, temperature, u);
}

// How many of the row's `v` values have a key from `from` up; where at most GATHERED, they are copied in id order
// into values and ids (each thread counts its run of ids, then copies it at the count of the runs before it).
__device__ int gather(const float* row, int v, unsigned from, float* values, int* ids) {
  __shared__ int counts[THREADS];
  const int per = (v + blockDim.x - 1) / blockDim.x, i0 = threadIdx.x * per, i1 = min(v, i0 + per);
  int mine = 0;
  for (int i = i0; i < i1; ++i) mine += key_of(row[i]) >= from;
  counts[threadIdx.x] = mine;
  __syncthreads();
  int at = 0, kept = 0;
  for (int t = 0; t < blockDim.x; ++t) {
    at += t < threadIdx.x ? counts[t] : 0;
    kept += counts[t];
  }
  if (kept <= GATHERED)  // the same in every thread
    for (int i = i0; i < i1; ++i)
      if (key_of(row[i]) >= from) {
        values[at] = row[i];
        ids[at++] = i;
      }
  __syncthreads();
  return kept;
}

// out[r] = the token drawn from row r of `logits` (rows of `v`) with the uniform number draw[r]: the values kept
// are those from the top_k-th largest (top_k 0 or at least v: all), of those the fewest largest whose weight
// reaches top_p of theirs (ties kept together); the token is the first kept, in id order, whose running weight
// passes draw[r] times the kept weight. -1 where the row holds a NaN or +Inf. Grid (1, rows).
// The cut and the draw read the row once a step of the search, so the candidates are gathered into shared memory
// first where they can be: those the top-k cut keeps, where at most GATHERED; with top-p alone, the GATHERED largest
// (with ties), where their weight reaches top_p of the row's (the top-p cut then falls among them).
extern "C" __global__ void sample(int* out, const float* logits, const float* draw, int v, float temperature,
                                  int top_k, float top_p) {
  __shared__ float values[GATHERED];
  __shared__ int ids[GATHERED];
  const int r = blockIdx.y;
  const Whole whole{logits + (long)r * v, v};
  const float u = draw[r];

  float largest = -INFINITY;
  int bad = 0;
  for (int i = threadIdx.x; i < v; i += blockDim.x) {
    const float x = whole.row[i];
    bad |= isnan(x) || x == INFINITY;
    largest = fmaxf(largest, x);
  }
  largest = block_max(largest);
  if (__syncthreads_or(bad) || largest == -INFINITY) {  // the same in every thread: the block returns whole
    if (threadIdx.x == 0) out[r] = -1;
    return;
  }
  int token;
  if (top_k > 0 && top_k < v) {
    const unsigned from = kth_key(whole.row, v, top_k);  // the least key kept
    const int kept = gather(whole.row, v, from, values, ids);
    if (kept <= GATHERED) {
      const Gathered g{values, ids, kept};
      const float need = top_p * weight_from(g, from, largest, temperature);
      token = cut_and_draw(g, from, largest, temperature, top_p, need, u);
    } else {
      const float need = top_p * weight_from(whole, from, largest, temperature);
      token = cut_and_draw(whole, from, largest, temperature, top_p, need, u);
    }
  } else if (top_p < 1.f && v > GATHERED) {
    const float need = top_p * weight_from(whole, 0u, largest, temperature);
    const unsigned first = kth_key(whole.row, v, GATHERED);
    const int kept = gather(whole.row, v, first, values, ids);
    const Gathered g{values, ids, kept};
    if (kept <= GATHERED && weight_from(g, first, largest, temperature) >= need)  // the same in every thread
      token = cut_and_draw(g, first, largest, temperature, top_p, need, u);
    else
      token = cut_and_draw(whole, 0u, largest, temperature, top_p, need, u);
  } else {
    const float need = top_p < 1.f ? top_p * weight_from(whole, 0u, largest, temperature) : 0.f;
    token = cut_and_draw(whole, 0u, largest, temperature, top_p, need, u);
  }
  if (threadIdx.x == 0) out[r] = token;
}
