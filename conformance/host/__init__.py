"""``cordspec host``: an implementation inside a real ExecuTorch.

Its five classes are put in place of ExecuTorch's (``conformance.adapters.substitution``), a zoo of
small models (``zoo``, with cordspec's own file-backed backend in ``backend``) is exported through
ExecuTorch's real pipeline with both and compared file by file, run in ExecuTorch's runtime
(``check``), and ExecuTorch's own unit tests of this layer run against it (``shipped_tests``);
``report`` writes the results. Only ``prerequisites`` and ``report`` import without torch.
"""
