// Value-wise kinds: binary, and rope (a pair of values of a head at a time).
#include "common.cuh"

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
// NeoX/Qwen; the rest of the head passes): for i < rot/2, f = pos * theta^(-2i/rot),
// (x[i], x[i+rot/2]) -> (x[i] cos f - x[i+rot/2] sin f, x[i+rot/2] cos f + x[i] sin f);
// grid (heads, rows). The angle is taken in double: pos * theta^(-2i/hd) in f32 is off by far more than f32 rounding
// at long positions.
extern "C" __global__ void rope(float* x, const int* pos, int heads, int hd, int rot, float theta) {
  float* head = x + ((long)blockIdx.y * heads + blockIdx.x) * hd;
  const int half = rot / 2;
  const double p = (double)pos[blockIdx.y];
  for (int i = threadIdx.x; i < half; i += blockDim.x) {
    double s, c;
    sincos(p * pow((double)theta, -2.0 * i / rot), &s, &c);
    const float a = head[i], b = head[i + half];
    head[i] = a * (float)c - b * (float)s;
    head[i + half] = b * (float)c + a * (float)s;
  }
}
