// Value-wise kinds: binary, and rope (a pair of values of a head at a time).
#include "common.cuh"
#include "rope.cuh"

#define OP_ADD 0
#define OP_MUL 1
#define OP_GATE 2

// out[i] = a[i] + b[i] (op OP_ADD), a[i] * b[i] (OP_MUL) or a[i] * sigmoid(b[i]) (OP_GATE), `n` values; grid
// ceil(n / THREADS).
extern "C" __global__ void binary(float* out, const float* a, const float* b, int n, int op) {
  const long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[i] = op == OP_MUL ? a[i] * b[i] : op == OP_GATE ? a[i] / (1.f + expf(-b[i])) : a[i] + b[i];
}

// Rotates the first `rot` values of each head of `hd` values of row r of x in place by position pos[r] (rotate-half,
// NeoX/Qwen/Llama; the rest of the head passes): for i < rot/2, a = pos * frequency(i),
// (x[i], x[i+rot/2]) -> (x[i] cos a - x[i+rot/2] sin a, x[i+rot/2] cos a + x[i] sin a);
// grid (heads, rows). The angle is taken in double: pos * theta^(-2i/hd) in f32 is off by far more than f32 rounding
// at long positions.
extern "C" __global__ void rope(float* x, const int* pos, int heads, int hd, int rot, float theta, int scaling,
                                float factor, float low, float high, int original) {
  float* head = x + ((long)blockIdx.y * heads + blockIdx.x) * hd;
  const int half = rot / 2;
  const double p = (double)pos[blockIdx.y];
  int last = 0;  // the step's last position, which a dynamic base grows by
  if (scaling == SCALING_DYNAMIC)
    for (int r = 0; r < gridDim.y; ++r) last = max(last, pos[r]);
  for (int i = threadIdx.x; i < half; i += blockDim.x) {
    double s, c;
    sincos(p * frequency(i, rot, theta, scaling, factor, low, high, original, last + 1.0), &s, &c);
    const float a = head[i], b = head[i + half];
    head[i] = a * (float)c - b * (float)s;
    head[i + half] = b * (float)c + a * (float)s;
  }
}
