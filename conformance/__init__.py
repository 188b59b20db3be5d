"""cordspec conformance suite: the spec parser, and tests any implementation can be run against."""

from conformance.spec import Clause, Spec, SpecError, load_spec

__all__ = ["Clause", "Spec", "SpecError", "load_spec"]
