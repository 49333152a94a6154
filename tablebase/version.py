"""The package's version, written once: the package, its metadata (pyproject.toml) and manifests read it here."""

VERSION = "0.3.0"
