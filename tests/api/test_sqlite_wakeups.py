"""SQLite's wake-ups between processes (``referee.events.Wakeups``, issue 36): a process that commits
a write sends the change to every other process serving the file, which tells its followers at once;
a send never waits, and a socket left by a dead process goes. Across gunicorn masters:
tests/robustness/test_events_across_processes.py."""
from __future__ import annotations

import os
import socket
import stat
import subprocess
import sys
import threading

import pytest
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy.engine import make_url

from referee import events
from referee.events import Change, Follower, Wakeups
from referee.models import db

PLAYERS = ["Ann", "Bob", "Cid"]
SEND = ("import sys\n"
        "from referee.events import Change, Wakeups\n"
        "print(Wakeups(sys.argv[1]).send(Change.parse(sys.argv[2])))\n")


def another_process_sends(folder: str, change: Change, patch_gevent: bool = False) -> int:
    """How many processes a separate Python process's send of ``change`` reached."""
    code = ("from gevent import monkey; monkey.patch_all()\n" if patch_gevent else "") + SEND
    out = subprocess.run([sys.executable, "-c", code, folder, change.payload()], capture_output=True, text=True,
                         timeout=60, check=True)
    return int(out.stdout)


def a_process_socket(folder, name: str) -> socket.socket:
    """A socket bound in the folder as another process's would be (a name of digits, as a pid)."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(os.path.join(folder, name))
    return sock


@pytest.fixture
def wakeups(tmp_path):
    """A listening ``Wakeups`` of this process beside a database file of the test's own."""
    made = Wakeups(Wakeups.folder_for(make_url(f"sqlite:///{tmp_path}/db.sqlite3")))
    assert made.listen()
    yield made
    made.close()


def test_each_sqlite_file_has_its_folder_and_anything_else_has_none(tmp_path):
    assert Wakeups.folder_for(make_url(f"sqlite:///{tmp_path}/a/../db.sqlite3")) == f"{tmp_path}/db.sqlite3-wakeups"
    for url in ("sqlite://", "sqlite:///:memory:", "sqlite:///file:x?mode=memory&uri=true",
                "postgresql+psycopg://u@h/db"):
        assert Wakeups.folder_for(make_url(url)) is None, url


def test_a_change_sent_by_another_process_reaches_this_ones_socket(wakeups):
    assert another_process_sends(wakeups.folder, Change("g1", 4, 4, "move")) == 1
    assert wakeups.receive() == Change("g1", 4, 4, "move")


def test_the_sender_skips_itself_and_removes_a_socket_no_process_holds(wakeups):
    dead = a_process_socket(wakeups.folder, "4000001")
    dead.close()  # its process is gone: the file stays, bound to nobody
    alive = a_process_socket(wakeups.folder, "4000002")
    alive.settimeout(5)
    assert wakeups.send(Change("g1", 1, 1, "move")) == 1  # to the living one, not to itself
    assert set(os.listdir(wakeups.folder)) == {"4000002", str(os.getpid())}
    assert Change.parse(alive.recv(512).decode()) == Change("g1", 1, 1, "move")
    alive.close()


def _dropped_in_metrics(client) -> float:
    for family in text_string_to_metric_families(client.get("/metrics").get_data(as_text=True)):
        if family.name == "referee_wakeups_dropped":
            return sum(sample.value for sample in family.samples if sample.name.endswith("_total"))
    raise AssertionError("referee_wakeups_dropped_total is not in /metrics")


def test_a_full_queue_drops_changes_and_never_blocks_the_writer(wakeups, client):
    """A receiver that reads nothing: its queue fills, and the sends go on, counted as dropped (on
    the wake-ups and in /metrics)."""
    dropped_before = _dropped_in_metrics(client)
    asleep = a_process_socket(wakeups.folder, "4000003")
    reached = []
    sending = threading.Thread(target=lambda: reached.extend(
        wakeups.send(Change("g1", revision, revision, "move")) for revision in range(1, 201)))
    sending.start()
    sending.join(timeout=30)
    assert not sending.is_alive()  # a blocking send would still be waiting
    assert 0 < sum(reached) < 200 and wakeups.dropped == 200 - sum(reached)
    assert _dropped_in_metrics(client) - dropped_before == wakeups.dropped
    asleep.setblocking(False)
    queued = []
    while True:
        try:
            queued.append(Change.parse(asleep.recv(512).decode()).revision)
        except BlockingIOError:
            break
    assert queued == list(range(1, sum(reached) + 1))  # the first ones, in order
    asleep.close()


def test_under_gevent_a_full_queue_never_blocks_the_writer_either(wakeups):
    asleep = a_process_socket(wakeups.folder, "4000004")
    for revision in range(1, 201):  # fill its queue from here
        wakeups.send(Change("g1", revision, revision, "move"))
    assert another_process_sends(wakeups.folder, Change("g1", 201, 201, "move"), patch_gevent=True) == 1  # us
    asleep.close()


