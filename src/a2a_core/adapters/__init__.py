"""Executors that host agents written with other frameworks (each needs its framework installed)."""
