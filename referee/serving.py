"""New connections spread evenly over gunicorn's gevent workers.

The workers share one listening socket and race to accept each connection, and the race is not
fair: wrk's 16 connections split from 8/8 to 15/1 between the two workers, and moves/s on SQLite
followed the split (3,690 a second at 8/8, 3,000-3,080 at 13/3 and 15/1): the worker with most of
them did most of the work on one core while the other core waited (bench/README.md, thirteenth
pass). A phone keeps its connection open, so a split stays as it fell.

So a worker that holds two connections or more beyond another leaves a new connection to the
others for ``PATIENCE``, and takes it itself if none has by then: when every other worker is
busy, blocked or stuck, a connection waits that long (and one ``PATIENCE`` more for each one
queued before it), never longer. The counts are in memory that the master and its workers share
(``ConnectionCounts``); ``gunicorn.conf.py`` makes it and hands each worker its slot.
"""
from __future__ import annotations

import ctypes
import mmap
import sys

from gevent.server import StreamServer

from referee import metrics

PATIENCE = 0.005  # seconds a new connection is left to a less loaded worker
ACCEPT_AT_ONCE = 64  # connections a worker may accept a wake-up (gevent's default is 100)
_FREE = -1  # a slot that no worker holds


class ConnectionCounts:
    """Each worker's open connections, one slot per worker, in an anonymous shared mapping made in
    the master before it forks: the master claims a slot for a worker before forking it (``claim``)
    and frees it once the worker has exited (``free``); in between only the worker writes it."""

    def __init__(self, slots: int = 64):
        self._memory = mmap.mmap(-1, slots * ctypes.sizeof(ctypes.c_long))  # MAP_SHARED: seen across fork
        self._counts = (ctypes.c_long * slots).from_buffer(self._memory)
        for slot in range(slots):
            self._counts[slot] = _FREE

    def claim(self) -> int | None:
        """A free slot, now held with no connections; None when all are held (that worker then
        takes every connection it wins, and the others do not count it)."""
        for slot, count in enumerate(self._counts):
            if count == _FREE:
                self._counts[slot] = 0
                return slot
        return None

    def free(self, slot: int | None) -> None:
        if slot is not None:
            self._counts[slot] = _FREE

    def set(self, slot: int, count: int) -> None:
        self._counts[slot] = count

    def ahead(self, slot: int) -> bool:
        """Whether the worker at ``slot`` holds two connections or more beyond another worker (one
        more is as even as an odd number of connections can be shared)."""
        mine = self._counts[slot]
        return any(count != _FREE and count < mine - 1 for index, count in enumerate(self._counts) if index != slot)


class BalancedServer(StreamServer):
    """gevent's StreamServer, as gunicorn's gevent worker makes it (``gunicorn.conf.py`` puts this
    class in its place), counting its open connections and taking a new one at once only when it is
    not ahead of another worker (``ConnectionCounts.ahead``)."""

    # this worker's, set in each worker after the fork (``share``); None: no balance
    counts: ConnectionCounts | None = None
    slot: int | None = None
    _max_accept = StreamServer.max_accept  # gunicorn's, or gevent's, when there is no balance

    @classmethod
    def share(cls, counts: ConnectionCounts, slot: int | None) -> None:
        """The master's counts and this worker's slot (None: no slot, take every connection won)."""
        cls.counts, cls.slot = (counts, slot) if slot is not None else (None, None)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._open = 0
        self._resume = None  # the timer that looks for connections again after PATIENCE

    # gunicorn has a worker accept one connection a wake-up when there are several workers, to spread
    # them; the counts spread them here, and a worker behind the others takes its due at once (one a
    # wake-up, under load a wake-up a turn of the worker's loop, took 64 connections opened together
    # half a second to be all accepted; many a wake-up, 0.2 s)
    @property
    def max_accept(self) -> int:
        return ACCEPT_AT_ONCE if self.counts is not None else self._max_accept

    @max_accept.setter
    def max_accept(self, value: int) -> None:
        self._max_accept = value

    def do_read(self):
        """A new connection (the socket is readable): taken, or left to the others for now."""
        if self.counts is not None and self.counts.ahead(self.slot):
            self.stop_accepting()
            if self._resume is None or not self._resume.active:
                # a new timer each time: libev's timer, started again once it has run, ran at once
                self._resume = self.loop.timer(PATIENCE)
                self._resume.start(self._accept_again, update=True)  # from now, not from the loop's last turn
            return None
        return self._accept()

    def _accept(self):
        accepted = super().do_read()  # None when another worker took the connection first
        if accepted is not None:
            self._counted(+1)
        return accepted

    def _accept_again(self) -> None:
        """PATIENCE after leaving a connection to the others: if this worker is still ahead, it
        takes a connection that is still waiting (no other worker took it), then watches the socket
        again."""
        if not self.started:  # closed meanwhile (the worker stopping)
            return
        if not self.full() and self.counts.ahead(self.slot):
            try:
                waited = self._accept()
            except OSError:  # out of descriptors, say: gevent's own accepting handles it, with its back-off
                waited = None
            if waited is not None:
                try:
                    self.do_handle(*waited)
                except Exception:  # as gevent's accepting does: the error is reported, the server goes on
                    self.loop.handle_error((waited[1:], self), *sys.exc_info())
        self.start_accepting()

    def do_close(self, *args):
        try:
            super().do_close(*args)
        finally:
            self._counted(-1)

    def _counted(self, change: int) -> None:
        self._open += change
        if self.counts is not None:
            self.counts.set(self.slot, self._open)
        metrics.worker_connections().set(self._open)
