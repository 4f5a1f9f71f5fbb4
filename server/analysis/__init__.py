"""Offline analysis (exact odds, RNG statistics): not used by the live server."""
