"""WSGI entry point: ``gunicorn wsgi:app``."""
from referee import create_app

app = create_app()
