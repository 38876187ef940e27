"""lanearena: places the arrays that live inside one model step into one arena by lifetime, and lowers the placed
step to PTX launches (PyCUDA on a GPU, a numpy runtime on the CPU)."""
