// Qwen3-Next's linear attention: a causal convolution over the mixed q, k, v rows with its window kept as state
// (conv), and the gated delta rule with its gates and gated norm, stepped a row at a time (delta_step) or over a
// chunk of rows in chunks of DELTA_CHUNK (delta_chunk).
//
// A delta-rule row of `hk` key heads and `hv` value heads of `d`: qkv holds q (hk heads), k (hk heads), v (hv heads);
// value head h reads key head h / (hv / hk). q and k are L2-normed (q also scaled by 1/sqrt(d)); the gates are
// g = -exp(a_log[h]) * softplus(a + dt_bias[h]) and beta = sigmoid(b) with (a, b) = (ab[h], ab[hv + h]). The state S
// [hv, d (keys), d (values)] decays by exp(g), then S += k (beta (v - S^T k))^T, and the output S^T q is normed
// (RMS, eps) times gain times silu(z) into `out`, plain and/or quantized.
#include "common.cuh"

#define CONV_MAX 8
#define DELTA_CHUNK 64

__device__ __forceinline__ float softplus(float x) { return x > 20.f ? x : log1pf(expf(x)); }
__device__ __forceinline__ float sigmoid(float x) { return 1.f / (1.f + expf(-x)); }

// out[t, c] = silu(sum_j w[c, j] * in[t + j]) over in = (state's width - 1 rows, then x's rows), channel c a thread;
// the state left holding the last width - 1 rows of in; grid (ceil(channels / THREADS), seqs): sequence blockIdx.y's
// `rows` rows (of x and out, a sequence's after another's) after its own window (state [seqs, width - 1, channels]).
extern "C" __global__ void conv(float* state, float* out, const float* x, const float* w, int rows, int channels,
                                int width) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= channels) return;
  state += (long)blockIdx.y * (width - 1) * channels;
  x += (long)blockIdx.y * rows * channels;
  out += (long)blockIdx.y * rows * channels;
  float win[CONV_MAX];
  for (int j = 0; j < width - 1; ++j) win[j] = state[(long)j * channels + c];
  for (int t = 0; t < rows; ++t) {
    win[width - 1] = x[(long)t * channels + c];
    float s = 0.f;
    for (int j = 0; j < width; ++j) s = fmaf(w[(long)c * width + j], win[j], s);
    out[(long)t * channels + c] = silu(s);
    for (int j = 0; j < width - 1; ++j) win[j] = win[j + 1];
  }
  for (int j = 0; j < width - 1; ++j) state[(long)j * channels + c] = win[j];
}

// The gated norm of head h of row t: o's d values normed, times gain, times silu(z), into out / (oh, ol, os).
__device__ void gated_norm(float* out, signed char* oh, signed char* ol, float* os, const float* o, const float* z,
                           const float* gain, long at, int d, float eps) {
  float ss = 0.f;
  for (int i = threadIdx.x; i < d; i += blockDim.x) ss = fmaf(__ldcg(&o[at + i]), __ldcg(&o[at + i]), ss);
  const float inv = 1.f / sqrtf(block_sum(ss) / (float)d + eps);
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    const float y = __ldcg(&o[at + i]) * inv * gain[i] * silu(z[at + i]);
    if (out) out[at + i] = y;
    if (oh) quantize_block(y, at + i, oh, ol, os);  // d a whole number of blocks: whole warps a block
  }
}

// 1 / |x| over d values (eps 1e-6 inside the root), in every thread.
__device__ float inv_norm(const float* x, int d) {
  float ss = 0.f;
  for (int i = threadIdx.x; i < d; i += blockDim.x) ss = fmaf(x[i], x[i], ss);
  return rsqrtf(block_sum(ss) + 1e-6f);
}

