"""Backend factories for the shared behavioural suite.

Each module here defines ``NAME`` and an async context manager
``open_workspace(tmp_path)`` yielding an opened workspace. ``conftest.py``
parametrises the ``workspace`` fixture over every module listed in
``BACKENDS`` so the same tests run against every backend.
"""

BACKENDS = ["local", "docker", "e2b", "fsspec_memory", "fsspec_file", "s3"]
