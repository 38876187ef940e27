"""From a placed step to kernels running on a device, in four layers, each on those below it: `codegen` (the step
lowered to one `Lowered` value, and printed), `runtime` (the devices that run a `Lowered`), `replay` (a step's
launches packed once and replayed, as a CUDA graph on a GPU), `serving` (weights on a device, generation); and
`kernels`, the kernel library the lowering and the devices share."""
