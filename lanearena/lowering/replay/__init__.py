"""Replay: a step's launches resolved and packed once (`launch_plan`) and, on a GPU, captured as a CUDA graph and
timed (`graph`)."""