// One row a sequence stepped; grid (hv, ceil(d / TILE), seqs): a block TILE value columns of head h of sequence
// blockIdx.z's row (its state [hv, d, d] the slot-major state's blockIdx.z-th), a thread a column. Unnormed outputs in
// o[seqs, hv, d]; the last block of a head to arrive at dc[seqs, hv] norms it.
extern "C" __global__ void delta_step(float* state, float* out, signed char* oh, signed char* ol, float* os, float* o,
                                      int* dc, const float* qkv, const float* z, const float* ab, const float* a_log,
                                      const float* dt_bias, const float* gain, int hv, int hk, int d, float eps) {
  const int h = blockIdx.x, kh = h / (hv / hk), j = blockIdx.y * TILE + threadIdx.x;
  const long row = blockIdx.z, at = (row * hv + h) * d;  // head h of the row in o, z and out
  qkv += row * (2 * hk + hv) * d;
  ab += row * 2 * hv;
  state += row * hv * d * d;
  dc += row * hv;
  const float* q = qkv + (long)kh * d;
  const float* k = qkv + (long)(hk + kh) * d;
  const float* v = qkv + (long)(2 * hk) * d + (long)h * d;
  const float iq = inv_norm(q, d) * rsqrtf((float)d), ik = inv_norm(k, d);
  const float decay = expf(-expf(a_log[h]) * softplus(ab[h] + dt_bias[h])), beta = sigmoid(ab[hv + h]);
  float* s = state + (long)h * d * d;
  if (threadIdx.x < TILE && j < d) {
    float kv = 0.f;
    for (int i = 0; i < d; ++i) kv = fmaf(s[(long)i * d + j] * decay, k[i] * ik, kv);
    const float delta = (v[j] - kv) * beta;
    float y = 0.f;
    for (int i = 0; i < d; ++i) {
      const float si = fmaf(k[i] * ik, delta, s[(long)i * d + j] * decay);
      s[(long)i * d + j] = si;
      y = fmaf(si, q[i] * iq, y);
    }
    o[at + j] = y;
  }
  if (!last_arrival(&dc[h], gridDim.y)) return;
  gated_norm(out, oh, ol, os, o, z, gain, at, d, eps);
}

