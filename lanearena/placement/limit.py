"""The bound every value the placement takes stays under, in a module of its own: the Python side (`problem`,
`csvio`) checks input against it and the compiled side (`compiled`) relies on it, and neither imports the other for
it."""

LIMIT = 1 << 62
"""Every step, size and offset the placement takes, and the sum of the sizes, stay below this: the compiled loops
count in 64-bit integers, and with this headroom no sum or end they form can wrap."""
