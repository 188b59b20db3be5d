"""Implementations the tests of the suite itself run ``cordspec`` against."""
