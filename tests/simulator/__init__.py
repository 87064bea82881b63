"""A local, stateful simulator of the cloud management and observability APIs.

Start it with ``python -m tests.simulator``; see README.md in this folder.
"""
