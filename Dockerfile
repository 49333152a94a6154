FROM python:3.11-slim
WORKDIR /app
COPY pyproject.toml README.md ./
COPY tablebase ./tablebase
COPY jobs ./jobs
RUN pip install --no-cache-dir '.[build]'
