"""What the tests share: the host tests (tests/*.py) and the VM harness
(tests/vm/rkvm.py, which hands these names on to the VM tests).

  checks   Checks (ok/FAIL lines, the exit status), skips, TestError
  waits    polling waits with bounds scaled by how slow the machine runs
  images   Image; PNG, PPM and --output-heights' PGM files; comparisons and
           the bounds a screendump is judged by
  program  the program run headless on the host, a free port, CPU ticks

A test in tests/ imports them as `from lib import checks` (its own folder
is on Python's path); rkvm.py puts tests/ on the path for the VM tests.
Python 3 standard library only."""
