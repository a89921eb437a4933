"""The WSGI entry point gunicorn serves: ``gunicorn services.api.wsgi:app``."""
from shared.config import Config

from . import create_app

app = create_app(Config.from_env())
