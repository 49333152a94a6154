import sys

from tablebase.cli import main

sys.exit(main())
