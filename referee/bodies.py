"""Every request's body read whole, in time, before the app sees it (issue 35).

The outermost WSGI layer (``referee.app`` puts it over everything else). A request without a body
(no ``Content-Length`` or 0, no ``Transfer-Encoding``: every GET and HEAD) goes straight through,
for two dictionary look-ups. A request with one has its body read here, all of it, and the app is
handed a ``BytesIO`` of it with ``CONTENT_LENGTH`` set to its real length and the chunked
``Transfer-Encoding`` taken out of the environ (werkzeug then reads it as a plain body). Else the
app never runs, and the request is refused with problem+json, like every error of the service:

- a ``Transfer-Encoding`` other than ``chunked`` alone (``gzip, chunked`` was read as if it were
  plain JSON and applied): 400;
- a malformed chunked body (gunicorn's ``InvalidChunkSize``, ``InvalidChunkExtension``,
  ``ChunkMissingTerminator``, trailers...), or a client gone in the middle: 400 (they were a 500
  with a traceback, raised inside the views);
- a body that ends before its ``Content-Length`` (the client closed its side): 400 (the part that
  came was applied, gunicorn hands it over as if it were the whole);
- a body larger than the largest the service takes anywhere (``MAX_CONTENT_LENGTH``,
  ``IMPORT_MAX_BYTES``): 413, told by its ``Content-Length`` before anything is read, or once a
  chunked body passes it; the routes' own limits still apply after this one;
- a body that is not all there ``BODY_TIMEOUT_SECONDS`` after its headers (a client that sends part
  of it and then nothing, or trickles it): 408. gunicorn cuts slow headers (its keep-alive timeout);
  nothing cut a slow body, and one worker held a connection for each such client for as long as the
  client liked.

Each of these answers closes the connection (where the next request would start is unknown),
is logged at WARNING with the request's route pattern and no traceback, and counted as any request.

Under gunicorn's gevent workers the deadline is a timer on the hub that throws into the waiting
greenlet, so it holds for the whole body however it trickles in; a waiting body costs a greenlet,
not a thread. So that thousands of such connections cannot hold a worker's every connection slot
for the whole deadline (the health check and moves then wait in the listen queue), a worker waits
for at most ``MOST_WAITING`` bodies at once: one more cuts the longest waiting with the same 408.
Without gevent (gthread) the deadline bounds each wait on gunicorn's socket instead; with no
socket in the environ (a test's client) there is nothing to wait for. ``BODY_TIMEOUT_SECONDS`` of 0
turns the deadline off.

The cost, in process: 0.2 us a request without a body, 1.2 us with a move's body, 2.2 us under
gevent (the timer); a move costs about 700 us in process (``bench.request_cost``).
"""
from __future__ import annotations

import io
import json
import logging
import socket
import sys
import time

from werkzeug.http import HTTP_STATUS_CODES

from referee import logs

PROBLEM = "application/problem+json"
TYPE_BASE = "https://referee.invalid/problems/"  # as referee.api.errors
MOST_WAITING = 128  # bodies a gevent worker waits for at once; one more cuts the longest waiting
LINGER_SECONDS = 0.5  # reading what a refused client still sends, so that it gets the answer
LINGER_BYTES = 1 << 20
STEP = 1 << 20  # the largest read asked of the server at once

log = logging.getLogger(__name__)


class BodyTimeout(Exception):
    """The body did not all arrive in time (or was cut to make room for others)."""


class Refusal(Exception):
    """The request's refusal: its status, its detail (the client's) and its reason (the log's)."""

    def __init__(self, status: int, detail: str, reason: str):
        super().__init__(detail)
        self.status, self.detail, self.reason = status, detail, reason


