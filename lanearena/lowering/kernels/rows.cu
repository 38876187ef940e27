// Row-wise kinds: gather, norm, quantize. A block of THREADS threads a row (quantize: THREADS values).
#include "common.cuh"

// out[r] = dequantized table[ids[r]] (f32 at `table` when `scales` is null, else Q8_0), rows of `d`; grid (rows).
// An id outside [0, v) writes nothing.
template <typename W>
__device__ __forceinline__ void gather_of(float* out, const void* table, const float* scales, const int* ids, int d,
                                          int v) {
  const int r = blockIdx.x;
  const int id = ids[r];
  if (id < 0 || id >= v) return;
  const Wrow<W> w = weight_row<W>(table, scales, id, d);
  for (int i = threadIdx.x; i < d; i += blockDim.x)
    out[(long)r * d + i] = w.f ? widen(w.f[i]) : w.s[i / QBLOCK] * (float)w.q[i];
}

// gather_of over f32 or Q8_0 weights (gather), and over bf16 ones (gather_bf16).
extern "C" __global__ void gather(float* out, const void* table, const float* scales, const int* ids, int d, int v) {
  gather_of<float>(out, table, scales, ids, d, v);
}
extern "C" __global__ void gather_bf16(float* out, const void* table, const float* scales, const int* ids, int d,
                                       int v) {
  gather_of<bf16>(out, table, scales, ids, d, v);
}

// y = x / sqrt(mean(x^2) + eps) * gain over rows of `d`, written plain to `out` and quantized to (oh, ol, os), each
// where its pointer is not null (quantized: d a multiple of QBLOCK); grid (rows).
extern "C" __global__ void rms_norm(float* out, signed char* oh, signed char* ol, float* os, const float* x,
                                    const float* gain, int d, float eps) {
  const long row = (long)blockIdx.x * d;
  float ss = 0.f;
  for (int i = threadIdx.x; i < d; i += blockDim.x) ss = fmaf(x[row + i], x[row + i], ss);
  const float inv = 1.f / sqrtf(block_sum(ss) / (float)d + eps);
  if (out)
    for (int i = threadIdx.x; i < d; i += blockDim.x) out[row + i] = x[row + i] * inv * gain[i];
  if (oh)  // a warp a block of QBLOCK values, every lane one
    for (int i = threadIdx.x; i < d; i += blockDim.x) quantize_block(x[row + i] * inv * gain[i], row + i, oh, ol, os);
}

// (oh, ol, os) = x quantized, `n` values (a multiple of QBLOCK); grid ceil(n / THREADS).
extern "C" __global__ void quantize(signed char* oh, signed char* ol, float* os, const float* x, int n) {
  const long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) quantize_block(x[i], i, oh, ol, os);  // whole warps leave: n is a whole number of blocks
}
