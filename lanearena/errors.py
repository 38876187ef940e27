"""The error every command reports as one clear line (file, line, what is wrong) instead of a traceback."""


class UserError(Exception):
    """Bad input from the user: a message that names where and what, and the exit code the command should return."""

    def __init__(self, message: str, exit_code: int = 2):
        super().__init__(message)
        self.exit_code = exit_code


class Overflow(UserError):
    """Values past what the numerics hold: a weight that rounds to infinity, logits that hold NaN or +Inf (a step's
    arg-max or draw gave no token). The weights' fault, not the config's."""