class Bodies:
    """WSGI middleware over the app's whole ``wsgi_app``; ``app`` gives the limits and the routes."""

    def __init__(self, wsgi_app, app):
        self.wsgi_app = wsgi_app
        self.app = app
        limits = [app.config.get(key) for key in ("MAX_CONTENT_LENGTH", "IMPORT_MAX_BYTES")]
        limits = [int(limit) for limit in limits if limit is not None]
        self.most = max(limits) if limits else None  # None: no limit of size at all
        timeout = float(app.config.get("BODY_TIMEOUT_SECONDS", 10) or 0)
        self.timeout = timeout if timeout > 0 else None
        self.waits = _gevent_waits()  # None unless sockets are gevent's (gunicorn's gevent workers)

    def __call__(self, environ, start_response):
        length = environ.get("CONTENT_LENGTH")
        if (not length or length == "0") and "HTTP_TRANSFER_ENCODING" not in environ:
            return self.wsgi_app(environ, start_response)  # no body: nothing to do
        started = time.perf_counter()
        try:
            body = self._read(environ, length)
        except Refusal as refusal:
            return self._refuse(environ, start_response, refusal, started)
        environ["wsgi.input"] = io.BytesIO(body)
        environ["CONTENT_LENGTH"] = str(len(body))
        environ.pop("HTTP_TRANSFER_ENCODING", None)
        return self.wsgi_app(environ, start_response)

    # ------------------------------------------------------------------ reading

    def _read(self, environ, length: str | None) -> bytes:
        coding = environ.get("HTTP_TRANSFER_ENCODING")
        if coding is not None:
            if coding.strip(" \t").lower() != "chunked":
                raise Refusal(400, f"Transfer-Encoding {coding[:100]!r} is not accepted: send the body as it is, "
                                   "with its Content-Length or chunked alone.", "transfer-coding")
            if length:  # gunicorn refuses it first; another server may not
                raise Refusal(400, "A body has a Content-Length or is chunked, not both.", "length-and-chunked")
            want = self.most + 1 if self.most is not None else 1 << 62
        else:
            if not (length.isascii() and length.isdigit()):
                raise Refusal(400, "The Content-Length is not a number of bytes.", "content-length")
            want = int(length)
            if self.most is not None and want > self.most:
                raise Refusal(413, f"The body is larger than the {self.most} bytes the service takes.", "too-large")
        try:
            body = self._timed_read(environ, want)
        except BodyTimeout as cut:
            raise Refusal(408, str(cut), "timeout") from None
        except TimeoutError:  # socket.timeout: the socket's own, without gevent
            raise Refusal(408, self._late(), "timeout") from None
        except Exception as error:  # noqa: BLE001  (gunicorn's chunk errors, NoMoreData, a reset: unreadable)
            name = type(error).__name__
            raise Refusal(400, f"The request body could not be read ({name}): a malformed chunked encoding, "
                               "or the client went away.", name) from None
        if coding is not None:
            if self.most is not None and len(body) > self.most:
                raise Refusal(413, f"The body is larger than the {self.most} bytes the service takes.", "too-large")
        elif len(body) != want:
            raise Refusal(400, f"The body ended after {len(body)} of the {want} bytes its Content-Length "
                               "announced.", "truncated")
        return body

    def _timed_read(self, environ, want: int) -> bytes:
        stream = environ["wsgi.input"]
        if self.timeout is None:
            return _read_all(stream.read, want)
        if self.waits is not None:
            return self.waits.read(stream.read, want, self.timeout)
        sock = environ.get("gunicorn.socket") or environ.get("gunicorn.sock")
        if sock is None or not hasattr(sock, "settimeout"):
            return _read_all(stream.read, want)  # no socket to time (a test's BytesIO)
        return _socket_timed(sock, stream.read, want, self.timeout)

    def _late(self) -> str:
        return f"The request body did not all arrive within {self.timeout:g} seconds of its headers."

    # ------------------------------------------------------------------ refusing

    def _refuse(self, environ, start_response, refusal: Refusal, started: float):
        status = refusal.status
        title = HTTP_STATUS_CODES[status]
        rid = logs.request_id(environ.get("HTTP_X_REQUEST_ID", ""))
        body = json.dumps({"type": TYPE_BASE + title.lower().replace(" ", "-"), "title": title, "status": status,
                           "detail": refusal.detail}, separators=(",", ":")).encode()
        # gunicorn drops an application's Connection header, and writes its own from force_close
        headers = [("Content-Type", PROBLEM), ("Content-Length", str(len(body))), ("Content-Language", "en"),
                   (logs.REQUEST_ID, rid), ("Connection", "close")]
        _close_after(environ, start_response)  # every refusal: the rest of the stream is in an unknown state
        method, route = environ.get("REQUEST_METHOD", ""), self._route(environ)
        log.warning("Request body refused: %s %s %s (%s), request %s", status, method, route, refusal.reason, rid)
        start_response(f"{status} {title.upper()}", headers)
        logs.answered(rid, method, route, status, time.perf_counter() - started)
        sock = environ.get("gunicorn.socket") or environ.get("gunicorn.sock")
        return _Answer(body, sock, linger=status != 408)

    def _route(self, environ) -> str:
        """The route's pattern, as the log lines name it (a path may hold a game's id or a token)."""
        try:
            rule, _ = self.app.url_map.bind_to_environ(environ).match(return_rule=True)
            return rule.rule
        except Exception:  # noqa: BLE001  (no route, no such method: the log line says so)
            return "(no route)"


