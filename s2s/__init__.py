"""s2s: a source-to-source loop optimizer.

Packages: ``s2s.ir`` (the structured dataflow IR), ``s2s.driver`` (``s2s-cc`` and the optimization
pipeline), ``s2s.cli`` (the ``s2s`` command). Front ends live in ``frontends``, back ends in ``backends``.
"""
__version__ = "0.1.0"
