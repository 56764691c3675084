"""Example scenario files for ``iosizer run`` (TOML)."""
