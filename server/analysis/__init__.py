"""Offline analysis (odds, RNG statistics, the strategy export): not used by the live server."""
