"""The runtime: devices that run a `Lowered` step (the numpy runtime on the CPU, PyCUDA's on a GPU), and how a step
is fed, launched and read back (`execute`)."""