// A chunk of `rows` rows in chunks of DELTA_CHUNK; grid (hv): a block a head, through its chunks in order, a thread a
// value column where it works on columns. Per chunk c of head h (n rows), in scratch [chunks, hv, ...]:
// dg the cumulative log decays G; dq the queries then the decayed queries q exp(G); dk the keys, then
// k_cumdecay = Tb (k exp(G)), then the new values; dp the masked scores (q_t . k_s) exp(G_t - G_s), s <= t; dt
// Tb = (I + A)^-1-style T of the chunk times diag(beta). Unnormed outputs in o[rows, hv, d], normed at the end.
extern "C" __global__ void delta_chunk(float* state, float* out, signed char* oh, signed char* ol, float* os, float* o,
                                       float* dk, float* dq, float* dt, float* dp, float* dg, const float* qkv,
                                       const float* z, const float* ab, const float* a_log, const float* dt_bias,
                                       const float* gain, int rows, int hv, int hk, int d, float eps) {
  const int h = blockIdx.x, kh = h / (hv / hk), tid = threadIdx.x, C = DELTA_CHUNK;
  const long width = (long)(2 * hk + hv) * d, ow = (long)hv * d;
  const float scale = rsqrtf((float)d), a_h = -expf(a_log[h]);
  __shared__ float kinv[DELTA_CHUNK];
  float* s = state + (long)h * d * d;
  for (int c = 0; c * C < rows; ++c) {
    const int t0 = c * C, n = min(C, rows - t0);
    const long base = ((long)c * hv + h);
    float* K = dk + base * C * d;
    float* Q = dq + base * C * d;
    float* T = dt + base * C * C;
    float* P = dp + base * C * C;
    float* G = dg + base * C;
    // a. normed keys and scaled normed queries; cumulative decays.
    for (int t = 0; t < n; ++t) {
      const float* row = qkv + (t0 + t) * width;
      const float iq = inv_norm(row + (long)kh * d, d) * scale, ik = inv_norm(row + (long)(hk + kh) * d, d);
      if (tid == 0) kinv[t] = ik;
      for (int i = tid; i < d; i += blockDim.x) {
        Q[(long)t * d + i] = row[(long)kh * d + i] * iq;
        K[(long)t * d + i] = row[(long)(hk + kh) * d + i] * ik;
      }
    }
    if (tid == 0) {
      float acc = 0.f;
      for (int t = 0; t < n; ++t) {
        acc += a_h * softplus(ab[(long)(t0 + t) * 2 * hv + h] + dt_bias[h]);
        G[t] = acc;
      }
    }
    __syncthreads();
    // b. masked scores, and A = -(beta_t k_t . k_s) exp(G_t - G_s) below the diagonal (into T).
    for (int p = tid; p < n * n; p += blockDim.x) {
      const int t = p / n, u = p % n;
      float qk = 0.f, kk = 0.f;
      for (int i = 0; i < d; ++i) {
        qk = fmaf(Q[(long)t * d + i], K[(long)u * d + i], qk);
        kk = fmaf(K[(long)t * d + i], K[(long)u * d + i], kk);
      }
      const float e = u <= t ? expf(G[t] - G[u]) : 0.f;
      const float beta_t = sigmoid(ab[(long)(t0 + t) * 2 * hv + hv + h]);
      P[(long)t * C + u] = u <= t ? qk * e : 0.f;
      T[(long)t * C + u] = u < t ? -beta_t * kk * e : 0.f;
    }
    __syncthreads();
    // c. row t of A += sum over u < t of A[t, u] A[u, :] (rows before t already done), then T = (A + I) diag(beta).
    for (int t = 1; t < n; ++t) {
      float add = 0.f;
      if (tid < t)
        for (int u = tid + 1; u < t; ++u) add = fmaf(T[(long)t * C + u], T[(long)u * C + tid], add);
      __syncthreads();
      if (tid < t) T[(long)t * C + tid] += add;
      __syncthreads();
    }
    for (int p = tid; p < n * n; p += blockDim.x) {
      const int t = p / n, u = p % n;
      const float beta_u = sigmoid(ab[(long)(t0 + u) * 2 * hv + hv + h]);
      T[(long)t * C + u] = (T[(long)t * C + u] + (t == u ? 1.f : 0.f)) * beta_u;
    }
    __syncthreads();
    // d. k_cumdecay = T (k exp(G)), made in o's rows of the chunk, then e. into dk; the queries decayed.
    for (int p = tid; p < n * d; p += blockDim.x) {
      const int t = p / d, i = p % d;
      float acc = 0.f;
      for (int u = 0; u <= t; ++u) acc = fmaf(T[(long)t * C + u], K[(long)u * d + i] * expf(G[u]), acc);
      o[(t0 + t) * ow + (long)h * d + i] = acc;
    }
    __syncthreads();
    for (int p = tid; p < n * d; p += blockDim.x) {
      const int t = p / d, i = p % d;
      K[(long)t * d + i] = o[(t0 + t) * ow + (long)h * d + i];
      Q[(long)t * d + i] *= expf(G[t]);
    }
    __syncthreads();
    // f. each row's output from the state and its new values (into dk), a thread a value column.
    for (int t = 0; t < n; ++t) {
      float inter = 0.f, vnew = 0.f;
      if (tid < d) {
        float vp = 0.f, value = 0.f;
        for (int i = 0; i < d; ++i) {
          inter = fmaf(Q[(long)t * d + i], s[(long)i * d + tid], inter);
          vp = fmaf(K[(long)t * d + i], s[(long)i * d + tid], vp);
        }
        for (int u = 0; u <= t; ++u)
          value = fmaf(T[(long)t * C + u], qkv[(t0 + u) * width + (long)(2 * hk) * d + (long)h * d + tid], value);
        vnew = value - vp;
      }
      __syncthreads();
      if (tid < d) {
        K[(long)t * d + tid] = vnew;
        o[(t0 + t) * ow + (long)h * d + tid] = inter;
      }
      __syncthreads();
    }
    // g. outputs within the chunk; h. the state carried past it.
    if (tid < d) {
      for (int t = 0; t < n; ++t) {
        float acc = o[(t0 + t) * ow + (long)h * d + tid];
        for (int u = 0; u <= t; ++u) acc = fmaf(P[(long)t * C + u], K[(long)u * d + tid], acc);
        o[(t0 + t) * ow + (long)h * d + tid] = acc;
      }
      const float last = G[n - 1];
      for (int i = 0; i < d; ++i) {
        float acc = s[(long)i * d + tid] * expf(last);
        for (int t = 0; t < n; ++t) {
          const float kt = qkv[(t0 + t) * width + (long)(hk + kh) * d + i] * kinv[t];
          acc = fmaf(kt * expf(last - G[t]), K[(long)t * d + tid], acc);
        }
        s[(long)i * d + tid] = acc;
      }
    }
    __syncthreads();
  }
  for (int t = 0; t < rows; ++t) gated_norm(out, oh, ol, os, o, z, gain, t * ow + (long)h * d, d, eps);
}
