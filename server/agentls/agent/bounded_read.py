"""The beginning of a file the user or the project keeps (instruction files, custom commands), read bounded.

Such a file is put into a prompt only up to a cap, so nothing needs more
than the cap's worth of bytes: a 1.5 GB AGENTS.md costs one bounded read,
never 1.5 GB of memory. Only regular files are read (a FIFO or a device is
refused before a read can block), and a cut that falls inside a UTF-8
character drops that character's first bytes instead of failing the file.
"""

from __future__ import annotations

import codecs
import errno
import os
import stat
from dataclasses import dataclass
from pathlib import Path

UTF8_MAX_BYTES = 4  # one character in UTF-8 takes at most 4 bytes


@dataclass(frozen=True)
class Head:
    text: str  # the decoded beginning (all of it when `whole`)
    size: int  # the file's full size in bytes
    whole: bool  # False: the file goes on past what was read


class NotReadable(Exception):
    """Not a regular file, or not UTF-8 text (with `errors="strict"`)."""


def read_head(path: Path, max_chars: int, errors: str = "strict") -> Head:
    """At most `max_chars` characters' worth of bytes (4 per character) from the start of a regular file.

    `errors` is the decoder's: "strict" raises NotReadable for bytes that are not UTF-8, "replace"
    shows them as U+FFFD. An incomplete character at the cut is left out, never an error.
    """
    limit = max_chars * UTF8_MAX_BYTES
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY)
    except OSError as exc:
        if exc.errno == errno.ENXIO:  # a socket
            raise NotReadable("not a regular file") from None
        raise
    with open(fd, "rb") as file:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise NotReadable("not a regular file")
        data = file.read(limit + 1)
    whole = len(data) <= limit
    decoder = codecs.getincrementaldecoder("utf-8")(errors)
    try:
        text = decoder.decode(data[:limit], final=whole)  # final=False keeps a cut character back
    except UnicodeDecodeError:
        raise NotReadable("not UTF-8 text") from None
    return Head(text, info.st_size, whole)
