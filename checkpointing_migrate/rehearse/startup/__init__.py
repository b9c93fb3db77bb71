"""The folder `rehearse` puts first on `PYTHONPATH`; it holds only the `sitecustomize` bootstrap.

A package only so that packaging ships it with the rest of `checkpointing_migrate`; nothing imports it as a package.
"""
