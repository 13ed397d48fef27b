"""The tests of one part of the library (see the conftest.py beside this file)."""
