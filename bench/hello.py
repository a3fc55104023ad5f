"""The baseline: a bare Flask "hello" endpoint, served by gunicorn exactly as the referee is
(same gunicorn.conf.py, same flags). ``db`` is registered only because gunicorn.conf.py's
post_fork disposes the engine of whatever app it serves.

Served with a ``FLOOR_DATABASE_URL``, the same app also answers ``POST /commit``: the floor of a write
over HTTP. It stores the posted body (a move) and a text of the size of the state a move writes,
in one row, with one durable commit and nothing else: no lock, no read, no rules, no answer
beyond a line. A move answered at the rate of this row would cost nothing but its commit. Each
database commits the cheapest way the project knows:

- PostgreSQL: the ``INSERT`` alone, in autocommit, one round trip (a ``BEGIN`` and a ``COMMIT``
  would be two more);
- SQLite: the store's own group commit (``store.commit_write``), where the writes of a process that
  queued while another held the file lock share one fsync, as moves' do.
"""
import os

from flask import Flask, request
from sqlalchemy import text

from bench.common import OPTIONS, PLAYERS, move_stream
from referee import config, jsonio, store
from referee.app import _engine_options
from referee.models import db
from referee.rules import ninety_nine

app = Flask(__name__)
_url = config.normalise_url(os.environ.get("FLOOR_DATABASE_URL", "sqlite://"))
app.config["SQLALCHEMY_DATABASE_URI"] = _url
if "FLOOR_DATABASE_URL" in os.environ:
    # opened as the referee opens them, with a pool of 16 where the referee's is 30: its server
    # keeps its own connections open beside this one, and PostgreSQL takes 100 at most
    app.config["SQLALCHEMY_ENGINE_OPTIONS"] = {**_engine_options(_url, 10), "pool_size": 16}
db.init_app(app)


@app.get("/hello")
def hello():
    return "hello"


def _state_text(moves: int = 200) -> str:
    """The JSON of a Ninety-nine state after ``moves`` moves of the bench's stream: the size of
    what a move writes to its game's row in bench.throughput (whose games stay that young)."""
    state = ninety_nine.new_game(list(PLAYERS), dict(OPTIONS))
    for move in move_stream(moves):
        state = ninety_nine.GAME.apply(state, move)
    return jsonio.stored(state)


_STORE = text("INSERT INTO floor_writes (body, state) VALUES (:body, :state)")

if "FLOOR_DATABASE_URL" in os.environ:
    STATE = _state_text()
    with app.app_context(), db.engine.begin() as connection:
        key = "INTEGER PRIMARY KEY" if db.engine.dialect.name == "sqlite" else "SERIAL PRIMARY KEY"
        connection.execute(text(f"CREATE TABLE IF NOT EXISTS floor_writes (id {key}, body TEXT, state TEXT)"))


class _Written:
    """What the store's commit group keeps after a commit (a game's state): here nothing."""

    def remember(self) -> None:
        pass


@app.post("/commit")
def commit():
    values = {"body": request.get_data(as_text=True), "state": STATE}
    if db.engine.dialect.name == "postgresql":
        with db.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
            connection.execute(_STORE, values)
    else:
        store.commit_write(lambda: (db.session.execute(_STORE, values), _Written()))
    return "stored\n", 201
