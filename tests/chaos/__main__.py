"""`python -m tests.chaos --seconds N --seed S`: one chaos run, its report printed;
exit status 1 on any violation."""

from tests.chaos.run import main

raise SystemExit(main())
