"""The shipped run configs (``*.yaml``) and ablation files (``ablations/*.yaml``), as package data.

A Python package only so an installed memsuite carries them: ``memsuite demo`` and
``memsuite run meme_quick`` find them outside a checkout (see :func:`memsuite.eval.run.config.find_config`).
"""
