"""Code generation: a placed and verified step (`placed`) lowered to one `Lowered` value (`lower`: its buffers, feeds,
results and kernel launches) and printed as a Python module that runs alone (`emit`, the `lane-pycuda` target)."""
