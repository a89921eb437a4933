# One image for both services: the API (gunicorn) and the projector worker (RQ).
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1
WORKDIR /app

COPY pyproject.toml README.md ./
COPY shared ./shared
COPY services ./services
RUN pip install . && useradd --create-home truc
USER truc

EXPOSE 8000
CMD ["python", "-m", "services.api"]
