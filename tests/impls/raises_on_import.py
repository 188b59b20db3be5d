"""A module that fails while it is imported, as a user's half-written implementation might."""

raise RuntimeError("this implementation is not ready\n(second line of the message)")
