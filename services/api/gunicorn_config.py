"""gunicorn's settings file for the API, loaded by path (``-c``): the master imports nothing of the app
(only ``shared``'s config and log setup: gunicorn's own lines are formatted like the app's).

The worker is gevent's, with bounds added on what one client holds:

- a client socket that makes no progress for ``STALLED_CLIENT_SECONDS`` (default 30) is
  closed. gunicorn bounds waiting for a request's head (the keep-alive period, 5 s), but
  not what comes after it: a body announced and never sent, or a response (a live
  stream's views) the client never reads, would hold the connection, its greenlet and its
  stream slot for as long as the client keeps the socket open. With the bound, a read
  that waits that long ends the request (408 if the app was reading its body), a write
  ends it like one whose client left (a stream's viewer that stopped reading reconnects
  with ``Last-Event-ID``), quietly. A slow client that still makes progress (a phone on a
  bad network) is not cut off;
- a request's head and body must arrive within ``REQUEST_DEADLINE_SECONDS`` of its first
  byte (default 30; 408 ``REQUEST_TIMEOUT`` past it, then closed): a trickled body makes
  progress for ever. Responses are not bounded by it (:mod:`shared.client_bounds`);
- a client address holds at most ``CONNECTIONS_PER_CLIENT`` connections in each process
  (the trusted proxies are not capped); past it a new connection is closed at once.

How much a client that stopped reading leaves queued before its writes wait is the
kernel's send buffer, autotuned up to ``net.ipv4.tcp_wmem``'s maximum (4 MB here: some
3,500 views of a stream). ``SEND_BUFFER_BYTES`` fixes it per connection instead (the
kernel doubles it), bounding the kernel memory a stuck stream pins; unset, the kernel's.

No control socket: gunicorn 25+ opens one by default at one path per user
(``$HOME/.gunicorn/gunicorn.ctl``), so a second API on the host would take over the first's
and delete it on exit; nothing here uses ``gunicornc``.
"""
from __future__ import annotations

import socket
from typing import Any

from gunicorn.glogging import Logger
from gunicorn.workers.base_async import AsyncWorker
from gunicorn.workers.ggevent import GeventWorker

from shared.client_bounds import ConnectionsPerAddress, DeadlineSocket, within_deadline
from shared.config import Config
from shared.observability import exposition, logs

_config = Config.from_env()  # read (and checked) by the launcher before gunicorn starts, too
STALLED_CLIENT_SECONDS = _config.stalled_client_seconds
SEND_BUFFER_BYTES = _config.send_buffer_bytes  # 0: the kernel's autotuning
REQUEST_DEADLINE_SECONDS = _config.request_deadline_seconds  # 0: none
# Each process counts its own connections (a copy made at fork): the cap is per process.
CONNECTIONS = ConnectionsPerAddress(_config.limits.connections_per_client if _config.limits.enabled else 0,
                                    _config.trusted_proxies)
control_socket_disable = True


class BoundedGeventWorker(GeventWorker):
    """gevent's worker, whose client sockets time out once stalled (gevent's own leaves them blocking forever),
    whose requests have a deadline to arrive, and whose client addresses a cap on connections."""

    too_late: type[Exception] = TimeoutError  # werkzeug's RequestTimeout once the app is loaded

    def load_wsgi(self) -> None:
        from werkzeug.exceptions import RequestTimeout  # here, in the worker: the master imports nothing of the app

        super().load_wsgi()
        self.wsgi = within_deadline(self.wsgi)
        self.too_late = RequestTimeout  # the app answers it 408 REQUEST_TIMEOUT

    def handle(self, listener: Any, client: Any, addr: Any) -> None:
        closed = CONNECTIONS.admit(addr)
        if closed is None:  # past its address's cap: closed before anything is read
            self.log.debug("connection from %s refused: CONNECTIONS_PER_CLIENT reached", addr[0])
            client.close()
            return
        try:
            client.settimeout(STALLED_CLIENT_SECONDS)  # in place of GeventWorker's setblocking(1): bounded
            if SEND_BUFFER_BYTES > 0:
                client.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SEND_BUFFER_BYTES)
            deadline = DeadlineSocket(client, REQUEST_DEADLINE_SECONDS, STALLED_CLIENT_SECONDS, self.too_late)
            AsyncWorker.handle(self, listener, deadline, addr)
        finally:
            closed()

    def handle_request(self, listener_name: Any, req: Any, sock: Any, addr: Any) -> None:
        try:
            super().handle_request(listener_name, req, sock, addr)
        except TimeoutError:  # an answer its client stopped reading: closed like a gone client, not logged as an error
            raise StopIteration from None
        if sock.expired:
            raise StopIteration  # the rest of its body never came in time: closed, never drained
        sock.next_request()


worker_class = BoundedGeventWorker

class QuietAccessLogger(Logger):
    """gunicorn's logger, which skips the access line's work altogether unless ACCESS_LOG asks for it
    (with a ``logconfig_dict`` it would build every line and let the level drop it)."""

    def access(self, resp: Any, req: Any, environ: Any, request_time: Any) -> None:
        if _config.access_log:
            super().access(resp, req, environ, request_time)


logger_class = QuietAccessLogger
logconfig_dict = logs.gunicorn_dict(_config.log_format, _config.log_level, access=_config.access_log)  # as the app's
access_log_format = '%(h)s "%(m)s %(U)s" %(s)s %(B)s %(L)s request_id=%({x-request-id}o)s'  # never a query string


def child_exit(server: Any, worker: Any) -> None:
    """A gone worker's live gauges (open streams) stop counting in ``/metrics``."""
    exposition.process_dead(worker.pid)
