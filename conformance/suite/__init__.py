"""The conformance suite: test classes that reach the implementation only through the ``impl`` fixture.

Run it with ``cordspec run``, or subclass its classes in your own test tree and override ``impl``.
"""
