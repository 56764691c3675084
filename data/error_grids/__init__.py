"""Measured errors of the approximations that remain, against simulation (one CSV per approximation)."""
