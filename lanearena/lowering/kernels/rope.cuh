// A rotation's frequencies (rope, and the fused attention that turns its q and k heads).
#pragma once

#define SCALING_DEFAULT 0
#define SCALING_LINEAR 1
#define SCALING_DYNAMIC 2
#define SCALING_LLAMA3 3
#define PI 3.141592653589793

// The angle pair i of `rot` turned values turns at a position, theta^(-2i/rot), scaled (Hugging Face's rope types):
// linear, over `factor`; dynamic, the base grown to theta * (factor * n / original - (factor - 1))^(rot / (rot - 2))
// where the step's positions reach n > original (n = its last position + 1); llama3, a frequency whose wavelength
// 2 pi / f passes original / low over `factor`, one under original / high kept, one between blended by
// s = (original / wavelength - low) / (high - low) into (1 - s) f / factor + s f.
__device__ double frequency(int i, int rot, double theta, int scaling, double factor, double low, double high,
                            double original, double n) {
  if (scaling == SCALING_DYNAMIC && n > original)
    theta *= pow(factor * n / original - (factor - 1.0), (double)rot / (rot - 2));
  const double f = pow(theta, -2.0 * i / rot);
  if (scaling == SCALING_LINEAR) return f / factor;
  if (scaling != SCALING_LLAMA3) return f;
  const double wavelength = 2.0 * PI / f;
  if (wavelength > original / low) return f / factor;
  if (wavelength < original / high) return f;
  const double s = (original / wavelength - low) / (high - low);
  return (1.0 - s) * f / factor + s * f;
}
