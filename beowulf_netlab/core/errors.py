"""One error family. Each class carries the exit status `emulate.py` returns.

- BadInput (exit 2): the user asked for something that cannot be done as
  given; the message names the fix. Raised before anything is created.
- RuntimeFailure (exit 1): something failed while running (a command, an
  agent, a disk); the message says what failed and what to do.
- DataCorrupted (exit 1): data came back different from what was sent; the
  point's results are discarded and the run fails.

`commands.main` maps the family once: one line on stderr, this exit status.
"""
from __future__ import annotations

EXIT_FAILURE = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130


class NetlabError(Exception):
    """Base of every error the tool reports as one line."""
    exit_code = EXIT_FAILURE
    label = "error"


class BadInput(NetlabError, ValueError):
    """Bad input: printed as one line, exit 2."""
    exit_code = EXIT_USAGE


class RuntimeFailure(NetlabError, RuntimeError):
    """A step failed while running: exit 1."""
    exit_code = EXIT_FAILURE
    label = "run FAILED"


class DataCorrupted(RuntimeFailure):
    """Data changed in transit or on disk: the results are not trustworthy."""
