import sys

from optimaltrees.cli import main

sys.exit(main())