def test_a_receiver_that_finds_its_queue_full_says_so_once(wakeups):
    """Its queue full, some wake-ups were probably dropped: the hub then polls soon (``Hub._poll``)."""
    sender = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sender.setblocking(False)
    path = os.path.join(wakeups.folder, str(os.getpid()))
    sent = 0
    while True:  # fill it, as a burst of other processes' writes would
        try:
            sender.sendto(Change("g1", sent + 1, sent + 1, "move").payload().encode(), path)
            sent += 1
        except BlockingIOError:
            break
    assert sent >= wakeups.queue_length
    crowded = []
    for revision in range(1, sent + 1):
        assert wakeups.receive() == Change("g1", revision, revision, "move")
        crowded.append(wakeups.crowded())
    assert crowded.count(True) == 1 and crowded.index(True) == wakeups.queue_length - 1
    sender.sendto(Change("g1", 99, 99, "move").payload().encode(), path)
    assert wakeups.receive() == Change("g1", 99, 99, "move") and not wakeups.crowded()  # one alone
    sender.close()


def test_a_child_forked_after_the_bind_sends_to_its_parent_and_leaves_the_parents_socket(wakeups):
    path = os.path.join(wakeups.folder, str(os.getpid()))
    child = os.fork()
    if child == 0:  # preload_app: a worker forked from a master that had bound
        try:
            reached = wakeups.send(Change("g1", 2, 2, "move"))
            wakeups.close()
        finally:
            os._exit(0 if reached == 1 else 1)
    assert os.waitpid(child, 0)[1] == 0
    assert wakeups.receive() == Change("g1", 2, 2, "move")
    assert stat.S_ISSOCK(os.stat(path).st_mode)


def test_a_receiver_whose_socket_file_went_binds_again(wakeups):
    path = os.path.join(wakeups.folder, str(os.getpid()))
    os.unlink(path)
    assert wakeups.still_bound() and os.path.exists(path)
    assert another_process_sends(wakeups.folder, Change("g1", 3, 3, "undo")) == 1
    assert wakeups.receive() == Change("g1", 3, 3, "undo")


def test_the_folder_is_closed_to_other_users(tmp_path):
    os.mkdir(tmp_path / "open.sqlite3-wakeups", 0o755)
    opened = Wakeups(str(tmp_path / "open.sqlite3-wakeups"))
    assert opened.listen() and stat.S_IMODE(os.stat(opened.folder).st_mode) == 0o700
    opened.close()
    os.mkdir(tmp_path / "elsewhere")
    os.symlink(tmp_path / "elsewhere", tmp_path / "linked.sqlite3-wakeups")
    linked = Wakeups(str(tmp_path / "linked.sqlite3-wakeups"))
    assert not linked.listen() and os.listdir(tmp_path / "elsewhere") == []
    a_process_socket(tmp_path / "elsewhere", "4000005").close()
    assert linked.send(Change("g1", 1, 1, "move")) == 0  # nor does it send through a link


def test_a_folder_whose_path_is_too_long_for_a_socket_means_polling(tmp_path):
    deep = tmp_path / ("d" * 100)
    deep.mkdir()
    too_long = Wakeups(Wakeups.folder_for(make_url(f"sqlite:///{deep}/db.sqlite3")))
    assert not too_long.listen() and not os.path.exists(too_long.folder)


def test_a_wake_up_reaches_a_follower_here_at_once_and_the_poll_runs_as_configured(app):
    """The process's hub, on the suite's SQLite file: a change no row holds (no poll could find it)
    sent by another process reaches the follower."""
    if not app.config["SQLALCHEMY_DATABASE_URI"].startswith("sqlite"):
        pytest.skip("wake-ups are between the processes of one SQLite file")
    follower = events.hub.follow(app, "no-such-game")
    try:
        follower.sent = 0
        assert events.hub.poll_interval() == app.config["EVENTS_POLL_SECONDS"]
        folder = Wakeups.folder_for(make_url(app.config["SQLALCHEMY_DATABASE_URI"]))
        assert another_process_sends(folder, Change("no-such-game", 1, 1, "move")) >= 1
        assert follower.next(timeout=10) == Change("no-such-game", 1, 1, "move")
    finally:
        events.hub.leave(follower)


def test_without_wake_ups_the_poll_runs_four_times_a_second():
    hub = events.Hub()
    hub.poll_seconds = 30.0
    assert hub.poll_interval() == events.POLL_SECONDS


def test_the_poll_does_not_tell_again_what_a_wake_up_or_this_process_told(app, client):
    """A follower woken by a wake-up (or by this process's write) is not woken again by the poll's
    read of the same write: each such wake costs its stream a heartbeat line for nothing."""
    game = client.post("/api/v1/games", json={"game": "ninety-nine", "players": PLAYERS}).get_json()
    hub, told = events.Hub(), []
    hub._polling = True  # as its watcher on a SQLite file would be (not started: it would bind)
    hub._followers[game["id"]] = {Follower(game["id"])}
    hub.publish = told.append
    with app.app_context():
        hub._poll_once(db.engine, [game["id"]], hub._seen)  # first sight: the row as it is
        headers = {"Authorization": f"Bearer {game['token']}"}
        assert client.post(f"/api/v1/games/{game['id']}/moves", headers=headers,
                           json={"type": "play", "player": "Ann", "card": "8C"}).status_code == 201
        hub.told(Change(game["id"], 1, 1, "move"))  # what a wake-up of the write does
        hub._poll_once(db.engine, [game["id"]], hub._seen)
    assert told == [Change(game["id"], 0, 0, "sync")]
