"""The test suite: one folder per part of the library; the helper modules beside conftest.py."""