def _read_all(read, want: int) -> bytes:
    """Up to ``want`` bytes, fewer only where the body ends."""
    first = read(min(want, STEP))
    if len(first) == want or not first:
        return first
    parts, got = [first], len(first)
    while got < want:
        piece = read(min(want - got, STEP))
        if not piece:
            break
        parts.append(piece)
        got += len(piece)
    return b"".join(parts)


def _socket_timed(sock, read, want: int, seconds: float) -> bytes:
    """Without gevent: each wait on the socket at most what is left of the deadline."""
    deadline = time.monotonic() + seconds
    before = sock.gettimeout()
    parts, got = [], 0
    try:
        while got < want:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError()
            sock.settimeout(left)
            piece = read(min(want - got, 64 * 1024))
            if not piece:
                break
            parts.append(piece)
            got += len(piece)
    finally:
        try:
            sock.settimeout(before)
        except OSError:
            pass
    return b"".join(parts)


class _Wait:
    __slots__ = ("done", "error", "greenlet", "seconds", "timer")


class _GeventWaits:
    """The body reads of this process that wait on their client, each with its deadline: a timer of
    gevent's hub that throws ``BodyTimeout`` into the reading greenlet, as ``gevent.Timeout`` does."""

    def __init__(self, getcurrent, get_hub):
        self.getcurrent, self.get_hub = getcurrent, get_hub
        self.waiting: dict[int, _Wait] = {}  # oldest first

    def read(self, read, want: int, seconds: float) -> bytes:
        wait = _Wait()
        wait.greenlet, wait.seconds, wait.done, wait.error = self.getcurrent(), seconds, False, None
        loop = self.get_hub().loop
        wait.timer = loop.timer(seconds)
        wait.timer.start(self._expire, wait, update=True)
        self.waiting[id(wait)] = wait
        if len(self.waiting) > MOST_WAITING:  # make room: the longest waiting is cut now
            oldest = self.waiting.pop(next(iter(self.waiting)))
            oldest.error = BodyTimeout("The request body was too slow to arrive while the service waited for "
                                       "many others; send it again.")
            loop.run_callback(self._expire, oldest)
        try:
            return _read_all(read, want)
        finally:
            wait.done = True
            self.waiting.pop(id(wait), None)
            wait.timer.stop()
            wait.timer.close()

    def _expire(self, wait: _Wait) -> None:
        """In the hub: the deadline passed (or the read was cut) while the greenlet still waits."""
        if not wait.done:
            wait.done = True
            self.waiting.pop(id(wait), None)
            wait.greenlet.throw(wait.error or BodyTimeout(
                f"The request body did not all arrive within {wait.seconds:g} seconds of its headers."))


def _gevent_waits() -> _GeventWaits | None:
    """Timed reads on gevent's hub when the socket module is gevent's (gunicorn.conf.py patches it
    before the app is loaded), else None."""
    if "gevent.monkey" not in sys.modules:
        return None
    from gevent import get_hub, getcurrent, monkey

    return _GeventWaits(getcurrent, get_hub) if monkey.is_module_patched("socket") else None


def _close_after(environ, start_response) -> None:
    """The connection closes after this answer: what follows on it is in an unknown state. gunicorn
    drops an application's ``Connection`` header: its response is told (``force_close``, which also
    writes ``Connection: close``), and its parser is told the body failed (it then never reads on)."""
    owner = getattr(start_response, "__self__", None)
    if hasattr(owner, "force_close"):
        owner.force_close()
    stream = environ.get("wsgi.input")
    if hasattr(stream, "failed"):
        stream.failed = True


class _Answer:
    """The refusal's body; once it is written (gunicorn calls ``close`` then, before it closes the
    socket) the socket is shut for writing, and what the client still sends is read for a moment:
    closing on unread bytes makes the kernel send a reset, and the client could lose the answer. Not
    after a 408: the slot goes at once to the others (a client that went silent left nothing unread)."""

    def __init__(self, body: bytes, sock, linger: bool):
        self.body, self.sock, self.linger = body, sock, linger

    def __iter__(self):
        yield self.body

    def close(self) -> None:
        if self.sock is not None:
            linger(self.sock, LINGER_SECONDS if self.linger else 0)


def linger(sock, seconds: float = LINGER_SECONDS) -> None:
    """Shut the socket for writing once an answer that ends the connection is sent, and read what the
    client still sends for ``seconds`` (at most ``LINGER_BYTES``): closing on unread bytes makes the
    kernel send a reset, and the client could lose the answer."""
    try:
        sock.shutdown(socket.SHUT_WR)
        if not seconds:
            return
        sock.settimeout(seconds)
        deadline, read = time.monotonic() + seconds, 0
        while read < LINGER_BYTES and time.monotonic() < deadline:
            chunk = sock.recv(65536)
            if not chunk:
                break
            read += len(chunk)
    except OSError:
        pass
