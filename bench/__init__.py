"""Benchmarks: cordspec's reference and ExecuTorch 1.5.1 against the machine's floor.

``python -m bench`` (or ``tox -e bench``) measures, in one run, SHA-256 of a file (warm and cold
cache), file -> file and file -> ``io.BytesIO`` writes, peak memory, bytes read, dedup and
``move_from`` costs, and a store + Cord run end to end. See docs/performance.md.
"""
