"""A sweep's progress on stderr: a live bar on a terminal, plain lines anywhere else.

On a terminal (rich): points done/total, the time so far and the time left, and the
point that runs now, then the one that finished with its figure. The bar advances by
each point's estimated cost (run.estimate), so the time left weighs a 16 MB copy
more than a 1 MB one and corrects itself by how fast this host really goes. While the
bar is live every other line (the runner's plan lines, warnings, Mininet's log) is
printed above it through its console, never into it. Elsewhere (CI logs, pipes,
files) each finished point is one plain line, readable line by line, as before.
"""
from __future__ import annotations

import logging
import sys
from typing import TextIO

from rich.console import Console
from rich.progress import BarColumn, Progress as RichProgress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Column

PLAIN_WIDTH = 30     # the plain line's bar


def plain_line(done: int, total: int, label: str) -> str:
    filled = int(PLAIN_WIDTH * done / max(total, 1))
    return f"[{'#' * filled}{'.' * (PLAIN_WIDTH - filled)}] {done}/{total} {label}"


class Progress:
    """Use as a context manager around a sweep: `running(label)` before a point, `step(label,
    weight)` after it, `note(line)` for anything else worth a line. enabled False: silent."""

    def __init__(self, total: int, enabled: bool = True, stream: TextIO | None = None,
                 terminal: bool | None = None, total_weight: float | None = None):
        self.total, self.done, self.enabled = total, 0, enabled
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty() if terminal is None else terminal
        self.total_weight = total_weight if total_weight and total_weight > 0 else float(total)
        self._bar: RichProgress | None = None
        self._task = None
        self._handlers: list[tuple[logging.StreamHandler, TextIO]] = []

    def __enter__(self) -> "Progress":
        if self.enabled and self.tty and self.total:
            console = Console(file=self.stream, force_terminal=True)
            self._bar = RichProgress(
                TextColumn("{task.fields[done]}/{task.fields[points]} points",
                           table_column=Column(no_wrap=True, min_width=len(f"{self.total}/{self.total} points"))),
                BarColumn(bar_width=24, table_column=Column(min_width=24)),
                TimeElapsedColumn(table_column=Column(no_wrap=True, min_width=7)),
                TextColumn("left", table_column=Column(no_wrap=True, min_width=4)),
                TimeRemainingColumn(table_column=Column(no_wrap=True, min_width=7)),
                TextColumn("{task.fields[label]}", table_column=Column(no_wrap=True)),
                console=console, redirect_stderr=self.stream is sys.stderr,
                # stdout on the same terminal goes above the bar too; stdout to a file stays there
                redirect_stdout=self.stream is sys.stderr and sys.stdout.isatty(),
                refresh_per_second=4)
            self._task = self._bar.add_task("", total=self.total_weight, done=0, points=self.total, label="")
            self._bar.start()
            if self.stream is sys.stderr:
                self._steer_logs()
        return self

    def __exit__(self, *exc) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None
        for handler, stream in self._handlers:
            handler.setStream(stream)
        self._handlers = []

    def _steer_logs(self) -> None:
        """Loggers writing to stderr (Mininet's: it kept the stream object it found at import)
        write through the bar's console while it is live (sys.stderr is rich's proxy for it
        now), so their lines go above the bar."""
        proxy = sys.stderr
        loggers = [logging.getLogger(), *(lg for lg in logging.Logger.manager.loggerDict.values()
                                          if isinstance(lg, logging.Logger))]
        for lg in loggers:
            for handler in lg.handlers:
                if isinstance(handler, logging.StreamHandler) and \
                        getattr(handler, "stream", None) in (self.stream, sys.__stderr__) and handler.stream is not proxy:
                    self._handlers.append((handler, handler.stream))
                    handler.setStream(proxy)

    def _fit(self, label: str) -> str:
        """The label cut to what the terminal leaves beside the count, bar and times: on a
        narrow terminal the label gives way, never the figures."""
        room = max(8, self._bar.console.width - len(f"{self.total}/{self.total} points") - 24 - 26)
        return label if len(label) <= room else label[:room - 1] + "…"

    def running(self, label: str) -> None:
        """The point that starts now (shown on the bar; no plain line)."""
        if self._bar is not None:
            self._bar.update(self._task, label=self._fit(f"now: {label}"))

    def step(self, label: str, weight: float = 1.0) -> None:
        """A point finished: label says which, with its figure."""
        self.done += 1
        if not self.enabled:
            return
        if self._bar is not None:
            self._bar.update(self._task, advance=weight, done=self.done, label=self._fit(label))
            return
        self.stream.write(plain_line(self.done, self.total, label) + "\n")
        self.stream.flush()

    def note(self, line: str) -> None:
        """A line of its own (a plan), above the bar on a terminal."""
        if not self.enabled:
            return
        if self._bar is not None:
            self._bar.console.print(line, markup=False, highlight=False, soft_wrap=True)
        else:
            self.stream.write(line + "\n")
            self.stream.flush()
