// The arg-max of each row of logits, in blocks of ARGMAX_BLOCK values (kinds.ARGMAX_BLOCK).
#include "common.cuh"

#define ARGMAX_BLOCK 1024

// out[r] = the index of the largest of the `v` logits of row r (ties to the lowest index), -1 where the row holds a
// NaN or +Inf (nothing to choose from: the weights overflowed, and a sampler would draw nothing either); grid
// (ceil(v / ARGMAX_BLOCK), rows). Each block writes its best value and index to av[r, b] and ai[r, b]; the last block
// of a row to arrive at ac[r] picks the best of them, in block order.
extern "C" __global__ void argmax(int* out, const float* logits, float* av, int* ai, int* ac, int v) {
  const int b = blockIdx.x, r = blockIdx.y, blocks = gridDim.x;
  const float* row = logits + (long)r * v;
  float best = -INFINITY;
  int at = v;
  for (int i = b * ARGMAX_BLOCK + threadIdx.x; i < min(v, (b + 1) * ARGMAX_BLOCK); i += blockDim.x)
    if (beats(row[i], i, best, at)) {
      best = row[i];
      at = i;
    }
  warp_best(best, at);
  __shared__ float wv[WARPS];
  __shared__ int wi[WARPS];
  if ((threadIdx.x & 31) == 0) {
    wv[threadIdx.x >> 5] = best;
    wi[threadIdx.x >> 5] = at;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int w = 1; w < WARPS; ++w)
      if (beats(wv[w], wi[w], best, at)) {
        best = wv[w];
        at = wi[w];
      }
    av[(long)r * blocks + b] = best;
    ai[(long)r * blocks + b] = at;
  }
  if (!last_arrival(&ac[r], blocks) || threadIdx.x != 0) return;
  for (int i = 0; i < blocks; ++i) {
    const float bv = __ldcg(&av[(long)r * blocks + i]);
    const int bi = __ldcg(&ai[(long)r * blocks + i]);
    if (beats(bv, bi, best, at)) {
      best = bv;
      at = bi;
    }
  }
  out[r] = isnan(best) || best == INFINITY ? -1 : at;
}
