"""Export the exact optimal strategy of each variant as data the clients can read.

The command line of `server.analysis.strategy_export`, which documents the file
and the options:

    python -m tools.export_strategy                  # presets -> presets.bin
    python -m tools.export_strategy --check          # exit 1 if the file is stale
    python -m tools.export_strategy --config my.toml --variant house-rules
                                                     # -> house-rules.bin
"""

from __future__ import annotations

import sys

from server.analysis.strategy_export import main

__all__ = ["main"]

if __name__ == "__main__":
    sys.exit(main())
