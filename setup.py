"""Package layout: one import root, ``memsuite``, over the repository's top-level folders.

The repository keeps ``memory_systems/``, ``baselines/``, ``eval/`` and ``configs/`` at its top; they
install as ``memsuite.memory_systems``, ``memsuite.baselines``, ``memsuite.eval`` and
``memsuite.configs`` (``memsuite/`` itself holds the public surface). Their subpackages are found
here rather than listed, so a new subpackage ships without an edit. Everything else is in
pyproject.toml.
"""

from setuptools import find_packages, setup

SUBPACKAGE_FOLDERS = ("memory_systems", "baselines", "eval", "configs")

package_dir = {"memsuite": "memsuite"}
packages = ["memsuite"]
for folder in SUBPACKAGE_FOLDERS:
    package_dir[f"memsuite.{folder}"] = folder
    packages += [f"memsuite.{folder}", *(f"memsuite.{folder}.{name}" for name in find_packages(folder))]

setup(packages=packages, package_dir=package_dir)
