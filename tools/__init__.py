"""Developer tools: generators run from the repository root (`python -m tools.NAME`)."""
