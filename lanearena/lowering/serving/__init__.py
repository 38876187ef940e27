"""Serving: weights streamed onto a device one tensor at a time (`weights`), a model's steps kept on a device to
generate (`session`), and a step checked against its unshared reference and timed as `lanearena run` does
(`compare`)."""
