"""Shipped ablation files (package data; see configs/__init__.py)."""
