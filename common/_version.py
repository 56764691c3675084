"""The version of iosizer, in the bottom layer so every layer may read it."""

__version__ = "0.1.0"
