"""The baseline: a bare Flask "hello" endpoint, served by gunicorn exactly as the referee is
(same gunicorn.conf.py, same flags). ``db`` is registered only because gunicorn.conf.py's
post_fork disposes the engine of whatever app it serves."""
from flask import Flask

from referee.models import db

app = Flask(__name__)
app.config["SQLALCHEMY_DATABASE_URI"] = "sqlite://"
db.init_app(app)


@app.get("/hello")
def hello():
    return "hello"
