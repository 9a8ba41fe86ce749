"""The distribution's name, on its own so that any module can read it without the public surface."""

#: The distribution name on the package index (``pip install memsuite-bench``); the import name and
#: the command are ``memsuite``.
DISTRIBUTION = "memsuite-bench"
