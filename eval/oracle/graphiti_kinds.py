"""Placeholder."""

KINDS = ()
