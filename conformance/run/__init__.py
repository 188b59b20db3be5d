"""The runner: the ``cordspec`` command, its pytest plugin, report, deviations and spec parser."""
